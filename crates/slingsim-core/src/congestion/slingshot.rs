//! Slingshot congestion management in the switches ([Roweth] Sec. II-E,
//! [DeSensi20] Sec. II-D; `congestion.algorithm = "slingshot"`).
//!
//! The switches, not the NICs, track every flow (endpoint pair): the
//! ingress switch counts the bytes each flow has sent into the fabric and
//! not yet had acknowledged. The egress switch answers every data packet
//! that leaves an edge port with a *fabric ack* that travels back through
//! the fabric to the ingress switch (`engine::flow_queues`). An egress edge
//! port whose queue is above the threshold writes into that ack its degree
//! of congestion (level 1 or 2) and the number of flows it sees feeding it;
//! the ingress switch then cuts the flow's allowance to its fair share of
//! what the port drains in one round trip. Packets of a flow over its
//! allowance wait in that flow's queue at the ingress port, while packets
//! of other flows pass; clean acks grow the allowance back. A flow no
//! congestion ack has cut has no allowance at all (it runs at full speed,
//! [Roweth] Sec. II-E; `congestion.hold_uncongested_flows`), so a
//! congested port acks a source's first packet as it joins the queue
//! (`congestion.notify_at_enqueue`): the source's ingress switch cuts it
//! without waiting for that packet to get through the queue. Flows to
//! uncongested endpoints are never held, and the NIC sends at line rate: a
//! RoCE NIC, as on Malbec and Shandy, takes no part.
//!
//! Where this departs from Rosetta (docs/model.md, "Slingshot congestion
//! management"): the flow is tracked and held at its ingress switch only,
//! not at every switch of its path. Only the ingress port holds packets in
//! a flow queue, and the bytes a flow has downstream of any later hop are
//! a subset of those downstream of its ingress, so the ingress count
//! bounds every hop's.

use crate::ids::{ChannelId, EndpointId};
use super::flow_window::{EgressFlows, FlowTable, FlowWindow, Params};
use super::{Ack, Admit, CongestionControl, IntMap, Marks, PathView};
use crate::config::CongestionConfig;
use crate::rng::Rng;
use crate::units::Ps;
use serde_json::{json, Map, Value};

/// What the ingress switch keeps for one flow.
#[derive(Clone, Copy, Debug)]
struct IngressFlow {
    /// Bytes in the fabric (sent in, not yet acked back) and the allowance.
    window: FlowWindow,
    /// Zero-load round trip ingress - egress - ingress, from the last ack.
    rtt: Ps,
    /// The flow's last ack was marked: it feeds a congested port now.
    congesting: bool,
}

/// The flow whose bytes in the fabric came closest to (or went furthest
/// over) its fair share while it was congesting (its last ack marked).
#[derive(Clone, Copy, Debug, Default)]
struct Worst {
    bytes: u64,
    fair_share: f64,
}

/// Slingshot's switch-side state in a run.
pub struct Slingshot {
    p: Params,
    /// Forget a flow once it is idle, even if cut (`congestion.forget_idle_flows`).
    forget_idle: bool,
    flows: FlowTable<IngressFlow>,
    egress: EgressFlows,
    /// Flows toward each endpoint that the ingress switches track (with
    /// bytes in the fabric, or throttled). Global knowledge no switch has:
    /// used for the report's fair share only.
    tracked_to: IntMap<u32>,
    marked_acks: u64,
    fabric_acks: u64,
    throttled_ever: u64,
    /// Congestion acks sent when a source's packet joined a congested port.
    early_acks: u64,
    worst: Option<Worst>,
}

impl Slingshot {
    /// Switch-side Slingshot with the parameters of `c` for NICs of `line_rate_bps`.
    pub fn new(c: &CongestionConfig, line_rate_bps: f64, full_packet_wire: u32) -> Slingshot {
        Slingshot {
            p: Params::new(c, line_rate_bps, full_packet_wire, false),
            forget_idle: c.forget_idle_flows.unwrap_or(true),
            flows: Default::default(),
            egress: Default::default(),
            tracked_to: Default::default(),
            marked_acks: 0,
            fabric_acks: 0,
            throttled_ever: 0,
            early_acks: 0,
            worst: None,
        }
    }

    /// The ingress switch forgets the flow `src` -> `dst` (nothing in the
    /// fabric, not throttled).
    fn forget(&mut self, src: EndpointId, dst: EndpointId) {
        self.flows.remove(src, dst);
        let n = self.tracked_to.get_mut(&(dst.0 as u64)).expect("counted when tracked");
        *n -= 1;
        if *n == 0 {
            self.tracked_to.remove(&(dst.0 as u64));
        }
    }

    /// A throttled flow to `dst` with `bytes` in the fabric after a packet
    /// entered: compares them with its fair share of the port, the port's
    /// rate times the round trip over the flows feeding it (at least one
    /// full packet: a flow with any bytes in flight has a packet there).
    fn sample(&mut self, dst: EndpointId, bytes: u64, rtt: Ps, path: &dyn PathView) {
        let flows = self.tracked_to.get(&(dst.0 as u64)).copied().unwrap_or(1).max(1);
        let share = (path.port_rate(dst) * rtt.as_f64() * 1e-12 / flows as f64).max(path.full_packet_wire() as f64);
        let worse = self.worst.is_none_or(|w| bytes as f64 / share > w.bytes as f64 / w.fair_share);
        if worse {
            self.worst = Some(Worst { bytes, fair_share: share });
        }
    }
}

impl CongestionControl for Slingshot {
    fn needs_acks(&self) -> bool {
        false // the switches ack; the NIC's own acks are not needed for this
    }

    fn admit(&mut self, _src: EndpointId, _dst: EndpointId, _wire: u32, _now: Ps) -> Admit {
        Admit::Now // the NIC sends at line rate; the ingress switch holds
    }

    fn refuses_any_size(&self) -> bool {
        false
    }

    fn on_inject(&mut self, _src: EndpointId, _dst: EndpointId, _wire: u32, _now: Ps, _path: &dyn PathView) {}

    fn on_egress_enqueue(&mut self, ch: ChannelId, to_endpoint: bool, queued: u64, src: EndpointId) -> Option<Marks> {
        if !to_endpoint {
            return None;
        }
        // A source new to a congested port hears of it now, not once its
        // packet has waited through the queue (see the module docs).
        let flows = self.egress.enqueue(ch, src).filter(|_| self.p.notify_at_enqueue)?;
        let level = self.p.port_level(flows, queued);
        (level > 0).then(|| {
            self.early_acks += 1;
            Marks { ecn: false, level, flows }
        })
    }

    fn on_egress(&mut self, ch: ChannelId, to_endpoint: bool, queued: u64, src: EndpointId, _dst: EndpointId, message_end: bool, now: Ps, marks: &mut Marks, _rng: &mut Rng) {
        if to_endpoint {
            self.egress.leave(&self.p, ch, queued, src, message_end, now, marks);
        }
    }

    fn on_deliver(&mut self, _src: EndpointId, _dst: EndpointId, _marks: Marks, _t: Ps) -> bool {
        false
    }

    fn on_ack(&mut self, _a: &Ack, _now: Ps, _path: &dyn PathView) {}

    fn on_loss(&mut self, _src: EndpointId, _dst: EndpointId, _wire: u32) {}

    fn fabric_acks(&self) -> bool {
        true
    }

    fn ingress_admit(&mut self, src: EndpointId, dst: EndpointId, wire: u32, now: Ps) -> Admit {
        match self.flows.get_mut(src, dst) {
            Some(f) if !f.window.allows(wire, now, self.p.hold_uncongested) => {
                if f.window.in_flight == 0 {
                    Admit::At(f.window.next_send)
                } else {
                    Admit::OnAck
                }
            }
            _ => Admit::Now,
        }
    }

    fn on_ingress(&mut self, src: EndpointId, dst: EndpointId, wire: u32, _now: Ps, path: &dyn PathView) {
        let p = &self.p;
        let mut new = false;
        let f = self.flows.get_or_insert_with(src, dst, || {
            new = true;
            IngressFlow { window: FlowWindow::with_window(p, path.bandwidth_delay(src, dst)), rtt: Ps::ZERO, congesting: false }
        });
        f.window.in_flight += wire as u64;
        let (bytes, congesting, rtt) = (f.window.in_flight, f.congesting, f.rtt);
        if new {
            *self.tracked_to.entry(dst.0 as u64).or_insert(0) += 1;
        }
        if congesting {
            self.sample(dst, bytes, rtt, path);
        }
    }

    fn on_fabric_ack(&mut self, a: &Ack, now: Ps, path: &dyn PathView) {
        self.fabric_acks += 1;
        if a.marks.level > 0 {
            self.marked_acks += 1;
        }
        let p = &self.p;
        let Some(f) = self.flows.get_mut(a.src, a.dst) else { return };
        let was_cut = f.window.cut;
        f.rtt = a.rtt;
        f.congesting = a.marks.level > 0;
        f.window.ack(p, a.wire, a.marks.level, a.marks.flows as u32, path.port_rate(a.dst), a.rtt, now);
        if f.window.cut && !was_cut {
            self.throttled_ever += 1;
        }
        // Whether the flow is now forgotten is decided in `on_flow_idle`,
        // which the engine calls once the ack has let held packets go.
    }

    fn port_marks(&self, ch: ChannelId, queued: u64) -> Option<Marks> {
        // The queue first: most packets pass uncongested ports, and the
        // count is a map lookup.
        if self.p.congestion_level(queued) == 0 {
            return None;
        }
        let flows = self.egress.flows(ch);
        let level = self.p.port_level(flows, queued);
        (level > 0).then_some(Marks { ecn: false, level, flows })
    }

    fn flow_cut(&self, src: EndpointId, dst: EndpointId) -> bool {
        self.flows.get(src, dst).is_some_and(|f| f.window.held)
    }

    fn on_fabric_drop(&mut self, src: EndpointId, dst: EndpointId, wire: u32) {
        if let Some(f) = self.flows.get_mut(src, dst) {
            f.window.in_flight -= wire as u64;
        }
    }

    /// The one place a flow is forgotten: nothing of it in the fabric,
    /// nothing held and no pacing delay left, and, unless
    /// `forget_idle_flows`, its window back where it started (a cut flow is
    /// then kept, the rule before 2026-11-30).
    fn on_flow_idle(&mut self, src: EndpointId, dst: EndpointId, now: Ps) {
        let keep_cut = !self.forget_idle;
        let idle = |f: &IngressFlow| f.window.in_flight == 0 && f.window.next_send <= now && !(keep_cut && f.window.cut);
        if self.flows.get_mut(src, dst).is_some_and(|f| idle(f)) {
            self.forget(src, dst);
        }
    }

    fn summary(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("fabric_acks".into(), json!(self.fabric_acks));
        m.insert("marked_acks".into(), json!(self.marked_acks));
        m.insert("early_acks".into(), json!(self.early_acks));
        m.insert("throttled_pairs".into(), json!(self.flows.values().filter(|f| f.window.cut).count()));
        // What the ingress switches count in the fabric now: admitted, not acked.
        m.insert("fabric_bytes".into(), json!(self.flows.values().map(|f| f.window.in_flight).sum::<u64>()));
        m.insert("flows_ever_throttled".into(), json!(self.throttled_ever));
        // The throttled flow with the most bytes in the fabric against its
        // fair-share bandwidth-delay product (none: no flow was throttled).
        let w = self.worst.unwrap_or_default();
        m.insert("max_flow_fabric_bytes".into(), json!(w.bytes));
        m.insert("fair_share_bdp_bytes".into(), json!(w.fair_share.round() as u64));
        m.insert("max_flow_fabric_share".into(), json!(if w.fair_share > 0.0 { w.bytes as f64 / w.fair_share } else { 0.0 }));
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 12.5 GB/s ports, 4 KiB packets, a 20 kB bandwidth-delay product.
    struct Path;
    impl PathView for Path {
        fn bandwidth_delay(&self, _: EndpointId, _: EndpointId) -> f64 {
            20_000.0
        }
        fn port_rate(&self, _: EndpointId) -> f64 {
            12.5e9
        }
        fn full_packet_wire(&self) -> u32 {
            4_160
        }
    }

    const WIRE: u32 = 4_160;
    const RTT: Ps = Ps(2_000_000);

    fn ack(flows: u16, level: u8) -> Ack {
        let marks = Marks { ecn: false, level, flows };
        Ack { src: EndpointId(1), dst: EndpointId(0), wire: WIRE, marks, rtt: RTT, cnp: false, source: 0, injected: Ps::ZERO, msg: 0, serial: 0 }
    }

    /// A flow sends two packets and a congested port (`flows` sources)
    /// cuts it with the first ack; the second ack, of `last_level`, leaves
    /// nothing in the fabric. Returns the control, and the time then.
    fn cut_then_drained(forget: Option<bool>, flows: u16, last_level: u8) -> (Slingshot, Ps) {
        let c = CongestionConfig { forget_idle_flows: forget, ..Default::default() };
        let mut s = Slingshot::new(&c, 100e9, WIRE);
        let (a, b) = (EndpointId(1), EndpointId(0));
        for _ in 0..2 {
            s.on_ingress(a, b, WIRE, Ps::ZERO, &Path);
        }
        s.on_fabric_ack(&ack(flows, 1), RTT, &Path);
        let t = Ps(RTT.0 + 1);
        s.on_fabric_ack(&ack(flows, last_level), t, &Path);
        (s, t)
    }

    #[test]
    fn an_idle_flow_is_forgotten_though_cut_and_starts_its_next_message_unheld() {
        // 2 flows: a share of 12.5 kB, three packets: no pacing.
        let (mut s, t) = cut_then_drained(None, 2, 0);
        assert_eq!(s.flows.values().filter(|f| f.window.cut).count(), 1, "the clean ack leaves it below where it started");
        s.on_flow_idle(EndpointId(1), EndpointId(0), t);
        assert_eq!(s.flows.values().count(), 0);
        assert_eq!(s.tracked_to.len(), 0);
        // The next message's packets all enter at once.
        for _ in 0..5 {
            assert!(matches!(s.ingress_admit(EndpointId(1), EndpointId(0), WIRE, t), Admit::Now));
            s.on_ingress(EndpointId(1), EndpointId(0), WIRE, t, &Path);
        }
    }

    #[test]
    fn a_cut_flow_is_kept_when_told_to_keep_it_and_holds_its_next_message() {
        let (mut s, t) = cut_then_drained(Some(false), 2, 0);
        s.on_flow_idle(EndpointId(1), EndpointId(0), t);
        assert_eq!(s.flows.values().filter(|f| f.window.cut).count(), 1);
        let mut held = 0;
        for _ in 0..5 {
            match s.ingress_admit(EndpointId(1), EndpointId(0), WIRE, t) {
                Admit::Now => s.on_ingress(EndpointId(1), EndpointId(0), WIRE, t, &Path),
                _ => held += 1,
            }
        }
        assert!(held > 0, "the cut window holds part of the next message");
    }

    #[test]
    fn a_paced_flow_is_kept_until_its_pacing_delay_has_passed() {
        // 100 flows: a share of 250 B, under one packet: the flow is paced.
        let (mut s, t) = cut_then_drained(None, 100, 1);
        let next = s.flows.get_mut(EndpointId(1), EndpointId(0)).expect("kept").window.next_send;
        assert!(next > t);
        s.on_flow_idle(EndpointId(1), EndpointId(0), t);
        assert!(matches!(s.ingress_admit(EndpointId(1), EndpointId(0), WIRE, t), Admit::At(n) if n == next));
        s.on_flow_idle(EndpointId(1), EndpointId(0), next);
        assert_eq!(s.flows.values().count(), 0, "nothing in the fabric, nothing held, no delay left");
    }
}
