//! Slingshot congestion control as a window per endpoint pair at the
//! source NIC (`congestion.algorithm = "slingshot-endpoint"`): the simpler
//! variant of [`super::slingshot`], kept so a user can compare the two and
//! for NICs that do the tracking themselves. docs/model.md states how it
//! departs from the mechanism [Roweth] Sec. II-E describes.
//!
//! Every packet is acked end to end by its destination NIC. An egress edge
//! port whose queue exceeds a threshold marks the packets leaving it with a
//! congestion level and the number of flows feeding it; the ack carries the
//! mark back, and the pair's window at the source NIC is cut to its fair
//! share of what the congested port drains in one round trip. Clean acks
//! grow the window back. Flows to uncongested endpoints are never held.

use crate::ids::{ChannelId, EndpointId};
use super::flow_window::{EgressFlows, FlowTable, FlowWindow, Params};
use super::{Ack, Admit, CongestionControl, Marks, PathView};
use crate::config::CongestionConfig;
use crate::rng::Rng;
use crate::units::Ps;
use serde_json::{json, Map, Value};

/// The endpoint variant's state in a run.
pub struct SlingshotEndpoint {
    p: Params,
    pairs: FlowTable<FlowWindow>,
    egress: EgressFlows,
    marked_acks: u64,
}

impl SlingshotEndpoint {
    /// The endpoint variant with the parameters of `c` for NICs of `line_rate_bps`.
    pub fn new(c: &CongestionConfig, line_rate_bps: f64, full_packet_wire: u32) -> SlingshotEndpoint {
        SlingshotEndpoint {
            p: Params::new(c, line_rate_bps, full_packet_wire, true),
            pairs: Default::default(),
            egress: Default::default(),
            marked_acks: 0,
        }
    }
}

impl CongestionControl for SlingshotEndpoint {
    fn needs_acks(&self) -> bool {
        true
    }

    fn admit(&mut self, src: EndpointId, dst: EndpointId, wire: u32, now: Ps) -> Admit {
        match self.pairs.get_mut(src, dst) {
            Some(st) if !st.allows(wire, now, self.p.hold_uncongested) => {
                if st.in_flight == 0 {
                    Admit::At(st.next_send) // paced below one packet per round trip
                } else {
                    Admit::OnAck
                }
            }
            _ => Admit::Now,
        }
    }

    fn refuses_any_size(&self) -> bool {
        false // a window that refuses a packet refuses any larger one
    }

    fn on_inject(&mut self, src: EndpointId, dst: EndpointId, wire: u32, _now: Ps, path: &dyn PathView) {
        let p = &self.p;
        let st = self.pairs.get_or_insert_with(src, dst, || FlowWindow::with_window(p, path.bandwidth_delay(src, dst)));
        st.in_flight += wire as u64;
    }

    fn on_egress_enqueue(&mut self, ch: ChannelId, to_endpoint: bool, _queued: u64, src: EndpointId) -> Option<Marks> {
        if to_endpoint {
            self.egress.enqueue(ch, src);
        }
        None // the NIC model learns of congestion from end-to-end acks only
    }

    fn on_egress(&mut self, ch: ChannelId, to_endpoint: bool, queued: u64, src: EndpointId, _dst: EndpointId, message_end: bool, now: Ps, marks: &mut Marks, _rng: &mut Rng) {
        if to_endpoint {
            self.egress.leave(&self.p, ch, queued, src, message_end, now, marks);
        }
    }

    fn on_deliver(&mut self, _src: EndpointId, _dst: EndpointId, _marks: Marks, _t: Ps) -> bool {
        false // the ack itself carries the mark
    }

    fn on_ack(&mut self, a: &Ack, now: Ps, path: &dyn PathView) {
        if a.cnp {
            return;
        }
        if a.marks.level > 0 {
            self.marked_acks += 1;
        }
        if let Some(st) = self.pairs.get_mut(a.src, a.dst) {
            st.ack(&self.p, a.wire, a.marks.level, a.marks.flows as u32, path.port_rate(a.dst), a.rtt, now);
            if st.in_flight == 0 && !st.cut && st.next_send <= now {
                self.pairs.remove(a.src, a.dst);
            }
        }
    }

    fn on_loss(&mut self, src: EndpointId, dst: EndpointId, wire: u32) {
        if let Some(st) = self.pairs.get_mut(src, dst) {
            st.in_flight -= wire as u64;
        }
    }

    fn summary(&self) -> Map<String, Value> {
        let throttled = self.pairs.values().filter(|p| p.cut).count();
        let mut m = Map::new();
        m.insert("marked_acks".into(), json!(self.marked_acks));
        m.insert("throttled_pairs".into(), json!(throttled));
        m
    }
}
