//! Where a job's rendezvous messages spend their time, stage by stage
//! (issue 12: "measure where the time goes ... rendezvous round trips").
//!
//! A message above the eager threshold between nodes goes in four steps,
//! each timed from the end of the one before:
//! - *request*: from the send being posted until its request to send is
//!   ready to match at the receiver (the sender's CPU and NIC queues, the
//!   fabric, and any wait for earlier messages of the same pair);
//! - *match wait*: until the receiver matched it: its receive not posted
//!   yet (the receiver is behind), or its CPU busy walking posted
//!   receives;
//! - *clear to send*: until the receiver's clear to send is back at the
//!   sender;
//! - *data*: until the data has arrived at the receiver (the sender's
//!   queues, the wire time of the data, the fabric).

use crate::units::Ps;
use serde_json::{json, Value};

/// The stages, in order, as the summary names them.
pub const STAGES: [&str; 4] = ["request", "match_wait", "clear_to_send", "data"];
/// Indices of the stages in [`STAGES`] whose end a message carries (the
/// data's end is when it arrives).
pub const REQUEST: usize = 0;
pub const MATCH_WAIT: usize = 1;
pub const CLEAR_TO_SEND: usize = 2;

/// Sums over a job's completed rendezvous messages.
#[derive(Clone, Copy, Debug, Default)]
pub struct RendezvousTimes {
    /// Messages whose data arrived.
    pub messages: u64,
    /// Time in each stage ([`STAGES`]) over messages whose data arrived.
    total: [u128; 4],
}

/// When a rendezvous message's first three stages ended; the first began
/// when its send was posted (the envelope's `posted`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Stamps {
    pub ends: [Ps; 3],
}

impl Stamps {
    /// Stage `stage` ended at `t`.
    pub fn end(&mut self, stage: usize, t: Ps) {
        self.ends[stage] = t;
    }
}

impl RendezvousTimes {
    /// The data of a message posted at `posted` arrived at `arrived`: its
    /// four stages count (a message counts only once all four are known,
    /// so every sum covers the same ones). A stage is never taken to end
    /// before the one ahead of it.
    pub fn add(&mut self, posted: Ps, s: &Stamps, arrived: Ps) {
        self.messages += 1;
        let mut since = posted;
        for (sum, end) in self.total.iter_mut().zip(s.ends.iter().copied().chain([arrived])) {
            let end = end.max(since);
            *sum += (end - since).0 as u128;
            since = end;
        }
    }

    /// `{"messages", "mean_ns": {stage: ns}, "share": {stage: fraction}}`,
    /// or null when the job sent no rendezvous message that arrived.
    pub fn summary(&self) -> Value {
        if self.messages == 0 {
            return Value::Null;
        }
        let all: u128 = self.total.iter().sum();
        let mean: serde_json::Map<String, Value> =
            STAGES.iter().zip(self.total).map(|(k, t)| (k.to_string(), json!(t as f64 / self.messages as f64 / 1000.0))).collect();
        let share: serde_json::Map<String, Value> =
            STAGES.iter().zip(self.total).map(|(k, t)| (k.to_string(), json!(if all > 0 { t as f64 / all as f64 } else { 0.0 }))).collect();
        json!({"messages": self.messages, "mean_ns": mean, "share": share})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_add_up_to_the_message_time() {
        let ns = |n: u64| Ps(n * 1000);
        let mut s = Stamps::default();
        s.end(REQUEST, ns(1100));
        s.end(MATCH_WAIT, ns(1100)); // receive already posted
        s.end(CLEAR_TO_SEND, ns(2100));
        let mut r = RendezvousTimes::default();
        r.add(ns(100), &s, ns(5100));
        let mut late = Stamps::default();
        late.end(REQUEST, ns(1000));
        late.end(MATCH_WAIT, ns(4000));
        late.end(CLEAR_TO_SEND, ns(5000));
        r.add(ns(0), &late, ns(8000));
        let v = r.summary();
        assert_eq!(v["messages"], 2);
        assert_eq!(v["mean_ns"]["request"], 1000.0);
        assert_eq!(v["mean_ns"]["match_wait"], 1500.0);
        assert_eq!(v["mean_ns"]["data"], 3000.0);
        let share: f64 = STAGES.iter().map(|k| v["share"][k].as_f64().unwrap()).sum();
        assert!((share - 1.0).abs() < 1e-12);
        assert!(RendezvousTimes::default().summary().is_null());
    }

    #[test]
    fn a_stage_never_runs_backwards() {
        let mut s = Stamps::default();
        s.end(REQUEST, Ps(4000));
        s.end(MATCH_WAIT, Ps(6000));
        s.end(CLEAR_TO_SEND, Ps(7000));
        let mut r = RendezvousTimes::default();
        r.add(Ps(5000), &s, Ps(9000));
        let v = r.summary();
        assert_eq!(v["mean_ns"]["request"], 0.0);
        assert_eq!(v["mean_ns"]["match_wait"], 1.0);
        assert_eq!(STAGES.iter().map(|k| v["mean_ns"][k].as_f64().unwrap()).sum::<f64>(), 4.0);
    }
}
