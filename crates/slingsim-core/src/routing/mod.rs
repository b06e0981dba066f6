//! Routing algorithms (MODEL.md Sec. 4). The decision is taken at the source
//! switch and carried by the packet; later switches follow it.

pub mod dragonfly;

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
}

/// Names accepted in `routing.algorithm`.
pub const NAMES: &[&str] = &["minimal", "valiant", "ugal"];

impl Algorithm {
    /// Parses `routing.algorithm`.
    pub fn parse(name: &str) -> Result<Algorithm> {
        match name {
            "minimal" => Ok(Algorithm::Minimal),
            "valiant" => Ok(Algorithm::Valiant),
            "ugal" => Ok(Algorithm::Ugal),
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
            Algorithm::Minimal => 3,
            Algorithm::Valiant | Algorithm::Ugal => 5,
        }
    }
}
