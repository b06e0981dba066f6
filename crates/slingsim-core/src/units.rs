//! Units of the engine: integer picoseconds for time, bytes for sizes,
//! bits per second for rates (MODEL.md Sec. 1). Plain `u64` aliases keep the
//! hot path free of wrappers; the helpers below are the only conversions.

/// Simulated time in picoseconds.
pub type Ps = u64;

/// Picoseconds in one nanosecond.
pub const PS_PER_NS: u64 = 1_000;

/// Converts nanoseconds (possibly fractional, from a config) to picoseconds.
pub fn ns_to_ps(ns: f64) -> Ps {
    (ns * PS_PER_NS as f64).round() as Ps
}

/// Converts picoseconds to nanoseconds for reporting.
pub fn ps_to_ns(ps: Ps) -> f64 {
    ps as f64 / PS_PER_NS as f64
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
        (bytes * self.fs_per_byte + 999) / 1000
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
        assert_eq!(r.serialize(4096), 163_840); // 4096 B * 8 / 200 Gb/s = 163.84 ns
        assert_eq!(Rate::from_bps(100e9).serialize(64), 5_120);
        assert_eq!(r.degraded(3, 4).serialize(3), 160);
    }
}
