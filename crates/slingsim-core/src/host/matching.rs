//! MPI tag matching as a cost ([Roweth] Sec. IV-C, Sec. V Fig. 8): an
//! arriving two-sided message walks its receiver's list of posted
//! receives in order until one fits; every entry it passes over is a
//! failed match attempt. Where the walk runs decides what it costs:
//!
//! - `software` (a ConnectX-5 RoCE host: the MPI library matches on the
//!   CPU): each failed attempt takes `software_attempt_ns` of the
//!   receiving rank's CPU, one walk after another, before the receive can
//!   complete;
//! - `nic` (Cassini offloads matching): the walk runs in the receiving
//!   NIC's matching unit, one message after another, pipelined with the
//!   rest of the NIC's per-message work. A message then holds the unit for
//!   the longer of `nic_message_ns` (the NIC's per-message time at its
//!   rated message rate) and its failed attempts at
//!   `nic_message_ns / nic_attempts_hidden` each: up to
//!   `nic_attempts_hidden` attempts per message hide behind the message
//!   rate, more lower it in proportion. Cassini's target, met in Fig. 8,
//!   is 64.
//!
//! Only the walk an arriving message makes over the posted receives is
//! costed (what Fig. 8 measures); a receive posted while messages wait
//! unexpected searches them for free.

use serde::{Deserialize, Serialize};

use crate::error::{ConfigError, Result};
use crate::units::{ns_to_ps, Ps};

/// Where MPI's posted-receive list is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchingLocation {
    /// By the MPI library on the receiving rank's CPU.
    Software,
    /// By the receiving NIC in hardware (Cassini, [Roweth] Sec. I and V).
    Nic,
}

impl crate::names::Named for MatchingLocation {
    const WHAT: &'static str = "matching location";
    const REGISTRY: &'static [(&'static str, Self)] = &[("software", MatchingLocation::Software), ("nic", MatchingLocation::Nic)];
}
crate::named_serde!(MatchingLocation);

/// `[host.matching]`: where matching runs and what an attempt costs.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MatchingConfig {
    /// `software` (the default RoCE host) or `nic` (Cassini).
    pub location: MatchingLocation,
    /// CPU time per failed attempt in software: one list entry read and
    /// compared, often a cache miss *(assumed; 0 makes matching free, as
    /// before matching was modelled)*.
    pub software_attempt_ns: f64,
    /// The NIC matching unit's time per message at the NIC's rated
    /// message rate *(assumed for Cassini: Fig. 8's values are not in the
    /// paper's text)*; required when `location = "nic"`.
    pub nic_message_ns: f64,
    /// Failed attempts per message the unit absorbs within
    /// `nic_message_ns` (Cassini's target, met in [Roweth] Fig. 8: 64).
    pub nic_attempts_hidden: u32,
}

impl Default for MatchingConfig {
    fn default() -> Self {
        MatchingConfig { location: MatchingLocation::Software, software_attempt_ns: 0.0, nic_message_ns: 0.0, nic_attempts_hidden: 64 }
    }
}

impl MatchingConfig {
    /// Checks the ranges; errors name the field and the fix.
    pub fn check(&self) -> Result<()> {
        use crate::limits::{check, check_count, OVERHEAD_NS};
        check("host.matching.software_attempt_ns", self.software_attempt_ns, &OVERHEAD_NS)?;
        check("host.matching.nic_message_ns", self.nic_message_ns, &OVERHEAD_NS)?;
        check_count("host.matching.nic_attempts_hidden", self.nic_attempts_hidden as u64, 1, 1 << 20, "attempts per message (Cassini: 64, [Roweth] Fig. 8)")?;
        if self.location == MatchingLocation::Nic && self.nic_message_ns <= 0.0 {
            return Err(ConfigError::new(
                "host.matching.nic_message_ns",
                "matching in the NIC hides its attempts behind the NIC's time per message, which is 0 here; give it (a few ns: \
                 1e9 / the NIC's message rate per second) or set host.matching.location = \"software\"",
            ));
        }
        Ok(())
    }
}

/// Matching costs in engine units.
#[derive(Clone, Copy, Debug)]
pub struct MatchingCosts {
    pub location: MatchingLocation,
    software_attempt: Ps,
    nic_message: Ps,
    nic_attempt_ps: f64,
}

impl MatchingCosts {
    /// The costs `c` gives.
    pub fn new(c: &MatchingConfig) -> MatchingCosts {
        let nic_message = ns_to_ps(c.nic_message_ns);
        MatchingCosts {
            location: c.location,
            software_attempt: ns_to_ps(c.software_attempt_ns),
            nic_message,
            nic_attempt_ps: nic_message.as_f64() / c.nic_attempts_hidden.max(1) as f64,
        }
    }

    /// False when matching costs nothing (software at 0 ns an attempt):
    /// the walk then takes no time and holds nothing, as before it was
    /// modelled.
    pub fn active(&self) -> bool {
        self.location == MatchingLocation::Nic || self.software_attempt > Ps::ZERO
    }

    /// How long a message that passes over `failed` posted receives holds
    /// the unit that matches it (the rank's CPU or the NIC's matcher).
    pub fn hold(&self, failed: u64) -> Ps {
        match self.location {
            MatchingLocation::Software => self.software_attempt * failed,
            MatchingLocation::Nic => self.nic_message.max(Ps::from_f64((self.nic_attempt_ps * failed as f64).round())),
        }
    }

    /// A walk over `failed` entries for a message ready at `t`, on a unit
    /// free from `*busy`: returns when it has matched, and keeps the unit
    /// busy until then (one walk at a time).
    pub fn walk(&self, failed: u64, t: Ps, busy: &mut Ps) -> Ps {
        if !self.active() {
            return t;
        }
        let end = t.max(*busy) + self.hold(failed);
        *busy = end;
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nic() -> MatchingCosts {
        MatchingCosts::new(&MatchingConfig { location: MatchingLocation::Nic, nic_message_ns: 10.0, ..MatchingConfig::default() })
    }

    #[test]
    fn the_nic_hides_up_to_its_attempts_behind_the_message_time_then_slows_in_proportion() {
        let m = nic();
        assert_eq!(m.hold(0), Ps(10_000));
        assert_eq!(m.hold(64), Ps(10_000), "64 attempts fit in one message time");
        assert_eq!(m.hold(128), Ps(20_000));
        assert_eq!(m.hold(256), Ps(40_000));
    }

    #[test]
    fn software_attempts_cost_cpu_each_and_walks_queue_behind_each_other() {
        let m = MatchingCosts::new(&MatchingConfig { software_attempt_ns: 10.0, ..MatchingConfig::default() });
        let mut busy = Ps::ZERO;
        assert_eq!(m.walk(64, Ps(1_000), &mut busy), Ps(641_000));
        assert_eq!(m.walk(0, Ps(2_000), &mut busy), Ps(641_000), "waits for the walk ahead");
        let free = MatchingCosts::new(&MatchingConfig::default());
        let mut busy = Ps(5_000_000);
        assert_eq!(free.walk(1000, Ps(1_000), &mut busy), Ps(1_000), "free matching holds nothing");
    }

    #[test]
    fn nic_matching_without_a_message_time_is_refused_with_the_fix() {
        let c = MatchingConfig { location: MatchingLocation::Nic, ..MatchingConfig::default() };
        let e = c.check().unwrap_err();
        assert_eq!(e.field, "host.matching.nic_message_ns");
        assert!(e.message.contains("location = \"software\""), "{e}");
        assert_eq!(MatchingConfig { nic_attempts_hidden: 0, ..MatchingConfig::default() }.check().unwrap_err().field, "host.matching.nic_attempts_hidden");
    }
}
