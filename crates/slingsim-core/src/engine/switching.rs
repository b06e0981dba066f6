//! Switch behaviour: routing a packet on arrival into a virtual output
//! queue, output arbitration among virtual channels, transmission with
//! credit-based flow control and crossbar speedup.

use super::{CreditReturn, Simulation, NEVER};
use crate::event::Event;
use crate::network::{End, LinkKind, NONE};
use crate::routing;
use crate::topology::Topology;
use crate::units::Ps;

impl Simulation {
    /// The head of packet `h` reached the receiver of the channel it is on.
    #[inline]
    pub(crate) fn on_arrive(&mut self, h: u32) {
        let ch = self.pool.get(h).ch;
        match self.net.channels[ch as usize].dst {
            End::Endpoint(_) => self.deliver(h),
            End::Switch { switch, .. } => self.route_into_queue(h, switch, ch),
        }
    }

    /// Routes `h` at switch `s` and queues it for its output.
    #[inline]
    fn route_into_queue(&mut self, h: u32, s: u32, in_ch: u32) {
        let mut p = *self.pool.get(h);
        let n = self.n_vcs;
        let out = {
            let tx = &self.tx;
            let credits = &self.credits;
            let vc_cap = self.vc_capacity;
            let occupancy = |c: u32| -> u64 {
                let base = c as usize * n;
                let used: i64 = (0..n).map(|v| vc_cap - credits[base + v]).sum::<i64>().max(0);
                tx[c as usize].queued_bytes + used as u64
            };
            let rng = &mut self.switch_rng[s as usize];
            match &self.topo {
                Topology::Dragonfly(df) => routing::dragonfly::next_channel(self.alg, df, &self.net, s, &mut p, rng, self.ugal_threshold, occupancy),
            }
        };
        debug_assert_ne!(out, NONE, "routing chose an uncabled port at switch {s}");
        let to_endpoint = matches!(self.net.channels[out as usize].dst, End::Endpoint(_));
        let vc = if to_endpoint { 0 } else { (p.hops as usize).min(n - 1) };
        debug_assert!(to_endpoint || (p.hops as usize) < n, "path longer than the VC scheme allows");
        p.in_ch = in_ch;
        p.in_vc = p.vc;
        p.vc = vc as u8;
        p.ch = out;
        p.ready = self.now + self.switch_latency;
        let ready = p.ready;
        let wire = p.wire;
        *self.pool.get_mut(h) = p;
        self.queues[out as usize * n + vc].push(&mut self.pool, h);
        let t = &mut self.tx[out as usize];
        t.queued_bytes += wire as u64;
        t.queued_packets += 1;
        let at = ready.max(t.busy_until);
        self.schedule_try(out, at);
    }

    /// Output arbitration of switch channel `ch`: among the heads of its
    /// per-VC queues that are ready, have downstream credits and whose input
    /// port can read into the crossbar, send the one that became ready first.
    pub(crate) fn switch_send(&mut self, ch: u32) {
        let now = self.now;
        let next_return = self.absorb_credits(ch);
        let n = self.n_vcs;
        let to_switch = matches!(self.net.channels[ch as usize].dst, End::Switch { .. });
        let mut best: Option<(Ps, usize)> = None;
        let mut wake = NEVER;
        let mut credit_blocked = false;
        for vc in 0..n {
            let q = self.queues[ch as usize * n + vc];
            if q.is_empty() {
                continue;
            }
            let p = self.pool.get(q.head);
            if p.ready > now {
                wake = wake.min(p.ready);
                continue;
            }
            if to_switch && self.credits[ch as usize * n + vc] < p.wire as i64 {
                credit_blocked = true;
                continue;
            }
            let xf = self.xbar_free[p.in_ch as usize];
            if xf > now {
                wake = wake.min(xf);
                continue;
            }
            if best.map_or(true, |(r, _)| p.ready < r) {
                best = Some((p.ready, vc));
            }
        }
        match best {
            Some((_, vc)) => self.transmit(ch, vc, to_switch),
            None => {
                if credit_blocked {
                    if next_return != NEVER {
                        wake = wake.min(next_return);
                    } else {
                        self.tx[ch as usize].waiting_credit = true;
                    }
                }
                if wake != NEVER {
                    self.schedule_try(ch, wake);
                }
            }
        }
    }

    /// Sends the head of queue (`ch`, `vc`) now.
    fn transmit(&mut self, ch: u32, vc: usize, to_switch: bool) {
        let now = self.now;
        let n = self.n_vcs;
        let h = self.queues[ch as usize * n + vc].pop(&self.pool);
        let (rate, latency, kind) = {
            let c = &self.net.channels[ch as usize];
            (c.rate, c.latency, c.kind)
        };
        let mut p = *self.pool.get(h);
        let ser = rate.serialize(p.wire as u64);
        // Cut-through: the tail cannot leave before it has arrived.
        let end = (now + ser).max(p.tail);
        if to_switch {
            self.credits[ch as usize * n + vc] -= p.wire as i64;
        }
        // The input buffer space frees as the tail leaves; the credit
        // travels back over the input link.
        let in_ch = p.in_ch;
        let in_c = &self.net.channels[in_ch as usize];
        let read = (in_c.rate.serialize(p.wire as u64) as f64 / self.speedup) as Ps;
        self.xbar_free[in_ch as usize] = now + read;
        let back = end + in_c.latency;
        self.credit_returns[in_ch as usize].push(CreditReturn { at: back, vc: p.in_vc, bytes: p.wire });
        if self.tx[in_ch as usize].waiting_credit {
            self.tx[in_ch as usize].waiting_credit = false;
            self.schedule_try(in_ch, back);
        }
        if kind != LinkKind::Terminal {
            p.hops += 1;
        }
        p.tail = end + latency;
        let wire = p.wire;
        *self.pool.get_mut(h) = p;
        self.events.push(now + latency, Event::Arrive(h));
        let t = &mut self.tx[ch as usize];
        t.busy_until = end;
        t.queued_bytes -= wire as u64;
        t.queued_packets -= 1;
        let more = t.queued_packets > 0;
        self.account_busy(ch, now, end - now, wire);
        if more {
            self.schedule_try(ch, end);
        }
    }
}
