//! Acks and congestion notifications as packets (MODEL.md Sec. 2, issue 11;
//! `nic.acks = "packets"`, the default).
//!
//! When a data packet that must be answered is delivered, its destination
//! NIC makes an ack (and a CNP when the congestion control asks for one) of the frame
//! format's control size ([`crate::nic::Frame::ack_wire_bytes`]), queues it
//! ahead of its own data and injects it on its up-link in the data's
//! traffic class (or the one `nic.ack_class` names) and routing mode. From
//! there it is a packet like any other: routed, arbitrated, flow-controlled
//! by credits, counted in link bytes and packet hops. Switches leave it out
//! of congestion control (it is neither counted as a flow nor marked: it
//! carries the marks of the data it answers). When its tail reaches the
//! data's source NIC, that NIC does what an ack does
//! ([`Simulation::on_ack`]).
//!
//! **Deadlock freedom.** Acks share the data's virtual channels (or those
//! of `nic.ack_class`), so the question is whether they add a dependency
//! the hop-indexed VC scheme (docs/model.md, "Virtual channels") does not
//! cover. Inside the fabric they do not: an ack is a packet from one
//! endpoint to another, routed by the same algorithm as data, so it takes
//! only channel dependencies data can take, and those form no cycle. The
//! one new dependency a reply could add is at the endpoint, from ejection
//! to injection (a NIC that stops taking packets in while it cannot send
//! its replies out: the classic request-reply protocol deadlock). Here it
//! does not exist: a NIC sinks every packet at line rate whatever its send
//! side does; delivery only appends the ack to the NIC's ack queue, which
//! is unbounded *(assumed: a real NIC acks from per-connection state, which
//! cannot overflow)*; and an arriving ack is consumed on the spot. So every
//! packet's path ends at a sink that never waits, and the channel
//! dependency graph with acks is the one without them.

use super::Simulation;
use crate::congestion::{Ack, CongestionControl};
use crate::event::Event;
use crate::ids::{ChannelId, EndpointId, PacketId};
use crate::packet::{Packet, PacketCold, PacketHot, PacketKind};
use crate::units::Ps;

impl Simulation {
    /// The destination NIC of data packet `p` (delivered at `t`) answers it
    /// with a control packet of kind `kind` carrying ack record `a`.
    pub(crate) fn queue_control(&mut self, kind: PacketKind, a: Ack, p: &PacketHot, cold: &PacketCold, t: Ps) {
        let (from, to) = (p.dst, p.src);
        let id = self.signals.store(a);
        let mut q = Packet::new(from, to, self.net.endpoint_switch[to], id, cold.source);
        q.hot.kind = kind;
        q.hot.wire = match kind {
            PacketKind::Ack => self.nics.frame.ack_wire_bytes(),
            PacketKind::Cnp => self.nics.frame.cnp_wire_bytes(),
            PacketKind::Data | PacketKind::FabricAck => unreachable!("a NIC answers data with acks and CNPs only"),
        };
        q.hot.alg = p.alg;
        q.hot.class = self.nics.ack_class.unwrap_or(p.class);
        // The NIC can answer once the data's tail is in.
        q.hot.ready = t;
        q.cold.created = t;
        let h = self.pool.alloc(q);
        self.nics.ack_queue[from].push_back(h);
        self.measure.control.made[kind.index()] += 1;
        let ch = self.net.endpoint_up[from];
        let at = t.max(self.channels.tx[ch].busy_until);
        self.schedule_try(ch, at);
    }

    /// NIC `e` sends the head of its ack queue on `ch` if it is ready and
    /// its class has credits at the switch; true if it sent. Otherwise it
    /// arranges to try again and lets the data go meanwhile if it can (data
    /// of another class; of the ack's own class only a packet smaller than
    /// the ack, which is at most a few bytes of payload).
    pub(crate) fn nic_send_control(&mut self, e: EndpointId, ch: ChannelId) -> bool {
        let h = *self.nics.ack_queue[e].front().expect("caller checked");
        let now = self.clock.now;
        let (ready, wire, class) = {
            let p = self.pool.hot(h);
            (p.ready, p.wire, p.class)
        };
        if ready > now {
            self.schedule_try(ch, ready);
            return false;
        }
        if !self.channels.has_credits(ch, self.vcs.first_of(class), wire, now) {
            self.wait_for_credit(ch);
            return false;
        }
        self.nics.ack_queue[e].pop_front();
        self.pool.cold_mut(h).injected = now;
        self.measure.control.injected[self.pool.hot(h).kind.index()] += 1;
        self.inject(h, ch);
        self.nic_next(e, ch);
        true
    }

    /// Control packet `h` reached its destination NIC (the source of the
    /// data it answers): the ack takes effect when its tail is in. The
    /// zero-load round trip the congestion control reads is the data's
    /// path there plus this packet's path back.
    pub(crate) fn control_arrived(&mut self, h: PacketId) {
        let p = *self.pool.hot(h);
        let id = self.pool.cold(h).msg;
        self.pool.free(h);
        self.signals.add_return_path(id, p.path_latency());
        self.events.push(p.tail, Event::Ack(id));
    }

    /// Control packet `h` (freed) was lost for good. A lost CNP only means
    /// no rate cut; a lost ack leaves its data unacknowledged, which the
    /// source's end-to-end retry would end by giving the packet up: its
    /// outstanding slot and congestion window are released as for a lost
    /// data packet, but no payload is lost (it was delivered).
    pub(crate) fn control_lost(&mut self, h: PacketId) {
        let kind = self.pool.hot(h).kind;
        self.measure.control.lost[kind.index()] += 1;
        if kind == PacketKind::FabricAck {
            return self.fabric_ack_lost(self.pool.cold(h).msg);
        }
        let a = self.signals.take(self.pool.cold(h).msg);
        if kind == PacketKind::Ack {
            self.release_outstanding(a.src, a.msg, a.serial);
            self.cc.on_loss(a.src, a.dst, a.wire);
            self.wake_nic(a.src);
        }
    }
}


#[cfg(test)]
mod tests {
    use crate::ids::NodeId;
    use crate::Simulation;

    /// Acks that cannot leave their NIC (its up-link's credits taken away)
    /// hold the sender's window shut: nothing moves, but packets are still
    /// held, so the watchdog must call it a deadlock and name the NIC's ack
    /// queue, not end the run as idle or hang.
    #[test]
    fn acks_stuck_at_their_nic_trip_the_watchdog() {
        let cfg = r#"{
            "topology": {"groups": 2, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
            "congestion": {"algorithm": "slingshot-endpoint"},
            "sim": {"watchdog_ns": 20000, "max_time_ns": 1000000},
            "traffic": [{"name": "f", "pattern": "incast", "nodes": {"list": [0, 7]}, "target": 1, "flow_bytes": 1000000}]
        }"#;
        let mut sim = Simulation::from_json(cfg).unwrap();
        let receiver = sim.net.endpoint_of(NodeId(7), 0);
        let up = sim.net.endpoint_up[receiver];
        sim.channels.set_credits(up, 0, 0);
        sim.run();
        let s = sim.summary();
        assert_eq!(s["end_reason"], "deadlock", "{s}");
        assert!(s["control_packets"]["ack"]["queued_at_nic"].as_u64().unwrap() > 0, "{s}");
        assert_eq!(s["packets_conserved"], true, "{s}");
        let stuck = s["deadlock"]["stuck_buffers"].as_array().unwrap();
        assert!(stuck.iter().any(|b| b["kind"] == "nic_ack_queue" && b["output"] == format!("endpoint {receiver}")), "{s}");
        assert!(s["sim_time_ns"].as_f64().unwrap() < 1_000_000.0);

        // With instant acks the same starved link carries nothing that matters.
        let mut sim = Simulation::from_json(&cfg.replace(r#""congestion""#, r#""nic": {"acks": "instant"}, "congestion""#)).unwrap();
        sim.channels.set_credits(up, 0, 0);
        sim.run();
        assert_eq!(sim.summary()["end_reason"], "flows_done");
    }
}
