//! The simulation: state of every channel, NIC and source, the event loop
//! and the builder that wires a config into it.
//!
//! Model (MODEL.md Sec. 1-2): packet-level virtual cut-through. A packet's
//! head reaches the next switch one link latency after its transmission
//! starts; it may leave after the fall-through latency, through the output
//! its route names, when that output is free, the downstream virtual channel
//! has credits for the whole packet, and its input port's crossbar read
//! channel (speedup x port rate) is free. Waiting packets sit in per-output,
//! per-VC queues (virtual output queues: a packet for a busy output never
//! blocks one for a free output) while holding space in their input buffer;
//! that space returns to the upstream transmitter as credits one link
//! latency after the packet's tail has left.

mod api;
mod congestion;
mod delivery;
mod injection;
mod jobs_report;
mod mpi;
mod report;
mod switching;
mod watchdog;

use crate::config::Config;
use crate::error::{ConfigError, Result};
use crate::event::{Event, EventQueue};
use crate::metrics::SourceStats;
use crate::network::{End, Network};
use crate::nic::Frame;
use crate::packet::{PacketPool, PacketQueue};
use crate::rng::Rng;
use crate::routing::Algorithm;
use crate::topology::Topology;
use crate::traffic::{build_sources, Injection, Source};
use crate::units::{ns_to_ps, Ps, Rate};
use std::collections::VecDeque;
use std::time::Instant;

/// A time that never comes.
pub(crate) const NEVER: Ps = u64::MAX;

/// Why a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// The measurement window (warmup + duration) is over and every
    /// measured packet has been delivered.
    TimeLimit,
    /// The window is over but measured packets were still in the network
    /// when the drain time (`sim.drain_ns`) ran out.
    DrainLimit,
    /// Only flows ran and all completed.
    FlowsDone,
    /// Flows did not complete before `sim.max_time_ns`.
    MaxTime,
    /// Nothing can move: the watchdog fired.
    Deadlock,
    /// No events left and nothing in flight.
    Idle,
    /// Every job that does not repeat has finished.
    JobsDone,
    /// MPI ranks wait for messages no rank will send (the program or trace
    /// is inconsistent); the summary lists where each waits.
    JobsStalled,
}

impl EndReason {
    /// Name used in results.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::TimeLimit => "time_limit",
            EndReason::DrainLimit => "drain_limit",
            EndReason::FlowsDone => "flows_done",
            EndReason::MaxTime => "max_time",
            EndReason::Deadlock => "deadlock",
            EndReason::Idle => "idle",
            EndReason::JobsDone => "jobs_done",
            EndReason::JobsStalled => "jobs_stalled",
        }
    }
}

/// Hot state of one channel: its transmitter, the input port it feeds and
/// its counters, in one struct so a hop touches few cache lines.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Transmitter {
    pub busy_until: Ps,
    /// Time of the pending TryOutput event (NEVER if none).
    pub scheduled_at: Ps,
    pub queued_bytes: u64,
    pub queued_packets: u32,
    /// Blocked on credits with no return pending: a returning credit wakes it.
    pub waiting_credit: bool,
    /// The receiver is a NIC (no credits, no routing there).
    pub to_endpoint: bool,
    /// The link is switch-to-switch (counts as a hop).
    pub fabric: bool,
    /// Earliest pending credit return (NEVER if none).
    pub next_credit_at: Ps,
    /// The crossbar read the receiving input port is committed to: [from, until).
    pub xbar_from: Ps,
    pub xbar_until: Ps,
    /// Busy time and wire bytes inside the measurement window.
    pub busy_ps: u64,
    pub bytes: u64,
    /// Copies of the link's rate and latency, kept here for locality.
    pub rate: Rate,
    pub latency: Ps,
    /// Packets replayed by link-level retry.
    pub replays: u64,
    /// When the link fails (NEVER if it does not): packets sent on it from
    /// then on are lost.
    pub fail_at: Ps,
}

/// Buffer space travelling back to a transmitter.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CreditReturn {
    pub at: Ps,
    pub vc: u8,
    pub bytes: u32,
}

/// A message waiting at or travelling from a NIC.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Message {
    pub src: u32,
    pub dst: u32,
    pub source: u16,
    pub measured: bool,
    pub to_send: u64,
    pub to_deliver: u64,
    pub created: Ps,
    pub flow: u32,
    /// Routing mode and traffic class of the message's packets.
    pub alg: u8,
    pub class: u8,
}

/// Added to an unknown job routing's error: jobs also take application-aware routing.
const APP_AWARE_HINT: &str = " (or \"app-aware\" for an MPI job)";

/// One fixed-size flow, its completion and its NIC counters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlowRecord {
    pub source: u16,
    pub src_node: u32,
    pub dst_node: u32,
    pub bytes: u64,
    pub start: Ps,
    pub end: Ps,
    pub counters: NicCounters,
    /// Injection time of the latest-injected packet delivered so far, and
    /// packets that arrived after a later-injected one (reordering).
    pub last_injected: Ps,
    pub out_of_order: u64,
    /// Payload bytes lost (lossy class drops, retries exhausted).
    pub lost_bytes: u64,
    /// The MPI message this flow carries (NONE: not an MPI message).
    pub mpi: u32,
    /// Index of the application-aware mode it went with (NONE_MODE: none).
    pub app_mode: u8,
}

/// `FlowRecord::app_mode` of a message not routed by application-aware routing.
pub(crate) const NONE_MODE: u8 = u8::MAX;

impl FlowRecord {
    /// A flow of `bytes` from node `src` to node `dst`, started at `start`.
    pub(crate) fn new(source: u16, src: u32, dst: u32, bytes: u64, start: Ps) -> FlowRecord {
        FlowRecord { source, src_node: src, dst_node: dst, bytes, start, end: NEVER, counters: NicCounters::default(), last_injected: 0, out_of_order: 0, lost_bytes: 0, mpi: crate::network::NONE, app_mode: NONE_MODE }
    }
}

/// Counters of a NIC as on Cray Aries (paper 004 Sec. 2.3), kept per
/// endpoint and per flow: request packets and flits sent, time a ready
/// packet was held back by back-pressure (no credits at the switch), and
/// the cumulative latency of the packets from injection to delivery.
#[derive(Clone, Copy, Debug, Default)]
pub struct NicCounters {
    pub packets: u64,
    pub flits: u64,
    pub stalled_ps: u64,
    pub latency_ps: u64,
    pub delivered: u64,
}

/// A sampled delivered packet.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PacketSample {
    pub source: u16,
    pub src: u32,
    pub dst: u32,
    pub payload: u32,
    pub wire: u32,
    pub created: Ps,
    pub injected: Ps,
    pub delivered: Ps,
    pub hops: u8,
    pub nonminimal: bool,
}

/// An end-to-end ack (or a DCQCN CNP) on its way back to the source NIC.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ack {
    pub src: u32,
    pub dst: u32,
    pub wire: u32,
    /// Congestion level and contributing flows marked at the egress port.
    pub level: u8,
    pub flows: u16,
    /// Round trip of the packet's path at zero load.
    pub rtt: Ps,
    /// A CNP (DCQCN) rather than an ack.
    pub cnp: bool,
    /// Traffic source of the packet acked.
    pub source: u16,
}

/// Delivered wire bytes and latency of one source in one timeline bin.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TimelineBin {
    pub wire: u64,
    pub packets: u64,
    pub latency_ps: u64,
}

/// One simulation of a network under synthetic traffic.
pub struct Simulation {
    pub(crate) cfg: Config,
    pub(crate) topo: Topology,
    pub(crate) net: Network,
    pub(crate) frame: Frame,
    pub(crate) mtu: u32,
    /// Virtual channels per port: `hop_vcs` per traffic class.
    pub(crate) n_vcs: usize,
    pub(crate) hop_vcs: usize,
    pub(crate) classes: Vec<crate::qos::TrafficClass>,
    pub(crate) class_biases: Vec<crate::routing::Biases>,
    pub(crate) share: crate::qos::ShareMeter,
    pub(crate) any_lossy: bool,
    pub(crate) lossy_queue_bytes: u64,
    /// Traffic class of each traffic source.
    pub(crate) source_class: Vec<u8>,
    /// Congestion control and its per endpoint-pair state.
    pub(crate) cc: crate::congestion::Params,
    pub(crate) pairs: crate::congestion::IntMap<crate::congestion::PairState>,
    pub(crate) cc_rng: Rng,
    /// Slingshot: packets queued at each egress edge port per source
    /// endpoint, and the number of sources with packets there.
    pub(crate) egress_sources: crate::congestion::IntMap<u32>,
    pub(crate) egress_flows: Vec<u16>,
    /// Slingshot: endpoint pairs with packets in flight, per destination endpoint.
    pub(crate) dst_senders: Vec<u16>,
    /// End-to-end acks are modelled (congestion control, outstanding-packet
    /// limit); acks and CNPs on their way back.
    pub(crate) acks_needed: bool,
    pub(crate) acks: Vec<Ack>,
    pub(crate) free_acks: Vec<u32>,
    pub(crate) cc_stats: CcStats,
    /// Packets each endpoint has unacked, the limit (0 = none), and NICs
    /// that wait for an ack before they can send.
    pub(crate) outstanding: Vec<u32>,
    pub(crate) max_outstanding: u32,
    pub(crate) waiting_ack: Vec<bool>,
    /// The NIC looks past its head message for one it may send (classes,
    /// congestion control or an outstanding limit are in use).
    pub(crate) nic_scan: bool,
    /// Lost packets waiting to be resent by each NIC (end-to-end retry).
    pub(crate) nic_retry: Vec<VecDeque<u32>>,
    pub(crate) retry_timeout: Ps,
    pub(crate) max_retries: u8,
    pub(crate) retries: u64,
    pub(crate) packets_lost: u64,
    pub(crate) bytes_lost: u64,
    /// Per-source delivery timeline.
    pub(crate) timeline: Vec<Vec<TimelineBin>>,
    pub(crate) timeline_bin: Ps,
    /// Routing mode given per message through the API (index into ALL) or
    /// none: the source's.
    pub(crate) api_source: Option<u16>,
    /// Credits (bytes) of one VC of a fabric input buffer.
    pub(crate) vc_capacity: i64,
    pub(crate) switch_latency: Ps,
    /// Latency of the terminal links and of the slowest fabric link (FEC included).
    pub(crate) terminal_latency: Ps,
    pub(crate) max_fabric_latency: Ps,
    pub(crate) speedup: f64,
    /// Routing mode of each traffic source.
    pub(crate) source_alg: Vec<Algorithm>,
    pub(crate) now: Ps,
    pub(crate) warmup: Ps,
    /// End of the measurement window, and of the run at the latest.
    pub(crate) window_end: Ps,
    pub(crate) end: Ps,
    /// Measured packets injected inside the window and not yet delivered.
    pub(crate) measured_outstanding: u64,
    pub(crate) watchdog: Ps,
    pub(crate) events: EventQueue,
    pub(crate) pool: PacketPool,
    pub(crate) tx: Vec<Transmitter>,
    pub(crate) queues: Vec<PacketQueue>,
    pub(crate) credits: Vec<i64>,
    /// Credits on their way back to each transmitter, earliest first.
    pub(crate) credit_returns: Vec<VecDeque<CreditReturn>>,
    pub(crate) messages: Vec<Message>,
    pub(crate) free_messages: Vec<u32>,
    pub(crate) nic_queue: Vec<VecDeque<u32>>,
    pub(crate) next_rail: Vec<u32>,
    pub(crate) rail_selection: crate::nic::RailSelection,
    /// Bytes waiting to be sent at each endpoint's NIC.
    pub(crate) nic_backlog: Vec<u64>,
    /// NIC counters per endpoint, and since when its head packet has been
    /// held back by back-pressure (NEVER if it is not).
    pub(crate) nic_counters: Vec<NicCounters>,
    pub(crate) stalled_since: Vec<Ps>,
    pub(crate) flit_bytes: u32,
    pub(crate) rail_rng: Rng,
    /// Bit-error rate of every link and the stream deciding corruptions.
    pub(crate) bit_error_rate: f64,
    pub(crate) link_error_rng: Rng,
    pub(crate) sources: Vec<Source>,
    pub(crate) source_rng: Vec<Rng>,
    pub(crate) switch_rng: Vec<Rng>,
    pub(crate) source_slot_ps: Vec<f64>,
    pub(crate) source_msg_wire: Vec<u64>,
    pub(crate) stats: Vec<SourceStats>,
    pub(crate) flows: Vec<FlowRecord>,
    pub(crate) flows_pending: u64,
    pub(crate) has_bernoulli: bool,
    pub(crate) packet_hops: u64,
    pub(crate) packets_injected: u64,
    pub(crate) bytes_injected: u64,
    pub(crate) packets_delivered: u64,
    pub(crate) bytes_delivered: u64,
    pub(crate) last_progress: Ps,
    pub(crate) samples: Vec<PacketSample>,
    pub(crate) sample_every: u64,
    pub(crate) sample_counter: u64,
    pub(crate) end_reason: Option<EndReason>,
    pub(crate) stuck: Vec<serde_json::Value>,
    pub(crate) wall_s: f64,
    pub(crate) build_s: f64,
    /// The MPI layer: jobs and their ranks (empty without jobs).
    pub(crate) mpi: crate::mpi::runtime::Runtime,
}

/// Counts of congestion-control signals.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CcStats {
    pub acks: u64,
    pub marked_acks: u64,
    pub ecn_marks: u64,
    pub cnps: u64,
    pub drops: u64,
}

impl Simulation {
    /// Builds a simulation from a config given as JSON text.
    pub fn from_json(text: &str) -> Result<Simulation> {
        Simulation::new(Config::from_json(text)?)
    }

    /// Builds a simulation: validates the config, builds the topology,
    /// allocates the traffic sources' nodes and schedules their first events.
    pub fn new(cfg: Config) -> Result<Simulation> {
        let t0 = Instant::now();
        let alg = Algorithm::parse(&cfg.routing.algorithm)?;
        let frame = Frame::parse(&cfg.nic.frame)?;
        let (topo, net) = Topology::build(&cfg)?;
        let classes = crate::qos::build_classes(&cfg)?;
        // A source's or job's own mode, else its class's, else the global one.
        let resolve = |field: String, class: Option<&str>, dscp: Option<u32>, own: Option<Algorithm>| -> Result<(Algorithm, u8)> {
            let class = crate::qos::resolve_class(&classes, &field, class, dscp)?;
            let c = &classes[class as usize];
            let mode = c.mode(own, c.routing.unwrap_or(alg)).map_err(|m| ConfigError::new(format!("{field}.routing"), m))?;
            Ok((mode, class))
        };
        let parse_own = |field: &str, name: &Option<String>, hint: &str| -> Result<Option<Algorithm>> {
            name.as_deref().map(|n| Algorithm::parse(n).map_err(|e| ConfigError::new(format!("{field}.routing"), format!("{}{hint}", e.message)))).transpose()
        };
        let mut source_alg = Vec::with_capacity(cfg.traffic.len());
        let mut source_class = Vec::with_capacity(cfg.traffic.len());
        for (i, t) in cfg.traffic.iter().enumerate() {
            let field = format!("traffic[{i}]");
            let own = parse_own(&field, &t.routing, "")?;
            let (mode, class) = resolve(field, t.class.as_deref(), t.dscp, own)?;
            source_alg.push(mode);
            source_class.push(class);
        }
        let mut job_modes = Vec::with_capacity(cfg.job.len());
        let mut app_aware = Vec::with_capacity(cfg.job.len());
        for (i, j) in cfg.job.iter().enumerate() {
            let field = format!("job[{i}]");
            // "app-aware": paper 004's per-message choice between its two
            // modes (mpi/app_aware.rs); the job starts on the first.
            let aware = j.routing.as_deref() == Some(crate::mpi::app_aware::ROUTING_NAME);
            let own = if aware { Some(crate::mpi::app_aware::MODES[0]) } else { parse_own(&field, &j.routing, APP_AWARE_HINT)? };
            job_modes.push(resolve(field, j.class.as_deref(), j.dscp, own)?);
            app_aware.push(aware);
        }
        let aware_modes: &[Algorithm] = if app_aware.contains(&true) { &crate::mpi::app_aware::MODES } else { &[] };
        // Enough VCs for the longest path of any mode in use (the API may
        // ask for any mode per message, so count them all when it is used).
        let modes = source_alg
            .iter()
            .chain(job_modes.iter().map(|(m, _)| m))
            .chain(std::iter::once(&alg))
            .chain(classes.iter().filter_map(|c| c.routing.as_ref()))
            .chain(aware_modes.iter());
        let hop_vcs = modes.map(|&a| topo.max_hops(a)).max().unwrap_or(1) as usize;
        let n_vcs = hop_vcs * classes.len();
        let mtu = cfg.nic.mtu_payload;
        let max_wire = frame.wire_bytes(mtu) as i64;
        let vc_capacity = cfg.switch.buffer_bytes as i64 / n_vcs as i64;
        if vc_capacity < max_wire {
            return Err(ConfigError::new(
                "switch.buffer_bytes",
                format!(
                    "{} bytes split over {n_vcs} virtual channels ({hop_vcs} for {} routing x {} traffic classes) give {vc_capacity} B per VC, less than one packet ({max_wire} B); \
                     raise switch.buffer_bytes to at least {} or lower nic.mtu_payload",
                    cfg.switch.buffer_bytes,
                    cfg.routing.algorithm,
                    classes.len(),
                    max_wire * n_vcs as i64
                ),
            ));
        }
        let fail_at = failed_links(&cfg, &net)?;
        if cfg.traffic.is_empty() && cfg.job.is_empty() {
            return Err(ConfigError::new("traffic", "nothing to simulate: add a [[traffic]] source or a [[job]]"));
        }
        let seed = cfg.sim.seed;
        let mut alloc = crate::traffic::nodes::NodeAllocator::new(net.nodes());
        let sources = build_sources(&cfg.traffic, &topo, &net, seed, &mut alloc)?;
        let names: Vec<String> = sources.iter().map(|s| s.name.clone()).collect();
        let job_plans = crate::mpi::build::plan_jobs(&cfg.job, &mut alloc, seed, &names)?;
        let mpi_params = crate::mpi::runtime::Params::new(&cfg.mpi)?;
        let jobs_wait = cfg.job.iter().any(|j| !j.repeat) || cfg.sim.stop_after_job.is_some();
        let has_bernoulli = sources.iter().any(|s| matches!(s.injection, Injection::Bernoulli { .. }));
        let warmup = if has_bernoulli { ns_to_ps(cfg.sim.warmup_ns) } else { 0 };
        let window_end = if has_bernoulli { warmup + ns_to_ps(cfg.sim.duration_ns) } else { ns_to_ps(cfg.sim.max_time_ns) };
        let drain = ns_to_ps(cfg.sim.drain_ns.unwrap_or(cfg.sim.duration_ns));
        let end = if has_bernoulli { window_end + drain } else { window_end };
        // Jobs that must finish keep the run going up to sim.max_time_ns.
        let end = if jobs_wait { end.max(ns_to_ps(cfg.sim.max_time_ns)) } else { end };
        let nch = net.channels.len();
        let mut credits = vec![vc_capacity; nch * n_vcs];
        let per_class = cfg.switch.buffer_bytes as i64 / classes.len() as i64;
        for (c, ch) in net.channels.iter().enumerate() {
            if let End::Endpoint(_) = ch.src {
                // A switch's endpoint input port has no hop VCs: each class
                // gets its share of the buffer in its first VC.
                for v in 0..n_vcs {
                    credits[c * n_vcs + v] = if v % hop_vcs == 0 { per_class } else { 0 };
                }
            }
        }
        let cc = crate::congestion::Params::new(&cfg.congestion, cfg.nic.bandwidth_bps)?;
        let cc_on = cc.algorithm != crate::congestion::Algorithm::None;
        let max_outstanding = cfg.nic.max_outstanding_packets;
        let acks_needed = cc.algorithm == crate::congestion::Algorithm::Slingshot || max_outstanding > 0;
        let base_biases = crate::routing::Biases {
            ugal: cfg.routing.ugal_threshold_bytes,
            slingshot: cfg.routing.bias_bytes,
            aries_low: cfg.routing.aries_low_bias_bytes,
            aries_high: cfg.routing.aries_high_bias_bytes,
        };
        let class_biases = classes
            .iter()
            .map(|c| match c.spec.bias_bytes {
                None => base_biases,
                Some(b) => crate::routing::Biases { ugal: b, slingshot: b, ..base_biases },
            })
            .collect();
        if cfg.nic.max_retries > 255 {
            return Err(ConfigError::new("nic.max_retries", format!("at most 255, got {}", cfg.nic.max_retries)));
        }
        let node_bw = cfg.nic.bandwidth_bps * net.rails as f64;
        let mut source_slot_ps = Vec::new();
        let mut source_msg_wire = Vec::new();
        for s in &sources {
            let bytes = match s.injection {
                Injection::Bernoulli { message_bytes, .. } => message_bytes,
                Injection::Flows { bytes, .. } => bytes,
            };
            let wire = crate::nic::message_wire_bytes(frame, bytes, mtu);
            source_msg_wire.push(wire);
            source_slot_ps.push(wire as f64 * 8.0e12 / node_bw);
        }
        let mut sim = Simulation {
            frame,
            mtu,
            n_vcs,
            hop_vcs,
            share: crate::qos::ShareMeter::new(&cfg, nch, classes.len()),
            any_lossy: classes.iter().any(|c| c.spec.lossy),
            lossy_queue_bytes: cfg.qos.lossy_queue_bytes,
            class_biases,
            nic_scan: cc_on || classes.len() > 1 || max_outstanding > 0 || !fail_at.is_empty(),
            classes,
            source_class,
            pairs: Default::default(),
            cc_rng: Rng::new(seed, 0xCC),
            egress_sources: Default::default(),
            egress_flows: vec![0; nch],
            dst_senders: vec![0; net.endpoint_up.len()],
            acks_needed,
            acks: Vec::new(),
            free_acks: Vec::new(),
            cc_stats: CcStats::default(),
            outstanding: vec![0; net.endpoint_up.len()],
            max_outstanding,
            waiting_ack: vec![false; net.endpoint_up.len()],
            nic_retry: vec![VecDeque::new(); net.endpoint_up.len()],
            retry_timeout: ns_to_ps(cfg.nic.retry_timeout_ns),
            max_retries: cfg.nic.max_retries as u8,
            retries: 0,
            packets_lost: 0,
            bytes_lost: 0,
            timeline: vec![Vec::new(); sources.len()],
            timeline_bin: ns_to_ps(cfg.sim.timeline_bin_ns).max(1),
            api_source: None,
            cc,
            vc_capacity,
            switch_latency: ns_to_ps(cfg.switch.latency_ns),
            terminal_latency: net.channels.iter().filter(|c| c.kind == crate::network::LinkKind::Terminal).map(|c| c.latency).max().unwrap_or(0),
            max_fabric_latency: net.channels.iter().filter(|c| c.kind != crate::network::LinkKind::Terminal).map(|c| c.latency).max().unwrap_or(0),
            speedup: cfg.switch.speedup,
            source_alg,
            now: 0,
            warmup,
            window_end,
            measured_outstanding: 0,
            end,
            watchdog: ns_to_ps(cfg.sim.watchdog_ns),
            events: EventQueue::default(),
            pool: PacketPool::default(),
            tx: net
                .channels
                .iter()
                .map(|c| Transmitter {
                    busy_until: 0,
                    scheduled_at: NEVER,
                    queued_bytes: 0,
                    queued_packets: 0,
                    waiting_credit: false,
                    to_endpoint: matches!(c.dst, End::Endpoint(_)),
                    fabric: c.kind != crate::network::LinkKind::Terminal,
                    next_credit_at: NEVER,
                    xbar_from: 0,
                    xbar_until: 0,
                    busy_ps: 0,
                    bytes: 0,
                    rate: c.rate,
                    latency: c.latency,
                    replays: 0,
                    fail_at: NEVER,
                })
                .collect(),
            queues: vec![PacketQueue::default(); nch * n_vcs],
            credits,
            credit_returns: vec![VecDeque::new(); nch],
            messages: Vec::new(),
            free_messages: Vec::new(),
            nic_queue: vec![VecDeque::new(); net.endpoint_up.len()],
            next_rail: vec![0; net.nodes()],
            rail_selection: crate::nic::RailSelection::parse(&cfg.nic.rail_selection)?,
            nic_backlog: vec![0; net.endpoint_up.len()],
            nic_counters: vec![NicCounters::default(); net.endpoint_up.len()],
            stalled_since: vec![NEVER; net.endpoint_up.len()],
            flit_bytes: cfg.nic.flit_bytes,
            rail_rng: Rng::new(seed, 0x5A11),
            bit_error_rate: cfg.links.bit_error_rate,
            link_error_rng: Rng::new(seed, 0x11E5),
            source_rng: (0..sources.len()).map(|i| Rng::new(seed, 0x1_0000 + i as u64)).collect(),
            switch_rng: (0..net.switches()).map(|s| Rng::new(seed, 0x100_0000 + s as u64)).collect(),
            source_slot_ps,
            source_msg_wire,
            stats: vec![SourceStats::default(); sources.len()],
            flows: Vec::new(),
            flows_pending: 0,
            has_bernoulli,
            packet_hops: 0,
            packets_injected: 0,
            bytes_injected: 0,
            packets_delivered: 0,
            bytes_delivered: 0,
            last_progress: 0,
            samples: Vec::new(),
            sample_every: cfg.sim.packet_sample_every as u64,
            sample_counter: 0,
            end_reason: None,
            stuck: Vec::new(),
            wall_s: 0.0,
            build_s: 0.0,
            mpi: Default::default(),
            sources,
            topo,
            net,
            cfg,
        };
        for &(c, at) in &fail_at {
            sim.tx[c as usize].fail_at = at;
        }
        let mut job_routing = Vec::with_capacity(job_plans.len());
        for ((plan, &(mode, class)), &aware) in job_plans.iter().zip(&job_modes).zip(&app_aware) {
            let s = sim.add_passive_source(&plan.name, plan.nodes.clone(), plan.start, mode, class);
            job_routing.push((s, mode.code(), class, aware));
        }
        let stop_after = sim.cfg.sim.stop_after_job.clone();
        sim.mpi = crate::mpi::build::runtime(job_plans, &job_routing, mpi_params, stop_after.as_deref())?;
        sim.mpi_schedule_starts();
        sim.schedule_sources();
        sim.events.push(sim.watchdog, Event::Watchdog);
        if has_bernoulli {
            sim.events.push(window_end, Event::WindowEnd);
        }
        sim.build_s = t0.elapsed().as_secs_f64();
        Ok(sim)
    }

    /// Current simulated time (ps).
    pub fn now(&self) -> Ps {
        self.now
    }

    /// Time at which the run ends at the latest (ps).
    pub fn end_time(&self) -> Ps {
        self.end
    }

    /// True once the run has ended.
    pub fn finished(&self) -> bool {
        self.end_reason.is_some()
    }

    /// Why the run ended, if it has.
    pub fn end_reason(&self) -> Option<EndReason> {
        self.end_reason
    }

    /// The built network.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// The built topology.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.events.processed()
    }

    /// Link traversals so far (injection, fabric and ejection links).
    pub fn packet_hops(&self) -> u64 {
        self.packet_hops
    }

    /// Seconds spent building.
    pub fn build_seconds(&self) -> f64 {
        self.build_s
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        self.run_until(NEVER);
    }

    /// Advances simulated time to `t` (ps) or the end of the run; returns
    /// true once the run has ended.
    pub fn run_until(&mut self, t: Ps) -> bool {
        if self.finished() {
            return true;
        }
        let t0 = Instant::now();
        let limit = t.min(self.end);
        while let Some(et) = self.events.peek_time() {
            if et > limit {
                break;
            }
            let (et, ev) = self.events.pop().expect("peeked");
            self.now = et;
            self.dispatch(ev);
            if self.finished() {
                break;
            }
        }
        if !self.finished() {
            if self.events.is_empty() {
                if self.pool.live() > 0 {
                    self.declare_deadlock();
                } else if self.mpi.jobs_left > 0 {
                    self.finish(EndReason::JobsStalled);
                } else {
                    self.finish(EndReason::Idle);
                }
            } else {
                self.now = self.now.max(limit);
                if limit == self.end {
                    // With no drain time asked for (sim.drain_ns = 0) ending at the window is the plan.
                    self.finish(match (self.has_bernoulli && self.mpi.jobs_left == 0, self.measured_outstanding) {
                        (true, n) if n > 0 && self.end > self.window_end => EndReason::DrainLimit,
                        (true, _) => EndReason::TimeLimit,
                        (false, _) => EndReason::MaxTime,
                    });
                }
            }
        }
        self.wall_s += t0.elapsed().as_secs_f64();
        self.finished()
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Arrive(h) => self.on_arrive(h),
            Event::TryOutput(ch) => self.on_try_output(ch),
            Event::Generate { source, member } => self.on_generate(source, member),
            Event::StartFlows(s) => self.on_start_flows(s),
            Event::Watchdog => self.on_watchdog(),
            Event::Ack(a) => self.on_ack(a),
            Event::Retry(h) => self.on_retry(h),
            Event::WindowEnd => self.check_drained(),
            Event::MpiWake(r) => self.on_mpi_wake(r),
            Event::MpiPost(w) => self.on_mpi_post(w),
            Event::MpiLocal(w) => self.on_mpi_local(w),
        }
    }

    pub(crate) fn finish(&mut self, why: EndReason) {
        if self.end_reason.is_none() {
            self.end_reason = Some(why);
        }
    }

    /// Ends an offered-load run once its window is over and every measured
    /// packet has arrived.
    #[inline]
    pub(crate) fn check_drained(&mut self) {
        if self.now >= self.window_end && self.measured_outstanding == 0 && self.has_bernoulli && self.mpi.jobs_left == 0 {
            self.finish(EndReason::TimeLimit);
        }
    }

    /// True while the measurement window is open.
    #[inline]
    pub(crate) fn in_window(&self, t: Ps) -> bool {
        t >= self.warmup && t < self.window_end
    }

    /// Schedules a transmission attempt on `ch` at `at` unless one is
    /// already due no later.
    #[inline]
    pub(crate) fn schedule_try(&mut self, ch: u32, at: Ps) {
        let t = &mut self.tx[ch as usize];
        if t.scheduled_at <= at {
            return;
        }
        t.scheduled_at = at;
        self.events.push(at, Event::TryOutput(ch));
    }

    #[inline]
    fn on_try_output(&mut self, ch: u32) {
        let now = self.now;
        let t = &mut self.tx[ch as usize];
        if t.scheduled_at != now {
            return; // superseded by an earlier attempt
        }
        t.scheduled_at = NEVER;
        if now < t.busy_until {
            let at = t.busy_until;
            self.schedule_try(ch, at);
            return;
        }
        match self.net.channels[ch as usize].src {
            End::Endpoint(e) => self.nic_send(e, ch),
            End::Switch { .. } => self.switch_send(ch),
        }
    }

    /// Moves credits that have arrived by now into the transmitter's
    /// counters; returns the earliest return still on its way.
    #[inline]
    pub(crate) fn absorb_credits(&mut self, ch: u32) -> Ps {
        let now = self.now;
        let c = ch as usize;
        if self.tx[c].next_credit_at > now {
            return self.tx[c].next_credit_at;
        }
        let n = self.n_vcs;
        let returns = &mut self.credit_returns[c];
        while let Some(r) = returns.front() {
            if r.at > now {
                break;
            }
            self.credits[c * n + r.vc as usize] += r.bytes as i64;
            returns.pop_front();
        }
        let next = returns.front().map_or(NEVER, |r| r.at);
        self.tx[c].next_credit_at = next;
        next
    }

    /// Sends `bytes` of VC `vc` credits back to the transmitter of `ch`, arriving at `at`.
    #[inline]
    pub(crate) fn return_credits(&mut self, ch: u32, vc: u8, bytes: u32, at: Ps) {
        // Keep the returns sorted by arrival; they come nearly in order, so
        // the insertion point is found from the back in a step or two.
        let returns = &mut self.credit_returns[ch as usize];
        let mut pos = returns.len();
        while pos > 0 && returns[pos - 1].at > at {
            pos -= 1;
        }
        returns.insert(pos, CreditReturn { at, vc, bytes });
        let c = ch as usize;
        self.tx[c].next_credit_at = self.tx[c].next_credit_at.min(at);
        if self.tx[c].waiting_credit {
            self.tx[c].waiting_credit = false;
            self.schedule_try(ch, at);
        }
    }

    /// Link-level retry (paper 000 Sec. II-F): a packet of `wire` bytes is
    /// corrupted with probability 1 - (1 - BER)^(8 wire); the receiver asks
    /// for it again and the sender replays it from its replay buffer, which
    /// costs a link round trip plus a new serialization each time. Returns
    /// the delay the replays add (0 on a clean link); nothing is lost.
    #[inline]
    pub(crate) fn link_retry_delay(&mut self, ch: u32, wire: u32, ser: Ps) -> Ps {
        if self.bit_error_rate == 0.0 {
            return 0;
        }
        let p_bad = 1.0 - (1.0 - self.bit_error_rate).powf(8.0 * wire as f64);
        let mut delay = 0;
        let t = &mut self.tx[ch as usize];
        while self.link_error_rng.unit() < p_bad {
            delay += ser + 2 * t.latency;
            t.replays += 1;
        }
        delay
    }

    /// VC of class `class` at hop `hops` (the first VC of the class toward an endpoint).
    #[inline]
    pub(crate) fn vc_of(&self, class: u8, hops: u8, to_endpoint: bool) -> usize {
        let base = class as usize * self.hop_vcs;
        if to_endpoint {
            base
        } else {
            base + (hops as usize).min(self.hop_vcs - 1)
        }
    }

    /// Accounts a transmission on `ch` from `start` for `ser` ps.
    #[inline]
    pub(crate) fn account_busy(&mut self, ch: u32, start: Ps, ser: Ps, wire: u32) {
        if self.in_window(start) {
            self.tx[ch as usize].busy_ps += ser;
            self.tx[ch as usize].bytes += wire as u64;
        }
        self.packet_hops += 1;
        self.last_progress = start;
    }
}

/// The channels of `links.failed` and when they fail: both directions of
/// each cable. Terminal links are refused: failing one cuts a node off.
fn failed_links(cfg: &Config, net: &Network) -> Result<Vec<(u32, Ps)>> {
    let mut out = Vec::new();
    for (i, f) in cfg.links.failed.iter().enumerate() {
        let field = format!("links.failed[{i}]");
        let ch = net.cabled_port(&field, f.switch, f.port)?;
        if net.channels[ch as usize].kind == crate::network::LinkKind::Terminal {
            return Err(ConfigError::new(format!("{field}.port"), "a terminal link cuts its node off; fail switch-to-switch links only"));
        }
        let at = ns_to_ps(f.at_ns);
        out.push((ch, at));
        out.push((net.reverse(ch), at));
    }
    Ok(out)
}
