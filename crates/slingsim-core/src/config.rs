//! The simulation config: every key with its default, declared once here
//! (see docs/config.md). Configs arrive as JSON (the Python layer turns TOML
//! into JSON); unknown keys are rejected with their path.

use crate::error::{ConfigError, Result};
use serde::{Deserialize, Serialize};

/// A whole simulation.
#[derive(Clone, Debug, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub topology: TopologyConfig,
    /// Keys the config gave in `[topology]` (to reject keys that do not
    /// apply to the chosen family instead of ignoring them).
    #[serde(skip)]
    pub topology_keys: Vec<String>,
    pub nic: NicConfig,
    pub links: LinkConfig,
    pub switch: SwitchConfig,
    pub routing: RoutingConfig,
    pub sim: SimConfig,
    pub cost: CostConfig,
    pub congestion: CongestionConfig,
    /// Traffic classes (MODEL.md Sec. 6); none given = one default class.
    pub classes: Vec<ClassConfig>,
    pub qos: QosConfig,
    pub traffic: Vec<TrafficConfig>,
    /// The MPI library's costs and protocols, and the jobs (MODEL.md Sec. 7).
    pub mpi: crate::mpi::config::MpiConfig,
    /// The host stack below MPI: software layers and NIC latency.
    pub host: crate::host::HostConfig,
    pub job: Vec<crate::mpi::config::JobConfig>,
}

/// Congestion control (MODEL.md Sec. 5); docs/congestion.md explains each
/// default.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CongestionConfig {
    /// `none` (back-pressure only), `dcqcn` or `slingshot`.
    pub algorithm: crate::congestion::CongestionKind,
    /// Slingshot: an egress edge port whose queue holds more than this is
    /// congested; acks of packets leaving it carry congestion level 1, and
    /// level 2 above twice this.
    pub port_threshold_bytes: u64,
    /// Slingshot: an egress edge port counts as feeding it every source
    /// with a packet queued there or one sent through it within this long.
    pub flow_memory_ns: f64,
    /// Slingshot: the smallest window a throttled endpoint pair keeps
    /// (below one packet the pair sends a packet every few round trips).
    pub min_window_bytes: u64,
    /// Slingshot: window growth per round trip of clean acks.
    pub additive_increase_bytes: u64,
    /// Slingshot: largest window. A pair starts with its bandwidth-delay
    /// product (NIC rate x zero-load round trip, plus two packets), enough
    /// for line rate when uncongested, and never grows past this.
    pub max_window_bytes: u64,
    /// Slingshot: hold every flow to its window from its first packet
    /// (true), or let a flow no congestion ack has cut run at full speed
    /// (false: [Roweth] Sec. II-E, "the remainder of the buffers available
    /// to run uncongested flows at full speed"). Unset: false for
    /// `slingshot`, true for `slingshot-endpoint` (a NIC that windows
    /// every pair).
    pub hold_uncongested_flows: Option<bool>,
    /// Slingshot (`slingshot`): a congested egress edge port sends a
    /// congestion ack when a source's first packet joins its queue, so
    /// the source's ingress switch cuts it a queue's wait earlier than the
    /// ack of that packet's departure would (false: departures only).
    pub notify_at_enqueue: bool,
    /// DCQCN: RED/ECN marking thresholds on a switch output queue and the
    /// marking probability at `kmax_bytes` (the SIGCOMM'15 DCQCN paper's
    /// values); the sender and receiver defaults below are those of
    /// NVIDIA ConnectX RoCE adapters (docs/congestion.md).
    pub kmin_bytes: u64,
    pub kmax_bytes: u64,
    pub pmax: f64,
    /// DCQCN: alpha gain g.
    pub g: f64,
    /// DCQCN: at most one CNP per endpoint pair per interval.
    pub cnp_interval_ns: f64,
    /// DCQCN: alpha decay timer and rate-increase timer.
    pub alpha_timer_ns: f64,
    pub rate_timer_ns: f64,
    /// DCQCN: bytes sent between byte-counter rate increases.
    pub byte_counter_bytes: u64,
    /// DCQCN: fast-recovery steps before additive increase.
    pub fast_recovery_steps: u32,
    /// DCQCN: additive and hyper increase steps.
    pub rai_bps: f64,
    pub rhai_bps: f64,
    /// DCQCN: the rate never drops below this.
    pub min_rate_bps: f64,
}

impl Default for CongestionConfig {
    fn default() -> Self {
        CongestionConfig {
            algorithm: crate::congestion::CongestionKind::None,
            port_threshold_bytes: 16_384,
            flow_memory_ns: 5_000.0,
            min_window_bytes: 1,
            additive_increase_bytes: 4_096,
            max_window_bytes: 4 << 20,
            hold_uncongested_flows: None,
            notify_at_enqueue: true,
            kmin_bytes: 5_000,
            kmax_bytes: 200_000,
            pmax: 0.01,
            g: 5.0 / 1024.0,
            cnp_interval_ns: 4_000.0,
            alpha_timer_ns: 1_000.0,
            rate_timer_ns: 300_000.0,
            byte_counter_bytes: 32_767,
            fast_recovery_steps: 5,
            rai_bps: 5e6,
            rhai_bps: 50e6,
            min_rate_bps: 1e6,
        }
    }
}

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

/// NIC parameters (MODEL.md Sec. 2).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct NicConfig {
    /// Injection bandwidth per rail, bits/s.
    pub bandwidth_bps: f64,
    /// Maximum payload per packet, bytes.
    pub mtu_payload: u32,
    /// Frame format: `roce`, `slingshot` or `aries`.
    pub frame: crate::nic::Frame,
    /// Which rail a message leaves on: `round-robin`, `path` (fewest hops),
    /// `congestion` (least backlog at the NIC) or `random` (paper 003 Sec. 4.3).
    pub rail_selection: crate::nic::RailSelection,
    /// What the rail selection assigns: each `message` to one rail, or
    /// each `packet` (a message then spreads over the rails, as Fit Fly's
    /// planar selection does in paper 003 Sec. 4.3).
    pub rail_unit: crate::nic::RailUnit,
    /// The order a NIC sends its queued messages in: `fifo` (each message
    /// whole, first come first served) or `interleaved` (packet by packet
    /// in turn, as a NIC shares its link among its send queues: the Malbec
    /// and Shandy presets, whose ConnectX-5s serve a queue pair per peer).
    /// docs/model.md, "NICs", has what it changes.
    pub message_order: crate::nic::MessageOrder,
    /// Flit size for the NIC counters' flit counts (paper 004 Sec. 2.3):
    /// a packet of W wire bytes is ceil(W / flit_bytes) flits *(assumed 16)*.
    pub flit_bytes: u32,
    /// Packets a NIC may have in the network before their end-to-end acks
    /// return (0 = unlimited; Aries: 1024).
    pub max_outstanding_packets: u32,
    /// When a NIC at that limit sends again: `each` response frees a slot
    /// (a sliding window), or `all` outstanding packets must be answered
    /// first (Aries as [DeSensi19] Sec. 2.4 describes it).
    pub outstanding_release: crate::nic::OutstandingRelease,
    /// How end-to-end acks and DCQCN's congestion notifications return:
    /// `packets` on the reverse path through the fabric (MODEL.md Sec. 2),
    /// or `instant`, one zero-load path latency after delivery, using no
    /// bandwidth (the earlier model, for speed and ablation).
    pub acks: crate::nic::AckModel,
    /// The traffic class (by name) acks, responses and congestion
    /// notifications travel in, so they take that class's virtual channels
    /// and not the data's: a request-response network's replies kept out
    /// of the queues of the requests they answer. Default: the class of
    /// the data each one answers. Needs `acks = "packets"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack_class: Option<String>,
    /// End-to-end retry: a packet lost to a failed link is sent again this
    /// long after it was sent, at most `max_retries` times.
    pub retry_timeout_ns: f64,
    pub max_retries: u32,
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig {
            bandwidth_bps: 100e9,
            mtu_payload: 4096,
            frame: crate::nic::Frame::Roce,
            rail_selection: crate::nic::RailSelection::RoundRobin,
            rail_unit: crate::nic::RailUnit::Message,
            message_order: crate::nic::MessageOrder::Fifo,
            flit_bytes: 16,
            max_outstanding_packets: 0,
            outstanding_release: crate::nic::OutstandingRelease::Each,
            acks: crate::nic::AckModel::Packets,
            ack_class: None,
            retry_timeout_ns: 10_000.0,
            max_retries: 8,
        }
    }
}

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
    fn check(&self) -> Result<()> {
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

/// Routing choice (MODEL.md Sec. 4).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingConfig {
    /// The routing mode of every packet that names none (docs/config.md lists them).
    pub algorithm: crate::routing::Algorithm,
    /// UGAL keeps the minimal path unless it costs this many byte-hops more.
    pub ugal_threshold_bytes: f64,
    /// Slingshot adaptive routing's bias toward minimal paths (byte-hops
    /// added to non-minimal candidates) *(assumed)*.
    pub bias_bytes: f64,
    /// Aries ADAPTIVE_2 ("low") and ADAPTIVE_3 ("high") biases; ADAPTIVE_1
    /// starts at low and doubles per hop up to high *(assumed values)*.
    pub aries_low_bias_bytes: f64,
    pub aries_high_bias_bytes: f64,
    /// Slingshot adaptive routing adds to a candidate path the load its
    /// next switch advertises for the path's global link, carried back on
    /// acknowledgements ([DeSensi20] Sec. II-C).
    pub neighbour_load: bool,
    /// How stale that advertised load may be: it is refreshed at most this
    /// often *(assumed: [DeSensi20] gives ~4 bytes of load information per
    /// forward packet, not a period)*.
    pub neighbour_load_refresh_ns: f64,
    /// Where the adaptive modes' second minimal candidate comes from
    /// (docs/config.md, `routing.minimal_paths`).
    pub minimal_paths: crate::routing::MinimalPaths,
}

impl Default for RoutingConfig {
    fn default() -> Self {
        // 64 KiB byte-hops, about five full RoCE packets over three hops: a
        // packet counts until its credits return, so an uncongested output
        // shows a few packets, and a smaller margin sends uniform traffic
        // the long way (docs/model.md measures the trade-off).
        RoutingConfig {
            algorithm: crate::routing::Algorithm::Minimal,
            ugal_threshold_bytes: 65_536.0,
            bias_bytes: 65_536.0,
            aries_low_bias_bytes: 16_384.0,
            aries_high_bias_bytes: 131_072.0,
            neighbour_load: true,
            neighbour_load_refresh_ns: 300.0,
            minimal_paths: crate::routing::MinimalPaths::Shortest,
        }
    }
}

/// Run control and measurement.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    pub seed: u64,
    pub warmup_ns: f64,
    pub duration_ns: f64,
    pub max_time_ns: f64,
    /// A run with packets in the network and none moving for this long
    /// has deadlocked (default: 500 us, or longer where a hop of this
    /// network takes longer; a value below the network's floor is refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watchdog_ns: Option<f64>,
    /// Every Nth measured packet goes to the packets table (0: none) ...
    pub packet_sample_every: u32,
    /// ... and the table keeps at most this many: when full, every other
    /// row goes and N doubles, so it stays an even sample of the whole run.
    pub packet_sample_limit: u32,
    /// Width of the bins of the per-source delivery timeline ...
    pub timeline_bin_ns: f64,
    /// ... and the most bins a timeline has: a longer run merges
    /// neighbouring bins, doubling their width.
    pub timeline_max_bins: u32,
    /// After the measurement window, the run goes on (sources still
    /// sending, unmeasured) until every measured packet injected in the
    /// window is delivered, for at most this long (default: duration_ns).
    /// Without it, latency would count only the packets that got through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drain_ns: Option<f64>,
    /// Ends the run (end reason `wall_limit`) after this many seconds of
    /// wall-clock time (default: none). The result then depends on the
    /// machine's speed, and says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_limit_s: Option<f64>,
    /// With MPI jobs: end the run when this job finishes (default: when
    /// every job without `repeat` has).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_after_job: Option<String>,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: 1,
            warmup_ns: 10_000.0,
            duration_ns: 50_000.0,
            max_time_ns: 10_000_000.0,
            watchdog_ns: None,
            packet_sample_every: 16,
            packet_sample_limit: 100_000,
            timeline_bin_ns: 1_000.0,
            timeline_max_bins: 20_000,
            drain_ns: None,
            wall_limit_s: None,
            stop_after_job: None,
        }
    }
}

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

/// Serde names the type a field wanted (`expected u32`); a user needs the
/// values it takes.
fn in_plain_words(message: &str) -> String {
    const WANTED: [(&str, &str); 8] = [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u32", "expected a whole number from 0 to 4294967295"),
        ("expected u64", "expected a whole number from 0 to 18446744073709551615"),
        ("expected usize", "expected a whole number from 0 up"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
    ];
    WANTED.iter().fold(message.to_string(), |m, (from, to)| m.replace(from, to))
}

impl Config {
    /// Parses a config from JSON text, naming the path of any bad field.
    pub fn from_json(text: &str) -> Result<Config> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let mut cfg: Config = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { path };
            ConfigError::new(path, in_plain_words(&e.inner().to_string()))
        })?;
        let raw: serde_json::Value = serde_json::from_str(text).map_err(|e| ConfigError::new("", e.to_string()))?;
        if let Some(t) = raw.get("topology").and_then(|t| t.as_object()) {
            cfg.topology_keys = t.keys().cloned().collect();
        }
        cfg.check_numbers()?;
        Ok(cfg)
    }

    /// The config as the engine reads it, every default written out (the
    /// `[topology]` keys of its family only, with the family's own
    /// defaults), as JSON: what a result records to say what produced it.
    /// [`Config::from_json`] of it gives this same config.
    pub fn resolved(&self) -> serde_json::Value {
        use crate::topology::{aries, family_keys, Family};
        let mut cfg = self.clone();
        if cfg.topology.kind == Family::Aries {
            cfg.topology = aries::with_defaults(&cfg.topology, &cfg.topology_keys);
        }
        let mut value = serde_json::to_value(&cfg).expect("every config type serializes");
        let keys = family_keys(cfg.topology.kind);
        if let Some(t) = value.get_mut("topology").and_then(|t| t.as_object_mut()) {
            t.retain(|k, _| keys.contains(&k.as_str()));
        }
        value
    }

    /// Checks the ranges of numeric fields that are not topology-specific
    /// (topology builders check their own): every number in its physical
    /// range with its unit ([`crate::limits`]).
    fn check_numbers(&self) -> Result<()> {
        use crate::limits::{self as lim, check, check_count};
        // `[mpi]` is checked where it is read, when jobs are built; checking
        // it here too refuses a bad value as soon as a config is read (a
        // resolved config, a study's --set), not once a run has started.
        crate::mpi::runtime::Params::new(&self.mpi, &self.host)?;
        check("nic.bandwidth_bps", self.nic.bandwidth_bps, &lim::BANDWIDTH_BPS)?;
        check("links.bandwidth_bps", self.links.bandwidth_bps, &lim::BANDWIDTH_BPS)?;
        if let Some(b) = self.links.global_bandwidth_bps {
            check("links.global_bandwidth_bps", b, &lim::BANDWIDTH_BPS)?;
        }
        check_count("nic.flit_bytes", self.nic.flit_bytes as u64, 1, 4096, "bytes")?;
        check_count("nic.mtu_payload", self.nic.mtu_payload as u64, 1, 1 << 20, "bytes (1 MiB; Slingshot and RoCE carry 4096)")?;
        check_count("nic.max_outstanding_packets", self.nic.max_outstanding_packets as u64, 0, 1 << 24, "packets (0: no limit)")?;
        check_count("nic.max_retries", self.nic.max_retries as u64, 0, 255, "retries")?;
        check("nic.retry_timeout_ns", self.nic.retry_timeout_ns, &lim::DURATION_NS)?;
        for (k, v) in [
            ("links.terminal_latency_ns", self.links.terminal_latency_ns),
            ("links.local_latency_ns", self.links.local_latency_ns),
            ("links.global_latency_ns", self.links.global_latency_ns),
            ("links.fec_latency_ns", self.links.fec_latency_ns),
            ("switch.latency_ns", self.switch.latency_ns),
        ] {
            check(k, v, &lim::LATENCY_NS)?;
        }
        check(
            "switch.latency_spread_fraction",
            self.switch.latency_spread_fraction,
            &lim::Limit { min: 0.0, max: 2.0, says: "between 0 and 2 (a fraction of switch.latency_ns: the range it spans around the mean; 0.07 fits [Roweth] Sec. II-F)" },
        )?;
        for (k, v) in [
            ("routing.ugal_threshold_bytes", self.routing.ugal_threshold_bytes),
            ("routing.bias_bytes", self.routing.bias_bytes),
            ("routing.aries_low_bias_bytes", self.routing.aries_low_bias_bytes),
            ("routing.aries_high_bias_bytes", self.routing.aries_high_bias_bytes),
        ] {
            check(k, v, &lim::BYTES)?;
        }
        check("routing.neighbour_load_refresh_ns", self.routing.neighbour_load_refresh_ns, &lim::DURATION_NS)?;
        if !(self.links.bit_error_rate >= 0.0 && self.links.bit_error_rate < 1e-3) {
            return Err(ConfigError::new(
                "links.bit_error_rate",
                format!("must be in [0, 1e-3) (real links run near 1e-12 before FEC), got {}", self.links.bit_error_rate),
            ));
        }
        for (i, d) in self.links.degraded.iter().enumerate() {
            if !(1..=4).contains(&d.lanes) {
                return Err(ConfigError::new(format!("links.degraded[{i}].lanes"), format!("a link has 4 lanes; give 1 to 4, got {}", d.lanes)));
            }
        }
        for (i, f) in self.links.failed.iter().enumerate() {
            check(&format!("links.failed[{i}].at_ns"), f.at_ns, &lim::TIME_NS)?;
        }
        if let Some(r) = &self.links.random_failures {
            r.check()?;
        }
        if let Some(d) = self.links.reroute_after_ns {
            check("links.reroute_after_ns", d, &lim::TIME_NS)?;
        }
        check("switch.speedup", self.switch.speedup, &lim::SPEEDUP)?;
        check_count("switch.buffer_bytes", self.switch.buffer_bytes as u64, 1, 1 << 30, "bytes (1 GiB; Rosetta has 128 KiB per port)")?;
        check_count("switch.tile_rows", self.switch.tile_rows as u64, 1, crate::crossbar::MAX_ROWS as u64, "rows (Rosetta has 4, Aries 6)")?;
        check_count("switch.tile_columns", self.switch.tile_columns as u64, 1, 256, "columns (Rosetta and Aries have 8)")?;
        check_count("switch.ports_per_tile", self.switch.ports_per_tile as u64, 1, 256, "ports (Rosetta has 2, Aries 1)")?;
        check("cost.link_usd", self.cost.link_usd, &lim::USD)?;
        check("cost.router_usd", self.cost.router_usd, &lim::USD)?;
        self.host.check()?;
        self.check_sim()?;
        self.check_traffic()?;
        self.check_jobs()?;
        self.check_congestion()?;
        self.check_classes()
    }

    /// Run control: every time representable in picoseconds, every
    /// length at least one picosecond.
    fn check_sim(&self) -> Result<()> {
        use crate::limits::{self as lim, check, check_count};
        let s = &self.sim;
        check("sim.warmup_ns", s.warmup_ns, &lim::TIME_NS)?;
        check("sim.duration_ns", s.duration_ns, &lim::DURATION_NS)?;
        check("sim.max_time_ns", s.max_time_ns, &lim::DURATION_NS)?;
        if let Some(w) = s.watchdog_ns {
            check("sim.watchdog_ns", w, &lim::DURATION_NS)?;
        }
        check("sim.timeline_bin_ns", s.timeline_bin_ns, &lim::DURATION_NS)?;
        if let Some(d) = s.drain_ns {
            check("sim.drain_ns", d, &lim::TIME_NS)?;
        }
        if let Some(w) = s.wall_limit_s {
            check("sim.wall_limit_s", w, &crate::limits::Limit { min: 1e-3, max: 1e9, says: "between 0.001 and 1e9 seconds of wall-clock time" })?;
        }
        check_count("sim.packet_sample_limit", s.packet_sample_limit as u64, 2, 1 << 28, "rows")?;
        check_count("sim.timeline_max_bins", s.timeline_max_bins as u64, 2, 1 << 24, "bins")?;
        Ok(())
    }

    /// Traffic sources' numbers.
    fn check_traffic(&self) -> Result<()> {
        use crate::limits::{self as lim, check, check_count};
        for (i, t) in self.traffic.iter().enumerate() {
            let f = format!("traffic[{i}]");
            check(&format!("{f}.start_ns"), t.start_ns, &lim::TIME_NS)?;
            if let Some(stop) = t.stop_ns {
                check(&format!("{f}.stop_ns"), stop, &lim::TIME_NS)?;
            }
            check(&format!("{f}.message_bytes"), t.message_bytes as f64, &lim::SIZE_BYTES)?;
            let packets = t.message_bytes.div_ceil(self.nic.mtu_payload.max(1) as u64).max(1);
            let limit = self.nic.max_outstanding_packets as u64;
            if t.flow_bytes.is_none() && self.nic.outstanding_release == crate::nic::OutstandingRelease::Message && limit > 0 && packets > limit {
                // Its answers could not be told apart from other messages'.
                return Err(ConfigError::new(
                    format!("{f}.message_bytes"),
                    format!(
                        "{} bytes is {packets} packets, more than nic.max_outstanding_packets ({limit}); with nic.outstanding_release = \"message\" \
                         a message's blocks are counted from the answers to its own packets, which a synthetic source's untracked messages do not carry: \
                         send at most {} bytes per message, make the source a flow source (flow_bytes), or use outstanding_release = \"all\" or \"each\"",
                        t.message_bytes,
                        limit * self.nic.mtu_payload as u64
                    ),
                ));
            }
            if let Some(b) = t.flow_bytes {
                check(&format!("{f}.flow_bytes"), b as f64, &lim::SIZE_BYTES)?;
                check_count(&format!("{f}.flows_per_node"), t.flows_per_node as u64, 1, 1 << 20, "flows")?;
            }
            if let Some(interval) = t.interval_ns {
                check(&format!("{f}.interval_ns"), interval, &lim::DURATION_NS)?;
            }
            // Checked for flow sources too (which send at line rate and do
            // not use it), so a source turned into one keeps a sane value.
            if !(t.load.is_finite() && t.load > 0.0 && t.load <= 1.0) {
                return Err(ConfigError::new(
                    format!("{f}.load"),
                    format!("offered load must be in (0, 1] (a fraction of the node injection bandwidth), got {}", t.load),
                ));
            }
        }
        Ok(())
    }

    /// Jobs' numbers.
    fn check_jobs(&self) -> Result<()> {
        use crate::limits::{self as lim, check, check_count};
        for (i, j) in self.job.iter().enumerate() {
            let f = format!("job[{i}]");
            check_count(&format!("{f}.ppn"), j.ppn as u64, 1, 512, "processes per node")?;
            check(&format!("{f}.start_ns"), j.start_ns, &lim::TIME_NS)?;
            check(&format!("{f}.compute_ns"), j.compute_ns, &lim::TIME_NS)?;
            check(&format!("{f}.burst_gap_ns"), j.burst_gap_ns, &lim::TIME_NS)?;
            check(&format!("{f}.compute_scale"), j.compute_scale, &lim::SCALE)?;
            check(&format!("{f}.bytes"), j.bytes as f64, &lim::BYTES)?;
            if let Some(n) = j.iterations {
                check_count(&format!("{f}.iterations"), n as u64, 1, 1 << 30, "iterations")?;
            }
        }
        let m = &self.mpi;
        check("mpi.eager_threshold_bytes", m.eager_threshold_bytes as f64, &lim::BYTES)?;
        check("mpi.control_bytes", m.control_bytes as f64, &lim::SIZE_BYTES)?;
        check("mpi.send_overhead_ns", m.send_overhead_ns, &lim::OVERHEAD_NS)?;
        check("mpi.recv_overhead_ns", m.recv_overhead_ns, &lim::OVERHEAD_NS)?;
        check("mpi.memory_latency_ns", m.memory_latency_ns, &lim::OVERHEAD_NS)?;
        check("mpi.memory_gbytes_per_s", m.memory_gbytes_per_s, &lim::GBYTES_PER_S)?;
        if m.reduce_gbytes_per_s != 0.0 {
            check("mpi.reduce_gbytes_per_s", m.reduce_gbytes_per_s, &lim::GBYTES_PER_S)?;
        }
        Ok(())
    }

    fn check_congestion(&self) -> Result<()> {
        use crate::limits::{self as lim, check};
        let c = &self.congestion;
        for (k, v) in [
            ("congestion.min_window_bytes", c.min_window_bytes),
            ("congestion.max_window_bytes", c.max_window_bytes),
            ("congestion.port_threshold_bytes", c.port_threshold_bytes),
            ("congestion.additive_increase_bytes", c.additive_increase_bytes),
            ("congestion.kmax_bytes", c.kmax_bytes),
            ("congestion.byte_counter_bytes", c.byte_counter_bytes),
        ] {
            crate::limits::check_count(k, v, 1, 1 << 30, "bytes (1 GiB)")?;
        }
        check("congestion.kmin_bytes", c.kmin_bytes as f64, &lim::BYTES)?;
        for (k, v) in [("congestion.flow_memory_ns", c.flow_memory_ns), ("congestion.cnp_interval_ns", c.cnp_interval_ns), ("congestion.alpha_timer_ns", c.alpha_timer_ns), ("congestion.rate_timer_ns", c.rate_timer_ns)] {
            check(k, v, &lim::DURATION_NS)?;
        }
        for (k, v) in [("congestion.rai_bps", c.rai_bps), ("congestion.rhai_bps", c.rhai_bps), ("congestion.min_rate_bps", c.min_rate_bps)] {
            check(k, v, &lim::Limit { min: 1.0, max: 1e14, says: "between 1 and 1e14 bits/s" })?;
        }
        crate::limits::check_count("congestion.fast_recovery_steps", c.fast_recovery_steps as u64, 0, 1 << 20, "steps")?;
        if c.max_window_bytes < c.min_window_bytes {
            return Err(ConfigError::new("congestion.max_window_bytes", "must be at least congestion.min_window_bytes"));
        }
        if c.port_threshold_bytes == 0 {
            return Err(ConfigError::new("congestion.port_threshold_bytes", "must be at least 1 byte"));
        }
        if c.kmax_bytes <= c.kmin_bytes {
            return Err(ConfigError::new("congestion.kmax_bytes", format!("must exceed congestion.kmin_bytes ({})", c.kmin_bytes)));
        }
        if !(c.pmax > 0.0 && c.pmax <= 1.0) {
            return Err(ConfigError::new("congestion.pmax", format!("a marking probability in (0, 1], got {}", c.pmax)));
        }
        if !(c.g > 0.0 && c.g < 1.0) {
            return Err(ConfigError::new("congestion.g", format!("alpha gain must be in (0, 1), got {}", c.g)));
        }

        Ok(())
    }

    fn check_classes(&self) -> Result<()> {
        use crate::limits::{self as lim, check};
        check("qos.window_ns", self.qos.window_ns, &lim::DURATION_NS)?;
        check("qos.lossy_queue_bytes", self.qos.lossy_queue_bytes as f64, &lim::SIZE_BYTES)?;
        if self.classes.len() > 8 {
            return Err(ConfigError::new("classes", format!("at most 8 traffic classes (Rosetta has 8), got {}", self.classes.len())));
        }
        let mut min_sum = 0.0;
        for (i, c) in self.classes.iter().enumerate() {
            let f = format!("classes[{i}]");
            if c.name.is_empty() {
                return Err(ConfigError::new(format!("{f}.name"), "every traffic class needs a name"));
            }
            if self.classes[..i].iter().any(|o| o.name == c.name) {
                return Err(ConfigError::new(format!("{f}.name"), format!("duplicate class name {:?}", c.name)));
            }
            if c.dscp > 63 {
                return Err(ConfigError::new(format!("{f}.dscp"), format!("DSCP is 6 bits (0-63), got {}", c.dscp)));
            }
            if self.classes[..i].iter().any(|o| o.dscp == c.dscp) {
                return Err(ConfigError::new(format!("{f}.dscp"), format!("DSCP {} already selects another class; give each class its own", c.dscp)));
            }
            if !(0.0..=1.0).contains(&c.min_share) {
                return Err(ConfigError::new(format!("{f}.min_share"), format!("a fraction in [0, 1], got {}", c.min_share)));
            }
            if !(c.max_share > 0.0 && c.max_share <= 1.0) || c.max_share < c.min_share {
                return Err(ConfigError::new(format!("{f}.max_share"), format!("a fraction in (0, 1] no smaller than min_share, got {}", c.max_share)));
            }
            if let Some(b) = c.bias_bytes {
                check(&format!("{f}.bias_bytes"), b, &lim::BYTES)?;
            }
            min_sum += c.min_share;
        }
        if min_sum > 1.0 + 1e-9 {
            return Err(ConfigError::new("classes", format!("minimum shares add up to {min_sum}, more than the whole link; lower some min_share")));
        }
        for (i, t) in self.traffic.iter().enumerate() {
            if let Some(s) = t.stop_ns {
                if !(s.is_finite() && s > t.start_ns) {
                    return Err(ConfigError::new(format!("traffic[{i}].stop_ns"), format!("must be after start_ns ({}), got {s}", t.start_ns)));
                }
            }
            if t.class.is_some() && t.dscp.is_some() {
                return Err(ConfigError::new(format!("traffic[{i}].dscp"), "give the class by name (class) or by DSCP (dscp), not both"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_its_path() {
        let e = Config::from_json(r#"{"topology": {"grups": 3}}"#).unwrap_err();
        assert_eq!(e.field, "topology.grups");
        assert!(e.message.contains("grups"), "{e}");
    }

    /// What a config means to the engine: the given-keys bookkeeping set
    /// aside and a family's own defaults applied.
    fn meaning(cfg: &Config) -> String {
        let mut cfg = cfg.clone();
        if cfg.topology.kind == crate::topology::Family::Aries {
            cfg.topology = crate::topology::aries::with_defaults(&cfg.topology, &cfg.topology_keys);
        }
        cfg.topology_keys.clear();
        format!("{cfg:?}")
    }

    #[test]
    fn a_resolved_config_reads_back_as_the_same_config() {
        for text in [
            "{}",
            r#"{"topology": {"kind": "aries", "groups": 2}, "routing": {"algorithm": "adaptive-1"}, "nic": {"frame": "aries"}}"#,
            r#"{"topology": {"kind": "fattree", "radix": 8, "taper": 0.5}, "congestion": {"algorithm": "dcqcn"}}"#,
            r#"{"classes": [{"name": "a", "dscp": 1, "routing": "in-order", "ordered": true}],
                "traffic": [{"name": "u", "pattern": "incast", "target": 2, "placement": "random", "process": "poisson", "nodes": {"count": 4}}],
                "job": [{"name": "j", "workload": "halo3d", "routing": "app-aware", "params": {"px": 2}},
                        {"workload": "program", "program": {"ranks": 1, "comms": [[0]], "ops": [[{"op": "compute", "ns": 5.5}]]}}]}"#,
        ] {
            let cfg = Config::from_json(text).unwrap();
            let resolved = cfg.resolved();
            let again = Config::from_json(&resolved.to_string()).unwrap_or_else(|e| panic!("{e}: {resolved}"));
            assert_eq!(meaning(&again), meaning(&cfg), "{resolved}");
            assert_eq!(again.resolved(), resolved);
        }
        // Every default is written out.
        let r = Config::from_json("{}").unwrap().resolved();
        assert_eq!(r["switch"]["buffer_bytes"], 131_072);
        assert_eq!(r["routing"]["algorithm"], "minimal");
        assert_eq!(r["topology"]["kind"], "dragonfly");
        assert!(r["topology"].get("q").is_none(), "keys of other families are left out");
    }

    #[test]
    fn a_number_of_the_wrong_kind_names_the_values_the_field_takes() {
        let e = Config::from_json(r#"{"mpi": {"alltoall_throttle": -1}}"#).unwrap_err();
        assert_eq!(e.field, "mpi.alltoall_throttle");
        assert!(e.message.contains("a whole number from 0 to 4294967295") && !e.message.contains("u32"), "{e}");
        let e = Config::from_json(r#"{"mpi": {"eager_threshold_bytes": 2.5}}"#).unwrap_err();
        assert!(e.message.contains("a whole number from 0 to 18446744073709551615"), "{e}");
        let e = Config::from_json(r#"{"nic": {"bandwidth_bps": "fast"}}"#).unwrap_err();
        assert!(e.message.contains("expected a number"), "{e}");
    }

    #[test]
    fn a_bad_name_lists_the_valid_ones() {
        let e = Config::from_json(r#"{"nic": {"frame": "infiniband"}}"#).unwrap_err();
        assert_eq!(e.field, "nic.frame");
        assert!(e.message.contains("choose one of: roce, slingshot, aries"), "{e}");
        let e = Config::from_json(r#"{"job": [{"routing": "fast"}]}"#).unwrap_err();
        assert_eq!(e.field, "job[0].routing");
        assert!(e.message.contains("app-aware") && e.message.contains("adaptive-3"), "{e}");
        let e = Config::from_json(r#"{"topology": {"kind": "torus"}}"#).unwrap_err();
        assert!(e.message.contains("dragonfly, slimfly, fitfly, megafly, fattree, aries"), "{e}");
    }

    #[test]
    fn wrong_type_names_its_path() {
        let e = Config::from_json(r#"{"traffic": [{"load": "high"}]}"#).unwrap_err();
        assert_eq!(e.field, "traffic[0].load");
    }
}
