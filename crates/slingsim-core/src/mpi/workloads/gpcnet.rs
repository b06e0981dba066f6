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
//! - both draw `params.rings` rings in turn (default 1), and on each run
//!   `params.warmup_iterations` untimed iterations (default 0) before its
//!   `iterations` timed ones, as GPCNeT's `random_ring` does (30 rings
//!   per measurement; 200 untimed then 200 timed iterations of the latency
//!   test, 1 then 8 of the bandwidth test); each ring after the first
//!   starts with a barrier over the job's ranks (GPCNeT's barrier after
//!   each ring);
//! - `gpcnet-allreduce`: one 8 B allreduce per iteration, after
//!   `params.warmup_iterations` untimed ones (default 0; GPCNeT runs 1).
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

/// The most rings a random-ring test may draw.
pub const MAX_RINGS: u32 = 100_000;

/// How a random-ring test repeats: rings drawn in turn, and untimed
/// iterations on each before its timed ones.
#[derive(Clone, Copy, Debug)]
pub struct Rings {
    pub rings: u32,
    pub warmup: u32,
}

/// `params.warmup_iterations` of a GPCNeT victim (default 0), checked;
/// `says` what they are, for the error.
fn untimed(spec: &Spec, says: &str) -> Result<u32> {
    let warmup = spec.param_u32("warmup_iterations", 0)?;
    crate::limits::check_count(&format!("{}.params.warmup_iterations", spec.field), warmup as u64, 0, 1 << 24, says)?;
    Ok(warmup)
}

impl Rings {
    /// `params.rings` and `params.warmup_iterations` of `spec`, checked.
    pub fn of(spec: &Spec) -> Result<Rings> {
        let rings = spec.param_u32("rings", 1)?;
        crate::limits::check_count(&format!("{}.params.rings", spec.field), rings as u64, 1, MAX_RINGS as u64, "random rings drawn in turn (GPCNeT draws 30 per measurement)")?;
        let warmup = untimed(spec, "untimed iterations on each ring (GPCNeT runs 200 for the latency test, 1 for the bandwidth test)")?;
        Ok(Rings { rings, warmup })
    }
}

/// `rings` random rings drawn in turn from one seeded stream: for each,
/// the position of each rank and the rank at each position. The first is
/// the ring a one-ring test has always used.
fn rings(spec: &Spec, rings: u32) -> Vec<(Vec<u32>, Vec<u32>)> {
    let mut rng = Rng::new(spec.seed, 0x6C);
    (0..rings)
        .map(|_| {
            let mut order: Vec<u32> = (0..spec.ranks).collect();
            rng.shuffle(&mut order);
            let mut pos = vec![0; spec.ranks as usize];
            for (i, &r) in order.iter().enumerate() {
                pos[r as usize] = i as u32;
            }
            (pos, order)
        })
        .collect()
}

/// Random-ring exchange with both neighbours: `per` messages of `bytes`
/// each way per neighbour; a barrier after each iteration if `sync`. On
/// each of `params.rings` rings, `params.warmup_iterations` untimed
/// iterations, then `iterations` timed ones.
pub fn random_ring(spec: &Spec, bytes: u64, per: u32, sync: bool) -> Result<Program> {
    let n = spec.ranks;
    let how = Rings::of(spec)?;
    // Ops per rank and iteration: the receives and sends, the wait, the
    // barrier, the timer and the iteration's end.
    let per_iteration = 4 * per as u64 + 5;
    let ring_iteration = how.rings as u64 * per_iteration * n as u64;
    crate::limits::program_fits_with(&format!("{}.iterations", spec.field), spec.iterations, ring_iteration * how.warmup as u64, ring_iteration)?;
    let mut p = Program::new(n);
    for (k, (pos, order)) in rings(spec, how.rings).iter().enumerate() {
        for (r, ops) in p.ops.iter_mut().enumerate() {
            let i = pos[r];
            let left = order[((i + n - 1) % n) as usize] as i32;
            let right = order[((i + 1) % n) as usize] as i32;
            if k > 0 {
                ops.push(Op::Coll { kind: Collective::Barrier, comm: 0, bytes: 0, root: 0, counts: None, req: None });
            }
            for it in 0..how.warmup + spec.iterations {
                let timed = it >= how.warmup;
                if timed {
                    ops.push(Op::TimerStart);
                }
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
                if timed {
                    ops.push(Op::TimerStop);
                }
                ops.push(Op::IterationEnd);
            }
        }
    }
    Ok(p)
}

/// Timed 8 B allreduces, after `params.warmup_iterations` untimed ones
/// (default 0; GPCNeT runs one before each 200 timed).
pub fn allreduce(spec: &Spec) -> Result<Program> {
    let warmup = untimed(spec, "untimed allreduces before the timed ones (GPCNeT runs 1)")?;
    // Two ops per rank for an untimed allreduce, four for a timed one.
    crate::limits::program_fits_with(&format!("{}.iterations", spec.field), spec.iterations, 2 * warmup as u64 * spec.ranks as u64, 4 * spec.ranks as u64)?;
    let mut p = Program::new(spec.ranks);
    let allreduce = Op::Coll { kind: Collective::Allreduce, comm: 0, bytes: 8, root: 0, counts: None, req: None };
    for ops in p.ops.iter_mut() {
        for _ in 0..warmup {
            ops.extend([allreduce.clone(), Op::IterationEnd]);
        }
        for _ in 0..spec.iterations {
            ops.extend([Op::TimerStart, allreduce.clone(), Op::TimerStop, Op::IterationEnd]);
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
        let (pos, order) = rings(&s, 1).remove(0);
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

    /// GPCNeT's repetition: rings drawn in turn, each starting (after the
    /// first) with a barrier, with untimed iterations before its timed
    /// ones; one ring and no warm-up is the program a ring test always had.
    #[test]
    fn rings_are_redrawn_with_untimed_iterations_first() {
        let mut m = check::Params::new();
        m.insert("rings".into(), serde_json::json!(3));
        m.insert("warmup_iterations".into(), serde_json::json!(2));
        let s = check::spec(&m, 10, 8, 4, 0.0, 7);
        let p = random_ring(&s, 8, 1, false).unwrap();
        check::consistent(&p);
        let count = |ops: &Vec<Op>, f: fn(&Op) -> bool| ops.iter().filter(|o| f(o)).count();
        for ops in &p.ops {
            assert_eq!(count(ops, |o| matches!(o, Op::TimerStart)), 3 * 4, "timed: 4 per ring");
            assert_eq!(count(ops, |o| matches!(o, Op::IterationEnd)), 3 * (2 + 4), "every iteration ends");
            assert_eq!(count(ops, |o| matches!(o, Op::Coll { kind: Collective::Barrier, .. })), 2, "one before each ring but the first");
            // The first two iterations of each ring run untimed.
            assert!(!matches!(ops[0], Op::TimerStart), "a ring starts with its untimed iterations");
        }
        // Each rank's neighbours change from ring to ring for some rank.
        let drawn = rings(&s, 3);
        assert!(drawn.windows(2).all(|w| w[0].1 != w[1].1), "each ring is a new order");
        let peers = |ops: &Vec<Op>| ops.iter().filter_map(|o| match o { Op::Isend { peer, .. } => Some(*peer), _ => None }).collect::<Vec<_>>();
        assert!(p.ops.iter().any(|ops| peers(ops)[0] != peers(ops)[12]), "neighbours differ between rings");

        // One ring and no warm-up: the program the test always had.
        let plain = check::Params::new();
        let mut one = check::Params::new();
        one.insert("rings".into(), serde_json::json!(1));
        one.insert("warmup_iterations".into(), serde_json::json!(0));
        let (a, b) = (random_ring(&check::spec(&plain, 10, 8, 4, 0.0, 7), 8, 1, false).unwrap(), random_ring(&check::spec(&one, 10, 8, 4, 0.0, 7), 8, 1, false).unwrap());
        assert_eq!(format!("{:?}", a.ops), format!("{:?}", b.ops));
    }

    #[test]
    fn allreduce_runs_its_untimed_ones_first() {
        let m = check::params(serde_json::json!({"warmup_iterations": 1}));
        let p = allreduce(&check::spec(&m, 6, 8, 3, 0.0, 0)).unwrap();
        check::consistent(&p);
        for ops in &p.ops {
            assert!(matches!(ops[0], Op::Coll { kind: Collective::Allreduce, .. }), "the untimed one comes first");
            assert_eq!(ops.iter().filter(|o| matches!(o, Op::TimerStart)).count(), 3);
            assert_eq!(ops.iter().filter(|o| matches!(o, Op::Coll { .. })).count(), 4);
        }
    }

    #[test]
    fn ring_counts_out_of_range_are_refused_naming_the_field() {
        for (key, v, says) in [("rings", 0u64, "rings"), ("rings", 1_000_000, "rings"), ("warmup_iterations", 1 << 30, "warmup_iterations")] {
            let mut m = check::Params::new();
            m.insert(key.into(), serde_json::json!(v));
            let e = random_ring(&check::spec(&m, 10, 8, 4, 0.0, 7), 8, 1, false).unwrap_err().to_string();
            assert!(e.contains(&format!("job[0].params.{says}")), "{e}");
        }
        // Rings and warm-ups that would not fit in memory are refused too.
        let mut m = check::Params::new();
        m.insert("rings".into(), serde_json::json!(100_000));
        m.insert("warmup_iterations".into(), serde_json::json!(10_000));
        let e = random_ring(&check::spec(&m, 1000, 8, 200, 0.0, 7), 8, 1, false).unwrap_err().to_string();
        assert!(e.contains("job[0].iterations"), "{e}");
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
