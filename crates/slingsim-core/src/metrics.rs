//! Measurement: latency histograms with percentiles, per-source counters
//! (MODEL.md Sec. 8).

use crate::units::Ps;
use serde_json::{json, Value};

/// Sub-buckets per power of two: relative bucket width 1/128 (< 0.8 %).
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

/// Log-linear histogram of durations (latencies, completion times) with
/// an exact mean; percentiles are accurate to the bucket width. It counts
/// in raw picoseconds: the statistics it reports are in ps, as floats.
#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    max: u64,
}

/// Bucket of a value: exact below `SUB`, then `SUB / 2` buckets per octave.
#[inline]
fn bucket(v: u64) -> usize {
    if v < SUB {
        v as usize
    } else {
        let shift = 63 - v.leading_zeros() - (SUB_BITS - 1);
        (SUB + (shift as u64 - 1) * (SUB / 2) + ((v >> shift) - SUB / 2)) as usize
    }
}

/// Smallest value of bucket `b`.
#[inline]
fn bucket_low(b: usize) -> u64 {
    let b = b as u64;
    if b < SUB {
        b
    } else {
        let t = b - SUB;
        let shift = t / (SUB / 2) + 1;
        (t % (SUB / 2) + SUB / 2) << shift
    }
}

impl Histogram {
    /// Records one duration.
    #[inline]
    pub fn record(&mut self, d: Ps) {
        let v = d.0;
        let b = bucket(v);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.n += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Exact sum of the values (ps).
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// Exact mean (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// Largest value.
    pub fn max(&self) -> Ps {
        Ps(self.max)
    }

    /// Value at quantile q in [0, 1], the midpoint of its bucket.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let lo = bucket_low(b);
                let hi = bucket_low(b + 1).max(lo + 1);
                return ((lo + hi - 1) as f64 / 2.0).min(self.max as f64);
            }
        }
        self.max as f64
    }

    /// Merges another histogram.
    pub fn merge(&mut self, o: &Histogram) {
        if o.counts.len() > self.counts.len() {
            self.counts.resize(o.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.n += o.n;
        self.sum += o.sum;
        self.max = self.max.max(o.max);
    }

    /// `{mean, p50, p95, p99, p999, max, count}` scaled by `scale` (ps -> ns:
    /// 1e-3); the statistics are `null` when nothing was recorded, never 0.
    pub fn summary(&self, scale: f64) -> Value {
        if self.n == 0 {
            return json!({"mean": null, "p25": null, "p50": null, "p75": null, "p95": null, "p99": null, "p999": null, "max": null, "count": 0});
        }
        json!({
            "mean": self.mean() * scale,
            "p25": self.quantile(0.25) * scale,
            "p50": self.quantile(0.5) * scale,
            "p75": self.quantile(0.75) * scale,
            "p95": self.quantile(0.95) * scale,
            "p99": self.quantile(0.99) * scale,
            "p999": self.quantile(0.999) * scale,
            "max": self.max as f64 * scale,
            "count": self.n,
        })
    }
}

/// Counters of one traffic source.
#[derive(Clone, Debug, Default)]
pub struct SourceStats {
    /// Wire bytes of messages created inside the window.
    pub offered_wire: u64,
    /// Wire bytes delivered inside the window.
    pub accepted_wire: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Latency from message creation to tail delivery (measured packets).
    pub latency: Histogram,
    /// Latency from injection to tail delivery.
    pub network_latency: Histogram,
    pub hops_sum: u64,
    pub measured: u64,
    pub nonminimal: u64,
    pub fct: Histogram,
    pub flows: u64,
    /// Flows whose every byte arrived, and flows over whose bytes are all
    /// delivered or lost with some lost.
    pub flows_done: u64,
    pub flows_lost: u64,
    /// Payload bytes lost (lossy-class drops, end-to-end retries exhausted).
    pub lost_bytes: u64,
    /// Congestion signals (marked acks, CNPs) its packets brought back.
    pub congestion_signals: u64,
}

impl SourceStats {
    /// Adds another source's counters.
    pub fn merge(&mut self, o: &SourceStats) {
        self.offered_wire += o.offered_wire;
        self.accepted_wire += o.accepted_wire;
        self.packets_delivered += o.packets_delivered;
        self.bytes_delivered += o.bytes_delivered;
        self.latency.merge(&o.latency);
        self.network_latency.merge(&o.network_latency);
        self.hops_sum += o.hops_sum;
        self.measured += o.measured;
        self.nonminimal += o.nonminimal;
        self.lost_bytes += o.lost_bytes;
        self.congestion_signals += o.congestion_signals;
        self.fct.merge(&o.fct);
        self.flows += o.flows;
        self.flows_done += o.flows_done;
        self.flows_lost += o.flows_lost;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_tight() {
        let mut last = 0;
        for v in (0..2_000_000u64).step_by(7) {
            let b = bucket(v);
            assert!(b >= last);
            last = b;
            assert!(bucket_low(b) <= v && v < bucket_low(b + 1).max(bucket_low(b) + 1), "v {v} b {b}");
        }
    }

    #[test]
    fn percentiles_within_one_percent() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(Ps(v * 1000));
        }
        for (q, want) in [(0.5, 50_000_000.0), (0.99, 99_000_000.0), (0.999, 99_900_000.0)] {
            let got = h.quantile(q);
            assert!((got - want).abs() / want < 0.01, "q {q}: {got} vs {want}");
        }
        assert_eq!(h.mean(), 50_000_500.0);
    }
}
