//! Messages reaching a rank: in-order arrival, matching against the posted
//! receives (the walk's cost), and completing requests.

use crate::engine::Simulation;
use crate::mpi::rendezvous_times::{CLEAR_TO_SEND, MATCH_WAIT, REQUEST};
use crate::mpi::state::{Context, Envelope, Owner, Wire};
use crate::units::Ps;

impl Simulation {
    pub(super) fn mpi_arrived(&mut self, id: u32, t: Ps) {
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
            // The walk queues on the CPU after its earlier work, and host
            // noise delays it as any other CPU work.
            crate::host::MatchingLocation::Software if m.active() => self.mpi_cpu_take(d, t, m.hold(failed)),
            crate::host::MatchingLocation::Software => t,
            crate::host::MatchingLocation::Nic => {
                let node = r.node as usize;
                if rt.nic_match_busy.len() <= node {
                    rt.nic_match_busy.resize(node + 1, Ps::ZERO);
                }
                m.walk(failed, t, &mut rt.nic_match_busy[node])
            }
        }
    }

    /// A receive (slot `req` of rank `d`) matched `env` at `t`.
    pub(super) fn mpi_matched(&mut self, d: u32, mut env: Envelope, req: u32, t: Ps) {
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
        let at = self.mpi_cpu_take(d, t, self.mpi.p().recv_overhead + copy);
        let r = &self.mpi.ranks[d as usize];
        if r.reqs[req as usize].timed_recv && env.ctx == Context::PointToPoint {
            let j = r.job as usize;
            self.mpi.jobs[j].message_latency.record(at.saturating_sub(env.posted));
        }
        self.mpi_complete(d, req, at);
    }

    /// Request `slot` of rank `g` completed at `at`.
    pub(in crate::engine) fn mpi_complete(&mut self, g: u32, slot: u32, at: Ps) {
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
                } else if run.flush_each && run.pending == 0 {
                    // The flush returned: the loop posts its next put.
                    self.mpi_burst_post(g, b, at.max(self.clock.now));
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
}
