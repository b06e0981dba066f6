//! The GPCNeT suite (Chunduri et al., SC'19; the `network_load_test`
//! program of its source): three victim ("canary") tests and four
//! congestors, as used by paper 000 to define endpoint and intermediate
//! congestion and congestion impact.
//!
//! Victims (each sample is one rank's time for one iteration, taken with
//! the rank timer, so the job's `timed_ns` holds the distribution):
//! - `gpcnet-rr-latency`: random ring (a seeded random order of the ranks),
//!   8 B two-sided exchange with both ring neighbours per iteration
//!   (2 receives, 2 sends, wait all);
//! - `gpcnet-rr-bandwidth`: the same ring, 128 KiB messages, 8 outstanding
//!   to each neighbour (16 receives, 16 sends, wait all), then a barrier
//!   (the "+Sync");
//! - `gpcnet-allreduce`: one 8 B allreduce per iteration.
//!
//! Congestors (run for as long as the victims, `repeat = true`), 4 KiB
//! messages (`bytes`):
//! - `gpcnet-alltoall`: alltoall among the congestor's ranks;
//! - `gpcnet-incast`: every rank sends to rank 0 (two-sided);
//! - `gpcnet-put-incast`: every rank puts to rank 0;
//! - `gpcnet-get-bcast`: every rank gets from rank 0.
//!
//! Message counts per iteration and rank: latency 2 sends, bandwidth
//! 2 x 8 sends plus the barrier's, incast, put incast and get broadcast 8
//! per non-root rank (a window of 8 outstanding, as the bandwidth test
//! keeps: an assumption, the congestors' windows are not in our papers),
//! alltoall n - 1 (MPICH's medium-message exchange, 32 peers at a time, at
//! 4 KiB).

use super::aggressors::{alltoalls, toward_target, Reach};
use super::Spec;
use crate::error::Result;
use crate::mpi::op::{Collective, Op, Program};
use crate::rng::Rng;

/// Outstanding messages per neighbour of the bandwidth test.
pub const BW_OUTSTANDING: u32 = 8;

/// The random ring: position of each rank and the rank at each position.
fn ring(spec: &Spec) -> (Vec<u32>, Vec<u32>) {
    let mut order: Vec<u32> = (0..spec.ranks).collect();
    Rng::new(spec.seed, 0x6C).shuffle(&mut order);
    let mut pos = vec![0; spec.ranks as usize];
    for (i, &r) in order.iter().enumerate() {
        pos[r as usize] = i as u32;
    }
    (pos, order)
}

/// Random-ring exchange with both neighbours: `per` messages of `bytes`
/// each way per neighbour, timed; a barrier after each iteration if `sync`.
pub fn random_ring(spec: &Spec, bytes: u64, per: u32, sync: bool) -> Result<Program> {
    let n = spec.ranks;
    let mut p = Program::new(n);
    let (pos, order) = ring(spec);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        let i = pos[r];
        let left = order[((i + n - 1) % n) as usize] as i32;
        let right = order[((i + 1) % n) as usize] as i32;
        for _ in 0..spec.iterations {
            ops.push(Op::TimerStart);
            let mut req = 0;
            for peer in [left, right] {
                for _ in 0..per {
                    ops.push(Op::Irecv { comm: 0, peer, tag: 0, bytes, req });
                    req += 1;
                }
            }
            for peer in [left, right] {
                for _ in 0..per {
                    ops.push(Op::Isend { comm: 0, peer, tag: 0, bytes, req });
                    req += 1;
                }
            }
            ops.push(Op::Wait { reqs: (0..req).collect() });
            if sync {
                ops.push(Op::Coll { kind: Collective::Barrier, comm: 0, bytes: 0, root: 0, counts: None, req: None });
            }
            ops.push(Op::TimerStop);
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// Timed 8 B allreduces.
pub fn allreduce(spec: &Spec) -> Result<Program> {
    let mut p = Program::new(spec.ranks);
    for ops in p.ops.iter_mut() {
        for _ in 0..spec.iterations {
            ops.extend([Op::TimerStart, Op::Coll { kind: Collective::Allreduce, comm: 0, bytes: 8, root: 0, counts: None, req: None }, Op::TimerStop, Op::IterationEnd]);
        }
    }
    Ok(p)
}

/// The congestors: `kind` is "alltoall", "incast", "put-incast" or
/// "get-bcast". The point-to-point ones keep `BW_OUTSTANDING` messages
/// in flight per rank (the bandwidth test's window), then wait for them.
pub fn congestor(spec: &Spec, kind: &str) -> Result<Program> {
    let reach = match kind {
        "alltoall" => None,
        "incast" => Some(Reach::TwoSided),
        "put-incast" => Some(Reach::Put),
        "get-bcast" => Some(Reach::Get),
        other => unreachable!("not a GPCNeT congestor: {other}"),
    };
    let n = spec.ranks;
    let mut p = Program::new(n);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        for _ in 0..spec.iterations {
            match reach {
                None => alltoalls(ops, 1, spec.bytes),
                Some(reach) => toward_target(ops, r as u32, n, 0, BW_OUTSTANDING, spec.bytes, reach, 1),
            }
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::super::check;
    use super::*;

    #[test]
    fn ring_neighbours_are_mutual() {
        let m = check::Params::new();
        let s = check::spec(&m, 10, 4096, 1, 0.0, 7);
        let (pos, order) = ring(&s);
        for r in 0..s.ranks {
            assert_eq!(order[pos[r as usize] as usize], r);
        }
        let p = random_ring(&s, 8, 1, false).unwrap();
        // Each rank sends 2 messages per iteration: one to each neighbour,
        // and receives one from each.
        for ops in &p.ops {
            assert_eq!(ops.iter().filter(|o| matches!(o, Op::Isend { .. })).count(), 2);
            assert_eq!(ops.iter().filter(|o| matches!(o, Op::Irecv { .. })).count(), 2);
        }
        let bw = random_ring(&s, 131_072, BW_OUTSTANDING, true).unwrap();
        assert_eq!(bw.ops[0].iter().filter(|o| matches!(o, Op::Isend { .. })).count(), 16);
    }
}
