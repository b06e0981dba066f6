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
                        if at < self.end {
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
            self.enqueue_message(a, b, bytes, s, NONE);
            if self.now >= self.warmup {
                self.stats[si].offered_wire += self.source_msg_wire[si];
            }
        }
        let gap = self.next_gap(si);
        let next = self.now + gap.max(1.0) as Ps;
        if next < self.end {
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
                self.flows.push(FlowRecord { source: s, src_node: a, dst_node: b, bytes, start: self.now, end: NEVER, counters: Default::default(), last_injected: 0, out_of_order: 0 });
                self.flows_pending += 1;
                self.stats[si].flows += 1;
                self.stats[si].offered_wire += self.source_msg_wire[si];
                self.enqueue_message(a, b, bytes, s, flow);
            }
        }
        if self.flows_pending == 0 && !self.has_bernoulli && self.sources.iter().all(|x| matches!(x.injection, Injection::Flows { .. })) {
            // Nothing to send at all (e.g. an incast of one node).
            let pending_starts = self.sources.iter().any(|x| x.start_ps > self.now);
            if !pending_starts {
                self.finish(super::EndReason::FlowsDone);
            }
        }
    }

    /// Queues a message from node `a` to node `b` on the next rail of `a`.
    pub(crate) fn enqueue_message(&mut self, a: u32, b: u32, bytes: u64, source: u16, flow: u32) {
        let rail = self.choose_rail(a, b);
        let src = self.net.endpoint_of(a, rail);
        let dst = self.net.endpoint_of(b, rail);
        let m = Message { src, dst, source, measured: self.now >= self.warmup, to_send: bytes, to_deliver: bytes, created: self.now, flow };
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

    /// The NIC of endpoint `e` sends the next packet of its head message
    /// on its injection channel `ch`, if the switch has buffer space.
    pub(crate) fn nic_send(&mut self, e: u32, ch: u32) {
        let next_return = self.absorb_credits(ch);
        let Some(&m) = self.nic_queue[e as usize].front() else { return };
        let msg = self.messages[m as usize];
        let payload = msg.to_send.min(self.mtu as u64) as u32;
        let wire = self.frame.wire_bytes(payload);
        let n = self.n_vcs;
        if self.credits[ch as usize * n] < wire as i64 {
            // Ready but held back by back-pressure: the stall counter runs.
            if self.stalled_since[e as usize] == NEVER {
                self.stalled_since[e as usize] = self.now;
            }
            if next_return != NEVER {
                self.schedule_try(ch, next_return);
            } else {
                self.tx[ch as usize].waiting_credit = true;
            }
            return;
        }
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
        let (rate, latency) = (self.tx[ch as usize].rate, self.tx[ch as usize].latency);
        let ser = rate.serialize(wire as u64);
        let retry = self.link_retry_delay(ch, wire, ser);
        let tracked = if msg.flow == NONE { NONE } else { m };
        let mut p = Packet::new(msg.src, msg.dst, self.net.endpoint_switch[msg.dst as usize], tracked, msg.source);
        p.payload = payload;
        p.wire = wire;
        p.alg = self.source_alg[msg.source as usize].code();
        p.created = msg.created;
        p.injected = now;
        p.ch = ch;
        p.tail = now + ser + retry + latency;
        if msg.measured {
            p.flags |= FLAG_MEASURED;
        }
        let h = self.pool.alloc(p);
        self.events.push(now + retry + latency, Event::Arrive(h));
        self.credits[ch as usize * n] -= wire as i64;
        self.tx[ch as usize].busy_until = now + ser + retry;
        self.account_busy(ch, now, ser + retry, wire);
        self.packets_injected += 1;
        self.bytes_injected += payload as u64;
        self.nic_backlog[e as usize] -= payload as u64;
        let left = msg.to_send - payload as u64;
        self.messages[m as usize].to_send = left;
        if left == 0 {
            self.nic_queue[e as usize].pop_front();
            if msg.flow == NONE {
                // Nothing waits for this message's completion: free it now so
                // delivery need not touch it.
                self.free_messages.push(m);
            }
        }
        if !self.nic_queue[e as usize].is_empty() {
            self.schedule_try(ch, now + ser + retry);
        }
    }
}
