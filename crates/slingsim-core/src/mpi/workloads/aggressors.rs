//! The aggressors of paper 000 Sec. III: incast (every rank to one) and
//! all-to-all, with 128 KiB messages by default, persistent or bursty (a
//! burst of messages, then a pause: Fig. 12).

use super::Spec;
use crate::mpi::op::{Collective, Op, Program, ANY_SOURCE};
use crate::error::Result;

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
    let put = spec.param_bool("put", true)?; // MPI_Put as paper 000, or two-sided
    let per = spec.burst_messages.max(1);
    let mut p = Program::new(n);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        let r = r as u32;
        for _ in 0..spec.iterations {
            if r == target && put {
                // One-sided: the target's CPU is not involved.
            } else if r == target {
                let count = (n - 1) * per;
                for i in 0..count {
                    ops.push(Op::Irecv { comm: 0, peer: ANY_SOURCE, tag: 0, bytes: spec.bytes, req: i });
                }
                ops.push(Op::Wait { reqs: (0..count).collect() });
            } else {
                for i in 0..per {
                    ops.push(if put {
                        Op::Put { comm: 0, peer: target as i32, bytes: spec.bytes, req: i }
                    } else {
                        Op::Isend { comm: 0, peer: target as i32, tag: 0, bytes: spec.bytes, req: i }
                    });
                }
                ops.push(Op::Wait { reqs: (0..per).collect() });
            }
            if spec.burst_gap_ns > 0.0 {
                ops.push(Op::Compute { ns: spec.burst_gap_ns });
            }
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
            for _ in 0..spec.burst_messages.max(1) {
                ops.push(Op::Coll { kind: Collective::Alltoall, comm: 0, bytes: spec.bytes, root: 0, counts: None, req: None });
            }
            if spec.burst_gap_ns > 0.0 {
                ops.push(Op::Compute { ns: spec.burst_gap_ns });
            }
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}
