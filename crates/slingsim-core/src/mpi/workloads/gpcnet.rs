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
//! 2 x 8 sends plus the barrier's. The congestors do what GPCNeT's source
//! does per iteration (`congestors.c`, [GPCNeT]): incast, put incast and
//! get broadcast one message per non-root rank, waited for before the next
//! iteration (a blocking send; a put or get followed by MPI_Win_flush);
//! alltoall n - 1 blocking sendrecvs, partner r XOR i in step i for a
//! power-of-two rank count, else send to r + i and receive from r - i
//! (MPICH's pairwise exchange, written out). Before 2026-11-30 the three
//! many-to-one congestors kept 8 messages in flight (the bandwidth test's
//! window, assumed) and the alltoall was an MPI_Alltoall (MPICH's
//! scattered exchange at 4 KiB).

use super::aggressors::{pairwise_rounds, toward_target, PutMode, Reach};
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
/// "get-bcast". The many-to-one ones send one message per rank and
/// iteration and wait for it; the alltoall is a loop of sendrecvs.
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
                None => pairwise_rounds(ops, n, r as u32, 1, spec.bytes),
                Some(reach) => toward_target(ops, r as u32, n, 0, 1, spec.bytes, reach, PutMode { flush_each: true, ..Default::default() }, 1),
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

    /// GPCNeT's congestors, per iteration: one message from each non-root
    /// rank, waited for before the next; the alltoall a sendrecv with each
    /// other rank in turn, each waited for.
    #[test]
    fn congestors_send_one_message_at_a_time_as_gpcnets_source() {
        let m = check::Params::new();
        let s = check::spec(&m, 8, 4096, 3, 0.0, 0);
        for kind in ["incast", "put-incast", "get-bcast"] {
            let p = congestor(&s, kind).unwrap();
            check::consistent(&p);
            let sends = |o: &Op| matches!(o, Op::Isend { .. } | Op::Put { .. } | Op::Get { .. });
            for ops in &p.ops[1..] {
                assert_eq!(ops.iter().filter(|o| sends(o)).count(), 3, "{kind}: one per iteration");
                // Each message is followed by its wait before the next.
                for (i, _) in ops.iter().enumerate().filter(|(_, o)| sends(o)) {
                    assert!(matches!(ops[i + 1], Op::Wait { .. }), "{kind}: message {i} not waited for");
                }
            }
            assert!(p.ops[0].iter().all(|o| !sends(o)), "{kind}: the root sends nothing");
        }
        let p = congestor(&s, "alltoall").unwrap();
        check::consistent(&p);
        assert!(p.ops.iter().flatten().all(|o| !matches!(o, Op::Coll { .. })), "written out, not MPI_Alltoall");
        for (r, ops) in p.ops.iter().enumerate() {
            let peers: Vec<i32> = ops.iter().filter_map(|o| match o { Op::Isend { peer, .. } => Some(*peer), _ => None }).collect();
            let want: Vec<i32> = (0..3).flat_map(|_| (1..8).map(move |i| (r as i32) ^ i)).collect();
            assert_eq!(peers, want, "rank {r}: XOR partners, step by step");
        }
    }
}
