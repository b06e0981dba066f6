//! MPI microbenchmarks (paper 000 Sec. III: allreduce, alltoall, barrier,
//! bcast and ping-pong victims): one operation per iteration, timed.

use super::{compute, Spec};
use crate::error::{ConfigError, Result};
use crate::mpi::op::{Collective, Op, Program};

/// `iterations` x (collective, optional compute, iteration mark).
pub fn collective(spec: &Spec, kind: Collective) -> Result<Program> {
    let mut p = Program::new(spec.ranks);
    for ops in p.ops.iter_mut() {
        for _ in 0..spec.iterations {
            ops.push(Op::Coll { kind, comm: 0, bytes: spec.bytes, root: 0, counts: None, req: None });
            compute(ops, spec.compute_ns);
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// Ping-pong between rank i and rank i + n/2 (the two halves of the job,
/// so with one rank per node every pair crosses the network).
pub fn pingpong(spec: &Spec) -> Result<Program> {
    let n = spec.ranks;
    if n < 2 || n % 2 != 0 {
        return Err(ConfigError::new(format!("{}.nodes", spec.field), format!("ping-pong pairs ranks: it needs an even number of ranks, got {n}")));
    }
    let half = n / 2;
    let mut p = Program::new(n);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        let r = r as u32;
        let (peer, first) = if r < half { (r + half, true) } else { (r - half, false) };
        let send = Op::Send { comm: 0, peer: peer as i32, tag: 0, bytes: spec.bytes };
        let recv = Op::Recv { comm: 0, peer: peer as i32, tag: 0, bytes: spec.bytes };
        for _ in 0..spec.iterations {
            if first {
                ops.extend([send.clone(), recv.clone()]);
            } else {
                ops.extend([recv.clone(), send.clone()]);
            }
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}
