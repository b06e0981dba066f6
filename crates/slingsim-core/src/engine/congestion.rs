//! Congestion signals and end-to-end reliability in the engine: ECN marks
//! and Slingshot congestion levels at switch outputs, acks and CNPs back to
//! the source NIC, packets lost to failed links or lossy-class drops, and
//! the NIC's end-to-end retry.
//!
//! Acks and CNPs are not simulated as packets: each reaches its source one
//! zero-load path latency after delivery (the path the packet took, links
//! and switches). They are small and ride a class of their own on the real
//! system; docs/congestion.md states this simplification.

use super::{Ack, Simulation};
use crate::congestion::{pair_key, Algorithm, PairState};
use crate::event::Event;
use crate::network::NONE;
use crate::packet::{FLAG_ECN, FLAG_NONMINIMAL, FLAG_ROUTED};
use crate::units::Ps;

impl Simulation {
    /// Slingshot: a packet from source endpoint `src` joined the queue of
    /// egress edge port `ch`.
    #[inline]
    pub(crate) fn egress_enter(&mut self, ch: u32, src: u32) {
        let n = self.egress_sources.entry(((ch as u64) << 32) | src as u64).or_insert(0);
        *n += 1;
        if *n == 1 {
            self.egress_flows[ch as usize] = self.egress_flows[ch as usize].saturating_add(1);
        }
    }

    /// Marks packet `h`, leaving the queue of switch output `ch`, with the
    /// congestion that queue shows (before it leaves): an ECN mark with the
    /// RED probability (DCQCN), or at an egress edge port the Slingshot
    /// congestion level and the number of sources feeding the port.
    pub(crate) fn mark_congestion(&mut self, h: u32, ch: u32, to_switch: bool) {
        let q = self.tx[ch as usize].queued_bytes;
        match self.cc.algorithm {
            Algorithm::Dcqcn => {
                let prob = self.cc.ecn_probability(q);
                if prob > 0.0 && self.cc_rng.unit() < prob {
                    self.pool.get_mut(h).flags |= FLAG_ECN;
                    self.cc_stats.ecn_marks += 1;
                }
            }
            Algorithm::Slingshot if !to_switch => {
                let level = self.cc.congestion_level(q);
                let p = self.pool.get_mut(h);
                // Contributing flows: the sources queued at the port, or,
                // when more, the sources with packets in flight to the
                // endpoint (with small windows most of them are on the
                // way rather than queued at any instant).
                let flows = self.egress_flows[ch as usize].max(self.dst_senders[p.dst as usize]);
                p.mark = level;
                p.mark_flows = flows;
                let key = ((ch as u64) << 32) | p.src as u64;
                let n = self.egress_sources.get_mut(&key).expect("queued packets were counted");
                *n -= 1;
                if *n == 0 {
                    self.egress_sources.remove(&key);
                    self.egress_flows[ch as usize] -= 1;
                }
            }
            _ => {}
        }
    }

    /// Source-side bookkeeping of a packet of `wire` bytes leaving for
    /// `dst`: bytes in flight (Slingshot), pacing (DCQCN), outstanding count.
    #[inline]
    pub(crate) fn cc_on_send(&mut self, src: u32, dst: u32, wire: u32) {
        let key = pair_key(src, dst);
        match self.cc.algorithm {
            Algorithm::Slingshot => {
                if !self.pairs.contains_key(&key) {
                    let st = PairState::with_window(&self.cc, self.bandwidth_delay(src, dst));
                    self.pairs.insert(key, st);
                }
                let st = self.pairs.get_mut(&key).expect("inserted");
                if st.in_flight == 0 {
                    self.dst_senders[dst as usize] = self.dst_senders[dst as usize].saturating_add(1);
                }
                st.in_flight += wire as u64;
            }
            Algorithm::Dcqcn => {
                let now = self.now;
                if let Some(st) = self.pairs.get_mut(&key) {
                    st.dcqcn_sent(&self.cc, wire, now);
                    // Back at line rate and no recent CNP from the receiver: forget the pair.
                    if st.rate >= self.cc.line_rate_bps && now >= st.last_cnp + self.cc.cnp_interval {
                        self.pairs.remove(&key);
                    }
                }
            }
            Algorithm::None => {}
        }
        if self.acks_needed {
            self.outstanding[src as usize] += 1;
        }
    }

    /// A pair's starting window: NIC rate x the zero-load round trip
    /// between the endpoints (every hop counted at the slowest link
    /// latency), plus one full packet.
    fn bandwidth_delay(&self, src: u32, dst: u32) -> f64 {
        let (a, b) = (self.net.endpoint_switch[src as usize], self.net.endpoint_switch[dst as usize]);
        let hops = self.topo.distance(a, b).min(16) as u64;
        let one_way = 2 * self.terminal_latency + hops * self.max_fabric_latency + (hops + 1) * self.switch_latency;
        let rtt = 2 * one_way;
        self.cc.line_rate_bps / 8.0 * rtt as f64 * 1e-12 + self.frame.wire_bytes(self.mtu) as f64
    }

    /// Packet `p` was delivered at `t`: its ack (and, if it carries an ECN
    /// mark, a CNP at most once per interval per pair) heads back.
    pub(crate) fn send_acks(&mut self, p: &crate::packet::Packet, t: Ps) {
        let back = p.path_ps as Ps;
        if self.acks_needed {
            let a = Ack { src: p.src, dst: p.dst, wire: p.wire, level: p.mark, flows: p.mark_flows, rtt: 2 * back, cnp: false, source: p.source };
            self.push_ack(a, t + back);
        }
        if p.flags & FLAG_ECN != 0 && self.cc.algorithm == Algorithm::Dcqcn {
            let cc = &self.cc;
            let st = self.pairs.entry(pair_key(p.src, p.dst)).or_insert_with(|| PairState::new(cc));
            // last_cnp = 0: none sent yet (a sent one is stamped at least 1).
            if st.last_cnp == 0 || t >= st.last_cnp + cc.cnp_interval {
                st.last_cnp = t.max(1);
                self.cc_stats.cnps += 1;
                let a = Ack { src: p.src, dst: p.dst, wire: 0, level: 0, flows: 0, rtt: 2 * back, cnp: true, source: p.source };
                self.push_ack(a, t + back);
            }
        }
    }

    fn push_ack(&mut self, a: Ack, at: Ps) {
        let id = match self.free_acks.pop() {
            Some(i) => {
                self.acks[i as usize] = a;
                i
            }
            None => {
                self.acks.push(a);
                (self.acks.len() - 1) as u32
            }
        };
        self.events.push(at, Event::Ack(id));
    }

    /// An ack or CNP reached its source NIC.
    pub(crate) fn on_ack(&mut self, id: u32) {
        let a = self.acks[id as usize];
        self.free_acks.push(id);
        let now = self.now;
        let key = pair_key(a.src, a.dst);
        if a.cnp || a.level > 0 {
            self.stats[a.source as usize].congestion_signals += 1;
        }
        if a.cnp {
            let cc = &self.cc;
            self.pairs.entry(key).or_insert_with(|| PairState::new(cc)).dcqcn_cnp(cc, now);
        } else {
            self.cc_stats.acks += 1;
            self.release_outstanding(a.src);
            if self.cc.algorithm == Algorithm::Slingshot {
                if a.level > 0 {
                    self.cc_stats.marked_acks += 1;
                }
                let port_rate = self.tx[self.net.endpoint_down[a.dst as usize] as usize].rate.bytes_per_s();
                if let Some(st) = self.pairs.get_mut(&key) {
                    st.slingshot_ack(&self.cc, a.wire, a.level, a.flows as u32, port_rate, a.rtt, now);
                    if st.in_flight == 0 {
                        self.dst_senders[a.dst as usize] -= 1;
                    }
                    if st.in_flight == 0 && !st.throttled(&self.cc) && st.next_send <= now {
                        self.pairs.remove(&key);
                    }
                }
            }
        }
        self.wake_nic(a.src);
    }

    /// One packet of endpoint `e` is no longer outstanding.
    fn release_outstanding(&mut self, e: u32) {
        if self.acks_needed {
            self.outstanding[e as usize] -= 1;
        }
    }

    /// A NIC that waited for an ack tries again.
    fn wake_nic(&mut self, e: u32) {
        if self.waiting_ack[e as usize] {
            self.waiting_ack[e as usize] = false;
            let ch = self.net.endpoint_up[e as usize];
            let at = self.now.max(self.tx[ch as usize].busy_until);
            self.schedule_try(ch, at);
        }
    }

    /// A packet of a lossy class found its output queue full: it is
    /// dropped, its input buffer space returns upstream.
    pub(crate) fn drop_lossy(&mut self, h: u32) {
        let p = *self.pool.get(h);
        let back = self.now + self.tx[p.in_ch as usize].latency;
        self.return_credits(p.in_ch, p.in_vc, p.wire, back);
        self.cc_stats.drops += 1;
        self.pool.free(h);
        self.account_loss(&p);
    }

    /// Packet `h`, committed to channel `ch` at `at`, meets a failed link:
    /// it is lost on the wire. The transmitter keeps its credits (nothing
    /// arrives downstream), the input buffer frees, and the source NIC's
    /// end-to-end retry timer will resend it.
    pub(crate) fn lose_on_failed_link(&mut self, h: u32, ch: u32, at: Ps) {
        let p = *self.pool.get(h);
        // Failed links are switch-to-switch: the packet sits in a switch input buffer.
        let back = at + self.tx[p.in_ch as usize].latency;
        self.return_credits(p.in_ch, p.in_vc, p.wire, back);
        self.tx[ch as usize].busy_until = self.tx[ch as usize].busy_until.max(at);
        self.pool.get_mut(h).ch = NONE;
        let timer = (p.injected + self.retry_timeout).max(at + 1);
        self.events.push(timer, Event::Retry(h));
    }

    /// The retry timer of lost packet `h` expired: resend it from its
    /// source NIC, or give it up after `nic.max_retries` attempts.
    pub(crate) fn on_retry(&mut self, h: u32) {
        let p = *self.pool.get(h);
        if p.retries >= self.max_retries {
            self.pool.free(h);
            self.account_loss(&p);
            return;
        }
        self.retries += 1;
        let q = self.pool.get_mut(h);
        q.retries += 1;
        q.hops = 0;
        q.via_group = NONE;
        q.via_switch = NONE;
        q.global_link = NONE;
        q.flags &= !(FLAG_ROUTED | FLAG_NONMINIMAL | FLAG_ECN);
        q.mark = 0;
        q.mark_flows = 0;
        q.in_ch = NONE;
        self.nic_retry[p.src as usize].push_back(h);
        let ch = self.net.endpoint_up[p.src as usize];
        let at = self.now.max(self.tx[ch as usize].busy_until);
        self.schedule_try(ch, at);
    }

    /// Resends the first lost packet waiting at NIC `e`, if its class has
    /// credits at the switch; false if it must wait.
    pub(crate) fn nic_resend(&mut self, e: u32, ch: u32, next_return: Ps) -> bool {
        let h = *self.nic_retry[e as usize].front().expect("caller checked");
        let (wire, class) = {
            let p = self.pool.get(h);
            (p.wire, p.class)
        };
        let vc = class as usize * self.hop_vcs;
        if self.credits[ch as usize * self.n_vcs + vc] < wire as i64 {
            self.wait_for_credit(ch, next_return);
            return true;
        }
        self.nic_retry[e as usize].pop_front();
        for c in self.counters_of(e, NONE) {
            c.packets += 1;
        }
        self.inject(h, ch);
        self.nic_next(e, ch);
        true
    }

    /// Counts the payload of `p` as lost, for its source and its flow (a
    /// flow whose every byte is delivered or lost completes), and releases
    /// what its source NIC held for it.
    pub(crate) fn account_loss(&mut self, p: &crate::packet::Packet) {
        if p.flags & crate::packet::FLAG_MEASURED != 0 && p.injected < self.window_end {
            self.measured_outstanding -= 1;
            self.check_drained();
        }
        self.packets_lost += 1;
        self.bytes_lost += p.payload as u64;
        self.stats[p.source as usize].lost_bytes += p.payload as u64;
        self.release_outstanding(p.src);
        if self.cc.algorithm == Algorithm::Slingshot {
            let key = pair_key(p.src, p.dst);
            if let Some(st) = self.pairs.get_mut(&key) {
                st.in_flight -= p.wire as u64;
                if st.in_flight == 0 {
                    self.dst_senders[p.dst as usize] -= 1;
                }
            }
        }
        self.wake_nic(p.src);
        if p.msg != NONE {
            let now = self.now;
            let m = &mut self.messages[p.msg as usize];
            let flow = m.flow;
            self.flows[flow as usize].lost_bytes += p.payload as u64;
            m.to_deliver -= p.payload as u64;
            if m.to_deliver == 0 {
                self.free_messages.push(p.msg);
                self.complete_flow(flow, now);
            }
        }
    }
}
