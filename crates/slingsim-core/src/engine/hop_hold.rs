//! Congesting flows held at every hop, passable by other traffic
//! (`congestion.hop_hold_bytes`; [Roweth] Sec. II-E).
//!
//! A data packet bound for an endpoint whose edge port is congested, as
//! the switches' control sees it (two or more sources, a queue above the
//! threshold), is *congesting*. Each switch lets at most `hop_hold_bytes`
//! of congesting packets bound for one endpoint be committed to one
//! switch-to-switch output: queued for it, on its wire, or in the next
//! switch until they leave it. A congesting packet that would pass that
//! bound waits beside the output's
//! queue, in its input buffer (its space still held), and joins the queue
//! once the next switch has sent an earlier one of its destination on. The
//! packets that arrive behind it, of any other destination, go straight
//! into the queue: they pass it. Holding a packet sends its flow's ingress
//! switch a congestion ack with the congested port's marks, as the port
//! does when a source's packet joins its queue, so the flow is cut to its
//! share instead of filling every hop's allowance. The ack leaves from the
//! hop itself, so it reaches the ingress switch sooner than the port's
//! would; its round trip is the data's path to the hop and back.
//!
//! So a persistent congestion tree keeps at most `hop_hold_bytes` per
//! destination in any switch's input buffer, and the rest of what its
//! sources have admitted waits at their ingress switches, where only the
//! flows' own sources are behind it.
//!
//! With `congestion.hop_hold_cut_flows_only` a hop holds a flow only once
//! a congestion ack has cut it, as a switch tracking each flow would know
//! it: a new flow's packets pass uncounted, unless packets bound for the
//! same endpoint already wait beside the output, behind which they wait.
//!
//! Deadlock freedom: a held packet waits for a packet of its own
//! destination, one hop further on, to leave the next switch; that one
//! waits at worst for the same one hop further still, and the last hop
//! into an endpoint is never held. Held packets take no buffer space that
//! was not theirs already.

use super::Simulation;
use crate::ids::{ChannelId, PacketId};
use crate::congestion::{CongestionControl, IntMap};
use crate::packet::{PacketKind, HOP_HELD, HOP_ON_IN, HOP_ON_OUT};
use crate::units::Ps;
use std::collections::VecDeque;

/// Time taken by acks of one kind: the sum, the count and the longest.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Delay {
    pub sum: Ps,
    pub count: u64,
    pub max: Ps,
}

impl Delay {
    /// The mean in ns (0 with none).
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 { 0.0 } else { self.sum.as_f64() / self.count as f64 / 1e3 }
    }
}

/// The key of an (output, destination) pair.
#[inline]
fn key(ch: ChannelId, dst: u32) -> u64 {
    ((ch.0 as u64) << 32) | dst as u64
}

/// The state of per-hop holding in a run.
#[derive(Default)]
pub(crate) struct HopHold {
    /// Bytes per destination that one output may have committed (0: off).
    pub cap: u64,
    /// Hold only flows a congestion ack has cut
    /// (`congestion.hop_hold_cut_flows_only`).
    cut_flows_only: bool,
    /// Committed bytes per (output, destination).
    bytes: IntMap<u64>,
    /// Held packets per output: per destination, in arrival order.
    held: IntMap<Vec<(u32, VecDeque<(PacketId, u8)>)>>,
    /// Congestion acks sent for held packets.
    pub acks: u64,
    /// Congestion acks on their way (by record): when made, and whether
    /// a hop (not the congested port) made it.
    acks_out: IntMap<(Ps, bool)>,
    /// How long congestion acks took to reach their ingress switch:
    /// [the port's, the hops'].
    pub ack_delay: [Delay; 2],
    /// Packets held now, the most at once, and ever.
    pub now_held: u64,
    pub max_held: u64,
    pub ever_held: u64,
}

impl HopHold {
    /// Holding with at most `cap` bytes per output and destination (0:
    /// off), of every flow or only of those a congestion ack has cut.
    pub fn new(cap: u64, cut_flows_only: bool) -> HopHold {
        HopHold { cap, cut_flows_only, ..Default::default() }
    }

    /// True when the run holds congesting flows at every hop.
    #[inline]
    pub fn on(&self) -> bool {
        self.cap > 0
    }

    /// The congestion ack of record `id` was made at `t`, by a hop or
    /// by the congested port.
    pub fn ack_sent(&mut self, id: u32, t: Ps, by_hop: bool) {
        self.acks_out.insert(id as u64, (t, by_hop));
    }

    /// Fabric ack record `id` reached its ingress switch at `now`: if it
    /// is a congestion ack, its delay counts.
    pub fn ack_arrived(&mut self, id: u32, now: Ps) {
        if let Some((t, by_hop)) = self.acks_out.remove(&(id as u64)) {
            let d = &mut self.ack_delay[by_hop as usize];
            d.sum = d.sum + (now - t);
            d.count += 1;
            d.max = d.max.max(now - t);
        }
    }

    /// Fabric ack record `id` was lost.
    pub fn ack_lost(&mut self, id: u32) {
        self.acks_out.remove(&(id as u64));
    }

    /// Every packet held now.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.held.values().flatten().flat_map(|(_, q)| q.iter().map(|e| e.0))
    }

    /// May `wire` more bytes bound for `dst` be committed to `ch`? (One
    /// packet always may, whatever the cap, so every destination moves.)
    fn has_room(&self, ch: ChannelId, dst: u32, wire: u64) -> bool {
        let b = self.bytes.get(&key(ch, dst)).copied().unwrap_or(0);
        b == 0 || b + wire <= self.cap
    }

    /// `wire` bytes bound for `dst` are committed to output `ch` (the
    /// packet marks itself `HOP_ON_OUT`).
    fn commit(&mut self, ch: ChannelId, dst: u32, wire: u64) {
        *self.bytes.entry(key(ch, dst)).or_insert(0) += wire;
    }
}

impl Simulation {
    /// Routed packet `h` is about to queue for switch-to-switch output
    /// `out` on VC `vc`: true if it must wait beside the queue instead.
    #[inline]
    pub(super) fn hop_holds(&mut self, h: PacketId, out: ChannelId, vc: usize) -> bool {
        let p = self.pool.hot(h);
        if p.kind != PacketKind::Data {
            return false;
        }
        let (dst, wire) = (p.dst.0, p.wire as u64);
        let port = self.net.endpoint_down[p.dst];
        let marks = self.cc.port_marks(port, self.channels.tx[port].queued_bytes);
        // A flow no congestion ack has cut yet is unknown to the hops as
        // congesting (`cut_flows_only`): it passes, uncounted, unless
        // packets bound for the same endpoint already wait beside this
        // output, behind which it waits in turn (letting it pass them too
        // put a persistent 16 KiB incast's restarting flows into the
        // fabric unheld: its victim took 15.7x as long, docs/model.md).
        let congested = marks.is_some() && !(self.hop_hold.cut_flows_only && !self.cc.flow_cut(p.src, p.dst));
        let hh = &mut self.hop_hold;
        // Nothing held anywhere is the common case: no lookup then.
        let waiting = hh.now_held > 0 && hh.held.get(&(out.0 as u64)).is_some_and(|v| v.iter().any(|(d, _)| *d == dst));
        if !congested && !waiting {
            return false;
        }
        if waiting || !hh.has_room(out, dst, wire) {
            self.pool.cold_mut(h).hop |= HOP_HELD;
            let hh = &mut self.hop_hold;
            let list = hh.held.entry(out.0 as u64).or_default();
            match list.iter_mut().find(|(d, _)| *d == dst) {
                Some((_, q)) => q.push_back((h, vc as u8)),
                None => list.push((dst, VecDeque::from([(h, vc as u8)]))),
            }
            hh.now_held += 1;
            hh.ever_held += 1;
            hh.max_held = hh.max_held.max(hh.now_held);
            if let Some(marks) = marks {
                // The hop tells the flow's ingress switch at once, as the
                // port would as its packet joined the queue.
                let at = self.pool.hot(h).in_ch;
                self.send_congestion_ack(h, marks, self.clock.now, Some(at));
                self.hop_hold.acks += 1;
            }
            return true;
        }
        hh.commit(out, dst, wire);
        self.pool.cold_mut(h).hop |= HOP_ON_OUT;
        false
    }

    /// The `wire` bytes bound for `dst` committed to output `ch` are free:
    /// what is held beside `ch` may go.
    fn hop_free(&mut self, ch: ChannelId, dst: u32, wire: u64) {
        let k = key(ch, dst);
        let b = self.hop_hold.bytes.get_mut(&k).expect("counted when committed");
        *b -= wire;
        if *b == 0 {
            self.hop_hold.bytes.remove(&k);
        }
        if self.hop_hold.now_held > 0 && self.hop_hold.held.contains_key(&(ch.0 as u64)) {
            let now = self.clock.now;
            self.schedule_try(ch, now);
        }
    }

    /// Packet `h` starts to leave its switch: the bytes it was committed
    /// with on the link it came in by are free, and what waits for them
    /// upstream may go; what it is committed with here is now counted on
    /// the link it travels (the next switch's way in).
    #[inline]
    pub(super) fn hop_left(&mut self, h: PacketId) {
        let c = self.pool.cold_mut(h);
        let was = c.hop;
        if was == 0 {
            return;
        }
        c.hop = if was & HOP_ON_OUT != 0 { HOP_ON_IN } else { 0 };
        if was & HOP_ON_IN != 0 {
            let p = self.pool.hot(h);
            let (in_ch, dst, wire) = (p.in_ch, p.dst.0, p.wire as u64);
            self.hop_free(in_ch, dst, wire);
        }
    }

    /// Packet `h` was lost, queued for `out` (if it was routed at its
    /// switch) or before: whatever it had committed is free.
    pub(super) fn hop_forget(&mut self, h: PacketId, out: Option<ChannelId>) {
        let c = self.pool.cold_mut(h);
        let was = std::mem::take(&mut c.hop);
        debug_assert!(was & HOP_HELD == 0, "a held packet waits beside its output and cannot be lost");
        let p = self.pool.hot(h);
        let (in_ch, dst, wire) = (p.in_ch, p.dst.0, p.wire as u64);
        if was & HOP_ON_IN != 0 {
            self.hop_free(in_ch, dst, wire);
        }
        if was & HOP_ON_OUT != 0 {
            let out = out.expect("a packet committed to an output is lost only as it leaves on it");
            self.hop_free(out, dst, wire);
        }
    }

    /// Output `ch` is about to arbitrate: its held packets whose
    /// destination has room again join its queue, oldest first.
    pub(super) fn hop_release(&mut self, ch: ChannelId) {
        // Every output arbitrates through here: nothing held, no lookup.
        if self.hop_hold.now_held == 0 {
            return;
        }
        let Some(mut list) = self.hop_hold.held.remove(&(ch.0 as u64)) else { return };
        for (dst, q) in list.iter_mut() {
            while let Some(&(h, vc)) = q.front() {
                let wire = self.pool.hot(h).wire as u64;
                if !self.hop_hold.has_room(ch, *dst, wire) {
                    break;
                }
                q.pop_front();
                self.hop_hold.now_held -= 1;
                let c = self.pool.cold_mut(h);
                debug_assert!(c.hop & HOP_HELD != 0, "a held packet is marked held");
                c.hop = (c.hop & !HOP_HELD) | HOP_ON_OUT;
                self.hop_hold.commit(ch, *dst, wire);
                // It was ready when it was held; it joins the queue now.
                let now = self.clock.now;
                let p = self.pool.hot_mut(h);
                p.ready = p.ready.max(now);
                self.queue_routed(h, ch, vc as usize, false, false);
            }
        }
        list.retain(|(_, q)| !q.is_empty());
        if !list.is_empty() {
            self.hop_hold.held.insert(ch.0 as u64, list);
        }
    }
}
