//! Building a simulation from a config, in named steps: routing modes and
//! traffic classes, virtual channels, the run's time marks, then each
//! component, then the first events.

use crate::ids::IdVec;
use super::channels::Channels;
use super::measurement::{Measurement, PacketSamples, Timeline};
use super::nic::Nics;
use super::reliability::Reliability;
use super::reroutes::Reroutes;
use super::signals::{Signals, ZeroLoad};
use super::sources::{Flows, Traffic};
use super::switch::{FallThrough, Qos, Switches};
use super::tiled::Tiles;
use crate::crossbar::SwitchModel;
use super::{Clock, Simulation, VcLayout, NEVER};
use crate::config::Config;
use crate::congestion::{Congestion, CongestionControl};
use crate::error::{ConfigError, Result};
use crate::event::{Event, EventQueue};
use crate::metrics::SourceStats;
use crate::mpi::build::JobPlan;
use crate::network::{LinkKind, Network};
use crate::mpi::config::JobRouting;
use crate::names::Named;
use crate::nic::Frame;
use crate::packet::PacketPool;
use crate::qos::TrafficClass;
use crate::rng::Rng;
use crate::routing::{Algorithm, Biases};
use crate::topology::Topology;
use crate::traffic::{build_sources, Injection, Source};
use crate::units::{ns_to_ps, Ps};
use std::collections::VecDeque;
use std::time::Instant;

/// Routing mode and class of every traffic source and job.
struct Modes {
    global: Algorithm,
    sources: Vec<(Algorithm, u8)>,
    jobs: Vec<(Algorithm, u8)>,
    app_aware: Vec<bool>,
}

impl Modes {
    /// Every routing mode a packet of this run may take: the sources',
    /// the jobs', `routing.algorithm`, the classes' own, and
    /// application-aware routing's pair when a job uses it (it picks a
    /// mode per message). Repeats are left in.
    fn all<'a>(&'a self, classes: &'a [TrafficClass]) -> impl Iterator<Item = Algorithm> + 'a {
        let aware: &[Algorithm] = if self.app_aware.contains(&true) { &crate::mpi::app_aware::MODES } else { &[] };
        self.sources
            .iter()
            .chain(self.jobs.iter())
            .map(|&(a, _)| a)
            .chain(std::iter::once(self.global))
            .chain(classes.iter().filter_map(|c| c.routing))
            .chain(aware.iter().copied())
    }
}

/// The run's time marks.
struct Window {
    warmup: Ps,
    window_end: Ps,
    end: Ps,
}

impl Simulation {
    /// Builds a simulation: validates the config, builds the topology,
    /// allocates the traffic sources' nodes and schedules their first events.
    pub fn new(cfg: Config) -> Result<Simulation> {
        let t0 = Instant::now();
        let frame = cfg.nic.frame;
        let (topo, net) = Topology::build(&cfg)?;
        check_latencies(&net)?;
        let classes = crate::qos::build_classes(&cfg)?;
        let modes = resolve_modes(&cfg, &classes)?;
        check_minimal_paths(&cfg, &classes, &modes)?;
        let fail_at = net.failed_channels(&cfg.links, cfg.sim.seed)?;
        let reroutes = Reroutes::new(&cfg, &topo, &net, &fail_at)?;
        let vcs = virtual_channels(&topo, &reroutes, &classes, &modes);
        let vc_capacity = vc_capacity(&cfg, frame, vcs)?;
        let terminal_credits = terminal_class_credits(&cfg, frame, classes.len())?;
        if cfg.traffic.is_empty() && cfg.job.is_empty() {
            return Err(ConfigError::new("traffic", "nothing to simulate: add a [[traffic]] source or a [[job]]"));
        }
        if cfg.nic.max_retries > 255 {
            return Err(ConfigError::new("nic.max_retries", format!("at most 255, got {}", cfg.nic.max_retries)));
        }
        let seed = cfg.sim.seed;
        let mut alloc = crate::traffic::nodes::NodeAllocator::new(net.nodes());
        let sources = build_sources(&cfg.traffic, &topo, &net, seed, &mut alloc)?;
        let names: Vec<String> = sources.iter().map(|s| s.name.clone()).collect();
        let job_plans = crate::mpi::build::plan_jobs(&cfg.job, &mut alloc, seed, &names)?;
        let mpi_params = crate::mpi::runtime::Params::new(&cfg.mpi, &cfg.host)?;
        let window = run_window(&cfg, &sources);
        let cc = Congestion::new(&cfg.congestion, cfg.nic.bandwidth_bps, frame.wire_bytes(cfg.nic.mtu_payload))?;
        cc.check_acks(cfg.nic.acks, net.endpoint_node.len())?;
        let channels = Channels::new(&net, vcs, vc_capacity, terminal_credits, &fail_at, cfg.links.bit_error_rate > 0.0);
        let fall_through = FallThrough::new(
            ns_to_ps(cfg.switch.latency_ns),
            ns_to_ps(cfg.switch.latency_ns * cfg.switch.latency_spread_fraction),
            Rng::new(seed, 0xFA11).next_u64(),
        );
        let zero_load = zero_load(&cfg, &net, frame, fall_through.max());
        let watchdog = watchdog_interval(&cfg, &net, frame, fall_through.max())?;
        check_link_retry(&cfg, frame)?;
        let qos = qos(&cfg, classes, net.channels.len());
        let nics = nics(&cfg, &net, frame, &cc, &qos, !fail_at.is_empty())?;
        let traffic = traffic(&cfg, &net, frame, sources, &modes)?;
        let measure = measurement(&cfg, traffic.sources.len());
        let tiles = tiles(&cfg, &net)?;
        let cc_fabric_acks = cc.fabric_acks();
        let mut sim = Simulation {
            clock: Clock { now: Ps::ZERO, warmup: window.warmup, window_end: window.window_end, end: window.end, watchdog, last_progress: Ps::ZERO },
            events: EventQueue::default(),
            pool: PacketPool::default(),
            vcs,
            channels,
            switches: Switches::new(
                (0..net.switches()).map(|s| Rng::new(seed, 0x100_0000 + s as u64)).collect(),
                fall_through,
                cfg.switch.speedup,
                tiles,
            ),
            nics,
            qos,
            cc,
            signals: Signals::new(Rng::new(seed, 0xCC), zero_load),
            flow_queues: crate::engine::flow_queues::FlowQueues::new(cc_fabric_acks),
            hop_hold: crate::engine::hop_hold::HopHold::new(
                if cc_fabric_acks { cfg.congestion.hop_hold_bytes } else { 0 },
                cfg.congestion.hop_hold_cut_flows_only,
            ),
            neighbour_load: crate::engine::neighbour_load::NeighbourLoad::new(
                cfg.routing.neighbour_load,
                ns_to_ps(cfg.routing.neighbour_load_refresh_ns),
                net.channels.len(),
            ),
            reliability: Reliability::new(&cfg),
            traffic,
            flows: Flows::default(),
            measure,
            link_snapshots: crate::engine::link_snapshots::LinkSnapshots::new(&cfg.sim.link_snapshots_ns),
            mpi: Default::default(),
            end_reason: None,
            stuck: Vec::new(),
            wall_s: 0.0,
            build_s: 0.0,
            topo,
            reroutes,
            net,
            cfg,
        };
        if !sim.cfg.sim.link_snapshots_ns.is_empty() {
            sim.channels.track_ahead();
        }
        sim.start_jobs(job_plans, &modes, mpi_params)?;
        sim.schedule_sources();
        sim.events.push(sim.clock.watchdog, Event::Watchdog);
        if sim.traffic.has_bernoulli {
            sim.events.push(sim.clock.window_end, Event::WindowEnd);
        }
        sim.build_s = t0.elapsed().as_secs_f64();
        Ok(sim)
    }

    /// Gives each job a source to count under, builds the MPI runtime and
    /// schedules the ranks' starts.
    fn start_jobs(&mut self, plans: Vec<JobPlan>, modes: &Modes, params: crate::mpi::runtime::Params) -> Result<()> {
        let mut job_routing = Vec::with_capacity(plans.len());
        for ((plan, &(mode, class)), &aware) in plans.iter().zip(&modes.jobs).zip(&modes.app_aware) {
            let s = self.add_passive_source(&plan.name, plan.nodes.clone(), plan.start, mode, class);
            job_routing.push((s, mode.code(), class, aware));
        }
        let stop_after = self.cfg.sim.stop_after_job.clone();
        self.mpi = crate::mpi::build::runtime(plans, &job_routing, params, stop_after.as_deref())?;
        self.mpi_schedule_starts();
        Ok(())
    }
}

/// `routing.minimal_paths = "one-global-hop"` changes only the modes that
/// compare two minimal candidates; a run that routes with none of them
/// would ignore it, so it is refused.
fn check_minimal_paths(cfg: &Config, classes: &[TrafficClass], m: &Modes) -> Result<()> {
    if cfg.routing.minimal_paths == crate::routing::MinimalPaths::Shortest {
        return Ok(());
    }
    let mut all: Vec<Algorithm> = m.all(classes).collect();
    if all.iter().any(|&a| crate::routing::adaptive::candidates(a).0 >= 2) {
        return Ok(());
    }
    all.sort_by_key(|a| a.code());
    all.dedup();
    let names: Vec<&str> = all.iter().map(|a| a.name()).collect();
    Err(ConfigError::new(
        "routing.minimal_paths",
        format!(
            "\"one-global-hop\" changes only the modes that compare two minimal candidates (slingshot, adaptive-0 to adaptive-3); \
             this run routes with {}: choose one of those modes or set routing.minimal_paths = \"shortest\"",
            names.join(", ")
        ),
    ))
}

/// The routing mode and class of each source and job: its own mode, else
/// its class's, else `routing.algorithm`.
fn resolve_modes(cfg: &Config, classes: &[TrafficClass]) -> Result<Modes> {
    let global = cfg.routing.algorithm;
    let resolve = |field: String, class: Option<&str>, dscp: Option<u32>, own: Option<Algorithm>| -> Result<(Algorithm, u8)> {
        let class = crate::qos::resolve_class(classes, &field, class, dscp)?;
        let c = &classes[class as usize];
        let mode = c.mode(own, c.routing.unwrap_or(global)).map_err(|m| ConfigError::new(format!("{field}.routing"), m))?;
        Ok((mode, class))
    };
    let mut sources = Vec::with_capacity(cfg.traffic.len());
    for (i, t) in cfg.traffic.iter().enumerate() {
        sources.push(resolve(format!("traffic[{i}]"), t.class.as_deref(), t.dscp, t.routing)?);
    }
    let mut jobs = Vec::with_capacity(cfg.job.len());
    let mut app_aware = Vec::with_capacity(cfg.job.len());
    for (i, j) in cfg.job.iter().enumerate() {
        let field = format!("job[{i}]");
        // "app-aware": paper 004's per-message choice between its two
        // modes (mpi/app_aware.rs); the job starts on the first.
        let aware = j.routing == Some(JobRouting::AppAware);
        let own = match j.routing {
            Some(JobRouting::AppAware) => Some(crate::mpi::app_aware::MODES[0]),
            Some(JobRouting::Mode(m)) => Some(m),
            None => None,
        };
        jobs.push(resolve(field, j.class.as_deref(), j.dscp, own)?);
        app_aware.push(aware);
    }
    Ok(Modes { global, sources, jobs, app_aware })
}

/// Enough hop VCs for the longest path of any mode in use (the API may ask
/// for any mode per message, so count them all when it is used), per class.
fn virtual_channels(topo: &Topology, reroutes: &Reroutes, classes: &[TrafficClass], m: &Modes) -> VcLayout {
    let hop_vcs = m.all(classes).map(|a| topo.max_hops(a).max(reroutes.max_hops(a))).max().unwrap_or(1) as usize;
    VcLayout { hop_vcs, n_vcs: hop_vcs * classes.len() }
}

/// Link latencies fit 32 bits of picoseconds (4.29 ms), which keeps a
/// transmitter's state in one cache line.
fn check_latencies(net: &Network) -> Result<()> {
    let longest = Ps(u32::MAX as u64);
    if let Some(c) = net.channels.iter().find(|c| c.latency > longest) {
        let key = match c.kind {
            LinkKind::Terminal => "links.terminal_latency_ns",
            LinkKind::Local => "links.local_latency_ns",
            LinkKind::Global => "links.global_latency_ns",
        };
        return Err(ConfigError::new(
            key,
            format!(
                "a link's latency ({} ns with links.fec_latency_ns) must stay under {:.0} ns (4.29 ms, far beyond any cable); lower it",
                crate::units::ps_to_ns(c.latency),
                crate::units::ps_to_ns(longest)
            ),
        ));
    }
    Ok(())
}

/// Credits of one VC: the input buffer split over the VCs, at least one packet.
fn vc_capacity(cfg: &Config, frame: Frame, vcs: VcLayout) -> Result<i64> {
    let max_wire = frame.wire_bytes(cfg.nic.mtu_payload) as i64;
    let cap = cfg.switch.buffer_bytes as i64 / vcs.n_vcs as i64;
    if cap < max_wire {
        return Err(ConfigError::new(
            "switch.buffer_bytes",
            format!(
                "{} bytes split over {} virtual channels ({} for {} routing x {} traffic classes) give {cap} B per VC, less than one packet ({max_wire} B); \
                 raise switch.buffer_bytes to at least {} or lower nic.mtu_payload",
                cfg.switch.buffer_bytes,
                vcs.n_vcs,
                vcs.hop_vcs,
                cfg.routing.algorithm.name(),
                vcs.n_vcs / vcs.hop_vcs,
                max_wire * vcs.n_vcs as i64
            ),
        ));
    }
    Ok(cap)
}

/// Credits of each traffic class at a switch's NIC-facing input: that
/// port's buffer (`switch.terminal_buffer_bytes`, else `buffer_bytes`)
/// split over the classes, at least one packet (`buffer_bytes` always
/// is: `vc_capacity` splits it over at least as many VCs).
fn terminal_class_credits(cfg: &Config, frame: Frame, classes: usize) -> Result<i64> {
    let bytes = cfg.switch.terminal_buffer_bytes.unwrap_or(cfg.switch.buffer_bytes);
    let max_wire = frame.wire_bytes(cfg.nic.mtu_payload) as i64;
    let cap = bytes as i64 / classes as i64;
    if cap < max_wire {
        return Err(ConfigError::new(
            "switch.terminal_buffer_bytes",
            format!(
                "{bytes} bytes give each of the {classes} traffic class(es) {cap} B, less than one packet ({max_wire} B); \
                 raise switch.terminal_buffer_bytes to at least {} or lower nic.mtu_payload",
                max_wire * classes as i64
            ),
        ));
    }
    Ok(cap)
}

/// Warmup, end of the measurement window and end of the run. Offered-load
/// runs measure a window and drain after it; flow and job runs go up to
/// `sim.max_time_ns`, as do runs whose jobs must finish.
fn run_window(cfg: &Config, sources: &[Source]) -> Window {
    let has_bernoulli = sources.iter().any(|s| matches!(s.injection, Injection::Bernoulli { .. }));
    let jobs_wait = cfg.job.iter().any(|j| !j.repeat) || cfg.sim.stop_after_job.is_some();
    let warmup = if has_bernoulli { ns_to_ps(cfg.sim.warmup_ns) } else { Ps::ZERO };
    let window_end = if has_bernoulli { warmup + ns_to_ps(cfg.sim.duration_ns) } else { ns_to_ps(cfg.sim.max_time_ns) };
    let drain = ns_to_ps(cfg.sim.drain_ns.unwrap_or(cfg.sim.duration_ns));
    let end = if has_bernoulli { window_end + drain } else { window_end };
    let end = if jobs_wait { end.max(ns_to_ps(cfg.sim.max_time_ns)) } else { end };
    Window { warmup, window_end, end }
}

/// Default watchdog interval.
const WATCHDOG_DEFAULT_NS: f64 = 500_000.0;

/// The watchdog's interval: `sim.watchdog_ns`, or its default. It may not
/// be shorter than the longest a healthy network can go without starting a
/// transmission: a hop (the slowest link's latency and a full packet's
/// serialization on it, plus the switch), with margin, or an end-to-end
/// retry timeout (a lost packet waits that long to be resent).
fn watchdog_interval(cfg: &Config, net: &Network, frame: Frame, switch_latency: Ps) -> Result<Ps> {
    let full = frame.wire_bytes(cfg.nic.mtu_payload) as u64;
    let hop = net.channels.iter().map(|c| c.latency + c.rate.serialize(full)).max().unwrap_or(Ps::ZERO) + switch_latency;
    let floor = (hop * 4).max(ns_to_ps(cfg.nic.retry_timeout_ns) + hop);
    match cfg.sim.watchdog_ns {
        None => Ok(ns_to_ps(WATCHDOG_DEFAULT_NS).max(floor)),
        Some(w) if ns_to_ps(w) < floor => Err(ConfigError::new(
            "sim.watchdog_ns",
            format!(
                "{w} ns is shorter than a healthy network of this config can go without moving a packet; give at least {} ns \
                 (four of its slowest hops, or a hop past nic.retry_timeout_ns), or leave it out",
                crate::units::ps_to_ns(floor)
            ),
        )),
        Some(w) => Ok(ns_to_ps(w)),
    }
}

/// Link-level retry must converge: a full packet may be corrupted with
/// probability at most one half (each replay then succeeds more often than
/// not); a higher bit-error rate would replay packets without end.
fn check_link_retry(cfg: &Config, frame: Frame) -> Result<()> {
    let ber = cfg.links.bit_error_rate;
    if ber == 0.0 {
        return Ok(());
    }
    let bits = 8.0 * frame.wire_bytes(cfg.nic.mtu_payload) as f64;
    let p_bad = 1.0 - (1.0 - ber).powf(bits);
    if p_bad > 0.5 {
        let max = 1.0 - 0.5f64.powf(1.0 / bits);
        return Err(ConfigError::new(
            "links.bit_error_rate",
            format!(
                "{ber} corrupts {:.0}% of {}-byte packets, more than link-level retry can get through; with nic.mtu_payload = {} \
                 use at most {max:.2e} (real links run near 1e-12 before FEC), or smaller packets",
                100.0 * p_bad,
                frame.wire_bytes(cfg.nic.mtu_payload),
                cfg.nic.mtu_payload
            ),
        ));
    }
    Ok(())
}

/// What a zero-load round trip is made of, for congestion control's windows.
/// `switch_latency` is the slowest output's fall-through.
fn zero_load(cfg: &Config, net: &Network, frame: Frame, switch_latency: Ps) -> ZeroLoad {
    let latency_of = |terminal: bool| net.channels.iter().filter(|c| (c.kind == LinkKind::Terminal) == terminal).map(|c| c.latency).max().unwrap_or(Ps::ZERO);
    ZeroLoad {
        terminal_latency: latency_of(true),
        max_fabric_latency: latency_of(false),
        switch_latency,
        line_rate_bps: cfg.nic.bandwidth_bps,
        full_packet_wire: frame.wire_bytes(cfg.nic.mtu_payload),
    }
}

/// Traffic classes, their routing biases and the share meter.
fn qos(cfg: &Config, classes: Vec<TrafficClass>, channels: usize) -> Qos {
    let base = Biases {
        ugal: cfg.routing.ugal_threshold_bytes,
        slingshot: cfg.routing.bias_bytes,
        aries_low: cfg.routing.aries_low_bias_bytes,
        aries_high: cfg.routing.aries_high_bias_bytes,
    };
    let biases = classes
        .iter()
        .map(|c| match c.spec.bias_bytes {
            None => base,
            Some(b) => Biases { ugal: b, slingshot: b, ..base },
        })
        .collect();
    Qos {
        share: crate::qos::ShareMeter::new(cfg, channels, classes.len()),
        any_lossy: classes.iter().any(|c| c.spec.lossy),
        lossy_queue_bytes: cfg.qos.lossy_queue_bytes,
        biases,
        classes,
    }
}

/// One NIC per endpoint, all idle.
fn nics(cfg: &Config, net: &Network, frame: Frame, cc: &Congestion, qos: &Qos, failures: bool) -> Result<Nics> {
    let endpoints = net.endpoint_up.len();
    let max_outstanding = cfg.nic.max_outstanding_packets;
    Ok(Nics {
        frame,
        mtu: cfg.nic.mtu_payload,
        flit_bytes: cfg.nic.flit_bytes,
        messages: Vec::new(),
        free_messages: Vec::new(),
        queue: IdVec::filled(VecDeque::new(), endpoints),
        retry_queue: IdVec::filled(VecDeque::new(), endpoints),
        backlog: IdVec::filled(0, endpoints),
        counters: IdVec::filled(Default::default(), endpoints),
        stalled_since: IdVec::filled(NEVER, endpoints),
        // Lost packets (failures, lossy classes) wait in the retry queue, which
        // only a scanning NIC serves.
        scan: cc.active() || qos.classes.len() > 1 || qos.any_lossy || max_outstanding > 0 || failures,
        acks_needed: cc.needs_acks() || max_outstanding > 0,
        acks: cfg.nic.acks,
        ack_class: ack_class(cfg, &qos.classes)?,
        ack_queue: IdVec::filled(VecDeque::new(), endpoints),
        outstanding: IdVec::filled(0, endpoints),
        max_outstanding,
        waiting_ack: IdVec::filled(false, endpoints),
        release: cfg.nic.outstanding_release,
        sent_in_block: IdVec::filled(0, endpoints),
        draining: IdVec::filled(false, endpoints),
        serial: 0,
        next_rail: IdVec::filled(0, net.nodes()),
        rail_selection: cfg.nic.rail_selection,
        rail_unit: cfg.nic.rail_unit,
        rail_plan: vec![Default::default(); net.rails as usize],
        message_order: cfg.nic.message_order,
        rail_rng: Rng::new(cfg.sim.seed, 0x5A11),
        node_rate: cfg.nic.node_injection_bps.map(crate::units::Rate::from_bps),
        node_free_at: IdVec::filled(Ps::ZERO, net.nodes()),
        node_last_sender: IdVec::filled(crate::ids::EndpointId::NONE, net.nodes()),
    })
}

/// The class `nic.ack_class` names, if it names one: refused unless acks
/// are packets (instant acks take no class) and the class keeps what it
/// carries (a lossy class would drop the acks the senders wait for).
fn ack_class(cfg: &Config, classes: &[TrafficClass]) -> Result<Option<u8>> {
    let Some(name) = cfg.nic.ack_class.as_deref() else { return Ok(None) };
    if cfg.nic.acks != crate::nic::AckModel::Packets {
        return Err(ConfigError::new(
            "nic.ack_class",
            "acks take a traffic class only as packets; set nic.acks = \"packets\" or drop nic.ack_class",
        ));
    }
    let names = || classes.iter().map(|c| format!("{:?}", c.spec.name)).collect::<Vec<_>>().join(", ");
    let i = classes.iter().position(|c| c.spec.name == name).ok_or_else(|| {
        ConfigError::new("nic.ack_class", format!("unknown traffic class {name:?}; the config defines {}", names()))
    })?;
    if classes[i].spec.lossy {
        return Err(ConfigError::new(
            "nic.ack_class",
            format!("class {name:?} is lossy and would drop the acks senders wait for; name a lossless class"),
        ));
    }
    Ok(Some(i as u8))
}

/// The traffic sources with their modes, random streams and message sizes;
/// a source given an interval gets the load that makes its messages that
/// far apart on average.
fn traffic(cfg: &Config, net: &Network, frame: Frame, mut sources: Vec<Source>, modes: &Modes) -> Result<Traffic> {
    let node_bw = cfg.nic.bandwidth_bps * net.rails as f64;
    let mut slot_ps = Vec::new();
    let mut msg_wire = Vec::new();
    for (i, s) in sources.iter_mut().enumerate() {
        let bytes = match s.injection {
            Injection::Bernoulli { message_bytes, .. } => message_bytes,
            Injection::Flows { bytes, .. } => bytes,
        };
        let wire = crate::nic::message_wire_bytes(frame, bytes, cfg.nic.mtu_payload);
        msg_wire.push(wire);
        let slot = wire as f64 * 8.0e12 / node_bw;
        slot_ps.push(slot);
        if let (Some(interval), Injection::Bernoulli { load, .. }) = (cfg.traffic[i].interval_ns, &mut s.injection) {
            // Its range is checked with the config's numbers (config/checks.rs).
            let field = format!("traffic[{i}].interval_ns");
            *load = slot / (interval * 1000.0);
            if *load > 1.0 {
                return Err(ConfigError::new(
                    field,
                    format!("a node cannot send {bytes} B ({wire} B on the wire) every {interval} ns: that takes {:.0} ns at its injection bandwidth; lengthen the interval or shrink message_bytes", slot / 1000.0),
                ));
            }
        }
    }
    let seed = cfg.sim.seed;
    Ok(Traffic {
        has_bernoulli: sources.iter().any(|s| matches!(s.injection, Injection::Bernoulli { .. })),
        rng: (0..sources.len()).map(|i| Rng::new(seed, 0x1_0000 + i as u64)).collect(),
        slot_ps,
        msg_wire,
        alg: modes.sources.iter().map(|m| m.0).collect(),
        class: modes.sources.iter().map(|m| m.1).collect(),
        api_source: None,
        seed,
        sources,
    })
}

/// Empty counters for `sources` sources.
/// The tiled crossbar when `switch.model` asks for it; refuses the
/// arbitration options the chosen model does not have.
fn tiles(cfg: &Config, net: &Network) -> Result<Option<Box<Tiles>>> {
    Ok(match cfg.switch.model {
        SwitchModel::PerOutput => {
            if cfg.switch.arbitration != crate::crossbar::Arbitration::Arrival {
                return Err(ConfigError::new(
                    "switch.arbitration",
                    "\"age\" needs switch.model = \"tiled\": the per-output model serves one queue per output and VC in arrival order; set switch.model = \"tiled\" or arbitration = \"arrival\"",
                ));
            }
            None
        }
        SwitchModel::Tiled => {
            if cfg.switch.vc_priority != crate::crossbar::VcPriority::None {
                return Err(ConfigError::new(
                    "switch.vc_priority",
                    "a VC priority needs switch.model = \"per-output\": the tiled model grants by rows and age; set switch.model = \"per-output\" or vc_priority = \"none\"",
                ));
            }
            Some(Box::new(Tiles::new(net, cfg.switch.grid(), cfg.switch.speedup, cfg.switch.arbitration)?))
        }
    })
}

fn measurement(cfg: &Config, sources: usize) -> Measurement {
    Measurement {
        stats: vec![SourceStats::default(); sources],
        timeline: Timeline { lines: vec![Vec::new(); sources], bin: ns_to_ps(cfg.sim.timeline_bin_ns).max(Ps(1)), max_bins: cfg.sim.timeline_max_bins as usize },
        samples: PacketSamples::new(cfg.sim.packet_sample_every as u64, cfg.sim.packet_sample_limit as usize),
        packet_hops: 0,
        packets_injected: 0,
        bytes_injected: 0,
        packets_delivered: 0,
        bytes_delivered: 0,
        measured_outstanding: 0,
        control: Default::default(),
        hop_waits: super::hop_waits::HopWaits::new(cfg.sim.hop_waits, sources),
    }
}
