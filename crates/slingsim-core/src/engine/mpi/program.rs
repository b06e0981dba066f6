//! A rank running its program: waking, CPU time and host noise, executing
//! each operation, the stopping rule, and waiting on requests.

use crate::engine::{Simulation, NEVER};
use crate::event::Event;
use crate::mpi::op::Op;
use crate::mpi::state::{reuse_or_push, Blocked, Context, Owner, PutBurstRun, RmaKind};
use crate::units::{ns_to_ps, Ps};

impl Simulation {
    /// Wakes rank `g` at `at` (or now) to run its program on.
    pub(super) fn mpi_wake(&mut self, g: u32, at: Ps) {
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
                self.mpi_burst_post(g, b, now);
            } else {
                let op = self.mpi.jobs[j].program.ops[world][pc].clone();
                self.mpi.ranks[g as usize].pc += 1;
                self.mpi_execute(g, op);
            }
            let ready = self.mpi.ranks[g as usize].ready_at;
            if ready > now {
                // Compute (or the end of the op's CPU work) from now: any
                // detour that begins before it ends lengthens it.
                self.mpi.ranks[g as usize].ready_at = self.mpi_cpu_span(g, now, ready - now);
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

    /// Rank `g`'s CPU does MPI work of `cost` that may start at `from`:
    /// it starts once the CPU has finished its earlier MPI work
    /// ([`crate::mpi::state::Rank::cpu_busy`]) and ends later by any
    /// detour of host noise; returns the end, and the CPU is busy until it.
    /// Every CPU cost of MPI goes through here (posting, a collective
    /// round's sends, receive completions), so a detour delays all of it.
    pub(super) fn mpi_cpu_take(&mut self, g: u32, from: Ps, cost: Ps) -> Ps {
        let start = from.max(self.mpi.ranks[g as usize].cpu_busy);
        let end = self.mpi_cpu_span(g, start, cost);
        let r = &mut self.mpi.ranks[g as usize];
        r.cpu_busy = end;
        r.cpu_work += cost;
        end
    }

    /// When CPU work of rank `g` of `cost`, due to start at `start`, ends
    /// under host noise. Every detour up to the end of the rank's last
    /// CPU work has been taken already, so one that begins before `start`
    /// began while the CPU was idle: it is passed over if it is over by
    /// then, and otherwise the work waits for its end. Each detour that
    /// begins while the work runs stops it for the detour's length.
    fn mpi_cpu_span(&mut self, g: u32, mut start: Ps, cost: Ps) -> Ps {
        let Some(d) = self.mpi.p().noise else { return start + cost };
        let rng = self.mpi.noise_rng.as_mut().expect("host noise has its random stream");
        let r = &mut self.mpi.ranks[g as usize];
        while r.next_detour < start {
            let over = r.next_detour + d.duration;
            if over > start {
                r.detoured += over - start;
                start = over;
            }
            r.next_detour = d.next(r.next_detour, rng);
        }
        let mut end = start + cost;
        while r.next_detour < end {
            end += d.duration;
            r.detoured += d.duration;
            r.next_detour = d.next(r.next_detour, rng);
        }
        end
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
                    self.finish(crate::engine::EndReason::JobsDone);
                }
            }
        }
        false
    }

    /// Rank `g` runs operation `op` of its program now: posting charges
    /// its CPU, a blocking operation leaves it waiting on its requests.
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
            Op::Wait { reqs } => self.mpi_wait_on(g, reqs),
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
            Op::PutBurst { comm, peer, bytes, count, req, completion, flush_each } => {
                let r = &mut self.mpi.ranks[g as usize];
                let slot = r.open(Owner::Program, false);
                let run = PutBurstRun { slot, comm, peer, bytes, completion, flush_each, to_post: count, pending: 0, last: now };
                let b = reuse_or_push(&mut r.bursts, run, PutBurstRun::over);
                self.mpi_bind(g, req, slot);
                if count == 0 {
                    self.mpi_complete(g, slot, now);
                } else {
                    self.mpi_burst_post(g, b, now);
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
                let slot = self.mpi_rma_post(g, comm, peer, crate::engine::rma::AMO_BYTES, RmaKind::FetchAdd, done, Owner::Program);
                self.mpi_bind(g, req, slot);
                self.mpi.ranks[g as usize].ready_at = done;
            }
            Op::Fence => self.mpi_fence(g),
            Op::IterationEnd => self.mpi_iteration_end(g, now),
            Op::TimerStart => self.mpi_timer_start(g, now),
            Op::TimerStop => self.mpi_timer_stop(g, now),
        }
    }

    /// Rank `g` waits on the requests `reqs` names; an id no request has
    /// (already waited on, or never posted) is counted in the job's
    /// `unknown_waits`.
    fn mpi_wait_on(&mut self, g: u32, reqs: Vec<u32>) {
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

    /// Rank `g` ends an iteration at `now`: the job's iteration marks, the
    /// packet latency of an iteration every rank has ended, the stop rule.
    fn mpi_iteration_end(&mut self, g: u32, now: Ps) {
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

    /// Rank `g` starts its timer at `now` (the timed window opens at the
    /// earliest rank's start).
    fn mpi_timer_start(&mut self, g: u32, now: Ps) {
        let r = &mut self.mpi.ranks[g as usize];
        r.timer = now;
        let (i, j) = (r.iteration as usize, r.job as usize);
        let windows = &mut self.mpi.jobs[j].timed_windows;
        if windows.len() <= i {
            windows.resize(i + 1, (NEVER, Ps::ZERO));
        }
        windows[i].0 = windows[i].0.min(now);
    }

    /// Rank `g` stops its timer at `now`: one timed sample, and the timed
    /// window closes at the latest rank's stop.
    fn mpi_timer_stop(&mut self, g: u32, now: Ps) {
        let r = &self.mpi.ranks[g as usize];
        let d = now - r.timer;
        let (i, j) = (r.iteration as usize, r.job as usize);
        let job = &mut self.mpi.jobs[j];
        job.timed.record(d);
        if let Some(w) = job.timed_windows.get_mut(i) {
            w.1 = w.1.max(now);
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

    /// Rank `g` posts the next put of its burst `b` from `from` on (its
    /// CPU pays the send overhead, as for one `Put`); after the last, or
    /// after each when the burst flushes each put, its program goes on
    /// (the put that completes a flushed one posts the next:
    /// `mpi_complete`).
    pub(super) fn mpi_burst_post(&mut self, g: u32, b: u32, from: Ps) {
        let done = self.mpi_cpu_take(g, from, self.mpi.p().send_overhead);
        let r = &mut self.mpi.ranks[g as usize];
        let run = &mut r.bursts[b as usize];
        run.to_post -= 1;
        run.pending += 1;
        if run.to_post == 0 || run.flush_each {
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
    pub(super) fn mpi_check_wait(&mut self, g: u32) {
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
}
