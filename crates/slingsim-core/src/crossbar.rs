//! The switch's inside, as a config chooses it (MODEL.md Sec. 2): which
//! arbitration model runs (`switch.model`) and, for the tiled one, the grid
//! of tiles the ports sit on. The engine side is `engine/tiled.rs`.

use crate::names::Named;

/// How a switch arbitrates between its inputs (`switch.model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SwitchModel {
    /// One set of virtual output queues per output holding every input's
    /// packets; the output grants the oldest ready head. The simpler, faster
    /// model (docs/model.md, "Output arbitration by age across inputs").
    #[default]
    PerOutput,
    /// Rosetta as built (000 Sec. II-A, Fig. 1; 002 Sec. II-D): request
    /// queues per input port, the row bus of each input, the column channel
    /// from each row to each output, request/grant fair among rows.
    Tiled,
}

impl Named for SwitchModel {
    const WHAT: &'static str = "switch model";
    const REGISTRY: &'static [(&'static str, Self)] = &[("per-output", SwitchModel::PerOutput), ("tiled", SwitchModel::Tiled)];
}
crate::named_serde!(SwitchModel);

/// Which tile row a topology's port is cabled to (`switch.port_rows`).
/// The papers number Rosetta's physical ports row by row (000 Fig. 1:
/// port 19 on row 1, port 56 on row 3) but do not say which physical port a
/// host link or a local or global cable uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PortRows {
    /// Consecutive tiles alternate rows: any run of consecutive topology
    /// ports (a switch's host ports, its local links, its global links) is
    /// spread over every row. The default: with `in-order` a Slingshot
    /// switch's 16 host ports share one row, so all its injected traffic
    /// gets one row's turn at every output (docs/model.md measures it).
    #[default]
    Interleaved,
    /// Topology port `p` on physical port `p`: rows filled in order.
    InOrder,
}

impl Named for PortRows {
    const WHAT: &'static str = "port-to-row placement";
    const REGISTRY: &'static [(&'static str, Self)] = &[("interleaved", PortRows::Interleaved), ("in-order", PortRows::InOrder)];
}
crate::named_serde!(PortRows);

/// How a tiled switch's output picks among the packets waiting for it
/// (`switch.arbitration`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Arbitration {
    /// Rows in turn, and within a row the packet that reached this switch
    /// first: locally fair, so inputs near a congested output take as much
    /// of it as a link that carries the traffic of many inputs further
    /// back (the parking-lot unfairness).
    #[default]
    Arrival,
    /// The packet injected into the network first, whatever its row: a
    /// packet that waited upstream keeps its age. The papers do not say
    /// how Rosetta arbitrates; this is an option, not a preset's choice.
    Age,
}

impl Named for Arbitration {
    const WHAT: &'static str = "switch arbitration";
    const REGISTRY: &'static [(&'static str, Self)] = &[("arrival", Arbitration::Arrival), ("age", Arbitration::Age)];
}
crate::named_serde!(Arbitration);

/// Which virtual channel a per-output switch serves first when several
/// have a packet ready (`switch.vc_priority`). VCs are hop classes (the
/// packet's switch-to-switch hops so far, MODEL.md Sec. 2), so this ranks
/// packets by how far they have come. Not a Slingshot or Aries mechanism:
/// it reproduces how other simulators' routers arbitrate, so a study can
/// show what their results owe to it (docs/model.md, "VC priority").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum VcPriority {
    /// No VC ranks above another: the oldest ready head wins, whatever its
    /// VC (the engine's arbitration).
    #[default]
    None,
    /// The VC of the fewest hops first, then the oldest head: packets still
    /// near their source pass packets in transit. CODES' dragonfly-dally and
    /// dragonfly-plus routers serve their lowest VC first
    /// (`get_next_router_vcg`).
    FewestHops,
    /// The VC of the most hops first, then the oldest head: packets nearest
    /// their destination drain first. CODES' Slim Fly router serves its
    /// highest VC first (`slim_router_packet_send`).
    MostHops,
}

impl Named for VcPriority {
    const WHAT: &'static str = "VC priority";
    const REGISTRY: &'static [(&'static str, Self)] =
        &[("none", VcPriority::None), ("fewest-hops", VcPriority::FewestHops), ("most-hops", VcPriority::MostHops)];
}
crate::named_serde!(VcPriority);

impl VcPriority {
    /// Whether a head on VC `vc` that became ready at `ready` wins over the
    /// best so far, on VC `best_vc` and ready at `best_ready`; a VC's hop
    /// class is its index modulo `hop_vcs` (computed only when a priority
    /// is set: the default's comparison is the engine's hottest).
    #[inline]
    pub fn beats(self, vc: usize, ready: crate::units::Ps, best_vc: usize, best_ready: crate::units::Ps, hop_vcs: usize) -> bool {
        match self {
            VcPriority::None => ready < best_ready,
            VcPriority::FewestHops => (vc % hop_vcs, ready) < (best_vc % hop_vcs, best_ready),
            VcPriority::MostHops => (std::cmp::Reverse(vc % hop_vcs), ready) < (std::cmp::Reverse(best_vc % hop_vcs), best_ready),
        }
    }
}

/// Most tile rows a grid may have (Aries has 6, Rosetta 4): the arbiter
/// keeps one candidate per row on the stack.
pub const MAX_ROWS: u32 = 8;

/// The tile grid of a tiled switch: `rows` x `columns` tiles with
/// `ports_per_tile` ports each, numbered row by row. Rosetta: 4 x 8 tiles
/// of 2 ports (000 Sec. II-A); Aries: 6 x 8 tiles of 1 port (004 Sec. 2.1
/// gives 48 tiles, one link each; the 6 x 8 arrangement is the Aries
/// router's). *Assumption*: switch port `p` sits on tile
/// `p / ports_per_tile`, rows filled in order; the papers do not say which
/// physical port a topology's port is cabled to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileGrid {
    pub rows: u32,
    pub columns: u32,
    pub ports_per_tile: u32,
    pub placement: PortRows,
}

impl TileGrid {
    /// Ports the grid holds.
    pub fn ports(&self) -> u32 {
        self.rows * self.columns * self.ports_per_tile
    }

    /// Row of the tile port `port` sits on (`port < self.ports()`).
    pub fn row_of(&self, port: u32) -> u32 {
        let tile = port / self.ports_per_tile;
        match self.placement {
            PortRows::InOrder => tile / self.columns,
            PortRows::Interleaved => tile % self.rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rosetta_ports_fill_rows_of_sixteen() {
        let g = TileGrid { rows: 4, columns: 8, ports_per_tile: 2, placement: PortRows::InOrder };
        assert_eq!(g.ports(), 64);
        assert_eq!((g.row_of(0), g.row_of(15), g.row_of(16), g.row_of(63)), (0, 0, 1, 3));
        // 000 Fig. 1's example: port 19 is on row 1, port 56 on row 3.
        assert_eq!((g.row_of(19), g.row_of(56)), (1, 3));
        let aries = TileGrid { rows: 6, columns: 8, ports_per_tile: 1, placement: PortRows::InOrder };
        assert_eq!((aries.ports(), aries.row_of(47)), (48, 5));
    }

    #[test]
    fn interleaved_ports_spread_a_run_of_sixteen_over_every_row() {
        let g = TileGrid { rows: 4, columns: 8, ports_per_tile: 2, placement: PortRows::Interleaved };
        let mut per_row = [0; 4];
        for p in 0..16 {
            per_row[g.row_of(p) as usize] += 1;
        }
        assert_eq!(per_row, [4, 4, 4, 4]);
        let mut per_row = [0; 4];
        for p in 0..64 {
            per_row[g.row_of(p) as usize] += 1;
        }
        assert_eq!(per_row, [16, 16, 16, 16], "each row still holds 16 ports");
    }

    #[test]
    fn a_bad_model_name_lists_the_valid_ones() {
        let e = SwitchModel::from_name("crossbar").unwrap_err();
        assert_eq!(e, "unknown switch model \"crossbar\"; choose one of: per-output, tiled");
    }
}
