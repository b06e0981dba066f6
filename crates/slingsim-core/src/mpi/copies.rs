//! Copies of a workload per process slot ([DeSensi20] Sec. III: "each
//! node used by the aggressor spawns PPN processes, each of them
//! performing the same communications. Namely, the congestion pattern is
//! concurrently executed PPN times"). A job with `ppn_copies = true` runs
//! its workload, generated for one process per node, once per process
//! slot: process k of every node belongs to copy k, which has its own
//! communicators, so the copies never exchange messages with each other.

use super::op::{Op, Program};

/// `base` (one rank per node, `n` nodes) run `ppn` times over the job's
/// `n * ppn` ranks. Ranks fill nodes `ppn` at a time, so world rank
/// `i * ppn + k` is process k of node i: it runs `base`'s rank i in copy
/// k. Communicator 0 stays the world of all the job's ranks (no copy
/// uses it); copy k's communicator c is communicator `1 + k * C + c`,
/// with C the communicators of `base`.
pub fn per_process(base: Program, ppn: u32) -> Program {
    if ppn <= 1 {
        return base;
    }
    let n = base.ranks;
    let per_copy = base.comms.len() as u32;
    let mut comms = Vec::with_capacity(1 + base.comms.len() * ppn as usize);
    comms.push((0..n * ppn).collect());
    for k in 0..ppn {
        for members in &base.comms {
            comms.push(members.iter().map(|&i| i * ppn + k).collect());
        }
    }
    let mut ops = Vec::with_capacity((n * ppn) as usize);
    for i in 0..n as usize {
        for k in 0..ppn {
            ops.push(base.ops[i].iter().cloned().map(|mut op| {
                if let Some(c) = comm_of(&mut op) {
                    *c += 1 + k * per_copy;
                }
                op
            }).collect());
        }
    }
    Program { ranks: n * ppn, comms, ops, warnings: base.warnings }
}

/// The communicator an operation names, if any.
fn comm_of(op: &mut Op) -> Option<&mut u32> {
    match op {
        Op::Send { comm, .. }
        | Op::Recv { comm, .. }
        | Op::Isend { comm, .. }
        | Op::Irecv { comm, .. }
        | Op::Coll { comm, .. }
        | Op::Put { comm, .. }
        | Op::PutBurst { comm, .. }
        | Op::Get { comm, .. }
        | Op::FetchAdd { comm, .. } => Some(comm),
        Op::Compute { .. } | Op::Wait { .. } | Op::Fence | Op::IterationEnd | Op::TimerStart | Op::TimerStop => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::op::Collective;

    #[test]
    fn each_process_slot_runs_its_own_copy() {
        // An incast of 3 nodes onto rank 0, with a collective after it.
        let mut base = Program::new(3);
        for (i, ops) in base.ops.iter_mut().enumerate() {
            if i != 0 {
                ops.push(Op::Put { comm: 0, peer: 0, bytes: 64, req: 0, completion: Default::default() });
            }
            ops.push(Op::Coll { kind: Collective::Barrier, comm: 0, bytes: 0, root: 0, counts: None, req: None });
        }
        let p = per_process(base.clone(), 2);
        assert_eq!(p.ranks, 6);
        // The world, then copy 0 (process 0 of every node: ranks 0, 2, 4)
        // and copy 1 (process 1).
        assert_eq!(p.comms, vec![vec![0, 1, 2, 3, 4, 5], vec![0, 2, 4], vec![1, 3, 5]]);
        // Rank 3 (node 1, process 1) puts to rank 0 of copy 1's world: world rank 1.
        assert_eq!(p.ops[3][0], Op::Put { comm: 2, peer: 0, bytes: 64, req: 0, completion: Default::default() });
        assert_eq!(p.comms[2][0], 1, "the copy's target is process 1 of node 0");
        assert_eq!(p.ops[2][0], Op::Put { comm: 1, peer: 0, bytes: 64, req: 0, completion: Default::default() });
        assert_eq!(per_process(base.clone(), 1), base);
    }
}
