//! A job's statistical stopping rule (`stop_rule` of a `[[job]]`).
//!
//! [DeSensi20] Sec. II-B runs each victim "at least 200 times and for at
//! least 4 seconds" and stops "when the 95% confidence interval is within
//! 5% of the median". With a stop rule a job runs its iterations until,
//! after an iteration that every rank has finished, it has run at least
//! `min_iterations`, for at least `min_time_ns` since it started, and the
//! 95% confidence interval of the median iteration time lies within
//! `ci_fraction` of the median on both sides; `iterations` is then the
//! most it may run. The ranks finish the iteration the furthest of them is
//! in and stop there, so every collective they began completes.
//!
//! `"paper"` is 200 iterations and 5%, without the 4 s: four simulated
//! seconds of a congested 512-node run take hours to simulate, and a
//! simulated network has no operating-system noise that a long run would
//! average out. `{ min_time_ns = 4e9 }` adds it.
//!
//! The interval is the distribution-free one of order statistics: with
//! `n` times sorted, ranks `(n - 1.96 sqrt(n)) / 2` and `1 + (n + 1.96
//! sqrt(n)) / 2` (rounded outwards, 1-based) bound the median with about
//! 95% confidence (Conover, Practical Nonparametric Statistics, Sec. 3.2).

use crate::error::{ConfigError, Result};
use crate::units::Ps;
use serde_json::Value;

/// When a job may stop repeating its iterations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StopRule {
    pub min_iterations: u32,
    pub min_time: Ps,
    pub ci_fraction: f64,
}

/// The named rules and what they stand for.
pub const NAMES: [&str; 1] = ["paper"];

/// The rule `"paper"` stands for.
pub const PAPER: StopRule = StopRule { min_iterations: 200, min_time: Ps::ZERO, ci_fraction: 0.05 };

/// The fewest iterations a rule may ask for: below six the interval's
/// ranks fall outside the sample.
pub const FEWEST: u32 = 6;

/// How many iterations a job with a stop rule and no `iterations` may run
/// at most: this many times its `min_iterations`.
pub const DEFAULT_CAP_FACTOR: u32 = 10;

impl StopRule {
    /// The rule `value` of field `field` gives: `"paper"` or a table of
    /// `min_iterations`, `min_time_ns` and `ci_fraction` (each defaulting
    /// to the paper's).
    pub fn parse(field: &str, value: &Value) -> Result<StopRule> {
        match value {
            Value::String(name) if name == "paper" => Ok(PAPER),
            Value::String(name) => Err(ConfigError::new(field, format!("unknown rule {name:?}; the named rules are {NAMES:?}, or give a table {{ min_iterations, min_time_ns, ci_fraction }}"))),
            Value::Object(table) => {
                let mut rule = PAPER;
                for (key, v) in table {
                    let at = format!("{field}.{key}");
                    match key.as_str() {
                        "min_iterations" => {
                            let n = v.as_u64().filter(|&n| (FEWEST as u64..=u32::MAX as u64).contains(&n));
                            rule.min_iterations = n.ok_or_else(|| ConfigError::new(&at, format!("must be an integer of at least {FEWEST} (the confidence interval of a median needs six times)")))? as u32;
                        }
                        "min_time_ns" => {
                            let t = v.as_f64().filter(|t| t.is_finite() && *t >= 0.0);
                            rule.min_time = crate::units::ns_to_ps(t.ok_or_else(|| ConfigError::new(&at, "must be zero or a positive number of nanoseconds"))?);
                        }
                        "ci_fraction" => {
                            let f = v.as_f64().filter(|f| *f > 0.0 && *f < 1.0);
                            rule.ci_fraction = f.ok_or_else(|| ConfigError::new(&at, "must lie between 0 and 1 (0.05: within 5% of the median)"))?;
                        }
                        _ => return Err(ConfigError::new(&at, "unknown key; a stop rule has min_iterations, min_time_ns and ci_fraction")),
                    }
                }
                Ok(rule)
            }
            _ => Err(ConfigError::new(field, "must be \"paper\" or a table { min_iterations, min_time_ns, ci_fraction }")),
        }
    }

    /// The median of `times` and its 95% confidence interval, if `times`
    /// meet the rule after running for `ran`; `Err` with the same
    /// figures (or `None` when too few) if not.
    pub fn check(&self, times: &[Ps], ran: Ps) -> std::result::Result<MedianInterval, Option<MedianInterval>> {
        if times.len() < self.min_iterations.max(FEWEST) as usize {
            return Err(None);
        }
        let m = median_interval(times);
        let f = self.ci_fraction;
        let within = m.lo >= m.median * (1.0 - f) && m.hi <= m.median * (1.0 + f);
        if within && ran >= self.min_time {
            Ok(m)
        } else {
            Err(Some(m))
        }
    }
}

/// A median and the bounds of its 95% confidence interval, in ps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MedianInterval {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The median of `times` (at least [`FEWEST`]) and its distribution-free
/// 95% confidence interval (see the module doc).
pub fn median_interval(times: &[Ps]) -> MedianInterval {
    let mut v: Vec<u64> = times.iter().map(|t| t.0).collect();
    v.sort_unstable();
    let n = v.len();
    let median = if n % 2 == 1 { v[n / 2] as f64 } else { (v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0 };
    let half = 1.96 * (n as f64).sqrt() / 2.0;
    let lo_rank = ((n as f64 / 2.0 - half).floor() as usize).max(1);
    let hi_rank = ((1.0 + n as f64 / 2.0 + half).ceil() as usize).min(n);
    MedianInterval { median, lo: v[lo_rank - 1] as f64, hi: v[hi_rank - 1] as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ps(v: &[u64]) -> Vec<Ps> {
        v.iter().map(|&x| Ps(x)).collect()
    }

    #[test]
    fn interval_ranks_are_the_order_statistics_of_the_normal_approximation() {
        // n = 100: ranks floor(50 - 9.8) = 40 and ceil(1 + 50 + 9.8) = 61.
        let times = ps(&(1..=100).collect::<Vec<_>>());
        let m = median_interval(&times);
        assert_eq!((m.median, m.lo, m.hi), (50.5, 40.0, 61.0));
        // Odd n, unsorted input.
        let m = median_interval(&ps(&[9, 1, 5, 3, 7, 2, 8]));
        assert_eq!(m.median, 5.0);
        assert!(m.lo <= 5.0 && m.hi >= 5.0);
    }

    #[test]
    fn a_steady_job_meets_the_paper_rule_at_its_minimum_and_not_before() {
        let steady: Vec<Ps> = (0..300).map(|i| Ps(1_000_000 + (i % 7) * 1000)).collect();
        assert_eq!(PAPER.check(&steady[..199], Ps(1)), Err(None));
        let m = PAPER.check(&steady[..200], Ps(1)).expect("within 5%");
        assert!(m.lo >= 0.95 * m.median && m.hi <= 1.05 * m.median);
    }

    #[test]
    fn a_spread_job_or_a_short_one_does_not_meet_it() {
        // Times spread evenly over 1x-3x: the interval spans far more than 5%.
        let spread: Vec<Ps> = (0..400).map(|i| Ps(1_000 + (i * 37 % 400) * 5)).collect();
        assert!(matches!(PAPER.check(&spread, Ps(1)), Err(Some(_))));
        let rule = StopRule { min_time: Ps(1_000_000), ..PAPER };
        let steady = vec![Ps(10); 250];
        assert!(rule.check(&steady, Ps(999_999)).is_err(), "not yet run for the minimum time");
        assert!(rule.check(&steady, Ps(1_000_000)).is_ok());
    }

    #[test]
    fn parsing_names_the_field_and_the_fix() {
        assert_eq!(StopRule::parse("job[0].stop_rule", &json!("paper")).unwrap(), PAPER);
        let r = StopRule::parse("f", &json!({"min_iterations": 50, "ci_fraction": 0.1, "min_time_ns": 4e9})).unwrap();
        assert_eq!((r.min_iterations, r.min_time, r.ci_fraction), (50, Ps(4_000_000_000_000), 0.1));
        for (bad, field) in [
            (json!("papers"), "f"),
            (json!(3), "f"),
            (json!({"min_iterations": 5}), "f.min_iterations"),
            (json!({"ci_fraction": 1.5}), "f.ci_fraction"),
            (json!({"min_time_ns": -1}), "f.min_time_ns"),
            (json!({"confidence": 0.9}), "f.confidence"),
        ] {
            let e = StopRule::parse("f", &bad).unwrap_err();
            assert_eq!(e.field, field, "{bad}");
        }
    }
}
