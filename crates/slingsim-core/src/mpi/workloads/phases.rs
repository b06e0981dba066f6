//! Pieces the multigrid workloads (`amg.rs`, `multigrid.rs`) share: a halo
//! exchange with an explicit list of peers, whose sizes differ per peer and
//! per direction, and computation in whole nanoseconds.
//!
//! Whole nanoseconds because a DUMPI trace keeps times in nanoseconds: a
//! generated program written as a trace (`trace/dumpi/write.rs`) and read
//! back gets its compute from the gaps between calls, so a compute of a
//! fraction of a nanosecond, or two computes in a row (one gap), would not
//! come back as the same operations.

use crate::mpi::op::{Collective, Op};

/// One peer of a halo exchange: its rank, the bytes sent to it and the
/// bytes received from it (the peer's own boundary, so they can differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Peer {
    pub rank: u32,
    pub send: u64,
    pub recv: u64,
}

/// One halo exchange: a nonblocking receive from every peer, then a
/// nonblocking send to every peer, then a wait for all of them (hypre's
/// and BoxLib's exchanges post receives first). Request ids start at 0,
/// the lowest free ones, as a DUMPI reader numbers them. Nothing when
/// there are no peers.
pub(super) fn exchange(ops: &mut Vec<Op>, peers: &[Peer], tag: i32) {
    if peers.is_empty() {
        return;
    }
    let mut req = 0;
    for p in peers {
        ops.push(Op::Irecv { comm: 0, peer: p.rank as i32, tag, bytes: p.recv, req });
        req += 1;
    }
    for p in peers {
        ops.push(Op::Isend { comm: 0, peer: p.rank as i32, tag, bytes: p.send, req });
        req += 1;
    }
    ops.push(Op::Wait { reqs: (0..req).collect() });
}

/// Local work of `ns`, rounded to whole nanoseconds, added to the compute
/// just before it if there is one; nothing when it rounds to zero.
pub(super) fn compute(ops: &mut Vec<Op>, ns: f64) {
    let ns = ns.round();
    if ns < 1.0 {
        return;
    }
    match ops.last_mut() {
        Some(Op::Compute { ns: before }) => *before += ns,
        _ => ops.push(Op::Compute { ns }),
    }
}

/// A blocking allreduce of `bytes` on the world (a global sum), unless
/// `reductions` is off.
pub(super) fn allreduce(ops: &mut Vec<Op>, bytes: u64, reductions: bool) {
    if reductions {
        ops.push(Op::Coll { kind: Collective::Allreduce, comm: 0, bytes, root: 0, counts: None, req: None });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_merges_and_rounds_to_whole_nanoseconds() {
        let mut ops = Vec::new();
        compute(&mut ops, 0.4);
        assert!(ops.is_empty());
        compute(&mut ops, 10.6);
        compute(&mut ops, 5.2);
        assert_eq!(ops, vec![Op::Compute { ns: 16.0 }]);
        exchange(&mut ops, &[Peer { rank: 3, send: 8, recv: 16 }], 7);
        compute(&mut ops, 2.0);
        assert_eq!(ops.len(), 5);
        assert_eq!(ops[1], Op::Irecv { comm: 0, peer: 3, tag: 7, bytes: 16, req: 0 });
        assert_eq!(ops[2], Op::Isend { comm: 0, peer: 3, tag: 7, bytes: 8, req: 1 });
        assert_eq!(ops[3], Op::Wait { reqs: vec![0, 1] });
    }
}
