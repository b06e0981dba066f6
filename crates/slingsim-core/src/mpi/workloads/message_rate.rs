//! A message-rate test with failed match attempts, after the modified
//! message-rate test of [Roweth] Sec. V, Fig. 8: rank i sends windows of
//! small messages to rank i + n/2, whose receives are posted behind
//! `unmatched` receives that no message fits, so every message walks past
//! that many posted receives (failed match attempts) before it matches.

use super::Spec;
use crate::error::{ConfigError, Result};
use crate::mpi::op::{Op, Program};

/// Parameters the workload takes.
pub const PARAMS: &[&str] = &["window", "unmatched"];

/// Messages in flight per window when the job does not say (the usual
/// window of a message-rate test).
pub const DEFAULT_WINDOW: u32 = 64;

/// Tags: the measured messages, the receiver's end-of-window reply, and
/// the receives nothing is sent to.
const DATA_TAG: i32 = 0;
const REPLY_TAG: i32 = 1;
const NEVER_TAG: i32 = 2;

/// Per iteration the sender posts `window` sends of `bytes` and waits for
/// them, then for a 4-byte reply; the receiver posts `window` receives,
/// waits, and replies. Before the first window the receiver posts
/// `unmatched` receives from its sender with a tag nothing carries; they
/// stay at the head of its posted list for the whole run. The job's
/// message rate is (ranks / 2) x window / the mean iteration time.
pub fn message_rate(spec: &Spec) -> Result<Program> {
    let n = spec.ranks;
    if n < 2 || n % 2 != 0 {
        return Err(ConfigError::new(format!("{}.nodes", spec.field), format!("the message-rate test pairs ranks: it needs an even number of ranks, got {n}")));
    }
    let window = spec.param_u32("window", DEFAULT_WINDOW)?;
    if window == 0 {
        return Err(ConfigError::new(format!("{}.params.window", spec.field), "must be at least 1 message per window"));
    }
    let unmatched = spec.param_u32("unmatched", 0)?;
    crate::limits::check_count(&format!("{}.params.unmatched", spec.field), unmatched as u64, 0, 1 << 20, "posted receives (Fig. 8 goes to a few hundred)")?;
    let half = n / 2;
    let mut p = Program::new(n);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        let r = r as u32;
        let sender = r < half;
        let peer = if sender { r + half } else { r - half } as i32;
        if !sender {
            // Request ids above the window's stay open for the whole run.
            ops.extend((0..unmatched).map(|k| Op::Irecv { comm: 0, peer, tag: NEVER_TAG, bytes: spec.bytes, req: window + k }));
        }
        for _ in 0..spec.iterations {
            for req in 0..window {
                ops.push(if sender {
                    Op::Isend { comm: 0, peer, tag: DATA_TAG, bytes: spec.bytes, req }
                } else {
                    Op::Irecv { comm: 0, peer, tag: DATA_TAG, bytes: spec.bytes, req }
                });
            }
            ops.push(Op::Wait { reqs: (0..window).collect() });
            ops.push(if sender {
                Op::Recv { comm: 0, peer, tag: REPLY_TAG, bytes: 4 }
            } else {
                Op::Send { comm: 0, peer, tag: REPLY_TAG, bytes: 4 }
            });
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(params: &serde_json::Map<String, serde_json::Value>, ranks: u32) -> Spec<'_> {
        Spec { field: "job[0]".into(), ranks, bytes: 8, iterations: 2, compute_ns: 0.0, burst_messages: 0, burst_gap_ns: 0.0, params, seed: 0 }
    }

    #[test]
    fn receivers_post_the_unmatched_receives_once_ahead_of_every_window() {
        let params = serde_json::json!({"window": 4, "unmatched": 3}).as_object().unwrap().clone();
        let p = message_rate(&spec(&params, 4)).unwrap();
        let never = |ops: &Vec<Op>| ops.iter().filter(|o| matches!(o, Op::Irecv { tag: NEVER_TAG, .. })).count();
        assert_eq!(never(&p.ops[2]), 3);
        assert_eq!(never(&p.ops[0]), 0, "senders post none");
        assert!(matches!(p.ops[2][0], Op::Irecv { tag: NEVER_TAG, peer: 0, .. }), "they come first");
        let sends = p.ops[1].iter().filter(|o| matches!(o, Op::Isend { peer: 3, tag: DATA_TAG, .. })).count();
        assert_eq!(sends, 8, "two windows of four");
        assert!(message_rate(&spec(&params, 3)).is_err(), "odd rank count");
    }
}
