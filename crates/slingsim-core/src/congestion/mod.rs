//! Congestion control (MODEL.md Sec. 5): the per endpoint-pair state a
//! source NIC keeps and how it reacts to congestion signals. The engine
//! (engine/congestion.rs) produces the signals: end-to-end acks marked by
//! congested egress edge ports (`slingshot`), ECN marks turned into CNPs
//! by the receiver (`dcqcn`).

use crate::config::CongestionConfig;
use crate::error::Result;
use crate::units::{ns_to_ps, Ps};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Which congestion control runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Back-pressure only (Aries).
    None,
    /// DCQCN: ECN marking at switch outputs, CNPs, rate cut and recovery.
    Dcqcn,
    /// Slingshot: acked endpoint pairs, windows cut to the congested port's
    /// fair share.
    Slingshot,
}

impl Algorithm {
    /// Parses `congestion.algorithm` (already validated by the config).
    pub fn parse(name: &str) -> Result<Algorithm> {
        match name {
            "dcqcn" => Ok(Algorithm::Dcqcn),
            "slingshot" => Ok(Algorithm::Slingshot),
            "none" => Ok(Algorithm::None),
            other => Err(crate::error::ConfigError::new("congestion.algorithm", format!("unknown congestion control {other:?}"))),
        }
    }
}

/// Parameters in engine units.
#[derive(Clone, Debug)]
pub struct Params {
    pub algorithm: Algorithm,
    pub port_threshold: u64,
    pub min_window: f64,
    pub max_window: f64,
    pub additive_increase: f64,
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
    pub g: f64,
    pub cnp_interval: Ps,
    pub alpha_timer: Ps,
    pub rate_timer: Ps,
    pub byte_counter: u64,
    pub fast_recovery_steps: u32,
    pub rai_bps: f64,
    pub rhai_bps: f64,
    pub min_rate_bps: f64,
    /// Injection rate of one NIC (one rail), bits/s.
    pub line_rate_bps: f64,
}

impl Params {
    /// From the config section and the NIC rate.
    pub fn new(c: &CongestionConfig, line_rate_bps: f64) -> Result<Params> {
        Ok(Params {
            algorithm: Algorithm::parse(&c.algorithm)?,
            port_threshold: c.port_threshold_bytes,
            min_window: c.min_window_bytes as f64,
            max_window: c.max_window_bytes as f64,
            additive_increase: c.additive_increase_bytes as f64,
            kmin: c.kmin_bytes,
            kmax: c.kmax_bytes,
            pmax: c.pmax,
            g: c.g,
            cnp_interval: ns_to_ps(c.cnp_interval_ns),
            alpha_timer: ns_to_ps(c.alpha_timer_ns),
            rate_timer: ns_to_ps(c.rate_timer_ns),
            byte_counter: c.byte_counter_bytes,
            fast_recovery_steps: c.fast_recovery_steps,
            rai_bps: c.rai_bps,
            rhai_bps: c.rhai_bps,
            min_rate_bps: c.min_rate_bps.min(line_rate_bps),
            line_rate_bps,
        })
    }

    /// DCQCN's RED marking probability for an output queue of `q` bytes.
    #[inline]
    pub fn ecn_probability(&self, q: u64) -> f64 {
        if q <= self.kmin {
            0.0
        } else if q >= self.kmax {
            1.0
        } else {
            self.pmax * (q - self.kmin) as f64 / (self.kmax - self.kmin) as f64
        }
    }

    /// Slingshot's congestion level of an egress port holding `q` bytes:
    /// 0 clear, 1 congested, 2 above twice the threshold.
    #[inline]
    pub fn congestion_level(&self, q: u64) -> u8 {
        if q > 2 * self.port_threshold {
            2
        } else if q > self.port_threshold {
            1
        } else {
            0
        }
    }
}

/// What a source NIC keeps per destination endpoint (and the receiver per
/// source, for CNP pacing), created on first use.
#[derive(Clone, Copy, Debug)]
pub struct PairState {
    /// Wire bytes sent and not yet acked.
    pub in_flight: u64,
    /// Slingshot: bytes this pair may have in flight.
    pub window: f64,
    /// DCQCN sender: current and target rate (bits/s), alpha, timers and
    /// increase stages, bytes toward the byte counter, pacing.
    pub rate: f64,
    pub target: f64,
    pub alpha: f64,
    pub alpha_stamp: Ps,
    pub timer_stamp: Ps,
    pub timer_stage: u32,
    pub byte_stage: u32,
    pub bytes_counted: u64,
    pub next_send: Ps,
    /// DCQCN receiver: when it last sent a CNP for this pair.
    pub last_cnp: Ps,
    /// Congestion signals received (marked acks or CNPs).
    pub signals: u64,
    /// Slingshot: the window was cut and is still below where it started.
    pub cut: bool,
    /// Slingshot: the window the pair started with (its bandwidth-delay product).
    pub initial_window: f64,
}

impl PairState {
    /// An unthrottled pair whose Slingshot window starts at `window`.
    pub fn with_window(p: &Params, window: f64) -> PairState {
        let w = window.min(p.max_window);
        PairState { window: w, initial_window: w, ..PairState::new(p) }
    }

    /// An unthrottled pair.
    pub fn new(p: &Params) -> PairState {
        PairState {
            in_flight: 0,
            window: p.max_window,
            rate: p.line_rate_bps,
            target: p.line_rate_bps,
            alpha: 1.0,
            alpha_stamp: 0,
            timer_stamp: 0,
            timer_stage: 0,
            byte_stage: 0,
            bytes_counted: 0,
            next_send: 0,
            last_cnp: 0,
            signals: 0,
            cut: false,
            initial_window: p.max_window,
        }
    }

    /// True if a packet of `wire` bytes may leave at `now` under the
    /// window. A pair with nothing in flight may send one packet, but a
    /// window smaller than a packet also spaces packets out (see
    /// [`PairState::slingshot_ack`]), so the pair's rate is window / RTT.
    #[inline]
    pub fn window_allows(&self, wire: u32, now: Ps) -> bool {
        if self.in_flight == 0 {
            return self.next_send <= now;
        }
        (self.in_flight + wire as u64) as f64 <= self.window
    }

    /// True if the pair is throttled: DCQCN rate below line rate, or a
    /// Slingshot window cut by a congestion mark and not yet recovered.
    pub fn throttled(&self, p: &Params) -> bool {
        self.rate < p.line_rate_bps || self.cut
    }

    /// Slingshot: an ack for `wire` bytes came back. A marked ack (level
    /// 1 or 2, `flows` sources feeding the congested port of `port_rate`
    /// bytes/s) cuts the window to the pair's fair share of what that port
    /// drains in one round trip `rtt` (half of it at level 2); clean acks
    /// grow it by `additive_increase` per window acked.
    pub fn slingshot_ack(&mut self, p: &Params, wire: u32, level: u8, flows: u32, port_rate: f64, rtt: Ps, now: Ps) {
        self.in_flight -= wire as u64;
        if level > 0 {
            self.signals += 1;
            let bdp = port_rate * rtt as f64 * 1e-12;
            let share = bdp / flows.max(1) as f64 / if level >= 2 { 2.0 } else { 1.0 };
            self.window = self.window.min(share.max(p.min_window));
            self.cut = self.window < self.initial_window;
        } else if self.cut {
            self.window = (self.window + p.additive_increase * wire as f64 / self.window).min(self.initial_window);
            self.cut = self.window < self.initial_window;
        }
        // A window below one packet: the next packet waits until the pair
        // has averaged `window` bytes per round trip.
        if self.in_flight == 0 && self.window < wire as f64 {
            self.next_send = now + (rtt as f64 * (wire as f64 / self.window - 1.0)) as Ps;
        }
    }

    /// DCQCN: brings alpha and the rate up to date with the timers that
    /// expired since the last look.
    pub fn dcqcn_refresh(&mut self, p: &Params, now: Ps) {
        if self.rate >= p.line_rate_bps {
            self.alpha_stamp = now;
            self.timer_stamp = now;
            return;
        }
        if now > self.alpha_stamp {
            let k = (now - self.alpha_stamp) / p.alpha_timer;
            if k > 0 {
                self.alpha *= (1.0 - p.g).powi(k.min(1 << 20) as i32);
                self.alpha_stamp += k * p.alpha_timer;
            }
        }
        if now > self.timer_stamp {
            let k = (now - self.timer_stamp) / p.rate_timer;
            self.timer_stamp += k * p.rate_timer;
            for _ in 0..k.min(4096) {
                self.timer_stage += 1;
                self.increase(p);
                if self.rate >= p.line_rate_bps {
                    break;
                }
            }
        }
    }

    /// DCQCN rate increase: fast recovery toward the target for the first
    /// steps, then additive, then hyper increase of the target.
    fn increase(&mut self, p: &Params) {
        let f = p.fast_recovery_steps;
        let (hi, lo) = (self.timer_stage.max(self.byte_stage), self.timer_stage.min(self.byte_stage));
        if hi < f {
            // fast recovery: only the rate moves
        } else if lo > f {
            self.target += (lo - f) as f64 * p.rhai_bps;
        } else {
            self.target += p.rai_bps;
        }
        self.target = self.target.min(p.line_rate_bps);
        self.rate = ((self.target + self.rate) / 2.0).min(p.line_rate_bps);
        if p.line_rate_bps - self.rate < 1e-6 * p.line_rate_bps {
            self.rate = p.line_rate_bps;
        }
    }

    /// DCQCN: a CNP arrived: cut the rate by alpha / 2 and restart recovery.
    pub fn dcqcn_cnp(&mut self, p: &Params, now: Ps) {
        self.dcqcn_refresh(p, now);
        self.signals += 1;
        self.target = self.rate;
        self.rate = (self.rate * (1.0 - self.alpha / 2.0)).max(p.min_rate_bps);
        self.alpha = (1.0 - p.g) * self.alpha + p.g;
        self.alpha_stamp = now;
        self.timer_stamp = now;
        self.timer_stage = 0;
        self.byte_stage = 0;
        self.bytes_counted = 0;
    }

    /// DCQCN: a packet of `wire` bytes leaves at `now`; paces the next one
    /// at the current rate and counts bytes toward a rate increase.
    pub fn dcqcn_sent(&mut self, p: &Params, wire: u32, now: Ps) {
        if self.rate >= p.line_rate_bps {
            self.next_send = now;
            return;
        }
        self.next_send = self.next_send.max(now) + (wire as f64 * 8.0e12 / self.rate) as Ps;
        self.bytes_counted += wire as u64;
        if self.bytes_counted >= p.byte_counter {
            self.bytes_counted -= p.byte_counter;
            self.byte_stage += 1;
            self.increase(p);
        }
    }
}

/// A fast hasher for integer keys (FxHash's multiply-rotate); DoS
/// resistance is not needed inside a simulation.
#[derive(Default, Clone, Copy)]
pub struct IntHasher(u64);

impl Hasher for IntHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A map keyed by integers.
pub type IntMap<V> = HashMap<u64, V, BuildHasherDefault<IntHasher>>;

/// Key of the pair (source endpoint, destination endpoint).
#[inline]
pub fn pair_key(src: u32, dst: u32) -> u64 {
    ((src as u64) << 32) | dst as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        Params::new(&CongestionConfig::default(), 100e9).unwrap()
    }

    #[test]
    fn slingshot_cuts_to_fair_share_and_recovers() {
        let p = params();
        let mut s = PairState::new(&p);
        s.in_flight = 8192;
        // 16 flows into a 12.5 GB/s port, 4 us round trip: 50 kB / 16.
        s.slingshot_ack(&p, 4096, 1, 16, 12.5e9, 4_000_000, 0);
        assert!((s.window - 3125.0).abs() < 1.0, "{}", s.window);
        assert!(s.throttled(&p));
        let cut = s.window;
        s.next_send = 0;
        for _ in 0..100 {
            s.in_flight += 1024;
            s.slingshot_ack(&p, 1024, 0, 0, 0.0, 0, 0);
        }
        assert!(s.window > cut);
    }

    #[test]
    fn dcqcn_cuts_by_alpha_and_recovers_with_timers() {
        let p = params();
        let mut s = PairState::new(&p);
        s.dcqcn_cnp(&p, 1_000);
        assert!((s.rate - 50e9).abs() < 1.0, "first cut halves the rate (alpha = 1)");
        let after_cut = s.rate;
        s.dcqcn_refresh(&p, 1_000 + 5 * p.rate_timer);
        assert!(s.rate > after_cut && s.rate < p.line_rate_bps);
        s.dcqcn_refresh(&p, 1_000 + 4000 * p.rate_timer);
        assert_eq!(s.rate, p.line_rate_bps);
    }

    #[test]
    fn red_marking_probability() {
        let p = params();
        assert_eq!(p.ecn_probability(p.kmin), 0.0);
        assert_eq!(p.ecn_probability(p.kmax), 1.0);
        let mid = p.ecn_probability((p.kmin + p.kmax) / 2);
        assert!((mid - p.pmax / 2.0).abs() < 1e-9);
    }
}
