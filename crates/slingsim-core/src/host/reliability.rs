//! Cassini's two end-to-end reliability models ([Roweth] Sec. IV-B) and
//! the result store of the unrestricted one.
//!
//! An operation that may be replayed (a put, a get: idempotent) uses the
//! *restricted* model: connectionless, a retried request simply runs
//! again. One that must run once only (a fetching AMO) uses the
//! *unrestricted* model: the target keeps each operation's result in a
//! store until the operation has completed, and looks a retried request
//! up there before running it. If the request was lost the store is
//! empty and the retry runs safely; if the response was lost the retry is
//! answered from the store instead of running the operation twice.
//!
//! What the engine can replay: a lost fetch-and-add request or response
//! makes the initiator resend its request when its retry timer expires
//! (the engine's `rma.rs`); after a lost request the store is empty and the
//! operation runs safely, after a lost response it has run already. A lost
//! put or get packet is resent by its own NIC as a packet and never runs
//! twice, so only AMOs can be re-executed here.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How a kind of operation is made reliable end to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReliabilityModel {
    /// Connectionless; a retried request runs again.
    Restricted,
    /// Results kept at the target until completion; a retry finds them.
    Unrestricted,
}

impl crate::names::Named for ReliabilityModel {
    const WHAT: &'static str = "reliability model";
    const REGISTRY: &'static [(&'static str, Self)] = &[("restricted", ReliabilityModel::Restricted), ("unrestricted", ReliabilityModel::Unrestricted)];
}
crate::named_serde!(ReliabilityModel);

/// `[host.reliability]`: the model of each kind of one-sided operation.
/// The defaults are Cassini's ([Roweth] Sec. IV-B): restricted for the
/// idempotent puts and gets, unrestricted for AMOs.
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReliabilityConfig {
    pub put: ReliabilityModel,
    pub get: ReliabilityModel,
    /// Fetch-and-add. `restricted` is allowed, to show what goes wrong:
    /// every re-execution it causes is counted as a correctness violation.
    pub amo: ReliabilityModel,
}

impl Default for ReliabilityConfig {
    fn default() -> Self {
        ReliabilityConfig { put: ReliabilityModel::Restricted, get: ReliabilityModel::Restricted, amo: ReliabilityModel::Unrestricted }
    }
}

/// An operation at its target, as the result store knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct OpKey {
    /// The target's node (one store per NIC).
    pub node: u32,
    /// The operation's run-wide id.
    pub op: u64,
}

/// What happens to a request arriving at its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Run it (first run, or a retry whose request had been lost).
    Execute,
    /// Answer a retry from the store with this result, without running it.
    FromStore(u64),
}

/// The result stores of every NIC, and what the reliability models did.
#[derive(Clone, Debug, Default)]
pub struct ResultStore {
    entries: BTreeMap<OpKey, u64>,
    /// Entries held per node now, and the most any node held at once.
    held: BTreeMap<u32, u64>,
    pub max_entries: u64,
    /// Results stored, and retries answered from the store.
    pub stored: u64,
    pub hits: u64,
    /// Operations run under each model, counting re-executions.
    pub restricted_runs: u64,
    pub unrestricted_runs: u64,
    /// Operations run a second time (a retry under the restricted model
    /// whose first run had happened), and of those the ones that were not
    /// idempotent: wrong results.
    pub reexecutions: u64,
    pub violations: u64,
    /// Fetch-and-add requests and responses lost: each makes the
    /// initiator resend its request.
    pub lost_requests: u64,
    pub lost_responses: u64,
}

impl ResultStore {
    /// A request for operation `key` under `model`; `ran` says it is a
    /// resend after a lost response, so a first run has happened.
    pub fn arrive(&mut self, key: OpKey, model: ReliabilityModel, ran: bool, idempotent: bool) -> Arrival {
        match model {
            ReliabilityModel::Unrestricted => {
                if let Some(&v) = self.entries.get(&key) {
                    self.hits += 1;
                    return Arrival::FromStore(v);
                }
                self.unrestricted_runs += 1;
            }
            ReliabilityModel::Restricted => {
                self.restricted_runs += 1;
                if ran {
                    self.reexecutions += 1;
                    if !idempotent {
                        self.violations += 1;
                    }
                }
            }
        }
        Arrival::Execute
    }

    /// Keeps the result of an operation run under the unrestricted model.
    pub fn store(&mut self, key: OpKey, result: u64) {
        if self.entries.insert(key, result).is_none() {
            self.stored += 1;
            let n = self.held.entry(key.node).or_insert(0);
            *n += 1;
            self.max_entries = self.max_entries.max(*n);
        }
    }

    /// The operation completed: its entry, if any, is freed.
    pub fn release(&mut self, key: OpKey) {
        if self.entries.remove(&key).is_some() {
            *self.held.get_mut(&key.node).expect("a held entry has its node") -= 1;
        }
    }

    /// Entries held now, over every NIC.
    pub fn entries(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ReliabilityModel::*;

    #[test]
    fn an_unrestricted_retry_after_a_lost_response_is_answered_from_the_store() {
        let mut s = ResultStore::default();
        let k = OpKey { node: 3, op: 7 };
        assert_eq!(s.arrive(k, Unrestricted, false, false), Arrival::Execute);
        s.store(k, 41);
        assert_eq!(s.arrive(k, Unrestricted, true, false), Arrival::FromStore(41));
        assert_eq!((s.hits, s.reexecutions, s.violations, s.max_entries), (1, 0, 0, 1));
        s.release(k);
        assert_eq!(s.entries(), 0);
    }

    #[test]
    fn a_restricted_retry_runs_again_and_is_a_violation_only_when_not_idempotent() {
        let mut s = ResultStore::default();
        let k = OpKey { node: 0, op: 1 };
        assert_eq!(s.arrive(k, Restricted, true, true), Arrival::Execute);
        assert_eq!((s.reexecutions, s.violations), (1, 0));
        assert_eq!(s.arrive(k, Restricted, true, false), Arrival::Execute);
        assert_eq!((s.reexecutions, s.violations), (2, 1));
        assert_eq!(s.stored, 0, "the restricted model keeps nothing");
    }

    #[test]
    fn occupancy_is_counted_per_nic() {
        let mut s = ResultStore::default();
        for op in 0..3 {
            s.store(OpKey { node: 1, op }, op);
        }
        s.store(OpKey { node: 2, op: 9 }, 0);
        s.release(OpKey { node: 1, op: 0 });
        s.store(OpKey { node: 1, op: 5 }, 0);
        assert_eq!((s.max_entries, s.entries()), (3, 4));
    }
}
