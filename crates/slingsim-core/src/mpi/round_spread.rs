//! How far apart the ranks of a collective finish each of its rounds
//! (issue 12: "measure where the time goes (per-round synchronisation,
//! ...)").
//!
//! A collective runs as rounds (`mpi/collectives.rs`); a rank starts round
//! k + 1 once every request of its round k has completed. For each round of
//! each collective call, the *spread* is the latest minus the earliest time
//! a rank of the communicator completed it. A spread near zero says the
//! ranks go through the rounds together, as a schedule's bound that sums
//! its rounds assumes (`experiments/schedule_bound.py`); a spread as long
//! as a round says ranks drift rounds apart, so their rounds mix.

use crate::congestion::IntHasher;
use crate::units::Ps;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// A round of one collective call: communicator, the call's tag, round.
type RoundKey = (u32, i32, u32);

/// Completion times of the rounds still open and the spreads of those done.
#[derive(Clone, Debug, Default)]
pub struct RoundSpread {
    /// Per open round: ranks that completed it, earliest and latest time.
    /// Only looked up and counted, never iterated, so its order cannot
    /// reach a result.
    open: HashMap<RoundKey, (u32, Ps, Ps), BuildHasherDefault<IntHasher>>,
    /// Per round index (a round k of any call), the rounds every rank of
    /// the communicator completed and the sum and maximum of their
    /// spreads: whether ranks drift further apart round after round. The
    /// totals over every round are summed from it.
    by_round: Vec<(u64, u128, Ps)>,
}

impl RoundSpread {
    /// A rank of a communicator of `size` ranks completed round `round` of
    /// the call tagged `tag` at `at`. The round closes once all `size` have.
    pub fn add(&mut self, comm: u32, tag: i32, round: u32, size: u32, at: Ps) {
        let key = (comm, tag, round);
        let e = self.open.entry(key).or_insert((0, at, at));
        e.0 += 1;
        e.1 = e.1.min(at);
        e.2 = e.2.max(at);
        if e.0 >= size {
            let (_, first, last) = self.open.remove(&key).expect("just updated");
            self.close(round as usize, last - first);
        }
    }

    fn close(&mut self, round: usize, spread: Ps) {
        if self.by_round.len() <= round {
            self.by_round.resize(round + 1, (0, 0, Ps::ZERO));
        }
        let r = &mut self.by_round[round];
        r.0 += 1;
        r.1 += spread.0 as u128;
        r.2 = r.2.max(spread);
    }

    /// `{"rounds", "spread_ns": {"mean", "max"}, "spread_ns_by_round":
    /// {"mean": [..], "max": [..]}, "open_rounds"}` over the rounds every
    /// rank completed (`open_rounds`: rounds some ranks had not completed
    /// when the run ended, or that only some ranks run, as in a collective
    /// whose rank count is not a power of two; not in the spreads), or null
    /// when no round closed. `spread_ns_by_round` has one entry per round
    /// index, over every call's round of that index (null where none closed).
    pub fn summary(&self) -> Value {
        let rounds: u64 = self.by_round.iter().map(|r| r.0).sum();
        if rounds == 0 {
            return Value::Null;
        }
        let total: u128 = self.by_round.iter().map(|r| r.1).sum();
        let widest = self.by_round.iter().map(|r| r.2).max().unwrap_or(Ps::ZERO);
        let ns = |ps: f64| ps / 1000.0;
        let mean: Vec<Value> = self.by_round.iter().map(|&(n, sum, _)| if n == 0 { Value::Null } else { json!(ns(sum as f64 / n as f64)) }).collect();
        let max: Vec<Value> = self.by_round.iter().map(|&(n, _, m)| if n == 0 { Value::Null } else { json!(ns(m.0 as f64)) }).collect();
        json!({
            "rounds": rounds,
            "spread_ns": {"mean": ns(total as f64 / rounds as f64), "max": ns(widest.0 as f64)},
            "spread_ns_by_round": {"mean": mean, "max": max},
            "open_rounds": self.open.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_closes_when_every_rank_has_completed_it() {
        let mut s = RoundSpread::default();
        s.add(0, 0, 0, 3, Ps(5_000));
        s.add(0, 0, 0, 3, Ps(2_000));
        assert!(s.summary().is_null(), "two of three ranks: still open");
        s.add(0, 0, 0, 3, Ps(9_000));
        s.add(0, 1, 0, 3, Ps(1_000)); // the next call's round: open
        let v = s.summary();
        assert_eq!(v["rounds"], 1);
        assert_eq!(v["spread_ns"]["mean"], 7.0);
        assert_eq!(v["spread_ns"]["max"], 7.0);
        assert_eq!(v["open_rounds"], 1);
        assert_eq!(v["spread_ns_by_round"]["mean"], json!([7.0]));
    }

    #[test]
    fn spreads_are_kept_per_round_index_over_the_calls() {
        let mut s = RoundSpread::default();
        // Two calls of a 2-rank collective; round 2 of the second call only.
        for (tag, round, a, b) in [(0, 0, 1_000, 2_000), (0, 1, 3_000, 7_000), (1, 0, 10_000, 13_000), (1, 2, 20_000, 20_000)] {
            s.add(0, tag, round, 2, Ps(a));
            s.add(0, tag, round, 2, Ps(b));
        }
        let v = s.summary();
        assert_eq!(v["rounds"], 4);
        assert_eq!(v["spread_ns_by_round"]["mean"], json!([2.0, 4.0, 0.0]));
        assert_eq!(v["spread_ns_by_round"]["max"], json!([3.0, 4.0, 0.0]));
    }
}
