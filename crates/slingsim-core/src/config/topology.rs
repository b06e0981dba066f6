//! `[topology]` and `[cost]`: the network's shape and its unit prices.

use serde::{Deserialize, Serialize};

/// Unit prices for the cost analytics (defaults: paper 003 Table 4, EDR).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CostConfig {
    /// Price of one link (cable), terminal links included.
    pub link_usd: f64,
    /// Price of one router (switch).
    pub router_usd: f64,
}

impl Default for CostConfig {
    fn default() -> Self {
        CostConfig { link_usd: 134.0, router_usd: 25_633.0 }
    }
}

/// Topology family and its parameters (MODEL.md Sec. 3).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct TopologyConfig {
    /// Topology family: `dragonfly`, `slimfly`, `fitfly`, `megafly`, `fattree` or `aries`.
    pub kind: crate::topology::Family,
    /// Groups g.
    pub groups: u32,
    /// Switches per group a.
    pub switches_per_group: u32,
    /// Endpoint ports per switch p.
    pub endpoints_per_switch: u32,
    /// Parallel local links between each pair of switches of a group.
    pub local_links_per_pair: u32,
    /// Global ports per switch h.
    pub global_ports_per_switch: u32,
    /// Links per pair of groups; `None` = as many as the ports allow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_links_per_group_pair: Option<u32>,
    /// Fraction of the maximum links per group pair that is cabled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taper: Option<f64>,
    /// Global wiring: `consecutive` or `round-robin`.
    pub arrangement: String,
    /// Where a group that cables fewer global ports than it has puts the
    /// cabled ones: `fill` (its switches in order) or `spread` (over all
    /// its switches, as evenly as the count allows).
    pub cabling: String,
    /// Ports per switch (Rosetta: 64).
    pub radix: u32,
    /// Populated nodes; `None` = every endpoint port / rails.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// NIC rails per node (per plane for multi-plane families).
    pub rails: u32,
    /// Slim Fly / Fit Fly: prime power q of the MMS graph (2q^2 routers per plane).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub q: Option<u32>,
    /// Fit Fly: independent router planes, one rail per plane per node.
    pub planes: u32,
    /// Megafly: leaf routers (endpoints, up links) per group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaves_per_group: Option<u32>,
    /// Megafly: spine routers (down links, global links) per group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spines_per_group: Option<u32>,
    /// Aries: rows (chassis) and columns (slots) of routers in a group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub columns: Option<u32>,
    /// Aries: parallel links between two routers of a row / of a column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row_links: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column_links: Option<u32>,
}

impl Default for TopologyConfig {
    fn default() -> Self {
        TopologyConfig {
            kind: crate::topology::Family::Dragonfly,
            groups: 4,
            switches_per_group: 8,
            endpoints_per_switch: 16,
            local_links_per_pair: 1,
            global_ports_per_switch: 6,
            global_links_per_group_pair: None,
            taper: None,
            arrangement: "consecutive".into(),
            cabling: "fill".into(),
            radix: 64,
            nodes: None,
            rails: 1,
            q: None,
            planes: 1,
            leaves_per_group: None,
            spines_per_group: None,
            rows: None,
            columns: None,
            row_links: None,
            column_links: None,
        }
    }
}
