//! `[links]`: bandwidths, latencies, errors, degraded and failed cables.

use crate::error::{ConfigError, Result};
use serde::{Deserialize, Serialize};

/// Link parameters (MODEL.md Sec. 2).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkConfig {
    /// Switch-to-switch bandwidth, bits/s.
    pub bandwidth_bps: f64,
    pub terminal_latency_ns: f64,
    pub local_latency_ns: f64,
    pub global_latency_ns: f64,
    /// FEC latency added on every link traversal *(assumed 50 ns: with the
    /// switch's fall-through and a 2 m cable it makes the 350 ns hop of
    /// [DeSensi20] Fig. 2; docs/model.md)*.
    pub fec_latency_ns: f64,
    /// Bandwidth of global (inter-group) links if it differs from
    /// `bandwidth_bps` (Aries: optical 4.7 GB/s against electrical 5.25 GB/s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_bandwidth_bps: Option<f64>,
    /// Bit-error rate of every link; a corrupted packet is replayed by
    /// link-level retry (paper 000 Sec. II-F), costing a link round trip.
    pub bit_error_rate: f64,
    /// Links running on fewer than 4 lanes: `[{switch, port, lanes}]`.
    pub degraded: Vec<DegradedLink>,
    /// Links that fail: `[{switch, port, at_ns}]`; both directions drop
    /// every packet from `at_ns` on.
    pub failed: Vec<FailedLink>,
    /// Cables drawn at random (with `sim.seed`) to fail besides `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub random_failures: Option<RandomFailures>,
    /// The fabric manager's reaction time: this long after links fail
    /// during the run, routes leave them out (none: they stay in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reroute_after_ns: Option<f64>,
}

/// Switch-to-switch cables drawn at random to fail (`links.random_failures`):
/// `count` of them or a `fraction` of those of `kind`, drawn with
/// `sim.seed` from the cables `links.failed` does not list.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RandomFailures {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction: Option<f64>,
    #[serde(default)]
    pub kind: CableKind,
    #[serde(default)]
    pub at_ns: f64,
}

/// Which switch-to-switch cables a random draw takes
/// (`links.random_failures.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CableKind {
    #[default]
    Global,
    Local,
    /// Any switch-to-switch cable.
    Any,
}

impl crate::names::Named for CableKind {
    const WHAT: &'static str = "cable kind";
    const REGISTRY: &'static [(&'static str, Self)] = &[("global", CableKind::Global), ("local", CableKind::Local), ("any", CableKind::Any)];
}
crate::named_serde!(CableKind);

impl CableKind {
    /// Whether a switch-to-switch link of kind `k` is one of these.
    pub fn takes(self, k: crate::network::LinkKind) -> bool {
        use crate::network::LinkKind;
        match self {
            CableKind::Global => k == LinkKind::Global,
            CableKind::Local => k == LinkKind::Local,
            CableKind::Any => k != LinkKind::Terminal,
        }
    }
}

impl RandomFailures {
    /// Checks what the config alone can tell (the count against the
    /// network's cables is checked when it is built).
    pub(super) fn check(&self) -> Result<()> {
        use crate::limits::{check, TIME_NS};
        let f = "links.random_failures";
        match (self.count, self.fraction) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(ConfigError::new(f, "give either count (cables) or fraction (of the cables of its kind), not both or neither"))
            }
            (Some(0), None) => return Err(ConfigError::new(format!("{f}.count"), "must be 1 or more cables; leave random_failures out for none")),
            (None, Some(x)) if !(x > 0.0 && x <= 1.0) => {
                return Err(ConfigError::new(format!("{f}.fraction"), format!("must be in (0, 1] (a fraction of the cables), got {x}")))
            }
            _ => {}
        }
        check(&format!("{f}.at_ns"), self.at_ns, &TIME_NS)
    }
}

/// A cable that goes down at `at_ns` (both directions).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FailedLink {
    pub switch: u32,
    pub port: u32,
    #[serde(default)]
    pub at_ns: f64,
}

/// A cable running on `lanes` of its 4 lanes (lane degrade, paper 002
/// Sec. II-B): both directions at lanes/4 of the bandwidth.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DegradedLink {
    pub switch: u32,
    pub port: u32,
    pub lanes: u32,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            bandwidth_bps: 200e9,
            terminal_latency_ns: 10.0,
            local_latency_ns: 10.0,
            global_latency_ns: 100.0,
            fec_latency_ns: 50.0,
            global_bandwidth_bps: None,
            bit_error_rate: 0.0,
            degraded: Vec::new(),
            failed: Vec::new(),
            random_failures: None,
            reroute_after_ns: None,
        }
    }
}
