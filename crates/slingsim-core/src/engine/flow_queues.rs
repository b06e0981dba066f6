//! Switch-side congestion control's packets ([Roweth] Sec. II-E): the
//! engine's part of any control whose `fabric_acks` is true.
//!
//! - **Fabric acks.** When a data packet starts to leave an egress edge
//!   port (a switch output to an endpoint), the egress switch makes an ack
//!   carrying the port's congestion marks and sends it to the flow's
//!   ingress switch. It is queued from the edge port's own input side, so
//!   it crosses that port's crossbar input like a packet from the NIC, but
//!   it was never in the NIC's buffer and returns no credit to the NIC.
//!   From there it is a packet like any other: routed by the data's mode,
//!   arbitrated, flow-controlled, counted in link bytes and packet hops
//!   (`packets_by_kind.fabric_ack`). It ends at the ingress switch, which
//!   hands it to the congestion control and frees its buffer space.
//! - **Flow queues.** A data packet arriving from its NIC at its ingress
//!   switch enters the fabric if congestion control admits it; otherwise it
//!   waits in its flow's queue at that port, holding its space in the
//!   port's input buffer, while packets of other flows pass it. A fabric
//!   ack of the flow (or a pacing timer, for an allowance below one packet)
//!   lets the queue's head go on. A flow with packets queued admits no
//!   newer packet ahead of them.
//!
//! Deadlock freedom: fabric acks are packets between two switches routed
//! like data, so they add no channel dependency data cannot take (the
//! argument of [`super::acks`]). Held packets wait only at ingress ports,
//! for acks that never need an ingress port's buffer (acks leave the
//! fabric at the ingress switch itself), so holding adds no cycle.

use super::signals::NetworkView;
use super::Simulation;
use crate::congestion::{pair_key, Ack, Admit, CongestionControl, IntMap, Marks};
use crate::event::Event;
use crate::ids::{ChannelId, EndpointId, PacketId, SwitchId};
use crate::packet::{Packet, PacketKind, PacketQueue, FLAG_ADMITTED, FLAG_SWITCH_MADE};
use crate::units::Ps;

/// The flow queues of every ingress port, and their counts.
#[derive(Default)]
pub(crate) struct FlowQueues {
    /// The switches run congestion control (fabric acks and flow queues).
    pub on: bool,
    /// Packets held per flow (endpoint pair).
    queues: IntMap<PacketQueue>,
    /// Packets held now, the most held at once, and packets ever held.
    pub held: u64,
    pub max_held: u64,
    pub ever_held: u64,
}

impl FlowQueues {
    /// Switch-side control on or off.
    pub fn new(on: bool) -> FlowQueues {
        FlowQueues { on, ..Default::default() }
    }

    /// Every held packet.
    pub fn iter<'a>(&'a self, pool: &'a crate::packet::PacketPool) -> impl Iterator<Item = PacketId> + 'a {
        self.queues.values().flat_map(move |q| q.iter(pool))
    }
}

impl Simulation {
    /// Data packet `h` arrived from its NIC at its ingress switch `s` on
    /// `in_ch`: it enters the fabric, or waits in its flow's queue.
    pub(crate) fn ingress_arrive(&mut self, h: PacketId, s: SwitchId, in_ch: ChannelId) {
        if self.measure.hop_waits.on {
            // Until it is routed, `ready` marks when it got here.
            self.pool.hot_mut(h).ready = self.clock.now;
        }
        let (src, dst, wire) = {
            let p = self.pool.hot(h);
            (p.src, p.dst, p.wire)
        };
        let key = pair_key(src, dst);
        if let Some(q) = self.flow_queues.queues.get_mut(&key) {
            q.push(&mut self.pool, h);
            self.count_held();
            return;
        }
        self.cc.on_flow_idle(src, dst, self.clock.now);
        match self.cc.ingress_admit(src, dst, wire, self.clock.now) {
            Admit::Now => self.enter_fabric(h, s, in_ch),
            hold => {
                let mut q = PacketQueue::default();
                q.push(&mut self.pool, h);
                self.flow_queues.queues.insert(key, q);
                self.count_held();
                if let Admit::At(t) = hold {
                    self.events.push(t, Event::FlowRelease { src, dst });
                }
            }
        }
    }

    fn count_held(&mut self) {
        let f = &mut self.flow_queues;
        f.held += 1;
        f.ever_held += 1;
        f.max_held = f.max_held.max(f.held);
    }

    /// Packet `h` is admitted at ingress switch `s` and routed on.
    fn enter_fabric(&mut self, h: PacketId, s: SwitchId, in_ch: ChannelId) {
        let p = self.pool.hot_mut(h);
        p.flags |= FLAG_ADMITTED;
        let (src, dst, wire) = (p.src, p.dst, p.wire);
        let view = NetworkView { topo: &self.topo, net: &self.net, channels: &self.channels, zero_load: &self.signals.zero_load };
        self.cc.on_ingress(src, dst, wire, self.clock.now, &view);
        if self.measure.hop_waits.on {
            self.record_wait(h, super::hop_waits::WaitPlace::IngressHeld, self.clock.now);
        }
        self.route_into_queue(h, s, in_ch);
    }

    /// An ack or a loss of the flow `src` -> `dst` changed what it may
    /// send: its held packets go on as far as they may, and if none is
    /// left held, congestion control hears that the flow is idle there.
    fn settle_flow(&mut self, src: EndpointId, dst: EndpointId) {
        if !self.release_flow(src, dst) {
            self.cc.on_flow_idle(src, dst, self.clock.now);
        }
    }

    /// The flow `src` -> `dst` may have room: its held packets go on, head
    /// first, as long as congestion control admits them. True if some
    /// are still held.
    pub(crate) fn release_flow(&mut self, src: EndpointId, dst: EndpointId) -> bool {
        let key = pair_key(src, dst);
        let (s, in_ch) = (self.net.endpoint_switch[src], self.net.endpoint_up[src]);
        loop {
            let Some(q) = self.flow_queues.queues.get(&key) else { return false };
            let wire = self.pool.hot(q.head).wire;
            match self.cc.ingress_admit(src, dst, wire, self.clock.now) {
                Admit::Now => {
                    let q = self.flow_queues.queues.get_mut(&key).expect("just seen");
                    let h = q.pop(&self.pool);
                    if q.is_empty() {
                        self.flow_queues.queues.remove(&key);
                    }
                    self.flow_queues.held -= 1;
                    self.enter_fabric(h, s, in_ch);
                }
                Admit::At(t) => {
                    self.events.push(t, Event::FlowRelease { src, dst });
                    return true;
                }
                Admit::OnAck => return true,
            }
        }
    }

    /// Data packet `h` starts at `start` to leave on edge output `ch` (to
    /// its destination): its egress switch acks it to its ingress switch.
    pub(crate) fn send_fabric_ack(&mut self, h: PacketId, start: Ps) {
        let at = self.net.endpoint_up[self.pool.hot(h).dst];
        self.fabric_ack_of(h, None, start, at);
    }

    /// Data packet `h` joined the queue of a congested edge output, or is
    /// held for one at a hop (`held_at`: the link into that switch,
    /// `engine::hop_hold`): that switch sends the flow's ingress switch a
    /// congestion ack with `marks` at `start`, acking no bytes (the
    /// packet's departure acks them as usual). A hop's ack round trip is
    /// the data's path to the hop and the ack's back from it.
    pub(crate) fn send_congestion_ack(&mut self, h: PacketId, marks: Marks, start: Ps, held_at: Option<ChannelId>) {
        let at = held_at.unwrap_or(self.net.endpoint_up[self.pool.hot(h).dst]);
        let id = self.fabric_ack_of(h, Some(marks), start, at);
        if self.hop_hold.on() {
            self.hop_hold.ack_sent(id, start, held_at.is_some());
        }
    }

    /// A fabric ack for data packet `h`, made at `start` in the switch
    /// that link `at` leads into (the egress switch, or a hop that holds
    /// it): with `early` marks, a congestion ack acking no bytes; without,
    /// the ack of the packet's departure with the marks it got. Returns
    /// the ack's record.
    fn fabric_ack_of(&mut self, h: PacketId, early: Option<Marks>, start: Ps, at: ChannelId) -> u32 {
        let (p, c) = (*self.pool.hot(h), *self.pool.cold(h));
        let (marks, acked) = match early {
            Some(m) => (m, 0),
            None => (Marks { ecn: false, level: c.mark, flows: c.mark_flows }, p.wire),
        };
        // The data's path so far; the ack's own path is added on arrival.
        let a = Ack { src: p.src, dst: p.dst, wire: acked, marks, rtt: p.path_latency(), cnp: false, source: c.source, injected: c.injected, msg: crate::network::NONE, serial: 0 };
        let id = self.signals.store(a);
        let mut q = Packet::new(p.dst, p.src, self.net.endpoint_switch[p.src], id, c.source);
        q.hot.kind = PacketKind::FabricAck;
        q.hot.wire = self.nics.frame.ack_wire_bytes();
        q.hot.alg = p.alg;
        q.hot.class = self.nics.ack_class.unwrap_or(p.class);
        q.hot.ch = at;
        q.hot.vc = self.vcs.first_of(q.hot.class) as u8;
        q.hot.flags = FLAG_SWITCH_MADE;
        q.hot.tail = start;
        q.cold.created = start;
        q.cold.injected = start;
        let ack = self.pool.alloc(q);
        let k = PacketKind::FabricAck.index();
        self.measure.control.made[k] += 1;
        self.measure.control.injected[k] += 1;
        self.events.push(start, Event::Arrive(ack));
        id
    }

    /// Fabric ack `h` reached the ingress switch of the flow it acks, on
    /// `in_ch`: its buffer space returns upstream and congestion control
    /// takes it (at once: its tail is a few nanoseconds behind).
    pub(crate) fn fabric_ack_arrived(&mut self, h: PacketId, in_ch: ChannelId) {
        let p = *self.pool.hot(h);
        let id = self.pool.cold(h).msg;
        self.pool.free(h);
        if p.flags & FLAG_SWITCH_MADE == 0 {
            let back = p.tail + self.channels.tx[in_ch].latency();
            if self.channels.send_back(in_ch, p.vc, p.wire, back, self.clock.now) {
                self.schedule_try(in_ch, back);
            }
        }
        self.signals.add_return_path(id, p.path_latency());
        let a = self.signals.take(id);
        if a.wire == 0 && self.hop_hold.on() {
            // A congestion ack (it acks no bytes): its delay counts.
            self.hop_hold.ack_arrived(id, self.clock.now);
        }
        self.measure.control.arrived[PacketKind::FabricAck.index()] += 1;
        if a.marks.level > 0 {
            self.measure.stats[a.source as usize].congestion_signals += 1;
        }
        let view = NetworkView { topo: &self.topo, net: &self.net, channels: &self.channels, zero_load: &self.signals.zero_load };
        self.cc.on_fabric_ack(&a, self.clock.now, &view);
        self.settle_flow(a.src, a.dst);
    }

    /// Fabric ack record `id` was lost with its packet: the ingress switch
    /// stops counting the acked bytes (as its tracking would once the
    /// flow's later acks show them gone), without a congestion signal.
    pub(crate) fn fabric_ack_lost(&mut self, id: u32) {
        let a = self.signals.take(id);
        if a.wire == 0 && self.hop_hold.on() {
            self.hop_hold.ack_lost(id);
        }
        self.cc.on_fabric_drop(a.src, a.dst, a.wire);
        self.settle_flow(a.src, a.dst);
    }

    /// Data packet `h`, admitted to the fabric, was lost in it: its flow's
    /// ingress switch stops counting it, and a resent copy is admitted anew.
    pub(crate) fn admitted_packet_lost(&mut self, h: PacketId) {
        let p = self.pool.hot_mut(h);
        if p.flags & FLAG_ADMITTED == 0 {
            return;
        }
        p.flags &= !FLAG_ADMITTED;
        let (src, dst, wire) = (p.src, p.dst, p.wire);
        self.cc.on_fabric_drop(src, dst, wire);
        self.settle_flow(src, dst);
    }
}
