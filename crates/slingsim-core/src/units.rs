//! Units of the engine: integer picoseconds for time, bytes for sizes,
//! bits per second for rates (MODEL.md Sec. 1). Time has its own type,
//! [`Ps`], so a byte count or an id passed where a time is meant does not
//! compile; sizes stay plain `u64`. The helpers below are the conversions.

use std::ops::{Add, AddAssign, Div, Mul, Sub};

/// Simulated time, or a span of it, in picoseconds.
///
/// A transparent `u64`: it costs nothing over the integer. The operations
/// are the ones the engine uses on time: adding and subtracting times,
/// scaling a span by a count, counting how many spans fit in another,
/// comparing. The integer is reached through `.0` only where a raw number
/// is genuinely wanted: the event queue's bucket arithmetic, the flow hash
/// of the hash-routed modes, the latency histogram's buckets, and the
/// 32-bit latencies packed into packets and transmitters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Ps(pub u64);

impl Ps {
    /// Time zero, or no time at all.
    pub const ZERO: Ps = Ps(0);
    /// The latest representable time (used for "never").
    pub const MAX: Ps = Ps(u64::MAX);

    /// A span of picoseconds computed in floating point, truncated toward
    /// zero (negative and NaN give zero, too large gives [`Ps::MAX`]), as
    /// an `as u64` cast does.
    #[inline]
    pub fn from_f64(ps: f64) -> Ps {
        Ps(ps as u64)
    }

    /// The picoseconds as a float, for rate and ratio arithmetic.
    #[inline]
    pub fn as_f64(self) -> f64 {
        self.0 as f64
    }

    /// `self - o`, or zero if `o` is later.
    #[inline]
    pub fn saturating_sub(self, o: Ps) -> Ps {
        Ps(self.0.saturating_sub(o.0))
    }
}

impl Add for Ps {
    type Output = Ps;
    #[inline]
    fn add(self, o: Ps) -> Ps {
        Ps(self.0 + o.0)
    }
}

impl Sub for Ps {
    type Output = Ps;
    #[inline]
    fn sub(self, o: Ps) -> Ps {
        Ps(self.0 - o.0)
    }
}

impl AddAssign for Ps {
    #[inline]
    fn add_assign(&mut self, o: Ps) {
        self.0 += o.0;
    }
}

/// How many whole spans of `o` fit in `self` (a count, rounded down).
impl Div for Ps {
    type Output = u64;
    #[inline]
    fn div(self, o: Ps) -> u64 {
        self.0 / o.0
    }
}

/// A span repeated `n` times.
impl Mul<u64> for Ps {
    type Output = Ps;
    #[inline]
    fn mul(self, n: u64) -> Ps {
        Ps(self.0 * n)
    }
}

/// The total of several spans.
impl std::iter::Sum for Ps {
    #[inline]
    fn sum<I: Iterator<Item = Ps>>(spans: I) -> Ps {
        spans.fold(Ps::ZERO, |a, b| a + b)
    }
}

/// Picoseconds in one nanosecond.
pub const PS_PER_NS: u64 = 1_000;

/// Converts nanoseconds (possibly fractional, from a config) to picoseconds.
#[inline]
pub fn ns_to_ps(ns: f64) -> Ps {
    Ps((ns * PS_PER_NS as f64).round() as u64)
}

/// Converts picoseconds to nanoseconds for reporting.
#[inline]
pub fn ps_to_ns(ps: Ps) -> f64 {
    ps.0 as f64 / PS_PER_NS as f64
}

/// A link rate held as femtoseconds per byte, so serialization times are
/// exact integers for the usual rates (200 Gb/s = 40,000 fs per byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    fs_per_byte: u64,
}

impl Rate {
    /// A rate of `bps` bits per second.
    pub fn from_bps(bps: f64) -> Rate {
        Rate { fs_per_byte: (8.0e15 / bps).round().max(1.0) as u64 }
    }

    /// The same link running on `lanes_up` of `lanes` lanes (lane degrade).
    pub fn degraded(self, lanes_up: u32, lanes: u32) -> Rate {
        Rate { fs_per_byte: self.fs_per_byte * lanes as u64 / lanes_up as u64 }
    }

    /// Time to serialize `bytes` onto the link.
    #[inline]
    pub fn serialize(self, bytes: u64) -> Ps {
        Ps((bytes * self.fs_per_byte + 999) / 1000)
    }

    /// Bits per second.
    pub fn bps(self) -> f64 {
        8.0e15 / self.fs_per_byte as f64
    }

    /// Bytes per second.
    pub fn bytes_per_s(self) -> f64 {
        self.bps() / 8.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_is_exact_for_round_rates() {
        let r = Rate::from_bps(200e9);
        assert_eq!(r.serialize(4096), Ps(163_840)); // 4096 B * 8 / 200 Gb/s = 163.84 ns
        assert_eq!(Rate::from_bps(100e9).serialize(64), Ps(5_120));
        assert_eq!(r.degraded(3, 4).serialize(3), Ps(160));
    }
}
