//! DCQCN, the standard RoCE congestion control (MODEL.md Sec. 5): switch
//! outputs mark packets' ECN bit with the RED probability of their queue,
//! the receiver answers marked packets with a CNP (at most one per pair
//! per interval), and the sender cuts its rate by alpha / 2 and recovers
//! it by timers and a byte counter (fast recovery, additive, hyper
//! increase). Parameters: the SIGCOMM'15 DCQCN paper's marking, NVIDIA
//! ConnectX defaults for the sender and receiver (docs/mechanisms.md).

use crate::ids::{ChannelId, EndpointId};
use super::{pair_key, Ack, Admit, CongestionControl, IntMap, Marks, PathView};
use crate::config::CongestionConfig;
use crate::rng::Rng;
use crate::units::{ns_to_ps, Ps};
use serde_json::{json, Map, Value};

/// DCQCN's parameters in engine units.
#[derive(Clone, Debug)]
pub struct Params {
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
    pub fn new(c: &CongestionConfig, line_rate_bps: f64) -> Params {
        Params {
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
        }
    }

    /// The RED marking probability for an output queue of `q` bytes.
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
}

/// What a sender keeps per destination (and the receiver per source, for
/// CNP pacing), created on first use.
#[derive(Clone, Copy, Debug)]
pub struct Pair {
    /// Sender: current and target rate (bits/s), alpha, timers and
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
    /// Receiver: when it last sent a CNP for this pair (0: never).
    pub last_cnp: Ps,
}

impl Pair {
    /// A pair at line rate.
    pub fn new(p: &Params) -> Pair {
        Pair {
            rate: p.line_rate_bps,
            target: p.line_rate_bps,
            alpha: 1.0,
            alpha_stamp: Ps::ZERO,
            timer_stamp: Ps::ZERO,
            timer_stage: 0,
            byte_stage: 0,
            bytes_counted: 0,
            next_send: Ps::ZERO,
            last_cnp: Ps::ZERO,
        }
    }

    /// True while the rate is below line rate.
    pub fn throttled(&self, p: &Params) -> bool {
        self.rate < p.line_rate_bps
    }

    /// Brings alpha and the rate up to date with the timers that expired
    /// since the last look.
    pub fn refresh(&mut self, p: &Params, now: Ps) {
        if self.rate >= p.line_rate_bps {
            self.alpha_stamp = now;
            self.timer_stamp = now;
            return;
        }
        if now > self.alpha_stamp {
            let k = (now - self.alpha_stamp) / p.alpha_timer;
            if k > 0 {
                self.alpha *= (1.0 - p.g).powi(k.min(1 << 20) as i32);
                self.alpha_stamp += p.alpha_timer * k;
            }
        }
        if now > self.timer_stamp {
            let k = (now - self.timer_stamp) / p.rate_timer;
            self.timer_stamp += p.rate_timer * k;
            for _ in 0..k.min(4096) {
                self.timer_stage += 1;
                self.increase(p);
                if self.rate >= p.line_rate_bps {
                    break;
                }
            }
        }
    }

    /// Rate increase: fast recovery toward the target for the first steps,
    /// then additive, then hyper increase of the target.
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

    /// A CNP arrived: cut the rate by alpha / 2 and restart recovery.
    pub fn cut(&mut self, p: &Params, now: Ps) {
        self.refresh(p, now);
        self.target = self.rate;
        self.rate = (self.rate * (1.0 - self.alpha / 2.0)).max(p.min_rate_bps);
        self.alpha = (1.0 - p.g) * self.alpha + p.g;
        self.alpha_stamp = now;
        self.timer_stamp = now;
        self.timer_stage = 0;
        self.byte_stage = 0;
        self.bytes_counted = 0;
    }

    /// A packet of `wire` bytes leaves at `now`; paces the next one at the
    /// current rate and counts bytes toward a rate increase.
    pub fn sent(&mut self, p: &Params, wire: u32, now: Ps) {
        if self.rate >= p.line_rate_bps {
            self.next_send = now;
            return;
        }
        self.next_send = self.next_send.max(now) + Ps::from_f64(wire as f64 * 8.0e12 / self.rate);
        self.bytes_counted += wire as u64;
        if self.bytes_counted >= p.byte_counter {
            self.bytes_counted -= p.byte_counter;
            self.byte_stage += 1;
            self.increase(p);
        }
    }
}

/// DCQCN's state in a run: the pairs that are throttled or were notified.
pub struct Dcqcn {
    p: Params,
    pairs: IntMap<Pair>,
    ecn_marks: u64,
    cnps: u64,
}

impl Dcqcn {
    /// DCQCN with the parameters of `c` for NICs of `line_rate_bps`.
    pub fn new(c: &CongestionConfig, line_rate_bps: f64) -> Dcqcn {
        Dcqcn { p: Params::new(c, line_rate_bps), pairs: Default::default(), ecn_marks: 0, cnps: 0 }
    }
}

impl CongestionControl for Dcqcn {
    fn needs_acks(&self) -> bool {
        false
    }

    fn admit(&mut self, src: EndpointId, dst: EndpointId, _wire: u32, now: Ps) -> Admit {
        match self.pairs.get_mut(&pair_key(src, dst)) {
            Some(st) => {
                st.refresh(&self.p, now);
                if st.next_send > now {
                    Admit::At(st.next_send)
                } else {
                    Admit::Now
                }
            }
            None => Admit::Now,
        }
    }

    fn refuses_any_size(&self) -> bool {
        true // pacing holds the pair's next packet, whatever its size
    }

    fn on_inject(&mut self, src: EndpointId, dst: EndpointId, wire: u32, now: Ps, _path: &dyn PathView) {
        let key = pair_key(src, dst);
        if let Some(st) = self.pairs.get_mut(&key) {
            st.sent(&self.p, wire, now);
            // Back at line rate and no recent CNP from the receiver: forget the pair.
            if st.rate >= self.p.line_rate_bps && now >= st.last_cnp + self.p.cnp_interval {
                self.pairs.remove(&key);
            }
        }
    }

    fn on_egress_enqueue(&mut self, _ch: ChannelId, _to_endpoint: bool, _queued: u64, _src: EndpointId) -> Option<Marks> {
        None
    }

    fn on_egress(&mut self, _ch: ChannelId, _to_endpoint: bool, queued: u64, _src: EndpointId, _dst: EndpointId, _message_end: bool, _now: Ps, marks: &mut Marks, rng: &mut Rng) {
        let prob = self.p.ecn_probability(queued);
        if prob > 0.0 && rng.unit() < prob {
            marks.ecn = true;
            self.ecn_marks += 1;
        }
    }

    fn on_deliver(&mut self, src: EndpointId, dst: EndpointId, marks: Marks, t: Ps) -> bool {
        if !marks.ecn {
            return false;
        }
        let p = &self.p;
        let st = self.pairs.entry(pair_key(src, dst)).or_insert_with(|| Pair::new(p));
        // last_cnp = 0: none sent yet (a sent one is stamped at least 1).
        if st.last_cnp == Ps::ZERO || t >= st.last_cnp + p.cnp_interval {
            st.last_cnp = t.max(Ps(1));
            self.cnps += 1;
            return true;
        }
        false
    }

    fn on_ack(&mut self, ack: &Ack, now: Ps, _path: &dyn PathView) {
        if ack.cnp {
            let p = &self.p;
            self.pairs.entry(pair_key(ack.src, ack.dst)).or_insert_with(|| Pair::new(p)).cut(p, now);
        }
    }

    fn on_loss(&mut self, _src: EndpointId, _dst: EndpointId, _wire: u32) {}

    fn summary(&self) -> Map<String, Value> {
        let throttled = self.pairs.values().filter(|p| p.throttled(&self.p)).count();
        let mut m = Map::new();
        m.insert("ecn_marks".into(), json!(self.ecn_marks));
        m.insert("cnps".into(), json!(self.cnps));
        m.insert("throttled_pairs".into(), json!(throttled));
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        Params::new(&CongestionConfig::default(), 100e9)
    }

    #[test]
    fn cuts_by_alpha_and_recovers_with_timers() {
        let p = params();
        let mut s = Pair::new(&p);
        s.cut(&p, Ps(1_000));
        assert!((s.rate - 50e9).abs() < 1.0, "first cut halves the rate (alpha = 1)");
        let after_cut = s.rate;
        s.refresh(&p, Ps(1_000) + p.rate_timer * 5);
        assert!(s.rate > after_cut && s.rate < p.line_rate_bps);
        s.refresh(&p, Ps(1_000) + p.rate_timer * 4000);
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
