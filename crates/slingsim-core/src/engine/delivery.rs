//! Delivery at the destination NIC: acks, latency, hop and load
//! accounting, message and flow completion.

use crate::ids::PacketId;
use super::measurement::PacketSample;
use super::{EndReason, Simulation};
use crate::network::NONE;
use crate::packet::{PacketKind, FLAG_ECN, FLAG_MEASURED, FLAG_NONMINIMAL};
use crate::units::Ps;

impl Simulation {
    /// Packet `h` reached its destination NIC; it is delivered when its tail is in.
    pub(crate) fn deliver(&mut self, h: PacketId) {
        let p = *self.pool.hot(h);
        if p.kind != PacketKind::Data {
            // An ack or CNP: no payload, latency sample or load of data.
            self.control_arrived(h);
            return;
        }
        let c = *self.pool.cold(h);
        self.pool.free(h);
        let t = p.tail;
        if self.nics.acks_needed || p.flags & FLAG_ECN != 0 {
            self.send_acks(&p, &c, t);
        }
        let source = c.source as usize;
        self.measure.timeline.record(source, t, p.wire, t - c.created);
        let (warmup, window_end) = (self.clock.warmup, self.clock.window_end);
        let st = &mut self.measure.stats[source];
        if t >= warmup && t <= window_end {
            st.accepted_wire += p.wire as u64;
        }
        st.packets_delivered += 1;
        st.bytes_delivered += c.payload as u64;
        self.measure.packets_delivered += 1;
        self.measure.bytes_delivered += c.payload as u64;
        if p.flags & FLAG_MEASURED != 0 {
            self.count_measured(&p, &c, t);
        }
        let flow = if c.msg == NONE { NONE } else { self.nics.messages[c.msg as usize].flow };
        for k in self.counters_of(p.src, flow) {
            k.latency_ps += t - c.injected;
            k.delivered += 1;
        }
        if c.msg == NONE {
            return; // an untracked message (freed when its last packet left)
        }
        let m = &mut self.nics.messages[c.msg as usize];
        let f = &mut self.flows.records[m.flow as usize];
        // The NIC injects a flow's packets in order: an older one arriving
        // after a newer one has been reordered by the network.
        if c.injected < f.last_injected {
            f.out_of_order += 1;
        } else {
            f.last_injected = c.injected;
        }
        m.to_deliver -= c.payload as u64;
        if m.to_deliver == 0 {
            let flow = m.flow;
            self.nics.free_messages.push(c.msg);
            self.part_done(flow, t);
        }
    }

    /// Latency, hops and path of a measured packet delivered at `t`.
    fn count_measured(&mut self, p: &crate::packet::PacketHot, c: &crate::packet::PacketCold, t: Ps) {
        if c.injected < self.clock.window_end {
            self.measure.measured_outstanding -= 1;
            if self.measure.measured_outstanding == 0 && self.clock.now >= self.clock.window_end {
                self.check_drained();
            }
        }
        let st = &mut self.measure.stats[c.source as usize];
        st.latency.record(t - c.created);
        st.network_latency.record(t - c.injected);
        if let Some(&j) = self.mpi.job_of_source.get(c.source as usize) {
            if let Some(job) = self.mpi.jobs.get_mut(j as usize) {
                job.packet_latency_since.0 += (t - c.injected).0 as u128;
                job.packet_latency_since.1 += 1;
            }
        }
        st.hops_sum += p.hops as u64;
        st.measured += 1;
        let nonminimal = p.flags & FLAG_NONMINIMAL != 0;
        if nonminimal {
            st.nonminimal += 1;
        }
        self.measure.samples.offer(|| PacketSample {
            source: c.source,
            src: p.src,
            dst: p.dst,
            payload: c.payload,
            wire: p.wire,
            created: c.created,
            injected: c.injected,
            delivered: t,
            hops: p.hops,
            nonminimal,
        });
    }

    /// One part of flow `flow`'s message (all of it, unless its packets
    /// spread over the rails) has all its bytes delivered or lost at `t`.
    pub(crate) fn part_done(&mut self, flow: u32, t: Ps) {
        let f = &mut self.flows.records[flow as usize];
        f.parts -= 1;
        if f.parts == 0 {
            self.complete_flow(flow, t);
        }
    }

    /// Flow `flow` has all its bytes delivered or lost at `t`.
    pub(crate) fn complete_flow(&mut self, flow: u32, t: Ps) {
        let f = &mut self.flows.records[flow as usize];
        f.end = t;
        let st = &mut self.measure.stats[f.source as usize];
        if f.lost_bytes == 0 {
            st.fct.record(t - f.start);
            st.flows_done += 1;
        } else {
            st.flows_lost += 1;
            self.flows.lost += 1;
        }
        self.flows.pending -= 1;
        if f.mpi != NONE {
            let id = f.mpi;
            self.mpi_flow_done(flow, id, t);
            return;
        }
        if self.flows.pending == 0 && !self.traffic.has_bernoulli && !self.mpi.active() {
            let more_to_start = self.traffic.sources.iter().any(|s| s.start_ps > self.clock.now);
            if !more_to_start {
                self.clock.now = self.clock.now.max(t);
                self.finish(if self.flows.lost > 0 { EndReason::FlowsLost } else { EndReason::FlowsDone });
            }
        }
    }
}
