//! `[[traffic]]`: one named synthetic traffic source.

use serde::{Deserialize, Serialize};

/// One named synthetic traffic source (MODEL.md Sec. 7).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrafficConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub pattern: crate::traffic::PatternKind,
    /// `bernoulli` (a message per message-slot with probability `load`),
    /// `poisson` (exponential gaps of mean slot / load), `periodic` (gaps of
    /// exactly slot / load from a random phase) or `periodic-aligned` (the
    /// same gaps, every node starting at the source's start).
    pub process: crate::traffic::Process,
    pub load: f64,
    pub message_bytes: u64,
    /// Mean time between a node's messages, instead of `load`: each node
    /// sends `message_bytes` every `interval_ns` on average, so the message
    /// size sets the intensity ([McGlohon19] Sec. 6.1.3: 100 us).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_ns: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_bytes: Option<u64>,
    pub flows_per_node: u32,
    pub start_ns: f64,
    /// `"all"`, `{count}`, `{fraction}` or `{list}`; parsed by `traffic::nodes`.
    pub nodes: serde_json::Value,
    pub placement: crate::traffic::nodes::Placement,
    pub target: u32,
    /// Routing mode of this source's packets (default: `routing.algorithm`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<crate::routing::Algorithm>,
    /// Traffic class by name, or by DSCP code point (`dscp`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dscp: Option<u32>,
    /// Bernoulli sources stop generating at this time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_ns: Option<f64>,
}

impl Default for TrafficConfig {
    fn default() -> Self {
        TrafficConfig {
            name: None,
            pattern: crate::traffic::PatternKind::Uniform,
            process: crate::traffic::Process::Bernoulli,
            load: 0.5,
            message_bytes: 4096,
            interval_ns: None,
            flow_bytes: None,
            flows_per_node: 1,
            start_ns: 0.0,
            nodes: serde_json::Value::String("all".into()),
            placement: crate::traffic::nodes::Placement::Linear,
            target: 0,
            routing: None,
            class: None,
            dscp: None,
            stop_ns: None,
        }
    }
}
