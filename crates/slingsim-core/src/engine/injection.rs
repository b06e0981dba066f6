//! NIC side: traffic generation, messages, packetization and injection.

use super::{FlowRecord, Message, Simulation, NEVER};
use crate::event::Event;
use crate::network::NONE;
use crate::packet::{Packet, FLAG_MEASURED};
use crate::traffic::Injection;
use crate::units::Ps;

impl Simulation {
    /// Schedules each source's first events.
    pub(crate) fn schedule_sources(&mut self) {
        for s in 0..self.sources.len() {
            let (start, members) = (self.sources[s].start_ps, self.sources[s].nodes.len() as u32);
            let incast_target = match self.sources[s].pattern {
                crate::traffic::Pattern::Incast(t) => Some(t),
                _ => None,
            };
            match self.sources[s].injection {
                Injection::Flows { .. } => self.events.push(start, Event::StartFlows(s as u16)),
                Injection::Bernoulli { .. } => {
                    for m in 0..members {
                        if incast_target == Some(m) {
                            continue; // the incast target only receives
                        }
                        // Random phase inside the first gap so nodes do not start in lockstep.
                        let gap = self.next_gap(s);
                        let at = start + (gap * self.source_rng[s].unit()) as Ps;
                        if at < self.end && at < self.sources[s].stop_ps {
                            self.events.push(at, Event::Generate { source: s as u16, member: m });
                        }
                    }
                }
            }
        }
    }

    /// A Bernoulli source generates a message at one of its nodes.
    pub(crate) fn on_generate(&mut self, s: u16, member: u32) {
        let si = s as usize;
        let bytes = match self.sources[si].injection {
            Injection::Bernoulli { message_bytes, .. } => message_bytes,
            Injection::Flows { .. } => unreachable!("flow sources do not generate"),
        };
        let src = &self.sources[si];
        let n = src.nodes.len() as u32;
        let rng = &mut self.source_rng[si];
        if let Some(d) = src.pattern.destination(member, src.groups[member as usize], n, rng) {
            let (a, b) = (src.nodes[member as usize], src.nodes[d as usize]);
            self.enqueue_message(a, b, bytes, s, NONE, self.source_alg[si].code(), self.source_class[si]);
            if self.in_window(self.now) {
                self.stats[si].offered_wire += self.source_msg_wire[si];
            }
        }
        let gap = self.next_gap(si);
        let next = self.now + gap.max(1.0) as Ps;
        if next < self.end && next < self.sources[si].stop_ps {
            self.events.push(next, Event::Generate { source: s, member });
        }
    }

    /// Time (ps) to a source's next message at one node: a geometric number
    /// of message slots (Bernoulli) or an exponential gap (Poisson), both of
    /// mean slot / load.
    fn next_gap(&mut self, s: usize) -> f64 {
        let Injection::Bernoulli { load, process, .. } = self.sources[s].injection else {
            unreachable!("only offered-load sources have gaps")
        };
        let slot = self.source_slot_ps[s];
        let rng = &mut self.source_rng[s];
        match process {
            crate::traffic::Process::Bernoulli => rng.geometric(load) as f64 * slot,
            crate::traffic::Process::Poisson => -(1.0 - rng.unit()).ln() * slot / load,
        }
    }

    /// A flow source starts all its flows.
    pub(crate) fn on_start_flows(&mut self, s: u16) {
        let si = s as usize;
        let Injection::Flows { bytes, per_node } = self.sources[si].injection else {
            unreachable!("only flow sources start flows")
        };
        for member in 0..self.sources[si].nodes.len() as u32 {
            for _ in 0..per_node {
                let src = &self.sources[si];
                let n = src.nodes.len() as u32;
                let Some(d) = src.pattern.destination(member, src.groups[member as usize], n, &mut self.source_rng[si]) else {
                    continue;
                };
                let (a, b) = (src.nodes[member as usize], src.nodes[d as usize]);
                let flow = self.flows.len() as u32;
                self.flows.push(FlowRecord::new(s, a, b, bytes, self.now));
                self.flows_pending += 1;
                self.stats[si].flows += 1;
                self.stats[si].offered_wire += self.source_msg_wire[si];
                self.enqueue_message(a, b, bytes, s, flow, self.source_alg[si].code(), self.source_class[si]);
            }
        }
        if self.flows_pending == 0 && !self.has_bernoulli && !self.mpi.active() && self.sources.iter().all(|x| matches!(x.injection, Injection::Flows { .. })) {
            // Nothing to send at all (e.g. an incast of one node).
            let pending_starts = self.sources.iter().any(|x| x.start_ps > self.now);
            if !pending_starts {
                self.finish(super::EndReason::FlowsDone);
            }
        }
    }

    /// Queues a message from node `a` to node `b` on the next rail of `a`,
    /// its packets routed by mode `alg` ([`crate::routing::Algorithm::code`]) in class `class`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_message(&mut self, a: u32, b: u32, bytes: u64, source: u16, flow: u32, alg: u8, class: u8) {
        let rail = self.choose_rail(a, b);
        let src = self.net.endpoint_of(a, rail);
        let dst = self.net.endpoint_of(b, rail);
        let m = Message { src, dst, source, measured: self.in_window(self.now), to_send: bytes, to_deliver: bytes, created: self.now, flow, alg, class };
        let id = match self.free_messages.pop() {
            Some(i) => {
                self.messages[i as usize] = m;
                i
            }
            None => {
                self.messages.push(m);
                (self.messages.len() - 1) as u32
            }
        };
        self.nic_queue[src as usize].push_back(id);
        self.nic_backlog[src as usize] += bytes;
        let ch = self.net.endpoint_up[src as usize];
        let t = self.tx[ch as usize];
        if t.busy_until <= self.now && t.scheduled_at == NEVER && self.nic_queue[src as usize].len() == 1 {
            self.nic_send(src, ch); // idle NIC: send at once, no event needed
        } else {
            let at = self.now.max(t.busy_until);
            self.schedule_try(ch, at);
        }
    }

    /// The rail a message from node `a` to node `b` leaves on (and arrives
    /// on: the same rail index at the destination).
    fn choose_rail(&mut self, a: u32, b: u32) -> u32 {
        let rails = self.net.rails;
        let turn = self.next_rail[a as usize];
        self.next_rail[a as usize] = turn.wrapping_add(1);
        if rails == 1 {
            return 0;
        }
        use crate::nic::RailSelection::*;
        let cost = |sim: &Simulation, r: u32| -> u64 {
            let (ea, eb) = (sim.net.endpoint_of(a, r), sim.net.endpoint_of(b, r));
            match sim.rail_selection {
                Path => {
                    let (sa, sb) = (sim.net.endpoint_switch[ea as usize], sim.net.endpoint_switch[eb as usize]);
                    sim.topo.distance(sa, sb) as u64
                }
                Congestion => sim.nic_backlog[ea as usize],
                RoundRobin | Random => 0,
            }
        };
        match self.rail_selection {
            RoundRobin => turn % rails,
            Random => self.rail_rng.below(rails as u64) as u32,
            Path | Congestion => {
                // Least cost; ties go to the rails in turn.
                let mut best = (u64::MAX, 0);
                for i in 0..rails {
                    let r = (turn + i) % rails;
                    let c = cost(self, r);
                    if c < best.0 {
                        best = (c, r);
                    }
                }
                best.1
            }
        }
    }

    /// The counters a packet of endpoint `e` (and flow `flow`) updates.
    pub(crate) fn counters_of(&mut self, e: u32, flow: u32) -> impl Iterator<Item = &mut super::NicCounters> {
        let flow_counters = if flow == NONE { None } else { Some(&mut self.flows[flow as usize].counters) };
        std::iter::once(&mut self.nic_counters[e as usize]).chain(flow_counters)
    }

    /// The NIC of endpoint `e` sends its next packet on its injection
    /// channel `ch`, if the switch has buffer space for it (and, with
    /// traffic classes, congestion control or an outstanding-packet limit,
    /// if those let it: see [`Simulation::nic_pick`]).
    pub(crate) fn nic_send(&mut self, e: u32, ch: u32) {
        let next_return = self.absorb_credits(ch);
        if self.nic_scan {
            if !self.nic_retry[e as usize].is_empty() && self.nic_resend(e, ch, next_return) {
                return;
            }
            if let Some(i) = self.nic_pick(e, ch, next_return) {
                self.send_from_message(e, ch, i);
            }
            return;
        }
        let Some(&m) = self.nic_queue[e as usize].front() else { return };
        let msg = self.messages[m as usize];
        let wire = self.frame.wire_bytes(msg.to_send.min(self.mtu as u64) as u32);
        if self.credits[ch as usize * self.n_vcs] < wire as i64 {
            self.nic_stalled(e, ch, next_return);
            return;
        }
        self.send_from_message(e, ch, 0);
    }

    /// The NIC's head packet is held back by back-pressure: the stall
    /// counter runs until a credit return wakes it.
    fn nic_stalled(&mut self, e: u32, ch: u32, next_return: Ps) {
        if self.stalled_since[e as usize] == NEVER {
            self.stalled_since[e as usize] = self.now;
        }
        self.wait_for_credit(ch, next_return);
    }

    /// The NIC on `ch` waits for buffer space: it tries again when the next
    /// credit return arrives, or when one is sent if none is on its way.
    pub(crate) fn wait_for_credit(&mut self, ch: u32, next_return: Ps) {
        if next_return != NEVER {
            self.schedule_try(ch, next_return);
        } else {
            self.tx[ch as usize].waiting_credit = true;
        }
    }

    /// Index in the NIC queue of the first message whose next packet may
    /// leave now: its class has credits at the switch, and congestion
    /// control lets its endpoint pair send. Messages to a congested
    /// endpoint wait here, at the ingress, while others pass them. None
    /// (and a wake-up arranged) if no message may send.
    fn nic_pick(&mut self, e: u32, ch: u32, next_return: Ps) -> Option<usize> {
        /// Messages looked at per attempt.
        const SCAN: usize = 64;
        let now = self.now;
        if self.max_outstanding > 0 && self.outstanding[e as usize] >= self.max_outstanding {
            self.waiting_ack[e as usize] = true;
            return None;
        }
        let (mut wake, mut credit_blocked, mut head_credit_blocked, mut ack_blocked) = (NEVER, false, false, false);
        let queue = &self.nic_queue[e as usize];
        let mut chosen = None;
        // The pair congestion control last held back and the smallest
        // packet it refused: the queue's later messages of that pair (an
        // incast's sender has many) are refused too without a lookup.
        let (mut held_pair, mut held_wire) = (u64::MAX, 0u32);
        for (i, &m) in queue.iter().enumerate().take(SCAN) {
            let msg = &self.messages[m as usize];
            let wire = self.frame.wire_bytes(msg.to_send.min(self.mtu as u64) as u32);
            let vc = msg.class as usize * self.hop_vcs;
            if self.credits[ch as usize * self.n_vcs + vc] < wire as i64 {
                credit_blocked = true;
                head_credit_blocked |= i == 0;
                continue;
            }
            let key = crate::congestion::pair_key(msg.src, msg.dst);
            if key == held_pair && wire >= held_wire {
                continue;
            }
            match self.cc.algorithm {
                crate::congestion::Algorithm::Slingshot => {
                    if let Some(st) = self.pairs.get(&key) {
                        if !st.window_allows(wire, now) {
                            if st.in_flight == 0 {
                                wake = wake.min(st.next_send); // paced below one packet per round trip
                            } else {
                                ack_blocked = true;
                            }
                            (held_pair, held_wire) = (key, wire);
                            continue;
                        }
                    }
                }
                crate::congestion::Algorithm::Dcqcn => {
                    if let Some(st) = self.pairs.get_mut(&key) {
                        st.dcqcn_refresh(&self.cc, now);
                        if st.next_send > now {
                            wake = wake.min(st.next_send);
                            (held_pair, held_wire) = (key, 0);
                            continue;
                        }
                    }
                }
                crate::congestion::Algorithm::None => {}
            }
            chosen = Some(i);
            break;
        }
        if chosen.is_some() {
            return chosen;
        }
        if head_credit_blocked {
            self.nic_stalled(e, ch, next_return);
        } else if credit_blocked {
            if next_return != NEVER {
                wake = wake.min(next_return);
            } else {
                self.tx[ch as usize].waiting_credit = true;
            }
        }
        if ack_blocked {
            self.waiting_ack[e as usize] = true;
        }
        if wake != NEVER {
            self.schedule_try(ch, wake);
        }
        None
    }

    /// Sends the next packet of the message at index `i` of NIC `e`'s queue.
    fn send_from_message(&mut self, e: u32, ch: u32, i: usize) {
        let m = self.nic_queue[e as usize][i];
        let msg = self.messages[m as usize];
        let payload = msg.to_send.min(self.mtu as u64) as u32;
        let wire = self.frame.wire_bytes(payload);
        let now = self.now;
        let stalled = match self.stalled_since[e as usize] {
            NEVER => 0,
            since => now - since,
        };
        self.stalled_since[e as usize] = NEVER;
        let flits = (wire as u64).div_ceil(self.flit_bytes as u64);
        for c in self.counters_of(e, msg.flow) {
            c.packets += 1;
            c.flits += flits;
            c.stalled_ps += stalled;
        }
        let tracked = if msg.flow == NONE { NONE } else { m };
        let mut p = Packet::new(msg.src, msg.dst, self.net.endpoint_switch[msg.dst as usize], tracked, msg.source);
        p.payload = payload;
        p.wire = wire;
        p.alg = msg.alg;
        p.class = msg.class;
        p.created = msg.created;
        p.injected = now;
        if msg.measured {
            p.flags |= FLAG_MEASURED;
            if now < self.window_end {
                self.measured_outstanding += 1;
            }
        }
        if self.nic_scan {
            self.cc_on_send(msg.src, msg.dst, wire);
        }
        let h = self.pool.alloc(p);
        self.inject(h, ch);
        self.packets_injected += 1;
        self.bytes_injected += payload as u64;
        self.nic_backlog[e as usize] -= payload as u64;
        let left = msg.to_send - payload as u64;
        self.messages[m as usize].to_send = left;
        if left == 0 {
            self.nic_queue[e as usize].remove(i);
            if msg.flow == NONE {
                // Nothing waits for this message's completion: free it now so
                // delivery need not touch it.
                self.free_messages.push(m);
            }
        }
        self.nic_next(e, ch);
    }

    /// Puts packet `h` on NIC `e`'s injection channel `ch` now.
    pub(crate) fn inject(&mut self, h: u32, ch: u32) {
        let now = self.now;
        let (rate, latency) = (self.tx[ch as usize].rate, self.tx[ch as usize].latency);
        let (wire, class) = {
            let p = self.pool.get(h);
            (p.wire, p.class)
        };
        let ser = rate.serialize(wire as u64);
        let retry = self.link_retry_delay(ch, wire, ser);
        let p = self.pool.get_mut(h);
        p.ch = ch;
        p.vc = (class as usize * self.hop_vcs) as u8;
        p.tail = now + ser + retry + latency;
        p.path_ps = latency as u32;
        let vc = p.vc as usize;
        self.events.push(now + retry + latency, Event::Arrive(h));
        self.credits[ch as usize * self.n_vcs + vc] -= wire as i64;
        self.tx[ch as usize].busy_until = now + ser + retry;
        self.account_busy(ch, now, ser + retry, wire);
    }

    /// After a packet left NIC `e` on `ch`: try again when the link frees,
    /// if anything is left to send.
    pub(crate) fn nic_next(&mut self, e: u32, ch: u32) {
        if !self.nic_queue[e as usize].is_empty() || !self.nic_retry[e as usize].is_empty() {
            let at = self.tx[ch as usize].busy_until;
            self.schedule_try(ch, at);
        }
    }
}
