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
    /// Rounds every rank of the communicator completed.
    rounds: u64,
    /// Sum and maximum of their spreads.
    total: u128,
    max: Ps,
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
            self.close(last - first);
        }
    }

    fn close(&mut self, spread: Ps) {
        self.rounds += 1;
        self.total += spread.0 as u128;
        self.max = self.max.max(spread);
    }

    /// `{"rounds", "spread_ns": {"mean", "max"}, "open_rounds"}` over the
    /// rounds every rank completed (`open_rounds`: rounds some ranks had not
    /// completed when the run ended, or that only some ranks run, as in a
    /// collective whose rank count is not a power of two; not in the
    /// spreads), or null when no round closed.
    pub fn summary(&self) -> Value {
        if self.rounds == 0 {
            return Value::Null;
        }
        json!({
            "rounds": self.rounds,
            "spread_ns": {"mean": self.total as f64 / self.rounds as f64 / 1000.0, "max": self.max.0 as f64 / 1000.0},
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
    }
}
