//! Synthetic traffic in the engine (MODEL.md Sec. 7): offered-load sources
//! generate messages at their nodes, flow sources start fixed-size flows,
//! and every tracked message (flow, API message, MPI message) has a flow
//! record that completes when all its bytes are delivered or lost.

use crate::ids::NodeId;
use super::nic::NicCounters;
use super::{EndReason, Simulation, NEVER};
use crate::event::Event;
use crate::network::NONE;
use crate::rng::Rng;
use crate::routing::Algorithm;
use crate::traffic::{Injection, Source};
use crate::units::Ps;

/// The traffic sources of a run (jobs and API messages count under
/// sources of their own, which generate nothing themselves).
pub(crate) struct Traffic {
    pub sources: Vec<Source>,
    /// One random stream per source (gaps and destinations).
    pub rng: Vec<Rng>,
    /// Wire time of one message at the node's injection rate (ps), and its wire bytes.
    pub slot_ps: Vec<f64>,
    pub msg_wire: Vec<u64>,
    /// Routing mode and traffic class of each source.
    pub alg: Vec<Algorithm>,
    pub class: Vec<u8>,
    /// Some source offers a load (the run then has a measurement window).
    pub has_bernoulli: bool,
    /// The "api" source, once a message was sent through the API.
    pub api_source: Option<u16>,
    pub seed: u64,
}

/// One fixed-size flow (or tracked message), its completion and its NIC counters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlowRecord {
    pub source: u16,
    pub src_node: NodeId,
    pub dst_node: NodeId,
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
    /// Parts of the flow's message not yet delivered or lost: 1, or with
    /// `nic.rail_unit = "packet"` one per rail its packets took.
    pub parts: u32,
}

/// `FlowRecord::app_mode` of a message not routed by application-aware routing.
pub(crate) const NONE_MODE: u8 = u8::MAX;

impl FlowRecord {
    /// A flow of `bytes` from node `src` to node `dst`, started at `start`.
    pub(crate) fn new(source: u16, src: NodeId, dst: NodeId, bytes: u64, start: Ps) -> FlowRecord {
        FlowRecord {
            source,
            src_node: src,
            dst_node: dst,
            bytes,
            start,
            end: NEVER,
            counters: NicCounters::default(),
            last_injected: Ps::ZERO,
            out_of_order: 0,
            lost_bytes: 0,
            mpi: NONE,
            app_mode: NONE_MODE,
            parts: 1,
        }
    }
}

/// Flow records, how many are still under way and how many ended with
/// lost bytes.
#[derive(Default)]
pub(crate) struct Flows {
    pub records: Vec<FlowRecord>,
    pub pending: u64,
    pub lost: u64,
}

impl Simulation {
    /// Schedules each source's first events.
    pub(crate) fn schedule_sources(&mut self) {
        for s in 0..self.traffic.sources.len() {
            let src = &self.traffic.sources[s];
            let (start, members) = (src.start_ps, src.nodes.len() as u32);
            // Each node starts at a random phase inside its first gap, so nodes do
            // not send in lockstep, unless the process asks for lockstep.
            let aligned = matches!(src.injection, Injection::Bernoulli { process: crate::traffic::Process::PeriodicAligned, .. });
            let incast_target = match src.pattern {
                crate::traffic::Pattern::Incast(t) => Some(t),
                _ => None,
            };
            match src.injection {
                Injection::Flows { .. } => self.events.push(start, Event::StartFlows(s as u16)),
                Injection::Bernoulli { .. } => {
                    for m in 0..members {
                        if incast_target == Some(m) {
                            continue; // the incast target only receives
                        }
                        let at = if aligned {
                            start
                        } else {
                            let gap = self.next_gap(s);
                            start + Ps::from_f64(gap * self.traffic.rng[s].unit())
                        };
                        if at < self.clock.end && at < self.traffic.sources[s].stop_ps {
                            self.events.push(at, Event::Generate { source: s as u16, member: m });
                        }
                    }
                }
            }
        }
    }

    /// An offered-load source generates a message at one of its nodes.
    pub(crate) fn on_generate(&mut self, s: u16, member: u32) {
        let si = s as usize;
        let tr = &mut self.traffic;
        let bytes = match tr.sources[si].injection {
            Injection::Bernoulli { message_bytes, .. } => message_bytes,
            Injection::Flows { .. } => unreachable!("flow sources do not generate"),
        };
        let src = &tr.sources[si];
        let n = src.nodes.len() as u32;
        if let Some(d) = src.pattern.destination(member, src.groups[member as usize], n, &mut tr.rng[si]) {
            let (a, b) = (NodeId(src.nodes[member as usize]), NodeId(src.nodes[d as usize]));
            let (alg, class) = (tr.alg[si].code(), tr.class[si]);
            self.enqueue_message(a, b, bytes, s, NONE, alg, class);
            if self.clock.in_window(self.clock.now) {
                self.measure.stats[si].offered_wire += self.traffic.msg_wire[si];
            }
        }
        let gap = self.next_gap(si);
        let next = self.clock.now + Ps::from_f64(gap.max(1.0));
        if next < self.clock.end && next < self.traffic.sources[si].stop_ps {
            self.events.push(next, Event::Generate { source: s, member });
        }
    }

    /// Time (ps) to a source's next message at one node: a geometric number
    /// of message slots (Bernoulli), an exponential gap (Poisson) or a fixed
    /// one (periodic), all of mean slot / load.
    fn next_gap(&mut self, s: usize) -> f64 {
        let tr = &mut self.traffic;
        let Injection::Bernoulli { load, process, .. } = tr.sources[s].injection else {
            unreachable!("only offered-load sources have gaps")
        };
        let slot = tr.slot_ps[s];
        let rng = &mut tr.rng[s];
        match process {
            crate::traffic::Process::Bernoulli => rng.geometric(load) as f64 * slot,
            crate::traffic::Process::Poisson => -(1.0 - rng.unit()).ln() * slot / load,
            crate::traffic::Process::Periodic | crate::traffic::Process::PeriodicAligned => slot / load,
        }
    }

    /// A flow source starts all its flows.
    pub(crate) fn on_start_flows(&mut self, s: u16) {
        let si = s as usize;
        let Injection::Flows { bytes, per_node } = self.traffic.sources[si].injection else {
            unreachable!("only flow sources start flows")
        };
        for member in 0..self.traffic.sources[si].nodes.len() as u32 {
            for _ in 0..per_node {
                let tr = &mut self.traffic;
                let src = &tr.sources[si];
                let n = src.nodes.len() as u32;
                let Some(d) = src.pattern.destination(member, src.groups[member as usize], n, &mut tr.rng[si]) else {
                    continue;
                };
                let (a, b) = (NodeId(src.nodes[member as usize]), NodeId(src.nodes[d as usize]));
                let (alg, class) = (tr.alg[si].code(), tr.class[si]);
                let flow = self.flows.records.len() as u32;
                self.flows.records.push(FlowRecord::new(s, a, b, bytes, self.clock.now));
                self.flows.pending += 1;
                let st = &mut self.measure.stats[si];
                st.flows += 1;
                st.offered_wire += self.traffic.msg_wire[si];
                self.enqueue_message(a, b, bytes, s, flow, alg, class);
            }
        }
        let only_flows = self.traffic.sources.iter().all(|x| matches!(x.injection, Injection::Flows { .. }));
        if self.flows.pending == 0 && !self.traffic.has_bernoulli && !self.mpi.active() && only_flows {
            // Nothing to send at all (e.g. an incast of one node).
            let pending_starts = self.traffic.sources.iter().any(|x| x.start_ps > self.clock.now);
            if !pending_starts {
                self.finish(EndReason::FlowsDone);
            }
        }
    }

    /// Adds a traffic source that generates nothing itself: messages sent
    /// through the API or by a job's ranks are counted under it.
    pub(crate) fn add_passive_source(&mut self, name: &str, nodes: Vec<u32>, start_ps: Ps, alg: Algorithm, class: u8) -> u16 {
        let tr = &mut self.traffic;
        let s = tr.sources.len() as u16;
        tr.sources.push(Source {
            name: name.into(),
            nodes,
            groups: Vec::new(),
            pattern: crate::traffic::Pattern::Uniform,
            injection: Injection::Flows { bytes: 0, per_node: 0 },
            start_ps,
            stop_ps: Ps::ZERO,
        });
        tr.alg.push(alg);
        tr.class.push(class);
        tr.rng.push(Rng::new(tr.seed, 0x1_0000 + s as u64));
        tr.slot_ps.push(0.0);
        tr.msg_wire.push(0);
        self.measure.stats.push(Default::default());
        self.measure.timeline.lines.push(Vec::new());
        self.measure.hop_waits.add_source();
        s
    }
}
