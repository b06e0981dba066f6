//! The aggressors of paper 000 Sec. III: incast (every rank to one) and
//! all-to-all, with 128 KiB messages by default, persistent or bursty (a
//! burst of messages, then a pause: Fig. 12).

use super::{compute, Spec};
use crate::mpi::collectives::{schedule, Algorithm, ALLTOALL_THROTTLE};
use crate::mpi::op::{Collective, Completion, Op, Program};
use crate::error::{ConfigError, Result};

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

/// How a many-to-one pattern's puts complete.
#[derive(Clone, Copy, Default)]
pub struct PutMode {
    /// A burst keeps one put in flight at a time (MPI_Put then
    /// MPI_Win_flush, message by message), else all it has posted.
    pub flush_each: bool,
    /// When a put counts as complete, and so whether a response crosses
    /// back ([`Completion`]).
    pub completion: Completion,
}

/// One round of rank `r` of `n` in a many-to-one pattern: every rank but
/// `target` sends `per` messages of `bytes` to it, then waits for them; a
/// two-sided target receives them all; puts go as `put` says. Shared by
/// paper 000's incast and GPCNeT's incast, put-incast and get-bcast
/// congestors.
#[allow(clippy::too_many_arguments)]
pub fn toward_target(ops: &mut Vec<Op>, r: u32, n: u32, target: u32, per: u32, bytes: u64, reach: Reach, put: PutMode, tag: i32) {
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
        ops.push(Op::PutBurst { comm: 0, peer, bytes, count: per, req: 0, completion: put.completion, flush_each: put.flush_each });
        ops.push(Op::Wait { reqs: vec![0] });
        return;
    }
    ops.extend((0..per).map(|req| match reach {
        Reach::Put => Op::Put { comm: 0, peer, bytes, req, completion: put.completion },
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
/// generates its incast with `MPI_Put` (`params.put = true`, the default)
/// through GPCNeT, whose put incast flushes each put before the next
/// (`params.flush_each = true`, the default; false posts a burst's puts
/// one after another and flushes once at its end): the target takes no
/// part; with `put = false` it is two-sided and the target receives them
/// all. A bursty aggressor pauses `burst_gap_ns` after each burst.
pub fn incast(spec: &Spec) -> Result<Program> {
    let n = spec.ranks;
    let target = spec.param_u32("target", 0)?;
    spec.check_rank("target", target)?;
    let reach = if spec.param_bool("put", true)? { Reach::Put } else { Reach::TwoSided }; // MPI_Put as paper 000
    if reach != Reach::Put {
        if let Some(key) = ["flush_each", "completion"].into_iter().find(|k| spec.params.contains_key(*k)) {
            return Err(ConfigError::new(
                format!("{}.params.{key}", spec.field),
                "applies to puts only (params.put = true); a two-sided incast waits for its whole burst: leave it out",
            ));
        }
    }
    let flush_each = spec.param_bool("flush_each", true)?;
    let completion = match spec.params.get("completion") {
        None => Completion::default(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
            ConfigError::new(format!("{}.params.completion", spec.field), format!("{v} is not a completion: use \"arrival\", \"transmit\" or \"delivery\""))
        })?,
    };
    let put = PutMode { flush_each, completion };
    let per = spec.burst_messages.max(1);
    let mut p = Program::new(n);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        for _ in 0..spec.iterations {
            toward_target(ops, r as u32, n, target, per, spec.bytes, reach, put, 0);
            compute(ops, spec.burst_gap_ns);
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// All-to-all of `bytes` per pair, `burst_messages` (at least 1) in a row
/// per burst, then the pause of a bursty aggressor. With
/// `params.first_round = k` (at least 1) each alltoall is MPICH's pairwise
/// exchange written out from its round `k` on (see [`pairwise_rounds`]).
pub fn alltoall(spec: &Spec) -> Result<Program> {
    let n = spec.ranks;
    let first_round = if spec.params.contains_key("first_round") { Some(spec.param_u32("first_round", 1)?) } else { None };
    if let Some(k) = first_round.filter(|&k| k == 0 || k >= n.max(2)) {
        return Err(ConfigError::new(
            format!("{}.params.first_round", spec.field),
            format!("{k} is not a round of a pairwise alltoall over {n} ranks (rounds 1 to {}); leave it out to run every round", n.saturating_sub(1).max(1)),
        ));
    }
    let mut p = Program::new(n);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        for _ in 0..spec.iterations {
            for _ in 0..spec.burst_messages.max(1) {
                match first_round {
                    Some(k) => pairwise_rounds(ops, n, r as u32, k, spec.bytes),
                    None => alltoalls(ops, 1, spec.bytes),
                }
            }
            compute(ops, spec.burst_gap_ns);
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// Rank `r`'s rounds `first..n` of MPICH's pairwise-exchange alltoall over
/// `n` ranks, the algorithm above 32 KiB per pair (the collective's own
/// schedule, [`schedule`]): each round's receive and send, then a wait for
/// both (a blocking sendrecv). Starting past round 1 skips the rounds whose
/// partners sit on the rank's own node or switch: with 16 ranks per node in
/// node order, rounds below 16 stay on the node ([DeSensi20] Fig. 13,
/// docs/experiments.md).
pub fn pairwise_rounds(ops: &mut Vec<Op>, n: u32, r: u32, first: u32, bytes: u64) {
    for round in schedule(Collective::Alltoall, Algorithm::Pairwise, n, r, bytes, 0, None, ALLTOALL_THROTTLE).into_iter().skip(first as usize - 1) {
        let mut req = 0;
        for (peer, b) in round.recvs {
            ops.push(Op::Irecv { comm: 0, peer: peer as i32, tag: 0, bytes: b, req });
            req += 1;
        }
        for (peer, b) in round.sends {
            ops.push(Op::Isend { comm: 0, peer: peer as i32, tag: 0, bytes: b, req });
            req += 1;
        }
        ops.push(Op::Wait { reqs: (0..req).collect() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::workloads::check::{consistent, params, spec};
    use serde_json::json;

    /// The partners rank `r` sends to, in order.
    fn partners(p: &Program, r: usize) -> Vec<i32> {
        p.ops[r].iter().filter_map(|op| if let Op::Isend { peer, .. } = op { Some(*peer) } else { None }).collect()
    }

    #[test]
    fn pairwise_rounds_from_a_later_round_skip_the_earlier_partners() {
        for n in [16u32, 12] {
            let par = params(json!({"first_round": 5}));
            let p = alltoall(&spec(&par, n, 4096, 2, 0.0, 0)).unwrap();
            consistent(&p);
            for r in 0..n as usize {
                let sent = partners(&p, r);
                assert_eq!(sent.len(), 2 * (n as usize - 5), "two iterations of rounds 5..n");
                let expect: Vec<i32> = (5..n).map(|i| if n.is_power_of_two() { (r as u32 ^ i) as i32 } else { ((r as u32 + i) % n) as i32 }).collect();
                assert_eq!(sent[..expect.len()], expect[..]);
            }
        }
        // Round 1 on: every other rank once per alltoall, as MPI_Alltoall's pairwise exchange.
        let par = params(json!({"first_round": 1}));
        let p = alltoall(&spec(&par, 8, 4096, 1, 0.0, 0)).unwrap();
        let mut all = partners(&p, 3);
        all.sort();
        assert_eq!(all, vec![0, 1, 2, 4, 5, 6, 7]);
    }

    /// A burst of puts is one operation; by default it flushes each put
    /// (GPCNeT's loop), and `flush_each = false` posts them all. Only puts
    /// take the key.
    #[test]
    fn an_incast_burst_flushes_each_put_unless_told_not_to() {
        let burst = |par: &crate::mpi::workloads::check::Params| {
            let mut s = spec(par, 4, 1024, 1, 0.0, 0);
            s.burst_messages = 1000;
            incast(&s)
        };
        let flags = |p: &Program| p.ops[1].iter().filter_map(|o| if let Op::PutBurst { count, flush_each, .. } = o { Some((*count, *flush_each)) } else { None }).collect::<Vec<_>>();
        let p = burst(&params(json!({}))).unwrap();
        consistent(&p);
        assert_eq!(flags(&p), vec![(1000, true)]);
        assert_eq!(flags(&burst(&params(json!({"flush_each": false}))).unwrap()), vec![(1000, false)]);
        let e = burst(&params(json!({"put": false, "flush_each": false}))).unwrap_err().to_string();
        assert!(e.contains("params.flush_each") && e.contains("puts only"), "{e}");
    }

    /// `params.completion` reaches every put, persistent or bursty; it is
    /// refused for a two-sided incast and for a name that is no completion.
    #[test]
    fn an_incast_puts_with_the_completion_it_is_given() {
        let completions = |p: &Program| -> Vec<Completion> {
            p.ops[2].iter().filter_map(|o| match o { Op::Put { completion, .. } | Op::PutBurst { completion, .. } => Some(*completion), _ => None }).collect()
        };
        for burst in [0, 100] {
            let par = params(json!({"completion": "transmit"}));
            let mut s = spec(&par, 4, 1024, 2, 0.0, 0);
            s.burst_messages = burst;
            let p = incast(&s).unwrap();
            consistent(&p);
            assert_eq!(completions(&p), vec![Completion::Transmit; 2], "burst {burst}");
        }
        assert_eq!(completions(&incast(&spec(&params(json!({})), 4, 1024, 1, 0.0, 0)).unwrap()), vec![Completion::Arrival]);
        let e = incast(&spec(&params(json!({"completion": "soon"})), 4, 1024, 1, 0.0, 0)).unwrap_err().to_string();
        assert!(e.contains("params.completion") && e.contains("\"transmit\""), "{e}");
        let e = incast(&spec(&params(json!({"put": false, "completion": "transmit"})), 4, 1024, 1, 0.0, 0)).unwrap_err().to_string();
        assert!(e.contains("params.completion") && e.contains("puts only"), "{e}");
    }

    #[test]
    fn a_first_round_outside_the_alltoall_is_refused_naming_it() {
        for k in [0u32, 8, 9] {
            let par = params(json!({"first_round": k}));
            let e = alltoall(&spec(&par, 8, 4096, 1, 0.0, 0)).unwrap_err().to_string();
            assert!(e.contains("params.first_round") && e.contains("rounds 1 to 7"), "{e}");
        }
    }
}
