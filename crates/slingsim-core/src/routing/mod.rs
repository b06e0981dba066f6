//! Routing algorithms (MODEL.md Sec. 4). The decision is taken at the source
//! switch and carried by the packet; later switches follow it.

pub mod deadlock;
pub mod dragonfly;
pub mod graph;

use crate::error::{ConfigError, Result};

/// A routing algorithm, chosen by name in `routing.algorithm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Random among shortest paths.
    Minimal,
    /// Through a random intermediate group (or switch, inside a group).
    Valiant,
    /// Per packet at the source switch: minimal unless its local queue
    /// estimate times path length exceeds the Valiant candidate's (UGAL-L).
    Ugal,
    /// Progressive adaptive routing (PAR): the UGAL choice at the source
    /// switch, reconsidered at the next switch if the packet is still
    /// minimal and still in its source group, so congestion seen one hop
    /// later can still divert it. One more hop than Valiant, one more VC.
    Par,
    /// Shortest paths, choosing the least occupied next hop (on a fat tree:
    /// up/down routing with an adaptive choice among the up ports).
    MinimalAdaptive,
}

/// Names accepted in `routing.algorithm`.
pub const NAMES: &[&str] = &["minimal", "valiant", "ugal", "par", "minimal-adaptive"];

impl Algorithm {
    /// Parses `routing.algorithm`.
    pub fn parse(name: &str) -> Result<Algorithm> {
        match name {
            "minimal" => Ok(Algorithm::Minimal),
            "valiant" => Ok(Algorithm::Valiant),
            "ugal" => Ok(Algorithm::Ugal),
            "par" => Ok(Algorithm::Par),
            "minimal-adaptive" => Ok(Algorithm::MinimalAdaptive),
            other => Err(ConfigError::new(
                "routing.algorithm",
                format!("unknown routing algorithm {other:?}; choose one of: {}", NAMES.join(", ")),
            )),
        }
    }

    /// Longest path in switch-to-switch hops on a 1D dragonfly, which is
    /// also the number of virtual channels the hop-indexed VC scheme needs.
    pub fn max_hops_dragonfly(self) -> u32 {
        match self {
            Algorithm::Minimal | Algorithm::MinimalAdaptive => 3,
            Algorithm::Valiant | Algorithm::Ugal => 5,
            Algorithm::Par => 6,
        }
    }

    /// Hops after which PAR no longer reconsiders (source switch and the next).
    pub const PAR_LAST_DECISION_HOP: u8 = 1;

    /// True for the algorithms that may take non-minimal paths.
    pub fn nonminimal(self) -> bool {
        matches!(self, Algorithm::Valiant | Algorithm::Ugal | Algorithm::Par)
    }
}
