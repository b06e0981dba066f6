//! Messages sent from outside the engine between steps of a run: the MPI
//! layer and application-aware routing choose a routing mode and a traffic
//! class per message (paper 004 Sec. 3).

use crate::ids::NodeId;
use crate::names::Named;
use super::sources::FlowRecord;
use super::{EndReason, Simulation, NEVER};
use crate::error::{ConfigError, Result};
use crate::routing::Algorithm;
use crate::units::Ps;

/// Name of the traffic source messages sent without one are counted under.
pub const API_SOURCE: &str = "api";

impl Simulation {
    /// Sends `bytes` from node `src` to node `dst` now, as one message
    /// tracked like a flow. `source` names the traffic source it counts
    /// under (default: a source called "api"); `routing` and `class` pick
    /// the routing mode and traffic class for this message alone (default:
    /// the source's). Returns the flow id ([`Simulation::flow_end`]).
    pub fn send_message(&mut self, src: NodeId, dst: NodeId, bytes: u64, source: Option<&str>, routing: Option<&str>, class: Option<&str>) -> Result<u32> {
        let nodes = self.net.nodes() as u32;
        for (field, n) in [("src", src), ("dst", dst)] {
            if n.0 >= nodes {
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
            Some(name) => self.traffic.sources.iter().position(|x| x.name == name).ok_or_else(|| {
                let names: Vec<&str> = self.traffic.sources.iter().map(|x| x.name.as_str()).collect();
                ConfigError::new("source", format!("unknown traffic source {name:?}; the run has {names:?} (or leave it out: {API_SOURCE:?})"))
            })? as u16,
            None => self.api_source_index(),
        };
        let si = s as usize;
        let class_id = match class {
            None => self.traffic.class[si],
            Some(name) => crate::qos::resolve_class(&self.qos.classes, "message", Some(name), None)?,
        };
        let c = &self.qos.classes[class_id as usize];
        let asked = routing.map(Algorithm::parse).transpose().map_err(|e| ConfigError::new("routing", e.message))?;
        // A message's own mode, else the class it names, else its source's
        // (which already folds in the source's class).
        let own = self.traffic.alg[si];
        let fallback = if class.is_some() { c.routing.unwrap_or(own) } else { own };
        let alg = c.mode(asked, fallback).map_err(|m| ConfigError::new("routing", m))?;
        let need = self.topo.max_hops(alg) as usize;
        if need > self.vcs.hop_vcs {
            return Err(ConfigError::new(
                "routing",
                format!(
                    "{} needs {need} virtual channels per class, the run was built with {}; set routing.algorithm (or a source's routing) to a mode with paths as long when building it",
                    alg.name(),
                    self.vcs.hop_vcs
                ),
            ));
        }
        let flow = self.flows.records.len() as u32;
        self.flows.records.push(FlowRecord::new(s, src, dst, bytes, self.clock.now));
        self.flows.pending += 1;
        let st = &mut self.measure.stats[si];
        st.flows += 1;
        st.offered_wire += crate::nic::message_wire_bytes(self.nics.frame, bytes, self.nics.mtu);
        if matches!(self.end_reason, Some(EndReason::FlowsDone) | Some(EndReason::Idle)) {
            self.end_reason = None; // there is work again
        }
        self.enqueue_message(src, dst, bytes, s, flow, alg.code(), class_id);
        Ok(flow)
    }

    /// When flow `id` (a flow source's or a sent message) ended (ps): all
    /// its bytes delivered or lost ([`Simulation::flow_lost_bytes`] says
    /// which); None while it is still under way.
    pub fn flow_end(&self, id: u32) -> Option<Ps> {
        self.flows.records.get(id as usize).and_then(|f| (f.end != NEVER).then_some(f.end))
    }

    /// Bytes flow `id` lost (retries exhausted on failed links, or a lossy
    /// class's drops): a flow that ended with lost bytes did not complete.
    pub fn flow_lost_bytes(&self, id: u32) -> Option<u64> {
        self.flows.records.get(id as usize).map(|f| f.lost_bytes)
    }

    /// Index of the "api" traffic source, created on first use.
    fn api_source_index(&mut self) -> u16 {
        if let Some(s) = self.traffic.api_source {
            return s;
        }
        let alg = self.cfg.routing.algorithm;
        let s = self.add_passive_source(API_SOURCE, Vec::new(), Ps::ZERO, alg, 0);
        self.traffic.api_source = Some(s);
        s
    }
}
