//! Application-aware routing (paper 004 Sec. 4, Algorithm 1): before each
//! message a rank picks ADAPTIVE (`adaptive-0`) or ADAPTIVE WITH HIGH BIAS
//! (`adaptive-3`) from the NIC counters of the messages it sent before.
//!
//! The paper models a message of `f` flits in `p` packets as taking
//! `(p + 512) / 1024 * L + f * (s + 1)` cycles (its Eq. 2), with `L` the
//! packet latency and `s` the stall per flit the NIC counters report. A
//! rank keeps the last `L` and `s` it saw under each mode; the mode it is
//! not using is estimated from the other by the scaling factors `lambda`
//! (latency) and `sigma` (stalls) once its own sample is older than
//! `max_age` messages. It then takes the mode with the lower estimate,
//! which is Eqs. 3 and 4 and their dual. Messages are only weighed once
//! `threshold_bytes` have gone out since the last decision; until then a
//! message goes with high bias, which has the lower latency for small
//! messages, and its counters are not read (the paper's threshold exists
//! to spare reading them), so only decided messages give samples.
//!
//! Which counters make a sample is `counters`: each decided message's own,
//! read when it completes (`message`), or the node's NIC counters read at
//! each decision, what changed since the rank's previous read credited to
//! the mode the rank was using (`nic`, Algorithm 1 as the paper ran it).

use serde::{Deserialize, Serialize};

use crate::engine::NicCounters;
use crate::error::{ConfigError, Result};
use crate::routing::Algorithm;

/// A job's `routing` value that selects it.
pub const ROUTING_NAME: &str = "app-aware";

/// The two modes the algorithm chooses between.
pub const MODES: [Algorithm; 2] = [Algorithm::Adaptive(0), Algorithm::Adaptive(3)];
const ADAPTIVE: usize = 0;
const HIGH_BIAS: usize = 1;

/// `[mpi.app_aware]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AppAwareConfig {
    /// L of high bias over L of adaptive, for the estimate *(assumed: the
    /// paper derives it from a median over microbenchmarks, not given)*.
    pub latency_scale: f64,
    /// Stall per flit of high bias over that of adaptive *(assumed)*.
    pub stall_scale: f64,
    /// Bytes sent between two decisions (paper: 4 KiB).
    pub threshold_bytes: u64,
    /// A mode's own sample is replaced by the estimate once the other mode
    /// has been sampled this many times since *(assumed: the paper
    /// discards samples "to avoid relying on data related to a different
    /// application phase" and gives no count)*. 1024 keeps a sample for
    /// longer than one MPI_Alltoall of the 1024-rank Daint job (1023
    /// messages per rank), so one collective is one phase. With 8 (until
    /// 2026-11-29) a sample expired within one collective and the estimate
    /// took its place: on Cori's 4 KiB alltoall high bias had the higher
    /// packet latency (2.94 against 2.69 us), the reverse of what
    /// `latency_scale` assumes, so the estimate kept high bias for 70% of
    /// the messages and app-aware took 1.15x DEFAULT's time (1.06x now).
    pub max_age: u32,
    /// Which counters a sample is made of (see [`CounterRead`]).
    pub counters: CounterRead,
}

/// `mpi.app_aware.counters`: what a rank reads to sample a mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CounterRead {
    /// Each decided message's own counters, read when its last packet is
    /// delivered: a sample of one mode, one message and one destination,
    /// known only once that message is done.
    #[default]
    Message,
    /// The node's NIC counters, read before each decision: the packets
    /// delivered and the flits sent since the rank's previous read, whatever
    /// their mode or sender, credited to the mode of the rank's last
    /// decision. [DeSensi19] Sec. 2.3 and 4.2: Aries users read the NIC's
    /// counters only; Algorithm 1 stores the counters read after a message
    /// is sent as the current mode's L and s.
    Nic,
}

impl Default for AppAwareConfig {
    fn default() -> Self {
        AppAwareConfig { latency_scale: 0.8, stall_scale: 2.0, threshold_bytes: 4096, max_age: 1024, counters: CounterRead::Message }
    }
}

impl AppAwareConfig {
    pub fn check(&self) -> Result<()> {
        for (field, v) in [("mpi.app_aware.latency_scale", self.latency_scale), ("mpi.app_aware.stall_scale", self.stall_scale)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(ConfigError::new(field, format!("must be positive, got {v}")));
            }
        }
        Ok(())
    }
}

/// A sample of the NIC counters of one message: mean packet latency and
/// mean stall per flit (both ps).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub latency: f64,
    pub stall: f64,
}

impl Sample {
    /// Mean packet latency and stall per flit of counters `c` (a message's
    /// own, or what a NIC's gained between two reads); None if no packet of
    /// them was delivered.
    pub fn of(c: &NicCounters) -> Option<Sample> {
        (c.delivered > 0).then(|| Sample {
            latency: c.latency_ps.as_f64() / c.delivered as f64,
            stall: if c.flits == 0 { 0.0 } else { c.stalled_ps.as_f64() / c.flits as f64 },
        })
    }
}

/// One rank's state.
#[derive(Clone, Debug, Default)]
pub struct RankState {
    current: usize,
    samples: [Option<(Sample, u32)>; 2],
    since_decision: u64,
    /// The NIC counters at this rank's previous read (`counters = "nic"`).
    last_read: NicCounters,
}

impl RankState {
    /// The mode (index into [`MODES`]) for a message of `bytes` in
    /// `packets` packets and `flits` flits, and whether the algorithm
    /// decided it (with `counters = "message"` its counters are then to be
    /// observed when it completes). `nic` gives what the node's NIC counters
    /// read now; with `counters = "nic"` a decision first samples the
    /// current mode from them.
    pub fn choose(&mut self, c: &AppAwareConfig, bytes: u64, packets: u64, flits: u64, nic: impl FnOnce() -> NicCounters) -> (usize, bool) {
        self.since_decision += bytes;
        if self.since_decision < c.threshold_bytes {
            return (HIGH_BIAS, false);
        }
        self.since_decision = 0;
        if c.counters == CounterRead::Nic {
            self.read_nic(nic());
        }
        (self.decide(c, packets, flits), true)
    }

    /// What changed on the NIC since the previous read becomes a sample of
    /// the current mode; nothing delivered in between, no sample.
    fn read_nic(&mut self, now: NicCounters) {
        let was = std::mem::replace(&mut self.last_read, now);
        if let Some(sample) = Sample::of(&now.since(&was)) {
            self.observe(self.current, sample);
        }
    }

    fn decide(&mut self, c: &AppAwareConfig, packets: u64, flits: u64) -> usize {
        let cur = self.current;
        let Some((mine, _)) = self.samples[cur] else { return cur };
        let other = 1 - cur;
        let theirs = match self.samples[other] {
            Some((s, age)) if age <= c.max_age => s,
            _ => scaled(c, mine, cur),
        };
        let time = |s: Sample| (packets as f64 + 512.0) / 1024.0 * s.latency + flits as f64 * s.stall;
        if time(theirs) < time(mine) {
            self.current = other;
        }
        self.current
    }

    /// The mode the rank's last decision chose (adaptive before any).
    pub fn current(&self) -> usize {
        self.current
    }

    /// Records the counters of a message sent with `mode`.
    pub fn observe(&mut self, mode: usize, sample: Sample) {
        self.samples[mode] = Some((sample, 0));
        if let Some((_, age)) = self.samples[1 - mode].as_mut() {
            *age += 1;
        }
    }
}

/// The other mode's counters estimated from `s`, seen under `mode`.
fn scaled(c: &AppAwareConfig, s: Sample, mode: usize) -> Sample {
    if mode == ADAPTIVE {
        Sample { latency: s.latency * c.latency_scale, stall: s.stall * c.stall_scale }
    } else {
        Sample { latency: s.latency / c.latency_scale, stall: s.stall / c.stall_scale }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c() -> AppAwareConfig {
        AppAwareConfig::default()
    }

    impl RankState {
        fn choose_msg(&mut self, c: &AppAwareConfig, bytes: u64, packets: u64, flits: u64) -> (usize, bool) {
            self.choose(c, bytes, packets, flits, || panic!("message counters never read the NIC"))
        }
    }

    #[test]
    fn small_messages_go_with_high_bias_until_the_threshold() {
        let mut r = RankState::default();
        assert_eq!(r.choose_msg(&c(), 1000, 1, 63), (HIGH_BIAS, false));
        assert_eq!(r.choose_msg(&c(), 1000, 1, 63), (HIGH_BIAS, false));
        // 4 KiB reached: a decision, and with no sample yet the current mode (adaptive).
        assert_eq!(r.choose_msg(&c(), 3000, 1, 188), (ADAPTIVE, true));
    }

    #[test]
    fn few_flits_favour_the_lower_latency_many_favour_fewer_stalls() {
        // Adaptive: L = 2000 ns, s = 1 ns/flit; high bias estimated 1600 ns, 2 ns/flit.
        // Eq. 4: high bias pays off below (2000 - 1600) / (2 - 1) * (p + 512) / 1024 = ~200 flits.
        let mut r = RankState::default();
        r.observe(ADAPTIVE, Sample { latency: 2.0e6, stall: 1.0e3 });
        assert_eq!(r.choose_msg(&c(), 4096, 1, 128).0, HIGH_BIAS, "128 flits, under the ~200 of Eq. 4");
        let mut r = RankState::default();
        r.observe(ADAPTIVE, Sample { latency: 2.0e6, stall: 1.0e3 });
        assert_eq!(r.choose_msg(&c(), 1 << 20, 256, 65_536).0, ADAPTIVE, "a long message is bound by its stalls");
    }

    #[test]
    fn fresh_samples_of_both_modes_beat_the_estimate_and_old_ones_expire() {
        let mut r = RankState { current: HIGH_BIAS, ..Default::default() };
        // High bias measured with far more stalls than the scaling factor assumes.
        r.observe(ADAPTIVE, Sample { latency: 2.0e6, stall: 1.0e3 });
        r.observe(HIGH_BIAS, Sample { latency: 1.9e6, stall: 50.0e3 });
        assert_eq!(r.choose_msg(&c(), 1 << 20, 256, 65_536).0, ADAPTIVE);
        // After max_age high-bias samples, adaptive's sample is replaced by the estimate.
        let mut r = RankState { current: HIGH_BIAS, ..Default::default() };
        r.observe(ADAPTIVE, Sample { latency: 1.0e6, stall: 0.0 });
        for _ in 0..=c().max_age {
            r.observe(HIGH_BIAS, Sample { latency: 1.5e6, stall: 1.0e3 });
        }
        // Estimate for adaptive: 1.5e6 / 0.8 = 1.875e6 latency, 500 ps stall.
        assert_eq!(r.choose_msg(&c(), 4096, 1, 256).0, HIGH_BIAS);
    }

    #[test]
    fn nic_reads_credit_what_changed_since_the_last_read_to_the_current_mode() {
        let cfg = AppAwareConfig { counters: CounterRead::Nic, ..c() };
        let mut r = RankState::default();
        let read = |latency_ps: f64, delivered, stalled_ps: f64, flits| NicCounters {
            latency_ps: crate::units::Ps::from_f64(latency_ps),
            delivered,
            stalled_ps: crate::units::Ps::from_f64(stalled_ps),
            flits,
            ..Default::default()
        };
        // First decision: 10 packets at 2 us, no stall, credited to adaptive (the starting mode);
        // high bias is then estimated (0.8 x 2 us, no stall) and taken.
        assert_eq!(r.choose(&cfg, 4096, 64, 320, || read(20.0e6, 10, 0.0, 50)), (HIGH_BIAS, true));
        assert_eq!(r.samples[ADAPTIVE].unwrap().0, Sample { latency: 2.0e6, stall: 0.0 });
        // Nothing delivered since: no sample, the decision stands on the stored ones.
        assert_eq!(r.choose(&cfg, 4096, 64, 320, || read(20.0e6, 10, 0.0, 60)), (HIGH_BIAS, true));
        assert!(r.samples[HIGH_BIAS].is_none());
        // 10 more packets at 3 us with 5 ns of stall per flit over 100 flits: high bias's sample,
        // worse than adaptive's on both counts, so back to adaptive.
        assert_eq!(r.choose(&cfg, 4096, 64, 320, || read(50.0e6, 20, 500.0e3, 160)), (ADAPTIVE, true));
        assert_eq!(r.samples[HIGH_BIAS].unwrap().0, Sample { latency: 3.0e6, stall: 5.0e3 });
        // Below the threshold nothing is read.
        assert_eq!(r.choose(&cfg, 100, 1, 5, || panic!("read below the threshold")), (HIGH_BIAS, false));
    }
}
