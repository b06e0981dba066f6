//! NICs (MODEL.md Sec. 2): messages wait in their source NIC's queue, are
//! cut into packets of at most `nic.mtu_payload` bytes, and leave on the
//! NIC's injection channel when the switch's input buffer has room and the
//! congestion control and the outstanding-packet limit allow. With several
//! rails a node picks one per message, or one per packet so that a message
//! spreads over them (`nic.rail_unit`, paper 003 Sec. 4.3). The NIC keeps
//! Aries-like counters (paper 004 Sec. 2.3).

use crate::ids::{ChannelId, EndpointId, IdVec, NodeId, PacketId};
use super::{Simulation, NEVER};
use crate::congestion::{pair_key, Admit, CongestionControl};
use crate::event::Event;
use crate::network::NONE;
use crate::nic::{Frame, MessageOrder, RailSelection, RailUnit};
use crate::packet::{Packet, FLAG_MEASURED};
use crate::rng::Rng;
use crate::units::{Ps, Rate};
use std::collections::VecDeque;

/// A message waiting at or travelling from a NIC.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Message {
    pub src: EndpointId,
    pub dst: EndpointId,
    pub source: u16,
    pub measured: bool,
    pub to_send: u64,
    pub to_deliver: u64,
    pub created: Ps,
    pub flow: u32,
    /// Routing mode and traffic class of the message's packets.
    pub alg: u8,
    pub class: u8,
    /// Tells this message from a later one that reuses its record (an
    /// answer may come back after the record is freed).
    pub serial: u32,
    /// With `nic.outstanding_release = "message"`: packets of this message
    /// sent and not yet answered, and sent since its current block began.
    pub open: u32,
    pub block_sent: u32,
}

/// Counters of a NIC as on Cray Aries (paper 004 Sec. 2.3), kept per
/// endpoint and per flow: request packets and flits sent, time a ready
/// packet was held back by back-pressure (no credits at the switch), and
/// the cumulative latency of the packets from injection to delivery.
#[derive(Clone, Copy, Debug, Default)]
pub struct NicCounters {
    pub packets: u64,
    pub flits: u64,
    pub stalled_ps: Ps,
    /// One way: injection to delivery, summed over delivered packets.
    pub latency_ps: Ps,
    pub delivered: u64,
    /// Request to response, as Aries counts it ([DeSensi19] Sec. 2.3: from
    /// the packet's injection to its response, an end-to-end ack, back at
    /// the sender), summed over the responses received. Kept per NIC only:
    /// a response may come back after its message's flow record is reused.
    pub round_trip_ps: Ps,
    pub responses: u64,
}

impl NicCounters {
    /// Adds another NIC's counters to these.
    pub fn add(&mut self, x: &NicCounters) {
        self.packets += x.packets;
        self.flits += x.flits;
        self.stalled_ps += x.stalled_ps;
        self.latency_ps += x.latency_ps;
        self.delivered += x.delivered;
        self.round_trip_ps += x.round_trip_ps;
        self.responses += x.responses;
    }

    /// What these counters gained since they read `earlier`.
    pub fn since(&self, earlier: &NicCounters) -> NicCounters {
        NicCounters {
            packets: self.packets - earlier.packets,
            flits: self.flits - earlier.flits,
            stalled_ps: self.stalled_ps - earlier.stalled_ps,
            latency_ps: self.latency_ps - earlier.latency_ps,
            delivered: self.delivered - earlier.delivered,
            round_trip_ps: self.round_trip_ps - earlier.round_trip_ps,
            responses: self.responses - earlier.responses,
        }
    }

    /// The sum of the counters of NICs `endpoints` (a node's rails).
    pub(crate) fn of(all: &IdVec<EndpointId, NicCounters>, endpoints: &[EndpointId]) -> NicCounters {
        let mut c = NicCounters::default();
        for &e in endpoints {
            c.add(&all[e]);
        }
        c
    }

    /// Mean one-way latency of the delivered packets, ns (none delivered: None).
    pub fn mean_latency_ns(&self) -> Option<f64> {
        (self.delivered > 0).then(|| crate::units::ps_to_ns(self.latency_ps) / self.delivered as f64)
    }

    /// Stalled time per flit sent, ns (no flit sent: None).
    pub fn stall_ns_per_flit(&self) -> Option<f64> {
        (self.flits > 0).then(|| crate::units::ps_to_ns(self.stalled_ps) / self.flits as f64)
    }
}

/// One rail's part of the message being placed over a node's rails.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RailPart {
    /// Switch hops between the two nodes on this rail (`path` selection only).
    pub hops: u32,
    /// Bytes and packets of the message placed on this rail.
    pub bytes: u64,
    pub packets: u32,
}

/// Every NIC of the network (one per endpoint, that is per node and rail).
pub(crate) struct Nics {
    pub frame: Frame,
    pub mtu: u32,
    pub flit_bytes: u32,
    pub messages: Vec<Message>,
    pub free_messages: Vec<u32>,
    /// Messages waiting at each endpoint, oldest first.
    pub queue: IdVec<EndpointId, VecDeque<u32>>,
    /// Lost packets waiting to be resent by each NIC (end-to-end retry).
    pub retry_queue: IdVec<EndpointId, VecDeque<PacketId>>,
    /// Bytes waiting to be sent at each endpoint.
    pub backlog: IdVec<EndpointId, u64>,
    pub counters: IdVec<EndpointId, NicCounters>,
    /// Since when each endpoint's head packet has been held back by
    /// back-pressure (NEVER if it is not).
    pub stalled_since: IdVec<EndpointId, Ps>,
    /// The NIC looks past its head message for one it may send (classes,
    /// congestion control, an outstanding limit or failures are in use).
    pub scan: bool,
    /// End-to-end acks are modelled (congestion control, outstanding limit).
    pub acks_needed: bool,
    /// Acks and CNPs travel as packets or return instantly (`nic.acks`).
    pub acks: crate::nic::AckModel,
    /// The class acks, CNPs and switch-made acks travel in (`nic.ack_class`);
    /// None: the class of the data each answers.
    pub ack_class: Option<u8>,
    /// Acks and CNPs each NIC has made and not yet sent, oldest first: they
    /// leave before the NIC's data ([`super::acks`]).
    pub ack_queue: IdVec<EndpointId, VecDeque<PacketId>>,
    /// Packets each endpoint has unacked, the limit (0 = none), and NICs
    /// that wait for an ack before they can send.
    pub outstanding: IdVec<EndpointId, u32>,
    pub max_outstanding: u32,
    pub waiting_ack: IdVec<EndpointId, bool>,
    /// With `nic.outstanding_release = "all"`: packets each NIC sent since
    /// it last had none outstanding, and NICs that sent the limit's worth
    /// and wait until every one is answered.
    pub release: crate::nic::OutstandingRelease,
    pub sent_in_block: IdVec<EndpointId, u32>,
    pub draining: IdVec<EndpointId, bool>,
    /// Serial of the newest message record.
    pub serial: u32,
    /// Next rail of each node, and how rails are chosen.
    pub next_rail: IdVec<NodeId, u32>,
    pub rail_selection: RailSelection,
    /// Whether the selection places whole messages or single packets, and
    /// per rail what the message being placed puts there.
    pub rail_unit: RailUnit,
    pub rail_plan: Vec<RailPart>,
    /// Whole messages in turn, or packets in turn (`nic.message_order`).
    pub message_order: MessageOrder,
    pub rail_rng: Rng,
    /// With `nic.node_injection_bps`: the node's rate over all its rails,
    /// when each node may next hand a packet to a rail, and the NIC (the
    /// rail's endpoint) it handed the last one to ([`Simulation::node_holds`]).
    pub node_rate: Option<Rate>,
    pub node_free_at: IdVec<NodeId, Ps>,
    pub node_last_sender: IdVec<NodeId, EndpointId>,
}

impl Nics {
    /// What an answer to a packet of message record `msg` carries to tell
    /// that message from a later one in the same record: its serial with
    /// `outstanding_release = "message"`, else 0 (nothing reads it).
    pub fn serial_of(&self, msg: u32) -> u32 {
        if self.release != crate::nic::OutstandingRelease::Message || msg == NONE {
            return 0;
        }
        self.messages[msg as usize].serial
    }

    /// A packet of the message with record `msg` and serial `serial` was
    /// answered (or given up): with `outstanding_release = "message"` its
    /// block ends once all of them are. A record since reused by another
    /// message has another serial and is left alone; its message had sent
    /// everything, so no block of it waits.
    pub fn answered(&mut self, msg: u32, serial: u32) {
        if self.release != crate::nic::OutstandingRelease::Message {
            return;
        }
        let m = &mut self.messages[msg as usize];
        if m.serial == serial && m.open > 0 {
            m.open -= 1;
            if m.open == 0 {
                m.block_sent = 0;
            }
        }
    }

    /// Stores a message; returns its id.
    pub fn add_message(&mut self, m: Message) -> u32 {
        match self.free_messages.pop() {
            Some(i) => {
                self.messages[i as usize] = m;
                i
            }
            None => {
                self.messages.push(m);
                (self.messages.len() - 1) as u32
            }
        }
    }

    /// Wire bytes of the next packet of a message with `to_send` bytes left.
    #[inline]
    pub fn next_wire(&self, to_send: u64) -> u32 {
        self.frame.wire_bytes(to_send.min(self.mtu as u64) as u32)
    }
}

impl Simulation {
    /// Queues a message from node `a` to node `b` on the next rail of `a`,
    /// its packets routed by mode `alg` ([`crate::routing::Algorithm::code`]) in class `class`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_message(&mut self, a: NodeId, b: NodeId, bytes: u64, source: u16, flow: u32, alg: u8, class: u8) {
        if self.net.rails == 1 {
            self.enqueue_on_rail(a, b, 0, bytes, source, flow, alg, class);
            return;
        }
        self.plan_rails(a, b);
        if self.nics.rail_unit == RailUnit::Message {
            let rail = self.pick_rail(a);
            self.enqueue_on_rail(a, b, rail, bytes, source, flow, alg, class);
            return;
        }
        // Each packet by the same rule, counting the ones already placed.
        let mtu = self.nics.mtu as u64;
        let mut left = bytes;
        loop {
            let packet = left.min(mtu); // a message of 0 bytes is one empty packet
            let rail = self.pick_rail(a);
            let part = &mut self.nics.rail_plan[rail as usize];
            part.bytes += packet;
            part.packets += 1;
            left -= packet;
            if left == 0 {
                break;
            }
        }
        if flow != NONE {
            self.flows.records[flow as usize].parts = self.nics.rail_plan.iter().filter(|p| p.packets > 0).count() as u32;
        }
        for rail in 0..self.net.rails {
            let part = self.nics.rail_plan[rail as usize];
            if part.packets > 0 {
                self.enqueue_on_rail(a, b, rail, part.bytes, source, flow, alg, class);
            }
        }
    }

    /// Queues `bytes` of a message from node `a` to node `b` on rail `rail`.
    #[allow(clippy::too_many_arguments)]
    fn enqueue_on_rail(&mut self, a: NodeId, b: NodeId, rail: u32, bytes: u64, source: u16, flow: u32, alg: u8, class: u8) {
        let src = self.net.endpoint_of(a, rail);
        let dst = self.net.endpoint_of(b, rail);
        let now = self.clock.now;
        self.nics.serial = self.nics.serial.wrapping_add(1);
        let serial = self.nics.serial;
        let m = Message { src, dst, source, measured: self.clock.in_window(now), to_send: bytes, to_deliver: bytes, created: now, flow, alg, class, serial, open: 0, block_sent: 0 };
        let id = self.nics.add_message(m);
        self.nics.queue[src].push_back(id);
        self.nics.backlog[src] += bytes;
        let ch = self.net.endpoint_up[src];
        let (busy_until, scheduled_at) = (self.channels.tx[ch].busy_until, self.channels.tx[ch].scheduled_at);
        if busy_until <= now && scheduled_at == NEVER && self.nics.queue[src].len() == 1 {
            self.nic_send(src, ch); // idle NIC: send at once, no event needed
        } else {
            self.schedule_try(ch, now.max(busy_until));
        }
    }

    /// Hints the processor to fetch what queueing a message of traffic
    /// source `source` at its member `member` touches: the queue and the
    /// transmitter of the NIC it will leave from (with rails chosen in
    /// turn; other rail choices depend on the destination, not yet drawn).
    #[inline]
    pub(crate) fn prefetch_source_nic(&self, source: u16, member: u32) {
        let Some(node) = self.traffic.sources.get(source as usize).and_then(|s| s.nodes.get(member as usize)) else { return };
        let a = NodeId(*node);
        let rails = self.net.rails;
        let rail = match self.nics.rail_selection {
            RailSelection::RoundRobin => self.nics.next_rail[a] % rails,
            _ if rails == 1 => 0,
            _ => return,
        };
        let e = self.net.endpoint_of(a, rail);
        crate::packet::prefetch_read(&self.nics.queue[e] as *const VecDeque<u32> as *const u8);
        self.channels.prefetch_transmitter(self.net.endpoint_up[e]);
    }

    /// Starts placing a message from node `a` to node `b` over the rails
    /// (several): nothing placed yet, and with `path` selection each rail's
    /// switch hops between the two nodes.
    fn plan_rails(&mut self, a: NodeId, b: NodeId) {
        let path = self.nics.rail_selection == RailSelection::Path;
        for r in 0..self.net.rails {
            let hops = if path {
                let (ea, eb) = (self.net.endpoint_of(a, r), self.net.endpoint_of(b, r));
                self.topo.distance(self.net.endpoint_switch[ea], self.net.endpoint_switch[eb])
            } else {
                0
            };
            self.nics.rail_plan[r as usize] = RailPart { hops, bytes: 0, packets: 0 };
        }
    }

    /// The rail the next unit (a message, or a packet of one) from node `a`
    /// leaves on, and arrives on: the same rail index at the destination.
    /// `path` takes the fewest hops, ties broken as `congestion` breaks
    /// them ([McGlohon19] Sec. 4.3); `congestion` the fewest bytes waiting
    /// at the rail's NIC, counting what [`Self::plan_rails`]'s message has
    /// placed there already; remaining ties go to the rails in turn, and
    /// the turn moves on with every unit.
    fn pick_rail(&mut self, a: NodeId) -> u32 {
        let rails = self.net.rails;
        let nics = &mut self.nics;
        let turn = nics.next_rail[a];
        nics.next_rail[a] = turn.wrapping_add(1);
        match nics.rail_selection {
            RailSelection::RoundRobin => turn % rails,
            RailSelection::Random => nics.rail_rng.below(rails as u64) as u32,
            RailSelection::Path | RailSelection::Congestion => {
                let mut best = ((u32::MAX, u64::MAX), 0);
                for i in 0..rails {
                    let r = (turn + i) % rails;
                    let part = &nics.rail_plan[r as usize];
                    let cost = (part.hops, nics.backlog[self.net.endpoint_of(a, r)] + part.bytes);
                    if cost < best.0 {
                        best = (cost, r);
                    }
                }
                best.1
            }
        }
    }

    /// The counters a packet of endpoint `e` (and flow `flow`) updates.
    pub(crate) fn counters_of(&mut self, e: EndpointId, flow: u32) -> impl Iterator<Item = &mut NicCounters> {
        let flow_counters = if flow == NONE { None } else { Some(&mut self.flows.records[flow as usize].counters) };
        std::iter::once(&mut self.nics.counters[e]).chain(flow_counters)
    }

    /// The NIC of endpoint `e` sends its next packet on its injection
    /// channel `ch`, if the switch has buffer space for it (and, with
    /// traffic classes, congestion control or an outstanding-packet limit,
    /// if those let it: see [`Simulation::nic_pick`]).
    pub(crate) fn nic_send(&mut self, e: EndpointId, ch: ChannelId) {
        if self.node_holds(e, ch) {
            return;
        }
        if self.nics.scan {
            if !self.nics.ack_queue[e].is_empty() && self.nic_send_control(e, ch) {
                return;
            }
            if !self.nics.retry_queue[e].is_empty() && self.nic_resend(e, ch) {
                return;
            }
            if let Some(i) = self.nic_pick(e, ch) {
                self.send_from_message(e, ch, i);
            }
            return;
        }
        // Control packets exist only with acks or CNPs, which set `scan`.
        debug_assert!(self.nics.ack_queue[e].is_empty(), "an ack queued at a NIC that does not scan");
        let Some(&m) = self.nics.queue[e].front() else { return };
        let wire = self.nics.next_wire(self.nics.messages[m as usize].to_send);
        if !self.channels.has_credits(ch, 0, wire, self.clock.now) {
            self.nic_stalled(e, ch);
            return;
        }
        self.send_from_message(e, ch, 0);
    }

    /// The NIC's head packet is held back by back-pressure: the stall
    /// counter runs until a credit return wakes it.
    fn nic_stalled(&mut self, e: EndpointId, ch: ChannelId) {
        if self.nics.stalled_since[e] == NEVER {
            self.nics.stalled_since[e] = self.clock.now;
        }
        self.wait_for_credit(ch);
    }

    /// With `nic.node_injection_bps`, whether endpoint `e`'s node holds
    /// back the next packet `e` has to send, data, ack or resend alike (a
    /// try on `ch` is then arranged): until
    /// the node's last packet has gone at the node's rate, or, when the
    /// node is free and another of its rails tries at this same instant,
    /// for that rail's turn if `e`'s rail had the last packet, so that
    /// rails woken together take turns instead of the first one always
    /// winning.
    fn node_holds(&mut self, e: EndpointId, ch: ChannelId) -> bool {
        let n = &self.nics;
        if n.node_rate.is_none() || (n.queue[e].is_empty() && n.ack_queue[e].is_empty() && n.retry_queue[e].is_empty()) {
            return false;
        }
        let now = self.clock.now;
        let node = self.net.endpoint_node[e];
        let free_at = self.nics.node_free_at[node];
        if now < free_at {
            self.schedule_try(ch, free_at);
            return true;
        }
        if e != self.nics.node_last_sender[node] {
            return false;
        }
        let other_waits = self.net.endpoints_of_node(node).iter().any(|&other| {
            other != e && self.channels.tx[self.net.endpoint_up[other]].scheduled_at == now
        });
        if other_waits {
            // Runs again after the other rail's try, already queued for now.
            self.schedule_try(ch, now);
        }
        other_waits
    }

    /// The NIC on `ch` waits for buffer space (its credit returns were just
    /// absorbed): it tries again when the next return arrives, or when one
    /// is sent if none is on its way.
    pub(crate) fn wait_for_credit(&mut self, ch: ChannelId) {
        let next_return = self.channels.tx[ch].next_credit_at;
        if next_return != NEVER {
            self.schedule_try(ch, next_return);
        } else {
            self.channels.tx[ch].waiting_credit = true;
        }
    }

    /// Index in the NIC queue of the first message whose next packet may
    /// leave now: its class has credits at the switch, and congestion
    /// control lets its endpoint pair send. Messages to a congested
    /// endpoint wait here, at the ingress, while others pass them. None
    /// (and a wake-up arranged) if no message may send.
    fn nic_pick(&mut self, e: EndpointId, ch: ChannelId) -> Option<usize> {
        /// Messages looked at per attempt.
        const SCAN: usize = 64;
        let now = self.clock.now;
        let nics = &mut self.nics;
        if nics.max_outstanding > 0 && (nics.outstanding[e] >= nics.max_outstanding || nics.draining[e]) {
            if nics.outstanding[e] > 0 {
                nics.waiting_ack[e] = true;
                return None;
            }
            nics.draining[e] = false; // every packet answered
        }
        let (mut wake, mut credit_blocked, mut head_credit_blocked, mut ack_blocked) = (NEVER, false, false, false);
        let any_size = self.cc.refuses_any_size();
        let mut chosen = None;
        // The pair congestion control last held back and the smallest
        // packet it refused: the queue's later messages of that pair (an
        // incast's sender has many) are refused too without asking.
        let (mut held_pair, mut held_wire) = (u64::MAX, 0u32);
        for (i, &m) in nics.queue[e].iter().enumerate().take(SCAN) {
            let msg = &nics.messages[m as usize];
            if nics.max_outstanding > 0 && msg.block_sent >= nics.max_outstanding {
                // Its block is sent (`outstanding_release = "message"`):
                // it waits until every packet of it is answered.
                ack_blocked = true;
                continue;
            }
            let wire = nics.next_wire(msg.to_send);
            let vc = self.vcs.first_of(msg.class);
            if !self.channels.has_credits(ch, vc, wire, now) {
                credit_blocked = true;
                head_credit_blocked |= i == 0;
                continue;
            }
            let key = pair_key(msg.src, msg.dst);
            if key == held_pair && wire >= held_wire {
                continue;
            }
            match self.cc.admit(msg.src, msg.dst, wire, now) {
                Admit::Now => {
                    chosen = Some(i);
                    break;
                }
                Admit::At(t) => wake = wake.min(t),
                Admit::OnAck => ack_blocked = true,
            }
            (held_pair, held_wire) = (key, if any_size { 0 } else { wire });
        }
        if chosen.is_some() {
            return chosen;
        }
        if head_credit_blocked {
            self.nic_stalled(e, ch);
        } else if credit_blocked {
            let next_return = self.channels.tx[ch].next_credit_at;
            if next_return != NEVER {
                wake = wake.min(next_return);
            } else {
                self.channels.tx[ch].waiting_credit = true;
            }
        }
        if ack_blocked {
            self.nics.waiting_ack[e] = true;
        }
        if wake != NEVER {
            self.schedule_try(ch, wake);
        }
        None
    }

    /// Sends the next packet of the message at index `i` of NIC `e`'s queue.
    fn send_from_message(&mut self, e: EndpointId, ch: ChannelId, i: usize) {
        let m = self.nics.queue[e][i];
        let msg = self.nics.messages[m as usize];
        let payload = msg.to_send.min(self.nics.mtu as u64) as u32;
        let wire = self.nics.frame.wire_bytes(payload);
        let now = self.clock.now;
        let stalled = match self.nics.stalled_since[e] {
            NEVER => Ps::ZERO,
            since => now - since,
        };
        self.nics.stalled_since[e] = NEVER;
        let flits = (wire as u64).div_ceil(self.nics.flit_bytes as u64);
        for c in self.counters_of(e, msg.flow) {
            c.packets += 1;
            c.flits += flits;
            c.stalled_ps += stalled;
        }
        let tracked = if msg.flow == NONE { NONE } else { m };
        let mut p = Packet::new(msg.src, msg.dst, self.net.endpoint_switch[msg.dst], tracked, msg.source);
        p.hot.wire = wire;
        p.hot.alg = msg.alg;
        p.hot.class = msg.class;
        p.cold.payload = payload;
        p.cold.created = msg.created;
        p.cold.injected = now;
        if msg.measured {
            p.hot.flags |= FLAG_MEASURED;
            if now < self.clock.window_end {
                self.measure.measured_outstanding += 1;
            }
        }
        if msg.to_send == payload as u64 {
            p.hot.flags |= crate::packet::FLAG_MESSAGE_END;
        }
        if self.nics.scan {
            self.source_nic_sends(msg.src, msg.dst, wire, tracked);
        }
        let h = self.pool.alloc(p);
        self.inject(h, ch);
        self.measure.packets_injected += 1;
        self.measure.bytes_injected += payload as u64;
        self.nics.backlog[e] -= payload as u64;
        let left = msg.to_send - payload as u64;
        self.nics.messages[m as usize].to_send = left;
        if left > 0 && self.nics.message_order == MessageOrder::Interleaved && self.nics.queue[e].len() > 1 {
            // Its next packet waits its turn behind every other message.
            self.nics.queue[e].remove(i);
            self.nics.queue[e].push_back(m);
        }
        if left == 0 {
            if i == 0 {
                self.nics.queue[e].pop_front();
            } else {
                self.nics.queue[e].remove(i);
            }
            if msg.flow == NONE {
                // Nothing waits for this message's completion: free it now so
                // delivery need not touch it.
                self.nics.free_messages.push(m);
            }
        }
        self.nic_next(e, ch);
    }

    /// Source-side bookkeeping of a packet of `wire` bytes leaving for
    /// `dst`: congestion control's state and the outstanding count.
    fn source_nic_sends(&mut self, src: EndpointId, dst: EndpointId, wire: u32, msg: u32) {
        let now = self.clock.now;
        let view = super::signals::NetworkView { topo: &self.topo, net: &self.net, channels: &self.channels, zero_load: &self.signals.zero_load };
        self.cc.on_inject(src, dst, wire, now, &view);
        if self.nics.acks_needed {
            let n = &mut self.nics;
            n.outstanding[src] += 1;
            if n.release == crate::nic::OutstandingRelease::All && n.max_outstanding > 0 {
                n.sent_in_block[src] += 1;
                n.draining[src] = n.sent_in_block[src] >= n.max_outstanding;
            }
            if n.release == crate::nic::OutstandingRelease::Message && msg != NONE {
                let m = &mut n.messages[msg as usize];
                m.open += 1;
                m.block_sent += 1;
            }
        }
    }

    /// Puts packet `h` on NIC `e`'s injection channel `ch` now.
    pub(crate) fn inject(&mut self, h: PacketId, ch: ChannelId) {
        let now = self.clock.now;
        let (rate, latency) = (self.channels.tx[ch].rate, self.channels.tx[ch].latency());
        let (wire, class) = {
            let p = self.pool.hot(h);
            (p.wire, p.class)
        };
        let ser = rate.serialize(wire as u64);
        let retry = self.link_retry_delay(ch, wire, ser);
        let vc = self.vcs.first_of(class);
        let p = self.pool.hot_mut(h);
        p.ch = ch;
        p.vc = vc as u8;
        p.tail = now + ser + retry + latency;
        p.set_path_latency(latency);
        self.events.push(now + retry + latency, Event::Arrive(h));
        self.channels.spend(ch, vc, wire);
        self.channels.tx[ch].busy_until = now + ser + retry;
        if let Some(node_rate) = self.nics.node_rate {
            let e = self.channels.from_endpoint[ch];
            let node = self.net.endpoint_node[e];
            self.nics.node_free_at[node] = now + node_rate.serialize(wire as u64);
            self.nics.node_last_sender[node] = e;
        }
        self.account_transmission(ch, now, ser + retry, wire);
    }

    /// After a packet left NIC `e` on `ch`: try again when the link frees,
    /// if anything is left to send.
    pub(crate) fn nic_next(&mut self, e: EndpointId, ch: ChannelId) {
        let n = &self.nics;
        // Resends and control packets exist only where the NIC scans
        // (failures, acks): a plain NIC's two other queues stay empty.
        if !n.queue[e].is_empty() || (n.scan && (!n.retry_queue[e].is_empty() || !n.ack_queue[e].is_empty())) {
            let at = self.channels.tx[ch].busy_until;
            self.schedule_try(ch, at);
        }
    }
}
