//! Messages sent from outside the engine between steps of a run: the MPI
//! layer and application-aware routing choose a routing mode and a traffic
//! class per message (paper 004 Sec. 3).

use super::{EndReason, FlowRecord, Simulation, NEVER};
use crate::error::{ConfigError, Result};
use crate::routing::Algorithm;
use crate::traffic::{Injection, Pattern, Source};
use crate::units::Ps;

/// Name of the traffic source messages sent without one are counted under.
pub const API_SOURCE: &str = "api";

impl Simulation {
    /// Sends `bytes` from node `src` to node `dst` now, as one message
    /// tracked like a flow. `source` names the traffic source it counts
    /// under (default: a source called "api"); `routing` and `class` pick
    /// the routing mode and traffic class for this message alone (default:
    /// the source's). Returns the flow id ([`Simulation::flow_end`]).
    pub fn send_message(&mut self, src: u32, dst: u32, bytes: u64, source: Option<&str>, routing: Option<&str>, class: Option<&str>) -> Result<u32> {
        let nodes = self.net.nodes() as u32;
        for (field, n) in [("src", src), ("dst", dst)] {
            if n >= nodes {
                return Err(ConfigError::new(field, format!("node {n} does not exist (the network has {nodes} nodes)")));
            }
        }
        if src == dst {
            return Err(ConfigError::new("dst", "a message needs a destination other than its source"));
        }
        if bytes == 0 {
            return Err(ConfigError::new("bytes", "a message carries at least 1 byte"));
        }
        let s = match source {
            Some(name) => self.sources.iter().position(|x| x.name == name).ok_or_else(|| {
                let names: Vec<&str> = self.sources.iter().map(|x| x.name.as_str()).collect();
                ConfigError::new("source", format!("unknown traffic source {name:?}; the run has {names:?} (or leave it out: {API_SOURCE:?})"))
            })? as u16,
            None => self.api_source_index(),
        };
        let si = s as usize;
        let class_id = match class {
            None => self.source_class[si],
            Some(name) => crate::qos::resolve_class(&self.classes, "message", Some(name), None)?,
        };
        let c = &self.classes[class_id as usize];
        let asked = routing.map(Algorithm::parse).transpose().map_err(|e| ConfigError::new("routing", e.message))?;
        // A message's own mode, else the class it names, else its source's
        // (which already folds in the source's class).
        let fallback = if class.is_some() { c.routing.unwrap_or(self.source_alg[si]) } else { self.source_alg[si] };
        let alg = c.mode(asked, fallback).map_err(|m| ConfigError::new("routing", m))?;
        let need = self.topo.max_hops(alg) as usize;
        if need > self.hop_vcs {
            return Err(ConfigError::new(
                "routing",
                format!(
                    "{} needs {need} virtual channels per class, the run was built with {}; set routing.algorithm (or a source's routing) to a mode with paths as long when building it",
                    alg.name(),
                    self.hop_vcs
                ),
            ));
        }
        let flow = self.flows.len() as u32;
        self.flows.push(FlowRecord::new(s, src, dst, bytes, self.now));
        self.flows_pending += 1;
        self.stats[si].flows += 1;
        self.stats[si].offered_wire += crate::nic::message_wire_bytes(self.frame, bytes, self.mtu);
        if matches!(self.end_reason, Some(EndReason::FlowsDone) | Some(EndReason::Idle)) {
            self.end_reason = None; // there is work again
        }
        self.enqueue_message(src, dst, bytes, s, flow, alg.code(), class_id);
        Ok(flow)
    }

    /// When flow `id` (a flow source's or a sent message) completed (ps),
    /// None while it is still under way.
    pub fn flow_end(&self, id: u32) -> Option<Ps> {
        self.flows.get(id as usize).and_then(|f| (f.end != NEVER).then_some(f.end))
    }

    /// Index of the "api" traffic source, created on first use.
    fn api_source_index(&mut self) -> u16 {
        if let Some(s) = self.api_source {
            return s;
        }
        let alg = Algorithm::parse(&self.cfg.routing.algorithm).expect("checked at build");
        let s = self.add_passive_source(API_SOURCE, Vec::new(), 0, alg, 0);
        self.api_source = Some(s);
        s
    }

    /// Adds a traffic source that generates nothing itself: messages sent
    /// through the API or by a job's ranks are counted under it.
    pub(crate) fn add_passive_source(&mut self, name: &str, nodes: Vec<u32>, start_ps: Ps, alg: Algorithm, class: u8) -> u16 {
        let s = self.sources.len() as u16;
        self.sources.push(Source {
            name: name.into(),
            nodes,
            groups: Vec::new(),
            pattern: Pattern::Uniform,
            injection: Injection::Flows { bytes: 0, per_node: 0 },
            start_ps,
            stop_ps: 0,
        });
        self.stats.push(Default::default());
        self.timeline.push(Vec::new());
        self.source_alg.push(alg);
        self.source_class.push(class);
        self.source_rng.push(crate::rng::Rng::new(self.cfg.sim.seed, 0x1_0000 + s as u64));
        self.source_slot_ps.push(0.0);
        self.source_msg_wire.push(0);
        s
    }
}
