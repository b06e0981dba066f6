//! `[[classes]]` and `[qos]`: traffic classes and the arbitration between them.

use serde::{Deserialize, Serialize};

/// One traffic class (MODEL.md Sec. 6, paper 000 Sec. III-B).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClassConfig {
    pub name: String,
    /// DSCP code point that selects this class (0-63).
    pub dscp: u32,
    /// Higher is served first among classes under their minimum share.
    pub priority: u32,
    /// Guaranteed and maximum fractions of each link's bandwidth.
    pub min_share: f64,
    pub max_share: f64,
    /// Ordered classes route deterministically (in-order delivery).
    pub ordered: bool,
    /// Lossy classes drop a packet that finds its output queue full
    /// instead of waiting (no back-pressure).
    pub lossy: bool,
    /// Routing mode of the class's packets (default: the source's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<crate::routing::Algorithm>,
    /// Minimal-path bias of the class (default: `routing.bias_bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bias_bytes: Option<f64>,
}

impl Default for ClassConfig {
    fn default() -> Self {
        ClassConfig { name: String::new(), dscp: 0, priority: 0, min_share: 0.0, max_share: 1.0, ordered: false, lossy: false, routing: None, bias_bytes: None }
    }
}

/// Output arbitration between traffic classes.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct QosConfig {
    /// Time constant of the moving average of each class's share of a link.
    pub window_ns: f64,
    /// A lossy class drops a packet whose output queue (its VC) already
    /// holds this many bytes.
    pub lossy_queue_bytes: u64,
}

impl Default for QosConfig {
    fn default() -> Self {
        QosConfig { window_ns: 2_000.0, lossy_queue_bytes: 32_768 }
    }
}
