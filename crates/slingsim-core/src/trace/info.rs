//! A summary of a program, whatever made it (a DUMPI or OTF2 trace, a
//! generator): what `slingsim trace info` prints.
//!
//! Keys: `ranks`; `calls`, the traced run's MPI calls by name when known,
//! otherwise the program's operations by kind (`isend`, `allreduce`, ...);
//! `bytes`, the bytes the ranks send; `matched_messages` and
//! `unmatched_messages` from [`crate::trace::matching`]; `warnings`.
//!
//! Bytes sent count each point-to-point send and put once (none to
//! MPI_PROC_NULL) and, for collectives, the least data each rank must send
//! whatever the algorithm: bcast, the root's buffer once; reduce, each
//! non-root's buffer; allreduce and allgather, each rank's buffer; gather,
//! each non-root's contribution; scatter, the root's blocks for the others;
//! alltoall, each rank's blocks for the others; reduce_scatter, each rank's
//! blocks for the others; barrier, nothing. A communicator of one rank
//! sends nothing.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::matching::match_messages;
use crate::error::{ConfigError, Result};
use crate::mpi::{Collective, Op, Program, PROC_NULL};

/// The summary of `program`; `calls` are the traced run's call counts, if known.
pub fn program_info(program: &Program, calls: Option<&BTreeMap<String, u64>>) -> Value {
    let calls = match calls {
        Some(c) => c.clone(),
        None => op_counts(program),
    };
    let matching = match_messages(program);
    json!({
        "ranks": program.ranks,
        "calls": calls,
        "bytes": bytes_sent(program),
        "matched_messages": matching.matched,
        "unmatched_messages": matching.unmatched(),
        "warnings": program.warnings,
    })
}

/// [`program_info`] of a program given as JSON text (the serde form of
/// [`Program`]), with call counts given as a JSON object if known.
pub fn program_info_json(program_json: &str, calls_json: Option<&str>) -> Result<Value> {
    let program: Program = serde_json::from_str(program_json).map_err(|e| ConfigError::new("program", format!("not a program: {e}")))?;
    let calls: Option<BTreeMap<String, u64>> = match calls_json {
        Some(text) => {
            Some(serde_json::from_str(text).map_err(|e| ConfigError::new("calls", format!("not an object of call name -> count: {e}")))?)
        }
        None => None,
    };
    Ok(program_info(&program, calls.as_ref()))
}

/// Operations by kind; collectives by their collective's name.
pub fn op_counts(program: &Program) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for op in program.ops.iter().flatten() {
        let name = match op {
            Op::Coll { kind, .. } => kind.name().to_string(),
            other => serde_json::to_value(other).ok().and_then(|v| v["op"].as_str().map(str::to_string)).unwrap_or_default(),
        };
        *counts.entry(name).or_insert(0) += 1;
    }
    counts
}

/// Bytes all ranks send, point-to-point and collective.
pub fn bytes_sent(program: &Program) -> u64 {
    let mut total = 0;
    for (world, ops) in program.ops.iter().enumerate() {
        for op in ops {
            total += match op {
                Op::Send { peer, bytes, .. } | Op::Isend { peer, bytes, .. } if *peer != PROC_NULL => *bytes,
                Op::Put { bytes, .. } => *bytes,
                Op::PutBurst { bytes, count, .. } => *bytes * *count as u64,
                Op::Coll { kind, comm, bytes, root, counts, .. } => {
                    let members = program.comms.get(*comm as usize).map(Vec::as_slice).unwrap_or_default();
                    match program.rank_in(*comm, world) {
                        Some(me) => collective_bytes(*kind, *bytes, counts.as_deref(), me, *root as usize, members.len()),
                        None => 0,
                    }
                }
                _ => 0,
            };
        }
    }
    total
}

/// The least bytes rank `me` of `n` sends in one collective.
fn collective_bytes(kind: Collective, bytes: u64, counts: Option<&[u64]>, me: usize, root: usize, n: usize) -> u64 {
    if n < 2 {
        return 0;
    }
    let at = |i: usize| counts.and_then(|c| c.get(i).copied()).unwrap_or(bytes);
    let others = |skip: usize| (0..n).filter(|&i| i != skip).map(at).sum::<u64>();
    match kind {
        Collective::Barrier => 0,
        Collective::Bcast => if me == root { bytes } else { 0 },
        Collective::Reduce => if me == root { 0 } else { bytes },
        Collective::Allreduce => bytes,
        Collective::Allgather => bytes,
        Collective::Gather => if me == root { 0 } else { bytes },
        Collective::Scatter => if me == root { others(root) } else { 0 },
        Collective::Alltoall | Collective::ReduceScatter => others(me),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_count_point_to_point_once_and_collectives_at_their_least() {
        let mut p = Program::new(4);
        let coll = |kind, bytes, root| Op::Coll { kind, comm: 0, bytes, root, counts: None, req: None };
        p.ops[0] = vec![
            Op::Send { comm: 0, peer: 1, tag: 0, bytes: 100 },
            Op::Isend { comm: 0, peer: PROC_NULL, tag: 0, bytes: 50, req: 0 },
            coll(Collective::Bcast, 8, 0),
            coll(Collective::Alltoall, 10, 0),
        ];
        for r in 1..4 {
            p.ops[r] = vec![coll(Collective::Bcast, 8, 0), coll(Collective::Alltoall, 10, 0)];
        }
        p.ops[1].insert(0, Op::Recv { comm: 0, peer: 0, tag: 0, bytes: 100 });
        // 100 (send) + 8 (bcast root) + 4 ranks x 3 x 10 (alltoall).
        assert_eq!(bytes_sent(&p), 100 + 8 + 120);
        let info = program_info(&p, None);
        assert_eq!(info["matched_messages"], 1);
        assert_eq!(info["unmatched_messages"], 0);
        assert_eq!(info["calls"]["bcast"], 4);
        assert_eq!(info["calls"]["send"], 1);
        let keys: Vec<&String> = info.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["ranks", "calls", "bytes", "matched_messages", "unmatched_messages", "warnings"]);
    }
}
