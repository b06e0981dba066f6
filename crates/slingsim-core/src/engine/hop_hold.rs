//! Congesting flows held at every hop, passable by other traffic
//! (`congestion.hop_hold_bytes`; [Roweth] Sec. II-E).
//!
//! A data packet whose flow's last fabric ack was marked (the ingress
//! switch knows the flow feeds a congested port) is *congesting*. Each
//! switch lets at most `hop_hold_bytes` of congesting packets bound for
//! one endpoint be committed to one switch-to-switch output: queued for
//! it, on its wire, or in the next switch until they leave it. A
//! congesting packet that would pass that bound waits beside the output's
//! queue, in its input buffer (its space still held), and joins the queue
//! once the next switch has sent an earlier one of its destination on. The
//! packets that arrive behind it, of any other destination, go straight
//! into the queue: they pass it. Holding a packet sends its flow's ingress
//! switch a congestion ack with the congested port's marks, as the port
//! does when a source's packet joins its queue, so the flow is cut to its
//! share instead of filling every hop's allowance. The ack leaves from the
//! destination's switch, as the port's would: a simplification, since the
//! hop is nearer the source and its ack would arrive sooner.
//!
//! So a persistent congestion tree keeps at most `hop_hold_bytes` per
//! destination in any switch's input buffer, and the rest of what its
//! sources have admitted waits at their ingress switches, where only the
//! flows' own sources are behind it.
//!
//! Deadlock freedom: a held packet waits for a packet of its own
//! destination, one hop further on, to leave the next switch; that one
//! waits at worst for the same one hop further still, and the last hop
//! into an endpoint is never held. Held packets take no buffer space that
//! was not theirs already.

use super::Simulation;
use crate::ids::{ChannelId, PacketId};
use crate::congestion::{CongestionControl, IntMap};
use crate::packet::PacketKind;
use std::collections::VecDeque;

/// Where a congesting packet is counted: on the link it came in by (until
/// it leaves this switch) and on the output it is committed to.
#[derive(Clone, Copy, Debug)]
struct Counted {
    on_in: ChannelId,
    on_out: ChannelId,
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
    /// Congesting packets and where they are counted.
    tagged: IntMap<Counted>,
    /// Committed bytes per (output, destination).
    bytes: IntMap<u64>,
    /// Held packets per output: per destination, in arrival order.
    held: IntMap<Vec<(u32, VecDeque<(PacketId, u8)>)>>,
    /// Congestion acks sent for held packets.
    pub acks: u64,
    /// Packets held now, the most at once, and ever.
    pub now_held: u64,
    pub max_held: u64,
    pub ever_held: u64,
}

impl HopHold {
    /// Holding with at most `cap` bytes per output and destination (0: off).
    pub fn new(cap: u64) -> HopHold {
        HopHold { cap, ..Default::default() }
    }

    /// True when the run holds congesting flows at every hop.
    #[inline]
    pub fn on(&self) -> bool {
        self.cap > 0
    }

    /// Every packet held now.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.held.values().flatten().flat_map(|(_, q)| q.iter().map(|e| e.0))
    }

    fn uncount(&mut self, ch: ChannelId, dst: u32, wire: u64) {
        let key = key(ch, dst);
        let b = self.bytes.get_mut(&key).expect("counted when committed");
        *b -= wire;
        if *b == 0 {
            self.bytes.remove(&key);
        }
    }

    fn has_held(&self, ch: ChannelId) -> bool {
        self.held.contains_key(&(ch.0 as u64))
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
        let congested = marks.is_some();
        let hh = &mut self.hop_hold;
        let waiting = hh.held.get(&(out.0 as u64)).is_some_and(|v| v.iter().any(|(d, _)| *d == dst));
        if !congested && !waiting {
            return false;
        }
        let c = hh.tagged.get(&(h.0 as u64)).copied().unwrap_or(Counted { on_in: ChannelId::NONE, on_out: ChannelId::NONE });
        let b = hh.bytes.get(&key(out, dst)).copied().unwrap_or(0);
        if waiting || (b > 0 && b + wire > hh.cap) {
            hh.tagged.insert(h.0 as u64, c);
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
                self.send_congestion_ack(h, marks, self.clock.now);
                self.hop_hold.acks += 1;
            }
            return true;
        }
        *hh.bytes.entry(key(out, dst)).or_insert(0) += wire;
        hh.tagged.insert(h.0 as u64, Counted { on_out: out, ..c });
        false
    }

    /// Packet `h` starts to leave its switch on `out`: the bytes it was
    /// committed with on the link it came in by are free, and what waits
    /// for them upstream may go.
    #[inline]
    pub(super) fn hop_left(&mut self, h: PacketId, to_endpoint: bool) {
        let Some(c) = self.hop_hold.tagged.get(&(h.0 as u64)).copied() else { return };
        let p = self.pool.hot(h);
        let (dst, wire) = (p.dst.0, p.wire as u64);
        if !c.on_in.is_none() {
            self.hop_hold.uncount(c.on_in, dst, wire);
            if self.hop_hold.has_held(c.on_in) {
                let now = self.clock.now;
                self.schedule_try(c.on_in, now);
            }
        }
        if to_endpoint {
            self.hop_hold.tagged.remove(&(h.0 as u64));
        } else {
            self.hop_hold.tagged.insert(h.0 as u64, Counted { on_in: c.on_out, on_out: ChannelId::NONE });
        }
    }

    /// Packet `h` was lost: whatever it had committed is free.
    pub(super) fn hop_forget(&mut self, h: PacketId) {
        let Some(c) = self.hop_hold.tagged.remove(&(h.0 as u64)) else { return };
        let p = self.pool.hot(h);
        let (dst, wire) = (p.dst.0, p.wire as u64);
        for ch in [c.on_in, c.on_out] {
            if !ch.is_none() {
                self.hop_hold.uncount(ch, dst, wire);
                if self.hop_hold.has_held(ch) {
                    let now = self.clock.now;
                    self.schedule_try(ch, now);
                }
            }
        }
    }

    /// Output `ch` is about to arbitrate: its held packets whose
    /// destination has room again join its queue, oldest first.
    pub(super) fn hop_release(&mut self, ch: ChannelId) {
        let Some(mut list) = self.hop_hold.held.remove(&(ch.0 as u64)) else { return };
        for (dst, q) in list.iter_mut() {
            while let Some(&(h, vc)) = q.front() {
                let wire = self.pool.hot(h).wire as u64;
                let b = self.hop_hold.bytes.get(&key(ch, *dst)).copied().unwrap_or(0);
                if b > 0 && b + wire > self.hop_hold.cap {
                    break;
                }
                q.pop_front();
                self.hop_hold.now_held -= 1;
                *self.hop_hold.bytes.entry(key(ch, *dst)).or_insert(0) += wire;
                let c = self.hop_hold.tagged.get_mut(&(h.0 as u64)).expect("a held packet is tagged");
                c.on_out = ch;
                self.queue_routed(h, ch, vc as usize, false, false);
            }
        }
        list.retain(|(_, q)| !q.is_empty());
        if !list.is_empty() {
            self.hop_hold.held.insert(ch.0 as u64, list);
        }
    }
}
