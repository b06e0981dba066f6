//! `[switch]`: buffers, latency and the crossbar model.

use serde::{Deserialize, Serialize};

/// Switch parameters (Rosetta defaults, MODEL.md Sec. 2).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchConfig {
    /// Mean fall-through latency, input to output, FEC excluded. With the
    /// 50 ns of FEC and 10 ns of cable a hop costs 350 ns on average, the
    /// mean and median of [DeSensi20] Fig. 2.
    pub latency_ns: f64,
    /// Fall-through differs by output port ([Roweth] Sec. II-F: 308-327 ns
    /// "depending on the combination of ports used", a width of 6% of the
    /// mean): each output of each switch takes a fixed latency drawn
    /// uniformly from a range this fraction of `latency_ns` wide, centred
    /// on it (0.07: 290 +- 10 ns). 0 gives every output the same latency.
    pub latency_spread_fraction: f64,
    /// Input buffer per port, split over the virtual channels.
    pub buffer_bytes: u32,
    /// Input buffer of a port facing a NIC, if it differs from
    /// `buffer_bytes` (CODES sizes it apart, `cn_vc_size`); each traffic
    /// class keeps its share of it. `None`: `buffer_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_buffer_bytes: Option<u32>,
    /// Crossbar speedup over the port rate: an input port moves a packet
    /// across the switch at `speedup` x its port rate (Rosetta: 4, 002
    /// Sec. II-D; the presets set it with the tiled model).
    pub speedup: f64,
    /// Arbitration model: `per-output` (default: the faster model the
    /// golden outputs were made with) or `tiled` (Rosetta as built,
    /// [`crate::crossbar`]).
    pub model: crate::crossbar::SwitchModel,
    /// Tile grid of the tiled model: rows, columns, ports per tile
    /// (Rosetta 4 x 8 x 2, 000 Sec. II-A; Aries 6 x 8 x 1).
    pub tile_rows: u32,
    pub tile_columns: u32,
    pub ports_per_tile: u32,
    /// Which row each topology port sits on: `interleaved` (default) or
    /// `in-order` ([`crate::crossbar::PortRows`]).
    pub port_rows: crate::crossbar::PortRows,
    /// How the tiled model's outputs choose among waiting packets:
    /// `arrival` (default: rows in turn, then the first to reach the
    /// switch) or `age` (the first injected into the network)
    /// ([`crate::crossbar::Arbitration`]).
    pub arbitration: crate::crossbar::Arbitration,
    /// Which VC the per-output model serves first among ready heads:
    /// `none` (default: the oldest head), `fewest-hops` or `most-hops`
    /// ([`crate::crossbar::VcPriority`]; other simulators' arbitration, for
    /// comparing with their results).
    pub vc_priority: crate::crossbar::VcPriority,
}

impl Default for SwitchConfig {
    fn default() -> Self {
        SwitchConfig {
            latency_ns: 290.0,
            latency_spread_fraction: 0.07,
            buffer_bytes: 131_072,
            terminal_buffer_bytes: None,
            speedup: 2.0,
            model: crate::crossbar::SwitchModel::PerOutput,
            tile_rows: 4,
            tile_columns: 8,
            ports_per_tile: 2,
            port_rows: crate::crossbar::PortRows::Interleaved,
            arbitration: crate::crossbar::Arbitration::Arrival,
            vc_priority: crate::crossbar::VcPriority::None,
        }
    }
}

impl SwitchConfig {
    /// The tile grid the tiled model places the ports on.
    pub fn grid(&self) -> crate::crossbar::TileGrid {
        crate::crossbar::TileGrid { rows: self.tile_rows, columns: self.tile_columns, ports_per_tile: self.ports_per_tile, placement: self.port_rows }
    }
}
