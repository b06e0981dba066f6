//! The physical ranges a config's numbers must fall in. Each range says
//! what it allows in the config's own unit; a value outside it, NaN or an
//! infinity is refused with the field, the range and the value, before
//! anything is built (so no time overflows picoseconds, no rate is zero or
//! absurd, no loop runs forever on a bad parameter).

use crate::error::{ConfigError, Result};

/// An allowed range of a number, and how to say it.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    pub min: f64,
    pub max: f64,
    /// The range in words, with its unit.
    pub says: &'static str,
}

/// Link and NIC rates: 1 Mb/s to 100 Tb/s.
pub const BANDWIDTH_BPS: Limit = Limit { min: 1e6, max: 1e14, says: "between 1e6 and 1e14 bits/s (1 Mb/s to 100 Tb/s; Rosetta ports run at 2e11)" };
/// Link, FEC and switch latencies: up to 1 ms.
pub const LATENCY_NS: Limit = Limit { min: 0.0, max: 1e6, says: "between 0 and 1e6 ns (1 ms; a 100 m optical cable takes 500 ns)" };
/// A point in simulated time or a pause: up to 1e15 ns (11.6 days), so
/// sums of them still fit 64 bits of picoseconds.
pub const TIME_NS: Limit = Limit { min: 0.0, max: 1e15, says: "between 0 and 1e15 ns (11.6 days of simulated time)" };
/// A length of simulated time that must not be empty: 1 ps to 1e15 ns.
pub const DURATION_NS: Limit = Limit { min: 1e-3, max: 1e15, says: "between 1e-3 ns (1 ps, the engine's resolution) and 1e15 ns (11.6 days)" };
/// Host software costs: up to one second.
pub const OVERHEAD_NS: Limit = Limit { min: 0.0, max: 1e9, says: "between 0 and 1e9 ns (1 s)" };
/// Message, flow and buffer sizes: 1 byte to 1 TiB.
pub const SIZE_BYTES: Limit = Limit { min: 1.0, max: (1u64 << 40) as f64, says: "between 1 and 1099511627776 bytes (1 TiB)" };
/// Byte counts that may be zero (biases, thresholds): up to 1 TiB.
pub const BYTES: Limit = Limit { min: 0.0, max: (1u64 << 40) as f64, says: "between 0 and 1099511627776 bytes (1 TiB)" };
/// Fractions of a whole.
pub const FRACTION: Limit = Limit { min: 0.0, max: 1.0, says: "a fraction between 0 and 1" };
/// Crossbar speedup over the port rate.
pub const SPEEDUP: Limit = Limit { min: 0.1, max: 64.0, says: "between 0.1 and 64 (Rosetta's is 4, [Roweth] Sec. II-D)" };
/// Prices.
pub const USD: Limit = Limit { min: 0.0, max: 1e12, says: "between 0 and 1e12 USD" };
/// Rates of a memory copy or a reduction, GB/s.
pub const GBYTES_PER_S: Limit = Limit { min: 1e-6, max: 1e6, says: "between 1e-6 and 1e6 GB/s" };
/// Scale factors on recorded or modelled times.
pub const SCALE: Limit = Limit { min: 0.0, max: 1e6, says: "between 0 and 1e6" };

/// Checks that `v` lies in `limit`; the error names `field`.
pub fn check(field: &str, v: f64, limit: &Limit) -> Result<()> {
    if v.is_nan() {
        return Err(ConfigError::new(field, format!("must be a number {}, got NaN", limit.says)));
    }
    if v.is_infinite() {
        return Err(ConfigError::new(field, format!("must be finite, {}; got {v}", limit.says)));
    }
    if v < limit.min || v > limit.max {
        return Err(ConfigError::new(field, format!("must be {}, got {v}", limit.says)));
    }
    Ok(())
}

/// Checks that the whole number `v` lies in `[min, max]`; `what` says
/// what it counts, for the error.
pub fn check_count(field: &str, v: u64, min: u64, max: u64, what: &str) -> Result<()> {
    if v < min || v > max {
        return Err(ConfigError::new(field, format!("must be between {min} and {max} {what}, got {v}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_field_the_range_and_the_value() {
        let e = check("nic.bandwidth_bps", 1.0, &BANDWIDTH_BPS).unwrap_err();
        assert_eq!(e.field, "nic.bandwidth_bps");
        assert!(e.message.contains("1 Mb/s to 100 Tb/s") && e.message.contains("got 1"), "{e}");
        assert!(check("sim.duration_ns", f64::NAN, &DURATION_NS).unwrap_err().message.contains("NaN"));
        assert!(check("sim.duration_ns", f64::INFINITY, &DURATION_NS).unwrap_err().message.contains("finite"));
        assert!(check("sim.duration_ns", 1e-300, &DURATION_NS).is_err(), "below one picosecond");
        assert!(check("sim.duration_ns", 1e300, &DURATION_NS).is_err());
        assert!(check("sim.warmup_ns", 0.0, &TIME_NS).is_ok());
        assert!(check_count("job[0].ppn", 100_000, 1, 512, "processes per node").unwrap_err().message.contains("between 1 and 512"));
    }

    #[test]
    fn the_longest_times_still_add_up_in_picoseconds() {
        // warmup + duration + drain, each at its maximum, fit u64 ps.
        let sum_ps = 3.0 * TIME_NS.max * 1e3;
        assert!(sum_ps < u64::MAX as f64);
    }
}

/// MPI operations a job's program may hold once its iterations are
/// written out (about 48 bytes each, so some 5 GB).
pub const PROGRAM_OPS: u64 = 100_000_000;

/// Refuses `iterations` of a program whose one iteration holds `ops_once`
/// operations over all ranks when the iterations together would hold more
/// than [`PROGRAM_OPS`]: a program is kept in memory whole, and a job that
/// should run for as long as the simulation runs says so with
/// `repeat = true` instead.
pub fn program_fits(field: &str, iterations: u32, ops_once: u64) -> Result<()> {
    program_fits_with(field, iterations, 0, ops_once)
}

/// As [`program_fits`], for a program that also holds `fixed` operations
/// however many iterations it runs (untimed warm-up, say).
pub fn program_fits_with(field: &str, iterations: u32, fixed: u64, ops_once: u64) -> Result<()> {
    let total = ops_once.saturating_mul(iterations as u64).saturating_add(fixed);
    if total > PROGRAM_OPS {
        let most = (PROGRAM_OPS.saturating_sub(fixed) / ops_once.max(1)).max(1);
        let plus = if fixed > 0 { format!(" plus {fixed} run once") } else { String::new() };
        return Err(ConfigError::new(
            field,
            format!(
                "{iterations} iterations of {ops_once} MPI operations each (over all ranks){plus} would hold {total} operations in memory, more than the {PROGRAM_OPS} a program may hold; use at most {most} iterations, or repeat = true with sim.max_time_ns to run the job for as long as the simulation runs"
            ),
        ));
    }
    Ok(())
}
