//! The simulation: its components, the event loop and why a run ends.
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
//!
//! The components, each in its own file (docs/architecture.md draws how a
//! packet moves through them):
//! - [`channels`]: links, their transmitters and the credits of the buffers they feed;
//! - [`switch`]: input buffers, virtual output queues, routing and output
//!   arbitration; [`neighbour_load`]: the loads neighbours advertise to
//!   Slingshot adaptive routing;
//! - [`tiled`]: the tiled switch model (per-input requests, row buses, column channels);
//! - [`nic`]: messages, packetization, injection and the NIC counters;
//! - [`sources`]: synthetic traffic and the flows it starts;
//! - [`signals`]: acks and congestion notifications between the NICs and
//!   the congestion control (`crate::congestion`); [`acks`]: the same as
//!   packets on the reverse path; [`flow_queues`]: the switches' own acks
//!   and flow queues when the switches run congestion control;
//! - [`reliability`]: link-level retry, failed links, lossy drops, end-to-end retry;
//! - [`delivery`] and [`measurement`]: what arrives and what is counted;
//! - [`mpi`]: the MPI runtime that drives jobs; [`rma`]: its one-sided
//!   operations in the NIC (fences, completions, reliability models);
//! - [`build`]: the named steps that wire a config into all of these.

mod acks;
mod api;
mod build;
pub(crate) mod channels;
mod delivery;
pub(crate) mod flow_queues;
pub(crate) mod hop_hold;
mod hop_waits;
mod jobs_report;
mod link_snapshots;
pub(crate) mod measurement;
mod mpi;
pub(crate) mod neighbour_load;
pub(crate) mod nic;
pub(crate) mod reliability;
mod report;
mod reroutes;
mod rma;
pub(crate) mod signals;
pub(crate) mod sources;
pub(crate) mod switch;
mod tiled;
mod voq;
mod watchdog;

use crate::ids::ChannelId;
use crate::config::Config;
use crate::event::{Event, EventQueue};
use crate::network::Network;
use crate::packet::PacketPool;
use crate::routing;
use crate::topology::Topology;
use crate::units::Ps;
use std::time::Instant;

pub use nic::NicCounters;

/// Events between two looks at the wall clock (a few milliseconds of work
/// at most, so an interrupt or a wall-time limit is answered promptly).
const CLOCK_CHECK_EVENTS: u32 = 4096;

/// A time that never comes.
pub(crate) const NEVER: Ps = Ps::MAX;

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
    /// Only flows ran and all ended, but some lost bytes (end-to-end
    /// retries exhausted, lossy drops): see `flows.lost` and `bytes_lost`.
    FlowsLost,
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
    /// The run used up `sim.wall_limit_s` of wall-clock time: its results
    /// stop wherever the machine's speed let it get.
    WallLimit,
}

impl EndReason {
    /// Name used in results.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::TimeLimit => "time_limit",
            EndReason::DrainLimit => "drain_limit",
            EndReason::FlowsDone => "flows_done",
            EndReason::FlowsLost => "flows_lost",
            EndReason::MaxTime => "max_time",
            EndReason::Deadlock => "deadlock",
            EndReason::Idle => "idle",
            EndReason::JobsDone => "jobs_done",
            EndReason::JobsStalled => "jobs_stalled",
            EndReason::WallLimit => "wall_limit",
        }
    }
}

/// How a slice of a run ([`Simulation::run_slice`]) stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slice {
    /// The run has ended.
    Ended,
    /// Simulated time reached the time asked for.
    Reached,
    /// The slice's wall-clock time ran out first.
    Paused,
}

/// Simulated time and the run's time marks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    pub now: Ps,
    pub warmup: Ps,
    /// End of the measurement window, and of the run at the latest.
    pub window_end: Ps,
    pub end: Ps,
    /// Watchdog interval, and the last time a packet moved.
    pub watchdog: Ps,
    pub last_progress: Ps,
}

impl Clock {
    /// True while the measurement window is open at `t`.
    #[inline]
    pub fn in_window(&self, t: Ps) -> bool {
        t >= self.warmup && t < self.window_end
    }
}

/// Virtual channels per port: `hop_vcs` hop classes (for deadlock freedom)
/// per traffic class.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VcLayout {
    pub hop_vcs: usize,
    pub n_vcs: usize,
}

impl VcLayout {
    /// VC of class `class` at hop `hops` (the class's first VC toward an endpoint).
    #[inline]
    pub fn of(&self, class: u8, hops: u8, to_endpoint: bool) -> usize {
        let base = class as usize * self.hop_vcs;
        if to_endpoint {
            base
        } else {
            base + (hops as usize).min(self.hop_vcs - 1)
        }
    }

    /// First VC of class `class` (the one a NIC injects into).
    #[inline]
    pub fn first_of(&self, class: u8) -> usize {
        class as usize * self.hop_vcs
    }

    /// Class of VC `vc`.
    #[inline]
    pub fn class_of(&self, vc: usize) -> usize {
        vc / self.hop_vcs
    }
}

/// One simulation of a network under synthetic traffic and MPI jobs.
pub struct Simulation {
    pub(crate) cfg: Config,
    pub(crate) topo: Topology,
    /// The routes after the fabric manager's reroutes during the run.
    pub(crate) reroutes: reroutes::Reroutes,
    pub(crate) net: Network,
    pub(crate) clock: Clock,
    pub(crate) events: EventQueue,
    pub(crate) pool: PacketPool,
    pub(crate) vcs: VcLayout,
    pub(crate) channels: channels::Channels,
    pub(crate) switches: switch::Switches,
    pub(crate) nics: nic::Nics,
    pub(crate) qos: switch::Qos,
    pub(crate) cc: crate::congestion::Congestion,
    pub(crate) signals: signals::Signals,
    pub(crate) flow_queues: flow_queues::FlowQueues,
    pub(crate) hop_hold: hop_hold::HopHold,
    pub(crate) neighbour_load: neighbour_load::NeighbourLoad,
    pub(crate) reliability: reliability::Reliability,
    pub(crate) traffic: sources::Traffic,
    pub(crate) flows: sources::Flows,
    pub(crate) measure: measurement::Measurement,
    /// Link counters read at `sim.link_snapshots_ns` (empty unless asked for).
    pub(crate) link_snapshots: link_snapshots::LinkSnapshots,
    /// The MPI layer: jobs and their ranks (empty without jobs).
    pub(crate) mpi: crate::mpi::runtime::Runtime,
    pub(crate) end_reason: Option<EndReason>,
    pub(crate) stuck: Vec<serde_json::Value>,
    pub(crate) wall_s: f64,
    pub(crate) build_s: f64,
}

impl Simulation {
    /// Builds a simulation from a config given as JSON text.
    pub fn from_json(text: &str) -> crate::error::Result<Simulation> {
        Simulation::new(Config::from_json(text)?)
    }

    /// Current simulated time (ps).
    pub fn now(&self) -> Ps {
        self.clock.now
    }

    /// Time at which the run ends at the latest (ps).
    pub fn end_time(&self) -> Ps {
        self.clock.end
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
        self.measure.packet_hops
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
        self.run_slice(t, None);
        self.finished()
    }

    /// Like [`Simulation::run_until`], but hands control back once `wall`
    /// of wall-clock time has passed ([`Slice::Paused`]: call again to go
    /// on): the Python binding runs in such slices so that Ctrl-C is
    /// answered within a fraction of a second.
    ///
    /// A time `sim.link_snapshots_ns` names is run to first (the events
    /// before it, as in a run whose window ends there) and the link
    /// counters read there, so the run is the same with or without them.
    pub fn run_slice(&mut self, t: Ps, wall: Option<std::time::Duration>) -> Slice {
        let deadline = wall.map(|w| Instant::now() + w);
        loop {
            match self.link_snapshots.next() {
                Some(at) if at <= t.min(self.clock.end) => match self.run_events(at.saturating_sub(Ps(1)), deadline) {
                    Slice::Reached => {
                        self.clock.now = at;
                        self.take_link_snapshot();
                    }
                    stopped => return stopped,
                },
                _ => return self.run_events(t, deadline),
            }
        }
    }

    /// Runs the events up to `t` (or the end of the run), handing control
    /// back at `deadline` of wall-clock time.
    fn run_events(&mut self, t: Ps, deadline: Option<Instant>) -> Slice {
        if self.finished() {
            return Slice::Ended;
        }
        let t0 = Instant::now();
        let wall_limit = self.cfg.sim.wall_limit_s.map(|s| s - self.wall_s);
        let limit = t.min(self.clock.end);
        let mut budget = CLOCK_CHECK_EVENTS;
        let mut sliced = false;
        while let Some((et, ev, ahead)) = self.events.pop_until(limit) {
            self.prefetch_ahead(ahead);
            self.clock.now = et;
            self.dispatch(ev);
            if self.finished() {
                break;
            }
            budget -= 1;
            if budget == 0 {
                budget = CLOCK_CHECK_EVENTS;
                let at = Instant::now();
                if wall_limit.is_some_and(|w| (at - t0).as_secs_f64() >= w) {
                    self.finish(EndReason::WallLimit);
                    break;
                }
                if deadline.is_some_and(|d| at >= d) {
                    sliced = true;
                    break;
                }
            }
        }
        if !self.finished() && !sliced {
            self.end_when_nothing_moves(limit);
        }
        self.wall_s += t0.elapsed().as_secs_f64();
        match (self.finished(), sliced) {
            (true, _) => Slice::Ended,
            (false, true) => Slice::Paused,
            (false, false) => Slice::Reached,
        }
    }

    /// After the events up to `limit` ran: ends the run if nothing is left
    /// to do, or if `limit` is the end of the run.
    fn end_when_nothing_moves(&mut self, limit: Ps) {
        if self.events.is_empty() {
            if self.pool.live() > 0 {
                self.declare_deadlock();
            } else if self.mpi.jobs_left > 0 {
                self.finish(EndReason::JobsStalled);
            } else {
                self.finish(EndReason::Idle);
            }
            return;
        }
        self.clock.now = self.clock.now.max(limit);
        if limit == self.clock.end {
            // With no drain time asked for (sim.drain_ns = 0) ending at the window is the plan.
            let offered_load = self.traffic.has_bernoulli && self.mpi.jobs_left == 0;
            self.finish(match (offered_load, self.measure.measured_outstanding) {
                (true, n) if n > 0 && self.clock.end > self.clock.window_end => EndReason::DrainLimit,
                (true, _) => EndReason::TimeLimit,
                (false, _) => EndReason::MaxTime,
            });
        }
    }

    /// Starts loading what the next three events will touch while this
    /// one runs: a hop is a chain of dependent reads of records scattered
    /// over memory (the packet, the channel it is on, that channel's
    /// credit returns), and the engine knows the events before it handles
    /// them. Each stage reads only what the stage before fetched an event
    /// earlier: the third event ahead gets its packet (or transmitter)
    /// fetched; the second, whose packet is then at hand, the channel its
    /// packet is on (or the first queue of its output, or for a message
    /// about to be made, its NIC's queue and transmitter); the next, whose
    /// channel is then at hand, that channel's credit returns and the
    /// outputs it will likely take at the switch it arrives at (or the
    /// packet at the head of that queue, the entry behind it and the
    /// output's credit returns).
    #[inline]
    fn prefetch_ahead(&self, [next, second, third]: [crate::event::Ahead; 3]) {
        if let Some(h) = third.arrive() {
            self.pool.prefetch(h);
        } else if let Some(c) = third.try_output() {
            self.channels.prefetch_transmitter(c);
        }
        if let Some(h) = second.arrive() {
            let p = self.pool.hot(h);
            self.channels.prefetch_input(p.ch);
            if p.flags & crate::packet::FLAG_LAST_HOP != 0 {
                self.pool.prefetch_cold(h);
            }
        } else if let Some(c) = second.try_output() {
            if let Some(t) = self.channels.tx.get(c) {
                self.switches.prefetch_queues(c, t.queues);
            }
        } else if let Some((source, member)) = second.generate() {
            self.prefetch_source_nic(source, member);
        }
        if let Some(h) = next.arrive() {
            let p = self.pool.hot(h);
            self.channels.prefetch_returns(p.ch);
            self.prefetch_outputs(p);
        } else if let Some(c) = next.try_output() {
            if let Some(t) = self.channels.tx.get(c) {
                self.switches.prefetch_first_head(t.queues, &self.pool);
            }
            self.channels.prefetch_returns(c);
        }
    }

    /// Hints the processor to fetch the transmitters packet `p` will
    /// likely leave its next switch through (both lines: where they lead,
    /// whether they are free, their credits), as routing would choose
    /// them by the packet's routing state alone. Routing still decides
    /// when the packet arrives.
    #[inline]
    fn prefetch_outputs(&self, p: &crate::packet::PacketHot) {
        let Some(t) = self.channels.tx.get(p.ch) else { return };
        let s = t.to_switch;
        if s.is_none() {
            return;
        }
        let mut fetch = |c: ChannelId| self.channels.prefetch_transmitter(c);
        match self.reroutes.topo(&self.topo, p.epoch) {
            Topology::Dragonfly(df) => routing::adaptive::Paths::likely_next(df, &self.net, s, p, &mut fetch),
            Topology::Graph(g) => routing::adaptive::Paths::likely_next(g, &self.net, s, p, &mut fetch),
        }
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
            Event::MpiArrive(w) => self.on_mpi_arrive(w),
            Event::FlowRelease { src, dst } => {
                self.release_flow(src, dst);
            }
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
        let c = &self.clock;
        if c.now >= c.window_end && self.measure.measured_outstanding == 0 && self.traffic.has_bernoulli && self.mpi.jobs_left == 0 {
            self.finish(EndReason::TimeLimit);
        }
    }

    /// Schedules a transmission attempt on `ch` at `at` unless one is
    /// already due no later.
    #[inline]
    pub(crate) fn schedule_try(&mut self, ch: ChannelId, at: Ps) {
        let t = &mut self.channels.tx[ch];
        if t.scheduled_at <= at {
            return;
        }
        t.scheduled_at = at;
        self.events.push(at, Event::TryOutput(ch));
    }

    /// A transmitter's attempt: its NIC or its switch output sends if it can.
    #[inline]
    fn on_try_output(&mut self, ch: ChannelId) {
        let now = self.clock.now;
        let t = &mut self.channels.tx[ch];
        if t.scheduled_at != now {
            return; // superseded by an earlier attempt
        }
        t.scheduled_at = NEVER;
        let e = self.channels.from_endpoint[ch];
        if e.is_none() && self.hop_hold.on() {
            self.hop_release(ch);
        }
        // A tiled switch granting ahead decides itself how early it may grant.
        let ahead = e.is_none() && self.switches.tiles.as_ref().is_some_and(|t| t.grant_ahead);
        let t = &self.channels.tx[ch];
        if now < t.busy_until && !ahead {
            let at = t.busy_until;
            self.schedule_try(ch, at);
            return;
        }
        if e.is_none() {
            if self.switches.tiles.is_some() {
                self.tiled_send(ch)
            } else {
                self.switch_send(ch)
            }
        } else {
            self.nic_send(e, ch)
        }
    }
}
