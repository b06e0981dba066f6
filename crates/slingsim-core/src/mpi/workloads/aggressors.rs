//! The aggressors of paper 000 Sec. III: incast (every rank to one) and
//! all-to-all, with 128 KiB messages by default, persistent or bursty (a
//! burst of messages, then a pause: Fig. 12).

use super::{compute, Spec};
use crate::mpi::op::{Collective, Op, Program};
use crate::error::Result;

/// How the ranks of a many-to-one pattern reach its target.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// MPI_Put into the target's memory (its CPU takes no part).
    Put,
    /// MPI_Get from the target's memory (a broadcast from it).
    Get,
    /// Two-sided: the target receives every message, from each rank by name.
    TwoSided,
}

/// One round of rank `r` of `n` in a many-to-one pattern: every rank but
/// `target` keeps `per` messages of `bytes` in flight to it, then waits;
/// a two-sided target receives them all. Shared by paper 000's incast
/// and GPCNeT's incast, put-incast and get-bcast congestors.
#[allow(clippy::too_many_arguments)]
pub fn toward_target(ops: &mut Vec<Op>, r: u32, n: u32, target: u32, per: u32, bytes: u64, reach: Reach, tag: i32) {
    if r == target {
        if reach == Reach::TwoSided {
            let mut req = 0;
            for peer in (0..n).filter(|&p| p != target) {
                for _ in 0..per {
                    ops.push(Op::Irecv { comm: 0, peer: peer as i32, tag, bytes, req });
                    req += 1;
                }
            }
            ops.push(Op::Wait { reqs: (0..req).collect() });
        }
        return;
    }
    let peer = target as i32;
    if reach == Reach::Put && per > 1 {
        // One operation however long the burst (10^6 in Fig. 12).
        ops.push(Op::PutBurst { comm: 0, peer, bytes, count: per, req: 0, completion: Default::default() });
        ops.push(Op::Wait { reqs: vec![0] });
        return;
    }
    ops.extend((0..per).map(|req| match reach {
        Reach::Put => Op::Put { comm: 0, peer, bytes, req, completion: Default::default() },
        Reach::Get => Op::Get { comm: 0, peer, bytes, req },
        Reach::TwoSided => Op::Isend { comm: 0, peer, tag, bytes, req },
    }));
    ops.push(Op::Wait { reqs: (0..per).collect() });
}

/// `count` alltoalls of `bytes` per pair in a row.
pub fn alltoalls(ops: &mut Vec<Op>, count: u32, bytes: u64) {
    ops.extend((0..count).map(|_| Op::Coll { kind: Collective::Alltoall, comm: 0, bytes, root: 0, counts: None, req: None }));
}

/// Every rank but the target (`params.target`, default 0) sends
/// `burst_messages` (at least 1) messages per iteration to it. Paper 000
/// generates its incast with `MPI_Put` (`params.put = true`, the default):
/// the target takes no part; with `put = false` it is two-sided and the
/// target receives them all. A bursty aggressor pauses `burst_gap_ns`
/// after each burst.
pub fn incast(spec: &Spec) -> Result<Program> {
    let n = spec.ranks;
    let target = spec.param_u32("target", 0)?;
    spec.check_rank("target", target)?;
    let reach = if spec.param_bool("put", true)? { Reach::Put } else { Reach::TwoSided }; // MPI_Put as paper 000
    let per = spec.burst_messages.max(1);
    let mut p = Program::new(n);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        for _ in 0..spec.iterations {
            toward_target(ops, r as u32, n, target, per, spec.bytes, reach, 0);
            compute(ops, spec.burst_gap_ns);
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// All-to-all of `bytes` per pair, `burst_messages` (at least 1) in a row
/// per burst, then the pause of a bursty aggressor.
pub fn alltoall(spec: &Spec) -> Result<Program> {
    let mut p = Program::new(spec.ranks);
    for ops in p.ops.iter_mut() {
        for _ in 0..spec.iterations {
            alltoalls(ops, spec.burst_messages.max(1), spec.bytes);
            compute(ops, spec.burst_gap_ns);
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}
