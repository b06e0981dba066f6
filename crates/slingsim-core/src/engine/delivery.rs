//! Delivery at the destination NIC: latency, hop and load accounting,
//! message and flow completion.

use super::{EndReason, PacketSample, Simulation};
use crate::network::NONE;
use crate::packet::{FLAG_MEASURED, FLAG_NONMINIMAL};

impl Simulation {
    /// Packet `h` reached its destination NIC; it is delivered when its tail is in.
    pub(crate) fn deliver(&mut self, h: u32) {
        let p = *self.pool.get(h);
        self.pool.free(h);
        let t = p.tail;
        if self.acks_needed || p.flags & crate::packet::FLAG_ECN != 0 {
            self.send_acks(&p, t);
        }
        let bin = (t / self.timeline_bin) as usize;
        let line = &mut self.timeline[p.source as usize];
        if line.len() <= bin {
            line.resize(bin + 1, Default::default());
        }
        line[bin].wire += p.wire as u64;
        line[bin].packets += 1;
        line[bin].latency_ps += t - p.created;
        let st = &mut self.stats[p.source as usize];
        if t >= self.warmup && t <= self.window_end {
            st.accepted_wire += p.wire as u64;
        }
        st.packets_delivered += 1;
        st.bytes_delivered += p.payload as u64;
        self.packets_delivered += 1;
        self.bytes_delivered += p.payload as u64;
        if p.flags & FLAG_MEASURED != 0 {
            if p.injected < self.window_end {
                self.measured_outstanding -= 1;
                if self.measured_outstanding == 0 && self.now >= self.window_end {
                    self.check_drained();
                }
            }
            let st = &mut self.stats[p.source as usize];
            st.latency.record(t - p.created);
            st.network_latency.record(t - p.injected);
            st.hops_sum += p.hops as u64;
            st.measured += 1;
            if p.flags & FLAG_NONMINIMAL != 0 {
                st.nonminimal += 1;
            }
            if self.sample_every > 0 {
                self.sample_counter += 1;
                if self.sample_counter % self.sample_every == 0 {
                    self.samples.push(PacketSample {
                        source: p.source,
                        src: p.src,
                        dst: p.dst,
                        payload: p.payload,
                        wire: p.wire,
                        created: p.created,
                        injected: p.injected,
                        delivered: t,
                        hops: p.hops,
                        nonminimal: p.flags & FLAG_NONMINIMAL != 0,
                    });
                }
            }
        }
        let flow = if p.msg == NONE { NONE } else { self.messages[p.msg as usize].flow };
        for c in self.counters_of(p.src, flow) {
            c.latency_ps += t - p.injected;
            c.delivered += 1;
        }
        if p.msg == NONE {
            return; // an untracked message (freed when its last packet left)
        }
        let m = &mut self.messages[p.msg as usize];
        let f = &mut self.flows[m.flow as usize];
        // The NIC injects a flow's packets in order: an older one arriving
        // after a newer one has been reordered by the network.
        if p.injected < f.last_injected {
            f.out_of_order += 1;
        } else {
            f.last_injected = p.injected;
        }
        m.to_deliver -= p.payload as u64;
        if m.to_deliver == 0 {
            let flow = m.flow;
            self.free_messages.push(p.msg);
            self.complete_flow(flow, t);
        }
    }

    pub(crate) fn complete_flow(&mut self, flow: u32, t: u64) {
        let f = &mut self.flows[flow as usize];
        f.end = t;
        let st = &mut self.stats[f.source as usize];
        st.fct.record(t - f.start);
        st.flows_done += 1;
        self.flows_pending -= 1;
        if f.mpi != crate::network::NONE {
            let id = f.mpi;
            self.mpi_flow_done(flow, id, t);
            return;
        }
        if self.flows_pending == 0 && !self.has_bernoulli && !self.mpi.active() {
            let more_to_start = self.sources.iter().any(|s| s.start_ps > self.now);
            if !more_to_start {
                self.now = self.now.max(t);
                self.finish(EndReason::FlowsDone);
            }
        }
    }
}
