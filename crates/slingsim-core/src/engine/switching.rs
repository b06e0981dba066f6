//! Switch behaviour: routing a packet on arrival into a virtual output
//! queue, output arbitration among virtual channels, transmission with
//! credit-based flow control and crossbar speedup.

use super::{Simulation, NEVER};
use crate::event::Event;
use crate::network::{End, NONE};
use crate::routing;
use crate::topology::Topology;
use crate::units::Ps;

impl Simulation {
    /// The head of packet `h` reached the receiver of the channel it is on.
    #[inline]
    pub(crate) fn on_arrive(&mut self, h: u32) {
        let ch = self.pool.get(h).ch;
        if self.tx[ch as usize].to_endpoint {
            self.deliver(h);
        } else {
            let End::Switch { switch, .. } = self.net.channels[ch as usize].dst else { unreachable!("fabric channels end at switches") };
            self.route_into_queue(h, switch, ch);
        }
    }

    /// Routes `h` at switch `s` and queues it for its output.
    #[inline]
    fn route_into_queue(&mut self, h: u32, s: u32, in_ch: u32) {
        let mut p = *self.pool.get(h);
        let n = self.n_vcs;
        let now = self.now;
        let out = {
            let tx = &self.tx;
            let credits = &self.credits;
            let vc_cap = self.vc_capacity;
            let occupancy = |c: u32| -> u64 {
                let t = &tx[c as usize];
                if t.fail_at <= now {
                    return routing::adaptive::FAILED_LINK; // adaptive routing avoids it
                }
                let base = c as usize * n;
                let used: i64 = (0..n).map(|v| vc_cap - credits[base + v]).sum::<i64>().max(0);
                t.queued_bytes + used as u64
            };
            let rng = &mut self.switch_rng[s as usize];
            let alg = routing::Algorithm::from_code(p.alg);
            let biases = &self.class_biases[p.class as usize];
            match &self.topo {
                Topology::Dragonfly(df) => routing::adaptive::next_channel(df, alg, &self.net, s, &mut p, rng, biases, occupancy),
                Topology::Graph(g) => routing::adaptive::next_channel(g, alg, &self.net, s, &mut p, rng, biases, occupancy),
            }
        };
        debug_assert_ne!(out, NONE, "routing chose an uncabled port at switch {s}");
        let to_endpoint = self.tx[out as usize].to_endpoint;
        debug_assert!(to_endpoint || (p.hops as usize) < self.hop_vcs, "path longer than the VC scheme allows");
        let vc = self.vc_of(p.class, p.hops, to_endpoint);
        p.in_ch = in_ch;
        p.in_vc = p.vc;
        p.vc = vc as u8;
        p.ch = out;
        p.ready = now + self.switch_latency;
        p.path_ps = p.path_ps.saturating_add(self.switch_latency as u32);
        let ready = p.ready;
        let wire = p.wire;
        *self.pool.get_mut(h) = p;
        if self.any_lossy && self.classes[p.class as usize].spec.lossy && self.tx[out as usize].queued_bytes >= self.lossy_queue_bytes {
            self.drop_lossy(h);
            return;
        }
        if self.try_cut_through(h, out, vc, to_endpoint) {
            return;
        }
        self.queues[out as usize * n + vc].push(&mut self.pool, h);
        if to_endpoint && self.cc.algorithm == crate::congestion::Algorithm::Slingshot {
            self.egress_enter(out, p.src);
        }
        let t = &mut self.tx[out as usize];
        t.queued_bytes += wire as u64;
        t.queued_packets += 1;
        let at = ready.max(t.busy_until);
        self.schedule_try(out, at);
    }

    /// Fast path: when output `out` has nothing queued, no attempt pending
    /// and is free by the time packet `h` is ready, `h` is the next to leave
    /// through it, because every
    /// packet spends the same fall-through latency in the switch (ready times
    /// follow arrival order). If its credits and input read port allow, the
    /// transmission is committed now for the moment the packet is ready,
    /// saving the queueing events. Credits only grow until then, so the
    /// check is conservative.
    #[inline]
    fn try_cut_through(&mut self, h: u32, out: u32, vc: usize, to_endpoint: bool) -> bool {
        let t = self.tx[out as usize];
        if t.queued_packets > 0 || t.scheduled_at != NEVER {
            return false;
        }
        let p = self.pool.get(h);
        // Only an output that is free when the packet is ready: committing
        // behind a busy output would hold downstream credits too early.
        let start = p.ready;
        if t.busy_until > start || self.xbar_busy(p.in_ch, start, p.wire) {
            return false;
        }
        if !to_endpoint {
            let wire = p.wire as i64;
            let idx = out as usize * self.n_vcs + vc;
            if self.credits[idx] < wire {
                self.absorb_credits(out);
                if self.credits[idx] < wire {
                    return false;
                }
            }
        }
        self.start_transmission(h, out, vc, !to_endpoint, start);
        true
    }

    /// Time input port `in_ch` needs to read `wire` bytes into the crossbar.
    #[inline]
    fn xbar_read_time(&self, in_ch: u32, wire: u32) -> Ps {
        (self.tx[in_ch as usize].rate.serialize(wire as u64) as f64 / self.speedup) as Ps
    }

    /// True if a read of `wire` bytes from input `in_ch` starting at `at`
    /// overlaps the read the input port is already committed to.
    #[inline]
    fn xbar_busy(&self, in_ch: u32, at: Ps, wire: u32) -> bool {
        let i = in_ch as usize;
        at < self.tx[i].xbar_until && at + self.xbar_read_time(in_ch, wire) > self.tx[i].xbar_from
    }

    /// Output arbitration of switch channel `ch`: among the heads of its
    /// per-VC queues that are ready, have downstream credits and whose input
    /// port can read into the crossbar, send the one that became ready
    /// first; with several traffic classes, first pick the class
    /// ([`crate::qos::pick_class`]), then its oldest ready head.
    pub(crate) fn switch_send(&mut self, ch: u32) {
        let now = self.now;
        let next_return = self.absorb_credits(ch);
        let n = self.n_vcs;
        let to_switch = !self.tx[ch as usize].to_endpoint;
        let ncls = self.classes.len();
        // Oldest sendable head per class.
        let mut best = [None::<(Ps, usize)>; 8];
        let mut wake = NEVER;
        let mut credit_blocked = false;
        for vc in 0..n {
            let q = self.queues[ch as usize * n + vc];
            if q.is_empty() {
                continue;
            }
            if q.head_ready > now {
                wake = wake.min(q.head_ready);
                continue;
            }
            if to_switch && self.credits[ch as usize * n + vc] < q.head_wire as i64 {
                credit_blocked = true;
                continue;
            }
            if self.xbar_busy(q.head_in_ch, now, q.head_wire) {
                wake = wake.min(self.tx[q.head_in_ch as usize].xbar_until);
                continue;
            }
            let c = if ncls > 1 { vc / self.hop_vcs } else { 0 };
            if best[c].map_or(true, |(r, _)| q.head_ready < r) {
                best[c] = Some((q.head_ready, vc));
            }
        }
        let chosen = if ncls == 1 { best[0].map(|b| b.1) } else { self.pick_class_vc(ch, &best[..ncls], &mut wake) };
        match chosen {
            Some(vc) => self.transmit(ch, vc, to_switch),
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

    /// Class arbitration on `ch` among the classes with a sendable head
    /// (`best`); if every one is at its maximum share, none is sent and
    /// `wake` is lowered to when the first falls below it.
    fn pick_class_vc(&self, ch: u32, best: &[Option<(Ps, usize)>], wake: &mut Ps) -> Option<usize> {
        let now = self.now;
        let rate = self.tx[ch as usize].rate;
        let mut ready = [(0usize, 0.0f64); 8];
        let mut k = 0;
        for (c, b) in best.iter().enumerate() {
            if b.is_some() {
                ready[k] = (c, self.share.share(ch, c, now, rate));
                k += 1;
            }
        }
        if k == 0 {
            return None;
        }
        match crate::qos::pick_class(&self.classes, &ready[..k]) {
            Some(c) => best[c].map(|b| b.1),
            None => {
                for &(c, _) in &ready[..k] {
                    let dt = self.share.time_until_share(ch, c, now, rate, self.classes[c].spec.max_share);
                    *wake = (*wake).min(now + dt);
                }
                None
            }
        }
    }

    /// Sends the head of queue (`ch`, `vc`) now.
    fn transmit(&mut self, ch: u32, vc: usize, to_switch: bool) {
        let h = self.queues[ch as usize * self.n_vcs + vc].pop(&self.pool);
        if self.cc.algorithm != crate::congestion::Algorithm::None {
            self.mark_congestion(h, ch, to_switch);
        }
        let t = &mut self.tx[ch as usize];
        t.queued_bytes -= self.pool.get(h).wire as u64;
        t.queued_packets -= 1;
        let now = self.now;
        self.start_transmission(h, ch, vc, to_switch, now);
        if self.tx[ch as usize].queued_packets > 0 {
            let end = self.tx[ch as usize].busy_until;
            self.schedule_try(ch, end);
        }
    }

    /// Starts sending packet `h` on channel `ch` (VC `vc`) at time `now`
    /// (the present, or the moment a cut-through packet becomes ready).
    fn start_transmission(&mut self, h: u32, ch: u32, vc: usize, to_switch: bool, now: Ps) {
        let n = self.n_vcs;
        let (rate, latency, fabric) = {
            let t = &self.tx[ch as usize];
            (t.rate, t.latency, t.fabric)
        };
        let mut p = *self.pool.get(h);
        let ser = rate.serialize(p.wire as u64);
        if self.tx[ch as usize].fail_at <= now {
            self.lose_on_failed_link(h, ch, now);
            return;
        }
        let retry = self.link_retry_delay(ch, p.wire, ser);
        // Cut-through: the tail cannot leave before it has arrived.
        let end = (now + ser).max(p.tail) + retry;
        if to_switch {
            self.credits[ch as usize * n + vc] -= p.wire as i64;
        }
        // The input buffer space frees as the tail leaves; the credit
        // travels back over the input link.
        let in_ch = p.in_ch;
        let read = self.xbar_read_time(in_ch, p.wire);
        let input = &mut self.tx[in_ch as usize];
        input.xbar_from = now;
        input.xbar_until = now + read;
        let back = end + input.latency;
        self.return_credits(in_ch, p.in_vc, p.wire, back);
        if fabric {
            p.hops += 1;
        }
        p.tail = end + latency;
        p.path_ps = p.path_ps.saturating_add(latency as u32);
        let wire = p.wire;
        if self.classes.len() > 1 {
            self.share.record(ch, p.class as usize, now, wire);
        }
        *self.pool.get_mut(h) = p;
        self.events.push(now + retry + latency, Event::Arrive(h));
        self.tx[ch as usize].busy_until = end;
        self.account_busy(ch, now, end - now, wire);
    }
}
