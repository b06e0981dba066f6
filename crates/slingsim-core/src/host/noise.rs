//! Host noise (`[host.noise]`): detours of each rank's CPU away from the
//! application (timer interrupts, daemons, the kernel's own work), the
//! delays [DeSensi19] Sec. 3.3 separates from network noise: a ping-pong's
//! time varies more than its packets' latency because of them.
//!
//! Each rank's CPU takes a detour of `duration_ns` on average every
//! `interval_ns`: at exponential gaps (`process = "poisson"`) or at a fixed
//! period from a random phase per rank (`"periodic"`). During a detour the
//! rank runs nothing: an operation it would start waits for the detour's
//! end, and a detour that begins while it computes or spends CPU time on a
//! message (posting it, a collective's round, completing a receive, a
//! software matching walk) lengthens that by the detour. A detour that
//! begins and ends while the rank waits for the network delays nothing.
//! The NIC is not affected. The parameters of a machine's noise are not in
//! the papers: a study gives its own (the `aries-time-vs-latency` and
//! `aries-node-alltoall` recipes say which).

use serde::{Deserialize, Serialize};

use crate::error::{ConfigError, Result};
use crate::rng::Rng;
use crate::units::{ns_to_ps, Ps};

/// How detours follow each other on one CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoiseProcess {
    /// Exponential gaps between detours, the mean `interval_ns`.
    Poisson,
    /// Exactly `interval_ns` apart, from a random phase per rank.
    Periodic,
}

impl crate::names::Named for NoiseProcess {
    const WHAT: &'static str = "noise process";
    const REGISTRY: &'static [(&'static str, Self)] = &[("poisson", NoiseProcess::Poisson), ("periodic", NoiseProcess::Periodic)];
}
crate::named_serde!(NoiseProcess);

/// `[host.noise]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct NoiseConfig {
    /// Mean time from one detour's start to the next's (0: no noise).
    pub interval_ns: f64,
    /// Length of each detour.
    pub duration_ns: f64,
    pub process: NoiseProcess,
}

impl Default for NoiseConfig {
    fn default() -> Self {
        NoiseConfig { interval_ns: 0.0, duration_ns: 0.0, process: NoiseProcess::Poisson }
    }
}

impl NoiseConfig {
    /// Checks the ranges; the error names the field.
    pub fn check(&self) -> Result<()> {
        for (k, v) in [("host.noise.interval_ns", self.interval_ns), ("host.noise.duration_ns", self.duration_ns)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(ConfigError::new(k, format!("must be zero or a positive number of nanoseconds, got {v}")));
            }
        }
        if self.interval_ns == 0.0 && self.duration_ns > 0.0 {
            return Err(ConfigError::new("host.noise.interval_ns", "detours have a duration but no interval: give the mean time between them, or set duration_ns = 0"));
        }
        if self.interval_ns > 0.0 && !(self.duration_ns > 0.0 && self.duration_ns < self.interval_ns) {
            return Err(ConfigError::new(
                "host.noise.duration_ns",
                format!("must be above 0 and below interval_ns ({} ns): a CPU in detours all the time runs nothing", self.interval_ns),
            ));
        }
        Ok(())
    }

    /// The noise in engine units, None when there is none.
    pub fn detours(&self) -> Option<Detours> {
        (self.interval_ns > 0.0).then(|| Detours { interval: ns_to_ps(self.interval_ns), duration: ns_to_ps(self.duration_ns), process: self.process })
    }
}

/// The detours of every rank's CPU, in picoseconds.
#[derive(Clone, Copy, Debug)]
pub struct Detours {
    pub interval: Ps,
    pub duration: Ps,
    pub process: NoiseProcess,
}

impl Detours {
    /// When the first detour of a CPU starting at `start` begins.
    pub fn first(&self, start: Ps, rng: &mut Rng) -> Ps {
        match self.process {
            NoiseProcess::Periodic => start + Ps((rng.unit() * self.interval.0 as f64) as u64),
            NoiseProcess::Poisson => start + self.gap(rng),
        }
    }

    /// When the detour after the one beginning at `at` begins.
    pub fn next(&self, at: Ps, rng: &mut Rng) -> Ps {
        match self.process {
            NoiseProcess::Periodic => at + self.interval,
            NoiseProcess::Poisson => at + self.duration + self.gap(rng),
        }
    }

    /// An exponential gap from one detour's end to the next's start, of
    /// mean `interval - duration` (so starts are `interval` apart on average).
    fn gap(&self, rng: &mut Rng) -> Ps {
        let mean = (self.interval.0 - self.duration.0) as f64;
        let u = rng.unit();
        Ps((-(1.0 - u).ln() * mean) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detours_come_at_the_mean_interval_and_never_overlap() {
        for process in [NoiseProcess::Poisson, NoiseProcess::Periodic] {
            let d = NoiseConfig { interval_ns: 1000.0, duration_ns: 100.0, process }.detours().unwrap();
            let mut rng = Rng::new(1, 2);
            let mut at = d.first(Ps::ZERO, &mut rng);
            let first = at;
            let n = 20_000;
            for _ in 0..n {
                let next = d.next(at, &mut rng);
                assert!(next >= at + d.duration, "{process:?}: a detour starts before the last ended");
                at = next;
            }
            let mean = (at.0 - first.0) as f64 / n as f64;
            assert!((mean - 1_000_000.0).abs() < 20_000.0, "{process:?}: mean interval {mean} ps");
        }
    }

    #[test]
    fn bad_noise_names_the_field() {
        let bad = |interval_ns, duration_ns| NoiseConfig { interval_ns, duration_ns, process: NoiseProcess::Poisson }.check().unwrap_err().field;
        assert_eq!(bad(0.0, 5.0), "host.noise.interval_ns");
        assert_eq!(bad(100.0, 100.0), "host.noise.duration_ns");
        assert_eq!(bad(100.0, 0.0), "host.noise.duration_ns");
        assert_eq!(bad(-1.0, 0.0), "host.noise.interval_ns");
        assert!(NoiseConfig::default().check().is_ok());
        assert!(NoiseConfig::default().detours().is_none());
    }
}
