//! Point-to-point messages leaving a rank: posting sends and receives,
//! the eager copy, and shipping a message through memory or the NIC.

use crate::ids::NodeId;
use crate::engine::sources::{FlowRecord, NONE_MODE};
use crate::engine::Simulation;
use crate::event::Event;
use crate::mpi::op::PROC_NULL;
use crate::mpi::runtime::WireRecord;
use crate::mpi::state::{Context, Envelope, Owner, PostedRecv, Wire};
use crate::units::Ps;

impl Simulation {
    /// Global rank of rank `peer` of communicator `comm` of `g`'s job.
    pub(in crate::engine) fn mpi_peer(&self, g: u32, comm: u32, peer: i32) -> u32 {
        let r = &self.mpi.ranks[g as usize];
        let job = &self.mpi.jobs[r.job as usize];
        job.first_rank + job.program.comms[comm as usize][peer as usize]
    }

    /// CPU time to copy an eager payload of `bytes` between the ranks'
    /// memory and the NIC's bounce buffers, on either side: eager messages
    /// between nodes are copied ([`crate::host::HostConfig::eager_copies`]);
    /// rendezvous data moves by RDMA, between ranks of a node by memory.
    pub(super) fn mpi_eager_copy(&self, from: u32, to: u32, bytes: u64) -> Ps {
        let p = self.mpi.p();
        let (a, b) = (&self.mpi.ranks[from as usize], &self.mpi.ranks[to as usize]);
        if !p.host.eager_copies || bytes > p.eager_threshold || a.node == b.node {
            return Ps::ZERO;
        }
        Ps::from_f64((bytes as f64 * p.memory_ps_per_byte).round())
    }

    /// The sender's copy of a message to `peer` of `comm` (none to `PROC_NULL`).
    pub(super) fn mpi_send_copy(&self, g: u32, comm: u32, peer: i32, bytes: u64) -> Ps {
        if peer == PROC_NULL {
            return Ps::ZERO;
        }
        self.mpi_eager_copy(g, self.mpi_peer(g, comm, peer), bytes)
    }

    /// Rank of `g` within `comm`.
    pub(super) fn mpi_rank_in(&self, g: u32, comm: u32) -> i32 {
        let r = &self.mpi.ranks[g as usize];
        self.mpi.jobs[r.job as usize].comm_rank[comm as usize][r.world as usize]
    }

    /// Posts a send of `bytes` to `peer` of `comm`, handed to the NIC at
    /// `at`; returns its request slot.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mpi_post_send(&mut self, g: u32, comm: u32, peer: i32, tag: i32, ctx: Context, bytes: u64, owner: Owner, at: Ps) -> u32 {
        let slot = self.mpi.ranks[g as usize].open(owner, false);
        if peer == PROC_NULL {
            self.mpi_complete(g, slot, self.clock.now);
            return slot;
        }
        let dst = self.mpi_peer(g, comm, peer);
        let src_in_comm = self.mpi_rank_in(g, comm);
        let p = self.mpi.p();
        let local = self.mpi.ranks[g as usize].node == self.mpi.ranks[dst as usize].node;
        let rendezvous = !local && bytes > p.eager_threshold;
        let size = if rendezvous { p.control_bytes } else { bytes };
        let r = &mut self.mpi.ranks[g as usize];
        r.first_message = r.first_message.min(self.clock.now);
        let seq = r.send_seq.entry(dst).or_insert(0);
        let env = Envelope { src: g, dst, comm, src_in_comm, tag, ctx, bytes, seq: *seq, send_req: slot, rendezvous, posted: self.clock.now, stages: Default::default() };
        *seq += 1;
        let job = &mut self.mpi.jobs[r.job as usize];
        job.messages += 1;
        job.bytes += bytes;
        if ctx != Context::PointToPoint {
            job.collective_messages += 1;
        }
        self.mpi_ship(g, dst, size, Wire::Envelope(env), at);
        slot
    }

    /// Posts a receive; returns its request slot.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mpi_post_recv(&mut self, g: u32, comm: u32, peer: i32, tag: i32, ctx: Context, owner: Owner, timed: bool) -> u32 {
        let r = &mut self.mpi.ranks[g as usize];
        let slot = r.open(owner, timed);
        if peer == PROC_NULL {
            self.mpi_complete(g, slot, self.clock.now);
            return slot;
        }
        let pr = PostedRecv { comm, peer, tag, ctx, req: slot };
        match r.unexpected.iter().position(|(e, _)| pr.matches(e)) {
            Some(i) => {
                let (env, _) = r.unexpected.remove(i);
                self.mpi_matched(g, env, slot, self.clock.now);
            }
            None => r.posted.push(pr),
        }
        slot
    }

    /// Sends `wire` of `bytes` from rank `from` to rank `to`, its command
    /// written at `at`; between nodes the NIC takes its send latency
    /// before the message reaches the wire.
    pub(in crate::engine) fn mpi_ship(&mut self, from: u32, to: u32, bytes: u64, wire: Wire, at: Ps) {
        self.mpi_ship_after(from, to, bytes, wire, at, Ps::ZERO);
    }

    /// [`Self::mpi_ship`], reaching the wire no earlier than `not_before`
    /// (an operation a fence held: its command was in the NIC already).
    /// What a NIC sends on its own pays no host send latency.
    pub(in crate::engine) fn mpi_ship_after(&mut self, from: u32, to: u32, bytes: u64, wire: Wire, at: Ps, not_before: Ps) {
        let id = self.mpi.add_wire(WireRecord { wire, from, to, bytes, via_memory: false });
        let node = self.mpi.ranks[from as usize].node;
        let at = if node != self.mpi.ranks[to as usize].node && !wire.from_nic() {
            self.nic_command_slot(node, at) + self.mpi.p().host.send_latency(bytes)
        } else {
            at
        };
        let at = at.max(not_before);
        if at > self.clock.now {
            self.events.push(at, Event::MpiPost(id));
        } else {
            self.mpi_transmit(id);
        }
    }

    pub(crate) fn on_mpi_post(&mut self, id: u32) {
        self.mpi_transmit(id);
    }

    /// Hands message `id` to the NIC, or to memory between ranks of a node.
    fn mpi_transmit(&mut self, id: u32) {
        let w = self.mpi.wires[id as usize];
        let (a, b) = (NodeId(self.mpi.ranks[w.from as usize].node), NodeId(self.mpi.ranks[w.to as usize].node));
        let j = self.mpi.ranks[w.from as usize].job as usize;
        if a == b {
            let p = self.mpi.p();
            let at = self.clock.now + p.memory_latency + Ps::from_f64((w.bytes as f64 * p.memory_ps_per_byte).round());
            self.mpi.jobs[j].memory_messages += 1;
            self.mpi.wires[id as usize].via_memory = true;
            self.events.push(at, Event::MpiArrive(id));
            return;
        }
        let job = &self.mpi.jobs[j];
        let (source, mut alg, class, aware) = (job.source, job.alg, job.class, job.app_aware);
        let bytes = w.bytes.max(1);
        let mut rec = FlowRecord::new(source, a, b, bytes, self.clock.now);
        rec.mpi = id;
        if aware {
            let wire = crate::nic::message_wire_bytes(self.nics.frame, bytes, self.nics.mtu);
            let flits = wire.div_ceil(self.cfg.nic.flit_bytes.max(1) as u64);
            let packets = bytes.div_ceil(self.nics.mtu as u64);
            let params = &self.mpi.params.as_ref().expect("jobs have parameters").app_aware;
            let per_message = params.counters == crate::mpi::app_aware::CounterRead::Message;
            let (counters, endpoints) = (&self.nics.counters, self.net.endpoints_of_node(a));
            let reading = || crate::engine::NicCounters::of(counters, endpoints);
            let state = &mut self.mpi.app_aware[w.from as usize];
            let before = state.current();
            let (mode, decided) = state.choose(params, bytes, packets, flits, reading);
            alg = crate::mpi::app_aware::MODES[mode].code();
            let job = &mut self.mpi.jobs[j];
            if decided {
                if per_message {
                    rec.app_mode = mode as u8;
                }
                job.mode_decisions += 1;
                job.mode_switches += u64::from(mode != before);
            }
            job.mode_messages[mode] += 1;
        }
        if alg == crate::routing::Algorithm::Adaptive(0).code() && w.wire.context() == Some(Context::Alltoall) {
            // Cray MPICH on Aries routes MPI_Alltoall by its own mode
            // (MPICH_GNI_A2A_ROUTING_MODE, default ADAPTIVE_1), also under
            // application-aware routing ([DeSensi19] Sec. 2.2 and 4).
            alg = self.mpi.p().gni_a2a_routing.code();
        }
        let flow = match self.mpi.free_flows.pop() {
            Some(f) => {
                self.flows.records[f as usize] = rec;
                f
            }
            None => {
                self.flows.records.push(rec);
                (self.flows.records.len() - 1) as u32
            }
        };
        self.flows.pending += 1;
        let st = &mut self.measure.stats[source as usize];
        st.flows += 1;
        st.offered_wire += crate::nic::message_wire_bytes(self.nics.frame, bytes, self.nics.mtu);
        self.enqueue_message(a, b, bytes, source, flow, alg, class);
    }

    /// A message through memory, or from the NIC after its receive
    /// latency, is at its destination rank.
    pub(crate) fn on_mpi_arrive(&mut self, id: u32) {
        if self.mpi.wires[id as usize].via_memory && self.mpi_at_nic(id, self.clock.now) {
            return;
        }
        self.mpi_arrived(id, self.clock.now);
    }

    /// MPI message `id` has fully arrived at `t` (flow `flow` is done with).
    pub(crate) fn mpi_flow_done(&mut self, flow: u32, id: u32, t: Ps) {
        let rec = &self.flows.records[flow as usize];
        if rec.app_mode != NONE_MODE {
            // What the NIC counters say of this message: its packets' mean
            // latency and its flits' mean stall (paper 004's L and s).
            if let Some(sample) = crate::mpi::app_aware::Sample::of(&rec.counters) {
                let from = self.mpi.wires[id as usize].from;
                self.mpi.app_aware[from as usize].observe(rec.app_mode as usize, sample);
            }
        }
        let lost = rec.lost_bytes;
        self.mpi.free_flows.push(flow);
        if lost > 0 {
            if self.mpi_amo_lost(id) {
                return;
            }
            // Part of the message never arrived: it is not delivered, and
            // the job reports what it lost.
            let w = self.mpi.take_wire(id);
            let job = &mut self.mpi.jobs[self.mpi.ranks[w.from as usize].job as usize];
            job.lost_messages += 1;
            job.lost_bytes += lost;
            return;
        }
        if self.mpi_at_nic(id, t) {
            return;
        }
        // The receiving NIC hands the message to the host.
        let recv = self.mpi.p().host.nic_recv;
        if recv > Ps::ZERO {
            self.events.push(t + recv, Event::MpiArrive(id));
        } else {
            self.mpi_arrived(id, t);
        }
    }

    /// When the NIC command unit of `node` takes up a command written at
    /// `at`: commands wait their turn, each holding the unit for
    /// `host.nic_command_ns` (shared by the node's NICs, so a node with
    /// several takes one every `nic_command_ns / rails`).
    fn nic_command_slot(&mut self, node: u32, at: Ps) -> Ps {
        let step = self.mpi.p().host.nic_command;
        if step == Ps::ZERO {
            return at;
        }
        let step = Ps(step.0 / self.net.rails.max(1) as u64);
        let busy = &mut self.mpi.nic_command_busy;
        if busy.len() <= node as usize {
            busy.resize(node as usize + 1, Ps::ZERO);
        }
        let start = at.max(busy[node as usize]);
        busy[node as usize] = start + step;
        start
    }
}
