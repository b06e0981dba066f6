//! Collectives run round by round as point-to-point messages
//! ([`crate::mpi::collectives`]).

use crate::engine::Simulation;
use crate::mpi::collectives::schedule;
use crate::mpi::state::{reuse_or_push, CollRun, Context, Owner};
use crate::units::Ps;

impl Simulation {
    /// Starts a collective on rank `g`; returns the request the program
    /// waits on.
    pub(super) fn mpi_start_collective(&mut self, g: u32, kind: crate::mpi::Collective, comm: u32, bytes: u64, root: u32, counts: Option<&[u64]>) -> u32 {
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
    pub(super) fn mpi_next_round(&mut self, g: u32, c: u32) {
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
                at = self.mpi_cpu_take(g, at, send_overhead + self.mpi_send_copy(g, comm, peer as i32, bytes));
                self.mpi_post_send(g, comm, peer as i32, tag, ctx, bytes, Owner::Collective(c), at);
            }
            return;
        }
    }
}
