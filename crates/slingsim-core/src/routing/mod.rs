//! Routing algorithms (MODEL.md Sec. 4). The decision is taken at the source
//! switch and carried by the packet; later switches follow it.

pub mod adaptive;
pub mod deadlock;
pub mod dragonfly;
pub mod graph;

use crate::error::{ConfigError, Result};
use crate::units::Ps;
pub use crate::names::Named;

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
    /// Slingshot adaptive routing (paper 000 Sec. II-C): at the source
    /// switch, up to 4 candidate paths (2 minimal, 2 non-minimal), cost =
    /// load x length, plus `routing.bias_bytes` on non-minimal paths.
    Slingshot,
    /// Aries ADAPTIVE_0..3 (paper 004 Sec. 2.2): 2 minimal + 2 non-minimal
    /// candidates with no bias (0), a bias growing hop by hop (1: decided
    /// at the source, reconsidered one hop later with more bias), a low
    /// bias (2) or a high bias (3).
    Adaptive(u8),
    /// Always minimal, the path a hash of (source, destination, message).
    MinHash,
    /// Always non-minimal, intermediate and path a hash of the same.
    NminHash,
    /// Always minimal on one fixed path per node pair: delivers in order.
    InOrder,
}

/// Every algorithm, in the order of its registry (a packet carries its index).
pub const ALL: [Algorithm; 13] = [
    Algorithm::Minimal,
    Algorithm::Valiant,
    Algorithm::Ugal,
    Algorithm::Par,
    Algorithm::MinimalAdaptive,
    Algorithm::Slingshot,
    Algorithm::Adaptive(0),
    Algorithm::Adaptive(1),
    Algorithm::Adaptive(2),
    Algorithm::Adaptive(3),
    Algorithm::MinHash,
    Algorithm::NminHash,
    Algorithm::InOrder,
];

impl Named for Algorithm {
    const WHAT: &'static str = "routing algorithm";
    const REGISTRY: &'static [(&'static str, Self)] = &[
        ("minimal", Algorithm::Minimal),
        ("valiant", Algorithm::Valiant),
        ("ugal", Algorithm::Ugal),
        ("par", Algorithm::Par),
        ("minimal-adaptive", Algorithm::MinimalAdaptive),
        ("slingshot", Algorithm::Slingshot),
        ("adaptive-0", Algorithm::Adaptive(0)),
        ("adaptive-1", Algorithm::Adaptive(1)),
        ("adaptive-2", Algorithm::Adaptive(2)),
        ("adaptive-3", Algorithm::Adaptive(3)),
        ("min-hash", Algorithm::MinHash),
        ("nmin-hash", Algorithm::NminHash),
        ("in-order", Algorithm::InOrder),
    ];
}
crate::named_serde!(Algorithm);

impl Algorithm {
    /// The algorithm named `name` (a routing mode given outside a config,
    /// e.g. per message through the API), or an error on `routing.algorithm`.
    pub fn parse(name: &str) -> Result<Algorithm> {
        Algorithm::from_name(name).map_err(|m| ConfigError::new("routing.algorithm", m))
    }

    /// Longest path in switch-to-switch hops on a 1D dragonfly, which is
    /// also the number of virtual channels the hop-indexed VC scheme needs.
    pub fn max_hops_dragonfly(self) -> u32 {
        match self.path_class() {
            PathClass::Minimal => 3,
            PathClass::Valiant => 5,
            PathClass::Progressive => 6,
        }
    }

    /// Which path lengths the algorithm can produce.
    pub fn path_class(self) -> PathClass {
        use Algorithm::*;
        match self {
            Minimal | MinimalAdaptive | MinHash | InOrder => PathClass::Minimal,
            Valiant | Ugal | Slingshot | NminHash | Adaptive(0) | Adaptive(2) | Adaptive(3) => PathClass::Valiant,
            Par | Adaptive(_) => PathClass::Progressive,
        }
    }

    /// Compact code carried by every packet (its routing mode).
    pub fn code(self) -> u8 {
        ALL.iter().position(|&a| a == self).expect("every algorithm is listed") as u8
    }

    /// The algorithm of a packet's code.
    #[inline]
    pub fn from_code(code: u8) -> Algorithm {
        ALL[code as usize]
    }

    /// Hops after which PAR no longer reconsiders (source switch and the next).
    pub const PAR_LAST_DECISION_HOP: u8 = 1;

    /// True for the algorithms that may take non-minimal paths.
    pub fn nonminimal(self) -> bool {
        self.path_class() != PathClass::Minimal
    }
}

/// Path lengths an algorithm produces, which set its VC budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathClass {
    /// Shortest paths only.
    Minimal,
    /// Minimal or through one intermediate chosen at the source.
    Valiant,
    /// May turn non-minimal one hop after the source (PAR, ADAPTIVE_1).
    Progressive,
}

/// Which minimal paths the adaptive modes that compare two minimal
/// candidates (`slingshot`, `adaptive-0` to `adaptive-3`) draw from, on
/// topologies whose groups are joined by several global links
/// (`routing.minimal_paths`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MinimalPaths {
    /// Both candidates among the paths of the fewest switch hops.
    #[default]
    Shortest,
    /// The first among the fewest switch hops, the second over any of the
    /// global links between the two groups (at most local, global, local
    /// on the dragonfly; up to 2 + 1 + 2 router hops on Aries): a minimal
    /// path is one with one global hop ([Roweth] Sec. III; [DeSensi19]
    /// Sec. 3.3: minimal packets take paths "with a different number of
    /// hops").
    OneGlobalHop,
}

impl Named for MinimalPaths {
    const WHAT: &'static str = "set of minimal paths";
    const REGISTRY: &'static [(&'static str, Self)] = &[("shortest", MinimalPaths::Shortest), ("one-global-hop", MinimalPaths::OneGlobalHop)];
}
crate::named_serde!(MinimalPaths);

/// Biases toward minimal paths, in byte-hops added to non-minimal costs.
#[derive(Clone, Copy, Debug)]
pub struct Biases {
    pub ugal: f64,
    pub slingshot: f64,
    pub aries_low: f64,
    pub aries_high: f64,
}

impl Biases {
    /// Bias of an adaptive algorithm at a packet's hop count.
    pub fn of(&self, alg: Algorithm, hops: u8) -> f64 {
        match alg {
            Algorithm::Ugal | Algorithm::Par => self.ugal,
            Algorithm::Slingshot => self.slingshot,
            Algorithm::Adaptive(0) => 0.0,
            // ADAPTIVE_1, "increasingly minimal bias": the bias grows as the
            // packet approaches its destination ([DeSensi19] Sec. 2.2). How
            // fast is not published: it starts at the low bias and doubles
            // with each hop taken up to the high one *(assumed)*.
            Algorithm::Adaptive(1) => (self.aries_low * f64::from(1u32 << hops.min(16))).min(self.aries_high.max(self.aries_low)),
            Algorithm::Adaptive(2) => self.aries_low,
            _ => self.aries_high,
        }
    }
}

/// Seed of the hash-routed modes: a hash of the node pair, and of the
/// message too for MIN_HASH and NMIN_HASH.
#[inline]
pub fn flow_hash(alg: Algorithm, src: u32, dst: u32, created: Ps) -> u64 {
    let mut h = (src as u64) << 32 | dst as u64;
    if alg != Algorithm::InOrder {
        h ^= created.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    h
}

impl Algorithm {
    /// True for the modes that take their path from a flow hash.
    pub fn hashed(self) -> bool {
        matches!(self, Algorithm::MinHash | Algorithm::NminHash | Algorithm::InOrder)
    }

    /// True for the modes that compare candidate paths by load.
    pub fn adaptive_candidates(self) -> bool {
        matches!(self, Algorithm::Slingshot | Algorithm::Adaptive(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_codes_and_algorithms_agree() {
        assert_eq!(Algorithm::REGISTRY.len(), ALL.len());
        for (i, name) in Algorithm::names().iter().enumerate() {
            let a = Algorithm::parse(name).unwrap();
            assert_eq!(a, ALL[i]);
            assert_eq!(Algorithm::from_code(a.code()), a);
        }
        assert_eq!(Algorithm::parse("adaptive-9").unwrap_err().field, "routing.algorithm");
    }
}
