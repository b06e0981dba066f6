//! Test helper: checks that a generated program is one MPI would run to its
//! end. Every workload's tests call [`consistent`].
//!
//! Messages match as in MPI (standard, Sec. 3.5): a receive takes the
//! oldest message of its communicator, source and tag, so the sends and
//! the receives of each such channel must agree one for one. The checker
//! needs explicit sources and tags (no `ANY_SOURCE`/`ANY_TAG`), which every
//! generator here uses so that its messages are determined statically.

use std::collections::{HashMap, VecDeque};

use super::Spec;
use crate::mpi::op::{Collective, Op, Program, ANY_SOURCE, ANY_TAG, PROC_NULL};
use crate::mpi::validate::validate;

/// A workload's `params` in tests.
pub type Params = serde_json::Map<String, serde_json::Value>;

/// `json` (an object) as `params`.
pub fn params(json: serde_json::Value) -> Params {
    json.as_object().expect("params are an object").clone()
}

/// The spec a test generates a workload from: one rank per node, no bursts.
pub fn spec(params: &Params, ranks: u32, bytes: u64, iterations: u32, compute_ns: f64, seed: u64) -> Spec<'_> {
    Spec { field: "job[0]".into(), ranks, bytes, iterations, compute_ns, burst_messages: 0, burst_gap_ns: 0.0, params, seed }
}

/// Where a point-to-point message travels: communicator, source and
/// destination (world ranks), tag.
type Channel = (u32, u32, u32, i32);

/// Panics, saying what is wrong, unless `p` is valid, its point-to-point
/// messages pair up, its collectives agree on every communicator and it
/// runs to its end even when every send waits for its receive.
pub fn consistent(p: &Program) {
    if let Err(e) = validate("program", p) {
        panic!("invalid program: {e}");
    }
    messages_pair_up(p);
    collectives_agree(p);
    runs_to_completion(p);
}

fn world(p: &Program, comm: u32, peer: i32) -> u32 {
    p.comms[comm as usize][peer as usize]
}

/// The channel of a point-to-point operation of world rank `r`, and its
/// bytes; `None` for other operations and for `PROC_NULL` peers.
fn channel(p: &Program, r: u32, op: &Op) -> Option<(Channel, u64, bool)> {
    match *op {
        Op::Send { comm, peer, tag, bytes } | Op::Isend { comm, peer, tag, bytes, .. } if peer != PROC_NULL => Some(((comm, r, world(p, comm, peer), tag), bytes, true)),
        Op::Recv { comm, peer, tag, bytes } | Op::Irecv { comm, peer, tag, bytes, .. } if peer != PROC_NULL => {
            assert!(peer != ANY_SOURCE && tag != ANY_TAG, "rank {r}: {op:?}: the checker needs explicit sources and tags");
            Some(((comm, world(p, comm, peer), r, tag), bytes, false))
        }
        _ => None,
    }
}

/// For every channel, the bytes of the sends equal those of the receives, in order.
fn messages_pair_up(p: &Program) {
    let mut sends: HashMap<Channel, Vec<u64>> = HashMap::new();
    let mut recvs: HashMap<Channel, Vec<u64>> = HashMap::new();
    for (r, ops) in p.ops.iter().enumerate() {
        for op in ops {
            if let Some((ch, bytes, is_send)) = channel(p, r as u32, op) {
                (if is_send { &mut sends } else { &mut recvs }).entry(ch).or_default().push(bytes);
            }
        }
    }
    for ch in sends.keys().chain(recvs.keys()) {
        let (s, r) = (sends.get(ch).cloned().unwrap_or_default(), recvs.get(ch).cloned().unwrap_or_default());
        assert_eq!(s, r, "channel (comm, src, dst, tag) {ch:?}: bytes sent (left) differ from bytes received (right)");
    }
}

/// What every member must agree on about one collective call.
fn collective_signature(op: &Op) -> Option<(u32, Collective, u32, u64)> {
    match op {
        Op::Coll { kind, comm, bytes, root, counts, .. } => Some((*comm, *kind, *root, if counts.is_some() { u64::MAX } else { *bytes })),
        _ => None,
    }
}

/// On every communicator, every member calls the same collectives in the
/// same order, with the same root and size.
fn collectives_agree(p: &Program) {
    for (c, members) in p.comms.iter().enumerate() {
        let calls = |r: u32| -> Vec<_> { p.ops[r as usize].iter().filter_map(collective_signature).filter(|s| s.0 == c as u32).collect() };
        let first = calls(members[0]);
        for &m in &members[1..] {
            assert_eq!(calls(m), first, "communicator {c}: rank {m}'s collectives differ from rank {}'s", members[0]);
        }
    }
}

/// A run of the program in which a send completes only when its receive is
/// posted (rendezvous, the most blocking protocol) and a collective when
/// all members have called it.
struct Run<'a> {
    p: &'a Program,
    /// Completion of each posted operation (a "token").
    done: Vec<bool>,
    sends: HashMap<Channel, VecDeque<(usize, u64)>>,
    recvs: HashMap<Channel, VecDeque<(usize, u64)>>,
    /// Token and arrivals of the k-th collective on a communicator.
    colls: HashMap<(u32, usize), (usize, usize)>,
    calls: Vec<HashMap<u32, usize>>,
    /// Open requests of each rank: id to token.
    open: Vec<HashMap<u32, usize>>,
    pc: Vec<usize>,
    waiting: Vec<Vec<usize>>,
}

impl Run<'_> {
    fn token(&mut self, done: bool) -> usize {
        self.done.push(done);
        self.done.len() - 1
    }

    /// Posts one side of a message; matches it with the other side's oldest.
    fn post(&mut self, ch: Channel, bytes: u64, is_send: bool) -> usize {
        let t = self.token(false);
        let (mine, theirs) = if is_send { (&mut self.sends, &mut self.recvs) } else { (&mut self.recvs, &mut self.sends) };
        match theirs.get_mut(&ch).and_then(|q| q.pop_front()) {
            Some((other, other_bytes)) => {
                assert_eq!(bytes, other_bytes, "channel {ch:?}: a message's send and receive sizes differ");
                self.done[t] = true;
                self.done[other] = true;
            }
            None => mine.entry(ch).or_default().push_back((t, bytes)),
        }
        t
    }

    fn open(&mut self, r: usize, req: u32, t: usize) {
        assert!(self.open[r].insert(req, t).is_none(), "rank {r}, op {}: opens request {req} while it is still open", self.pc[r]);
    }

    fn arrive(&mut self, r: usize, comm: u32) -> usize {
        let k = self.calls[r].entry(comm).or_default();
        let key = (comm, *k);
        *k += 1;
        let t = match self.colls.get(&key) {
            Some(&(t, _)) => t,
            None => self.token(false),
        };
        let arrived = &mut self.colls.entry(key).or_insert((t, 0)).1;
        *arrived += 1;
        if *arrived == self.p.comms[comm as usize].len() {
            self.done[t] = true;
        }
        t
    }

    /// Runs rank `r` one step; false if it cannot move.
    fn step(&mut self, r: usize) -> bool {
        if !self.waiting[r].is_empty() {
            let ready = self.waiting[r].iter().all(|&t| self.done[t]);
            if ready {
                self.waiting[r].clear();
            }
            return ready;
        }
        let Some(op) = self.p.ops[r].get(self.pc[r]) else { return false };
        match op {
            Op::Send { .. } | Op::Recv { .. } | Op::Isend { .. } | Op::Irecv { .. } => {
                let t = match channel(self.p, r as u32, op) {
                    Some((ch, bytes, is_send)) => self.post(ch, bytes, is_send),
                    None => self.token(true),
                };
                match op {
                    Op::Isend { req, .. } | Op::Irecv { req, .. } => self.open(r, *req, t),
                    _ => self.waiting[r] = vec![t],
                }
            }
            Op::Wait { reqs } => {
                for req in reqs {
                    let t = self.open[r].remove(req).unwrap_or_else(|| panic!("rank {r}, op {}: waits on request {req}, which is not open", self.pc[r]));
                    self.waiting[r].push(t);
                }
            }
            Op::Coll { comm, req, .. } => {
                let t = self.arrive(r, *comm);
                match req {
                    Some(req) => self.open(r, *req, t),
                    None => self.waiting[r] = vec![t],
                }
            }
            Op::Put { req, .. } | Op::PutBurst { req, .. } | Op::Get { req, .. } | Op::FetchAdd { req, .. } => {
                let t = self.token(true);
                self.open(r, *req, t);
            }
            Op::Compute { .. } | Op::Fence | Op::IterationEnd | Op::TimerStart | Op::TimerStop => {}
        }
        self.pc[r] += 1;
        true
    }
}

/// Runs the program to its end; panics listing the ranks that cannot go on.
fn runs_to_completion(p: &Program) {
    let n = p.ranks as usize;
    let mut run = Run {
        p,
        done: Vec::new(),
        sends: HashMap::new(),
        recvs: HashMap::new(),
        colls: HashMap::new(),
        calls: vec![HashMap::new(); n],
        open: vec![HashMap::new(); n],
        pc: vec![0; n],
        waiting: vec![Vec::new(); n],
    };
    let mut moved = true;
    while moved {
        moved = false;
        for r in 0..n {
            while run.step(r) {
                moved = true;
            }
        }
    }
    let stuck: Vec<String> = (0..n).filter(|&r| run.pc[r] < p.ops[r].len() || !run.waiting[r].is_empty()).map(|r| {
            let k = run.pc[r].saturating_sub(1);
            format!("rank {r} at op {k}: {:?}", p.ops[r].get(k))
        }).take(8).collect();
    assert!(stuck.is_empty(), "the program deadlocks:\n{}", stuck.join("\n"));
    for (r, open) in run.open.iter().enumerate() {
        assert!(open.is_empty(), "rank {r} ends with requests {:?} never waited for", open.keys().collect::<Vec<_>>());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two(a: Vec<Op>, b: Vec<Op>) -> Program {
        let mut p = Program::new(2);
        p.ops = vec![a, b];
        p
    }

    #[test]
    fn an_exchange_with_nonblocking_receives_passes() {
        let x = |peer| vec![Op::Irecv { comm: 0, peer, tag: 0, bytes: 8, req: 0 }, Op::Send { comm: 0, peer, tag: 0, bytes: 8 }, Op::Wait { reqs: vec![0] }];
        consistent(&two(x(1), x(0)));
    }

    #[test]
    #[should_panic(expected = "deadlocks")]
    fn head_to_head_blocking_sends_deadlock() {
        let x = |peer| vec![Op::Send { comm: 0, peer, tag: 0, bytes: 8 }, Op::Recv { comm: 0, peer, tag: 0, bytes: 8 }];
        consistent(&two(x(1), x(0)));
    }

    #[test]
    #[should_panic(expected = "differ")]
    fn mismatched_sizes_fail() {
        consistent(&two(vec![Op::Send { comm: 0, peer: 1, tag: 0, bytes: 8 }], vec![Op::Recv { comm: 0, peer: 0, tag: 0, bytes: 16 }]));
    }

    #[test]
    #[should_panic(expected = "not open")]
    fn waiting_on_an_unopened_request_fails() {
        consistent(&two(vec![Op::Wait { reqs: vec![3] }], vec![]));
    }

    #[test]
    #[should_panic(expected = "collectives differ")]
    fn collectives_in_different_orders_fail() {
        let c = |kind| Op::Coll { kind, comm: 0, bytes: 8, root: 0, counts: None, req: None };
        consistent(&two(vec![c(Collective::Allreduce), c(Collective::Barrier)], vec![c(Collective::Barrier), c(Collective::Allreduce)]));
    }
}
