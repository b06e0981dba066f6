//! The MPI layer driven by the engine's clock: ranks run their programs,
//! post sends and receives, match messages and run collectives round by
//! round (MODEL.md Sec. 7). Messages between nodes travel as tracked
//! messages through the NIC and network; between ranks of one node they
//! arrive through memory after `mpi.memory_latency_ns` plus the copy time.
//!
//! Protocols: a message up to `mpi.eager_threshold_bytes` goes eagerly and
//! its send completes when the data has arrived (a Cassini-like NIC reports
//! a send complete on the target's acknowledgement, so a rank cannot pile
//! up unbounded eager sends behind a slow receiver); a larger one sends a
//! request to send, the receiver answers clear-to-send when a receive
//! matches, and the data follows; both sides complete when it has arrived. Posting a
//! send costs the rank the CPU time of its software layers
//! ([`crate::host`]: verbs, libfabric, MPI); between nodes the NIC then
//! takes `host.nic_send_latency_ns` (plus a DMA read above
//! `host.inline_bytes`) to put it on the wire, and the receiving NIC
//! `host.nic_recv_latency_ns` to hand it to the host; a receive completes
//! the receive side's CPU time after that, and after the walk over the
//! posted receives that matched it ([`crate::host::matching`]). One-sided
//! operations are in `rma.rs`.

use crate::ids::NodeId;
use super::sources::{FlowRecord, NONE_MODE};
use super::{Simulation, NEVER};
use crate::event::Event;
use crate::mpi::collectives::schedule;
use crate::mpi::op::{Op, PROC_NULL};
use crate::mpi::rendezvous_times::{CLEAR_TO_SEND, MATCH_WAIT, REQUEST};
use crate::mpi::runtime::WireRecord;
use crate::mpi::state::{reuse_or_push, Blocked, CollRun, Context, Envelope, Owner, PostedRecv, PutBurstRun, RmaKind, Wire};
use crate::units::{ns_to_ps, Ps};

impl Simulation {
    /// Wakes rank `g` at `at` (or now) to run its program on.
    fn mpi_wake(&mut self, g: u32, at: Ps) {
        let at = at.max(self.clock.now);
        let r = &mut self.mpi.ranks[g as usize];
        if r.wake_at != NEVER && r.wake_at >= self.clock.now && r.wake_at <= at {
            return; // an earlier wake-up is due; it reschedules if needed
        }
        r.wake_at = at;
        self.events.push(at, Event::MpiWake(g));
    }

    pub(crate) fn on_mpi_wake(&mut self, g: u32) {
        let r = &mut self.mpi.ranks[g as usize];
        if r.wake_at == self.clock.now {
            r.wake_at = NEVER;
        }
        self.mpi_run(g);
    }

    /// Runs rank `g`'s operations until it blocks, computes or ends.
    fn mpi_run(&mut self, g: u32) {
        let now = self.clock.now;
        loop {
            let r = &self.mpi.ranks[g as usize];
            if r.blocked != Blocked::No {
                return;
            }
            if r.ready_at > now {
                let at = r.ready_at;
                self.mpi_wake(g, at);
                return;
            }
            let (j, world, pc) = (r.job as usize, r.world as usize, r.pc);
            let ops = &self.mpi.jobs[j].program.ops[world];
            if pc >= ops.len() {
                if self.mpi_program_end(g) {
                    continue;
                }
                return;
            }
            if r.next_detour <= now {
                if let Some(until) = self.mpi_in_detour(g) {
                    self.mpi.ranks[g as usize].ready_at = until;
                    self.mpi_wake(g, until);
                    return;
                }
            }
            if let Some(b) = self.mpi.ranks[g as usize].posting {
                self.mpi_burst_post(g, b);
            } else {
                let op = self.mpi.jobs[j].program.ops[world][pc].clone();
                self.mpi.ranks[g as usize].pc += 1;
                self.mpi_execute(g, op);
            }
            let ready = self.mpi.ranks[g as usize].ready_at;
            if ready > now {
                self.mpi.ranks[g as usize].ready_at = self.mpi_cpu_end(g, ready);
            }
        }
    }

    /// If rank `g`'s CPU is in a detour now, when it ends (the rank waits
    /// for it); detours that ended while the rank waited are passed over.
    fn mpi_in_detour(&mut self, g: u32) -> Option<Ps> {
        let now = self.clock.now;
        let d = self.mpi.p().noise.expect("a rank has detours only with host noise");
        let rng = self.mpi.noise_rng.as_mut().expect("host noise has its random stream");
        let r = &mut self.mpi.ranks[g as usize];
        while r.next_detour <= now {
            let (start, end) = (r.next_detour, r.next_detour + d.duration);
            r.next_detour = d.next(start, rng);
            if end > now {
                r.detoured += end - now;
                return Some(end);
            }
        }
        None
    }

    /// When CPU work of rank `g` that would end at `end` (begun now) does
    /// end: later by every detour that begins before it does
    /// ([`crate::host::noise`]), so a send the CPU is interrupted while
    /// posting reaches the NIC later.
    fn mpi_cpu_end(&mut self, g: u32, mut end: Ps) -> Ps {
        let Some(d) = self.mpi.p().noise else { return end };
        let rng = self.mpi.noise_rng.as_mut().expect("host noise has its random stream");
        let r = &mut self.mpi.ranks[g as usize];
        while r.next_detour < end {
            end += d.duration;
            r.detoured += d.duration;
            r.next_detour = d.next(r.next_detour, rng);
        }
        end
    }

    /// Rank `g`'s CPU does MPI work of `cost` that may start at `from`:
    /// it starts once the CPU has finished its earlier MPI work
    /// ([`crate::mpi::state::Rank::cpu_busy`]) and ends later by any
    /// detour of host noise; returns the end, and the CPU is busy until it.
    fn mpi_cpu_take(&mut self, g: u32, from: Ps, cost: Ps) -> Ps {
        let start = from.max(self.mpi.ranks[g as usize].cpu_busy);
        let end = self.mpi_cpu_end(g, start + cost);
        let r = &mut self.mpi.ranks[g as usize];
        r.cpu_busy = end;
        r.cpu_work += cost;
        end
    }

    /// [`Self::mpi_cpu_take`] without host noise (receive completions and a
    /// collective round's sends, which noise has never delayed).
    fn mpi_cpu_queue(&mut self, g: u32, from: Ps, cost: Ps) -> Ps {
        let r = &mut self.mpi.ranks[g as usize];
        r.cpu_busy = from.max(r.cpu_busy) + cost;
        r.cpu_work += cost;
        r.cpu_busy
    }

    /// The rank reached the end of its program: start over (repeating
    /// jobs; returns true) or finish.
    fn mpi_program_end(&mut self, g: u32) -> bool {
        let r = &mut self.mpi.ranks[g as usize];
        let j = r.job as usize;
        let job = &mut self.mpi.jobs[j];
        // A pass that took no time (the passive target of one-sided
        // traffic) would repeat forever at one instant: such a rank stops.
        if job.repeat && r.pass_start < self.clock.now {
            r.pc = 0;
            r.pass_start = self.clock.now;
            if r.world == 0 {
                job.passes += 1;
            }
            return true;
        }
        r.blocked = Blocked::Done;
        r.done_at = self.clock.now;
        job.ranks_done += 1;
        if job.ranks_done == job.ranks {
            job.end = self.clock.now;
            if job.ends_run {
                self.mpi.jobs_left -= 1;
                if self.mpi.jobs_left == 0 {
                    self.finish(super::EndReason::JobsDone);
                }
            }
        }
        false
    }

    fn mpi_execute(&mut self, g: u32, op: Op) {
        let now = self.clock.now;
        let send_overhead = self.mpi.p().send_overhead;
        match op {
            Op::Compute { ns } => {
                self.mpi.ranks[g as usize].ready_at = now + ns_to_ps(ns);
            }
            Op::Isend { comm, peer, tag, bytes, req } => {
                let cpu = send_overhead + self.mpi_send_copy(g, comm, peer, bytes);
                let done = self.mpi_cpu_take(g, now, cpu);
                let slot = self.mpi_post_send(g, comm, peer, tag, Context::PointToPoint, bytes, Owner::Program, done);
                self.mpi_bind(g, req, slot);
                self.mpi.ranks[g as usize].ready_at = done;
            }
            Op::Send { comm, peer, tag, bytes } => {
                let cpu = send_overhead + self.mpi_send_copy(g, comm, peer, bytes);
                let done = self.mpi_cpu_take(g, now, cpu);
                let slot = self.mpi_post_send(g, comm, peer, tag, Context::PointToPoint, bytes, Owner::Program, done);
                self.mpi.ranks[g as usize].ready_at = done;
                self.mpi_block_on(g, vec![slot]);
            }
            Op::Irecv { comm, peer, tag, req, .. } => {
                let slot = self.mpi_post_recv(g, comm, peer, tag, Context::PointToPoint, Owner::Program, true);
                self.mpi_bind(g, req, slot);
            }
            Op::Recv { comm, peer, tag, .. } => {
                let slot = self.mpi_post_recv(g, comm, peer, tag, Context::PointToPoint, Owner::Program, true);
                self.mpi_block_on(g, vec![slot]);
            }
            Op::Wait { reqs } => {
                let r = &mut self.mpi.ranks[g as usize];
                let mut slots = Vec::with_capacity(reqs.len());
                let mut unknown = 0;
                for id in reqs {
                    match r.req_ids.remove(&id) {
                        Some(s) => slots.push(s),
                        None => unknown += 1,
                    }
                }
                let j = r.job as usize;
                self.mpi.jobs[j].unknown_waits += unknown;
                self.mpi_block_on(g, slots);
            }
            Op::Coll { kind, comm, bytes, root, counts, req } => {
                let slot = self.mpi_start_collective(g, kind, comm, bytes, root, counts.as_deref());
                match req {
                    Some(id) => self.mpi_bind(g, id, slot),
                    None => self.mpi_block_on(g, vec![slot]),
                }
            }
            Op::Put { comm, peer, bytes, req, completion } => {
                let done = self.mpi_cpu_take(g, now, send_overhead);
                let slot = self.mpi_rma_post(g, comm, peer, bytes, RmaKind::Put(completion), done, Owner::Program);
                self.mpi_bind(g, req, slot);
                self.mpi.ranks[g as usize].ready_at = done;
            }
            Op::PutBurst { comm, peer, bytes, count, req, completion } => {
                let r = &mut self.mpi.ranks[g as usize];
                let slot = r.open(Owner::Program, false);
                let run = PutBurstRun { slot, comm, peer, bytes, completion, to_post: count, pending: 0, last: now };
                let b = reuse_or_push(&mut r.bursts, run, PutBurstRun::over);
                self.mpi_bind(g, req, slot);
                if count == 0 {
                    self.mpi_complete(g, slot, now);
                } else {
                    self.mpi_burst_post(g, b);
                }
            }
            Op::Get { comm, peer, bytes, req } => {
                let done = self.mpi_cpu_take(g, now, send_overhead);
                let slot = self.mpi_rma_post(g, comm, peer, bytes, RmaKind::Get, done, Owner::Program);
                self.mpi_bind(g, req, slot);
                self.mpi.ranks[g as usize].ready_at = done;
            }
            Op::FetchAdd { comm, peer, req } => {
                let done = self.mpi_cpu_take(g, now, send_overhead);
                let slot = self.mpi_rma_post(g, comm, peer, super::rma::AMO_BYTES, RmaKind::FetchAdd, done, Owner::Program);
                self.mpi_bind(g, req, slot);
                self.mpi.ranks[g as usize].ready_at = done;
            }
            Op::Fence => self.mpi_fence(g),
            Op::IterationEnd => {
                let r = &mut self.mpi.ranks[g as usize];
                let i = r.iteration as usize;
                r.iteration += 1;
                let job = &mut self.mpi.jobs[r.job as usize];
                if job.iteration_marks.len() <= i {
                    job.iteration_marks.resize(i + 1, Ps::ZERO);
                    job.ranks_at_mark.resize(i + 1, 0);
                }
                job.iteration_marks[i] = job.iteration_marks[i].max(now);
                job.ranks_at_mark[i] += 1;
                if job.ranks_at_mark[i] == job.ranks {
                    let (sum, n) = std::mem::take(&mut job.packet_latency_since);
                    job.iteration_packet_latency.push((n > 0).then(|| sum as f64 / n as f64));
                }
                if job.stop.is_some() {
                    self.mpi_stop_rule(g, i);
                }
            }
            Op::TimerStart => {
                let r = &mut self.mpi.ranks[g as usize];
                r.timer = now;
                let (i, j) = (r.iteration as usize, r.job as usize);
                let windows = &mut self.mpi.jobs[j].timed_windows;
                if windows.len() <= i {
                    windows.resize(i + 1, (NEVER, Ps::ZERO));
                }
                windows[i].0 = windows[i].0.min(now);
            }
            Op::TimerStop => {
                let r = &self.mpi.ranks[g as usize];
                let d = now - r.timer;
                let (i, j) = (r.iteration as usize, r.job as usize);
                let job = &mut self.mpi.jobs[j];
                job.timed.record(d);
                if let Some(w) = job.timed_windows.get_mut(i) {
                    w.1 = w.1.max(now);
                }
            }
        }
    }

    /// Rank `g` of a job with a stop rule finished iteration `i`. Once
    /// every rank has, the rule is checked on the iterations so far; when
    /// it is met, the ranks run to the end of the iteration the furthest
    /// of them is in, and each stops there (its program ends).
    fn mpi_stop_rule(&mut self, g: u32, i: usize) {
        let j = self.mpi.ranks[g as usize].job as usize;
        let job = &self.mpi.jobs[j];
        if let Some(last) = job.stop_after {
            if i as u32 >= last {
                let r = &mut self.mpi.ranks[g as usize];
                r.pc = job.program.ops[r.world as usize].len();
            }
            return;
        }
        if job.ranks_at_mark[i] < job.ranks {
            return;
        }
        let rule = job.stop.expect("checked by the caller");
        let times = self.iteration_times(j);
        let ran = job.iteration_marks[i].saturating_sub(job.start);
        let outcome = rule.check(&times, ran);
        let job = &mut self.mpi.jobs[j];
        job.stop_interval = match outcome {
            Ok(m) | Err(Some(m)) => Some(m),
            Err(None) => None,
        };
        if outcome.is_ok() {
            // Every rank has finished iteration i; the furthest is in
            // iteration `furthest` (its count of finished ones), which no
            // rank has finished: each finishes it and stops there.
            let ranks = &self.mpi.ranks[job.first_rank as usize..(job.first_rank + job.ranks) as usize];
            let furthest = ranks.iter().map(|r| r.iteration).max().expect("a job has ranks");
            job.stop_after = Some(furthest);
            job.stop_met_at = Some(i as u32 + 1);
        }
    }

    /// Rank `g` posts the next put of its burst `b` (its CPU pays the send
    /// overhead, as for one `Put`); after the last, its program goes on.
    fn mpi_burst_post(&mut self, g: u32, b: u32) {
        let now = self.clock.now;
        let done = self.mpi_cpu_take(g, now, self.mpi.p().send_overhead);
        let r = &mut self.mpi.ranks[g as usize];
        let run = &mut r.bursts[b as usize];
        run.to_post -= 1;
        run.pending += 1;
        if run.to_post == 0 {
            r.posting = None;
        } else {
            r.posting = Some(b);
        }
        let (comm, peer, bytes, completion) = (run.comm, run.peer, run.bytes, run.completion);
        self.mpi_rma_post(g, comm, peer, bytes, RmaKind::Put(completion), done, Owner::Burst(b));
        self.mpi.ranks[g as usize].ready_at = done;
    }

    /// Gives slot `slot` the program's request id `id`.
    fn mpi_bind(&mut self, g: u32, id: u32, slot: u32) {
        self.mpi.ranks[g as usize].req_ids.insert(id, slot);
    }

    /// The program waits for `slots`; it goes on at once if they are done.
    fn mpi_block_on(&mut self, g: u32, slots: Vec<u32>) {
        let r = &mut self.mpi.ranks[g as usize];
        r.waiting = slots;
        r.blocked = Blocked::Wait;
        self.mpi_check_wait(g);
    }

    /// Releases a waiting rank whose requests are all done.
    fn mpi_check_wait(&mut self, g: u32) {
        let r = &mut self.mpi.ranks[g as usize];
        if r.blocked != Blocked::Wait || !r.wait_satisfied() {
            return;
        }
        let latest = r.waiting.iter().map(|&s| r.reqs[s as usize].done_at).max().unwrap_or(Ps::ZERO);
        r.ready_at = r.ready_at.max(latest);
        r.release_waiting();
        r.blocked = Blocked::No;
        let at = r.ready_at;
        self.mpi_wake(g, at);
    }

    /// Global rank of rank `peer` of communicator `comm` of `g`'s job.
    pub(super) fn mpi_peer(&self, g: u32, comm: u32, peer: i32) -> u32 {
        let r = &self.mpi.ranks[g as usize];
        let job = &self.mpi.jobs[r.job as usize];
        job.first_rank + job.program.comms[comm as usize][peer as usize]
    }

    /// CPU time to copy an eager payload of `bytes` between the ranks'
    /// memory and the NIC's bounce buffers, on either side: eager messages
    /// between nodes are copied ([`crate::host::HostConfig::eager_copies`]);
    /// rendezvous data moves by RDMA, between ranks of a node by memory.
    fn mpi_eager_copy(&self, from: u32, to: u32, bytes: u64) -> Ps {
        let p = self.mpi.p();
        let (a, b) = (&self.mpi.ranks[from as usize], &self.mpi.ranks[to as usize]);
        if !p.host.eager_copies || bytes > p.eager_threshold || a.node == b.node {
            return Ps::ZERO;
        }
        Ps::from_f64((bytes as f64 * p.memory_ps_per_byte).round())
    }

    /// The sender's copy of a message to `peer` of `comm` (none to `PROC_NULL`).
    fn mpi_send_copy(&self, g: u32, comm: u32, peer: i32, bytes: u64) -> Ps {
        if peer == PROC_NULL {
            return Ps::ZERO;
        }
        self.mpi_eager_copy(g, self.mpi_peer(g, comm, peer), bytes)
    }

    /// Rank of `g` within `comm`.
    fn mpi_rank_in(&self, g: u32, comm: u32) -> i32 {
        let r = &self.mpi.ranks[g as usize];
        self.mpi.jobs[r.job as usize].comm_rank[comm as usize][r.world as usize]
    }

    /// Posts a send of `bytes` to `peer` of `comm`, handed to the NIC at
    /// `at`; returns its request slot.
    #[allow(clippy::too_many_arguments)]
    fn mpi_post_send(&mut self, g: u32, comm: u32, peer: i32, tag: i32, ctx: Context, bytes: u64, owner: Owner, at: Ps) -> u32 {
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
    fn mpi_post_recv(&mut self, g: u32, comm: u32, peer: i32, tag: i32, ctx: Context, owner: Owner, timed: bool) -> u32 {
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
    pub(super) fn mpi_ship(&mut self, from: u32, to: u32, bytes: u64, wire: Wire, at: Ps) {
        self.mpi_ship_after(from, to, bytes, wire, at, Ps::ZERO);
    }

    /// [`Self::mpi_ship`], reaching the wire no earlier than `not_before`
    /// (an operation a fence held: its command was in the NIC already).
    /// What a NIC sends on its own pays no host send latency.
    pub(super) fn mpi_ship_after(&mut self, from: u32, to: u32, bytes: u64, wire: Wire, at: Ps, not_before: Ps) {
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
            let state = &mut self.mpi.app_aware[w.from as usize];
            let before = state.current();
            let (mode, decided) = state.choose(params, bytes, packets, flits);
            alg = crate::mpi::app_aware::MODES[mode].code();
            let job = &mut self.mpi.jobs[j];
            if decided {
                rec.app_mode = mode as u8;
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
            let c = rec.counters;
            let sample = crate::mpi::app_aware::Sample {
                latency: c.latency_ps.as_f64() / c.delivered.max(1) as f64,
                stall: c.stalled_ps.as_f64() / c.flits.max(1) as f64,
            };
            let from = self.mpi.wires[id as usize].from;
            self.mpi.app_aware[from as usize].observe(rec.app_mode as usize, sample);
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

    fn mpi_arrived(&mut self, id: u32, t: Ps) {
        let w = self.mpi.take_wire(id);
        match w.wire {
            Wire::Envelope(env) => {
                if !env.rendezvous {
                    // Eager: the sender's completion comes with the
                    // target's acknowledgement of the delivered data.
                    self.mpi_complete(env.src, env.send_req, t);
                }
                self.mpi_in_order(env, t)
            }
            Wire::ClearToSend { mut env, recv_req } => {
                env.stages.end(CLEAR_TO_SEND, self.clock.now);
                self.mpi_ship(env.src, env.dst, env.bytes, Wire::Data { env, recv_req }, self.clock.now);
            }
            Wire::Data { env, recv_req } => {
                let job = self.mpi.ranks[env.src as usize].job as usize;
                self.mpi.jobs[job].rendezvous.add(env.posted, &env.stages, t);
                self.mpi_complete(env.src, env.send_req, t);
                self.mpi_recv_done(env.dst, recv_req, &env, t);
            }
            Wire::Put { src, req, .. } => self.mpi_complete(src, req, t),
            Wire::GetRequest { src, dst, bytes, req, op } => {
                let key = crate::host::reliability::OpKey { node: self.mpi.ranks[dst as usize].node, op };
                self.mpi_run_idempotent(key, self.mpi.p().host.reliability.get);
                self.mpi_ship(dst, src, bytes, Wire::GetData { src, req, op }, self.clock.now)
            }
            Wire::GetData { src, req, .. } | Wire::PutAck { src, req, .. } | Wire::AmoResponse { src, req, .. } => self.mpi_complete(src, req, t),
            Wire::AmoRequest { .. } => unreachable!("the target's NIC runs an AMO"),
        }
    }

    /// Hands envelopes from one sender to matching in the order they were
    /// sent (the network may reorder messages on different paths).
    fn mpi_in_order(&mut self, env: Envelope, t: Ps) {
        let d = env.dst as usize;
        let expected = *self.mpi.ranks[d].recv_seq.get(&env.src).unwrap_or(&0);
        if env.seq != expected {
            self.mpi.ranks[d].early.insert((env.src, env.seq), (env, t));
            return;
        }
        let mut next = Some((env, t));
        while let Some((e, at)) = next {
            self.mpi.ranks[d].recv_seq.insert(e.src, e.seq + 1);
            self.mpi_match(e, at);
            next = self.mpi.ranks[d].early.remove(&(e.src, e.seq + 1));
        }
    }

    /// Matches an arrived envelope against the posted receives: it walks
    /// them in order, and every one it passes over is a failed attempt
    /// whose cost ([`crate::host::matching`]) delays the match.
    fn mpi_match(&mut self, mut env: Envelope, t: Ps) {
        if env.rendezvous {
            env.stages.end(REQUEST, t);
        }
        let r = &self.mpi.ranks[env.dst as usize];
        let found = r.posted.iter().position(|pr| pr.matches(&env));
        let failed = found.unwrap_or(r.posted.len()) as u64;
        let t = self.mpi_walk(env.dst, failed, t);
        let r = &mut self.mpi.ranks[env.dst as usize];
        match found {
            Some(i) => {
                let pr = r.posted.remove(i);
                self.mpi_matched(env.dst, env, pr.req, t);
            }
            None => r.unexpected.push((env, t)),
        }
    }

    /// A walk over `failed` posted receives of rank `d` for a message
    /// ready at `t`, on the rank's CPU or its node's NIC matching unit;
    /// returns when it has matched.
    fn mpi_walk(&mut self, d: u32, failed: u64, t: Ps) -> Ps {
        let m = self.mpi.p().host.matching;
        let rt = &mut self.mpi;
        let r = &mut rt.ranks[d as usize];
        let job = &mut rt.jobs[r.job as usize];
        job.failed_match_attempts += failed;
        job.matched_messages += 1;
        match m.location {
            crate::host::MatchingLocation::Software => {
                // The walk queues on the CPU after its earlier work: what it
                // adds past that is its own work.
                let from = t.max(r.cpu_busy);
                let end = m.walk(failed, t, &mut r.cpu_busy);
                r.cpu_work += end.saturating_sub(from);
                end
            }
            crate::host::MatchingLocation::Nic => {
                let node = r.node as usize;
                if rt.nic_match_busy.len() <= node {
                    rt.nic_match_busy.resize(node + 1, Ps::ZERO);
                }
                m.walk(failed, t, &mut rt.nic_match_busy[node])
            }
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

    /// A receive (slot `req` of rank `d`) matched `env` at `t`.
    fn mpi_matched(&mut self, d: u32, mut env: Envelope, req: u32, t: Ps) {
        if env.rendezvous {
            let size = self.mpi.p().control_bytes;
            let at = self.clock.now.max(t);
            env.stages.end(MATCH_WAIT, at);
            self.mpi_ship(d, env.src, size, Wire::ClearToSend { env, recv_req: req }, at);
        } else {
            self.mpi_recv_done(d, req, &env, t);
        }
    }

    /// A receive's data is in: it completes after the receive overhead.
    fn mpi_recv_done(&mut self, d: u32, req: u32, env: &Envelope, t: Ps) {
        let copy = if env.rendezvous { Ps::ZERO } else { self.mpi_eager_copy(env.src, d, env.bytes) };
        let at = self.mpi_cpu_queue(d, t, self.mpi.p().recv_overhead + copy);
        let r = &self.mpi.ranks[d as usize];
        if r.reqs[req as usize].timed_recv && env.ctx == Context::PointToPoint {
            let j = r.job as usize;
            self.mpi.jobs[j].message_latency.record(at.saturating_sub(env.posted));
        }
        self.mpi_complete(d, req, at);
    }

    /// Request `slot` of rank `g` completed at `at`.
    pub(super) fn mpi_complete(&mut self, g: u32, slot: u32, at: Ps) {
        let r = &mut self.mpi.ranks[g as usize];
        r.last_completion = r.last_completion.max(at);
        let q = &mut r.reqs[slot as usize];
        q.done = true;
        q.done_at = at;
        match q.owner {
            Owner::Program => self.mpi_check_wait(g),
            Owner::Burst(b) => {
                r.free_reqs.push(slot);
                let run = &mut r.bursts[b as usize];
                run.pending -= 1;
                run.last = run.last.max(at);
                if run.over() {
                    let (s, last) = (run.slot, run.last);
                    self.mpi_complete(g, s, last);
                }
            }
            Owner::Collective(c) => {
                r.free_reqs.push(slot);
                let run = &mut r.colls[c as usize];
                run.pending -= 1;
                run.ready = run.ready.max(at);
                if run.pending == 0 {
                    self.mpi_next_round(g, c);
                }
            }
        }
    }

    /// Starts a collective on rank `g`; returns the request the program
    /// waits on.
    fn mpi_start_collective(&mut self, g: u32, kind: crate::mpi::Collective, comm: u32, bytes: u64, root: u32, counts: Option<&[u64]>) -> u32 {
        let me = self.mpi_rank_in(g, comm) as u32;
        let r = &self.mpi.ranks[g as usize];
        let size = self.mpi.jobs[r.job as usize].program.comms[comm as usize].len() as u32;
        let (alg, throttle) = (self.mpi.p().algorithm(kind), self.mpi.p().alltoall_throttle);
        let rounds = schedule(kind, alg, size, me, bytes, root, counts, throttle);
        let r = &mut self.mpi.ranks[g as usize];
        let slot = r.open(Owner::Program, false);
        let tag = r.coll_seq.entry(comm).or_insert(0);
        let ctx = if kind == crate::mpi::Collective::Alltoall { Context::Alltoall } else { Context::Collective };
        let run = CollRun { ctx, comm, tag: *tag, rounds, round: 0, pending: 0, req: slot, live: true, ready: self.clock.now, started: false };
        *tag = tag.wrapping_add(1);
        let c = reuse_or_push(&mut r.colls, run, |x| !x.live);
        self.mpi_next_round(g, c);
        slot
    }

    /// Runs the next round of collective `c` of rank `g` (the first when
    /// none has started), or completes it.
    fn mpi_next_round(&mut self, g: u32, c: u32) {
        let (send_overhead, reduce_ps_per_byte) = (self.mpi.p().send_overhead, self.mpi.p().reduce_ps_per_byte);
        loop {
            let r = &mut self.mpi.ranks[g as usize];
            let run = &mut r.colls[c as usize];
            if run.started {
                let done = &run.rounds[run.round];
                let (comm, tag, round, at) = (run.comm, run.tag, run.round as u32, run.ready);
                run.ready += Ps::from_f64((done.reduce_bytes as f64 * reduce_ps_per_byte).round());
                run.round += 1;
                let job = &mut self.mpi.jobs[r.job as usize];
                let size = job.program.comms[comm as usize].len() as u32;
                job.round_spread.add(comm, tag, round, size, at);
            }
            run.started = true;
            if run.round >= run.rounds.len() {
                run.live = false;
                let (req, at) = (run.req, run.ready);
                self.mpi_complete(g, req, at);
                return;
            }
            // Each round runs once: its peer lists are taken, not copied.
            let round = &mut run.rounds[run.round];
            let (sends, recvs) = (std::mem::take(&mut round.sends), std::mem::take(&mut round.recvs));
            let (ctx, comm, tag, start) = (run.ctx, run.comm, run.tag, run.ready.max(self.clock.now));
            run.pending = (sends.len() + recvs.len()) as u32;
            if run.pending == 0 {
                continue;
            }
            for &(peer, _) in &recvs {
                self.mpi_post_recv(g, comm, peer as i32, tag, ctx, Owner::Collective(c), false);
            }
            let mut at = start;
            for &(peer, bytes) in &sends {
                at = self.mpi_cpu_queue(g, at, send_overhead + self.mpi_send_copy(g, comm, peer as i32, bytes));
                self.mpi_post_send(g, comm, peer as i32, tag, ctx, bytes, Owner::Collective(c), at);
            }
            return;
        }
    }
}

impl Simulation {
    /// True when jobs still have to finish but nothing can move them: no
    /// packet, ack or MPI message in flight, no rank computing, some waiting.
    pub(crate) fn mpi_stalled(&self) -> bool {
        self.mpi.jobs_left > 0
            && self.pool.live() == 0
            // An ack on its way may free a NIC held by its window or outstanding limit.
            && self.signals.pending() == 0
            && self.mpi.wires_live == 0
            && !self.mpi.ranks.iter().any(|r| r.blocked == Blocked::No)
            && self.mpi.ranks.iter().any(|r| r.blocked == Blocked::Wait)
    }

    /// Schedules every rank's start.
    pub(crate) fn mpi_schedule_starts(&mut self) {
        let noise = self.mpi.p().noise;
        if noise.is_some() {
            self.mpi.noise_rng = Some(crate::rng::Rng::new(self.cfg.sim.seed, 0x4015E));
        }
        for g in 0..self.mpi.ranks.len() as u32 {
            let start = self.mpi.jobs[self.mpi.ranks[g as usize].job as usize].start;
            if let (Some(d), Some(rng)) = (noise, self.mpi.noise_rng.as_mut()) {
                self.mpi.ranks[g as usize].next_detour = d.first(start, rng);
            }
            self.mpi.ranks[g as usize].ready_at = start;
            self.mpi.ranks[g as usize].pass_start = start;
            self.mpi_wake(g, start);
        }
    }
}
