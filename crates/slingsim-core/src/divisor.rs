//! Division of `u32` values by a divisor fixed when a network is built,
//! by one multiplication instead of a division instruction (Lemire, Kaser
//! and Kurz, "Faster remainder by direct computation", 2019): exact for
//! every `u32` numerator. Routing computes a dragonfly's global wiring on
//! every hop that leaves a group, where three divisions by the topology's
//! constants would cost more than the table read they replace.

/// A fixed divisor and its reciprocal.
#[derive(Clone, Copy, Debug)]
pub struct Divisor {
    d: u32,
    /// ceil(2^64 / d), 0 for d = 1 (which divides nothing).
    m: u64,
}

impl Divisor {
    /// `d` must be at least 1.
    pub fn new(d: u32) -> Divisor {
        assert!(d > 0, "a divisor of 0");
        Divisor { d, m: if d == 1 { 0 } else { u64::MAX / d as u64 + 1 } }
    }

    /// `x / d` and `x % d`.
    #[inline]
    pub fn div_rem(self, x: u32) -> (u32, u32) {
        if self.d == 1 {
            return (x, 0);
        }
        let q = ((self.m as u128 * x as u128) >> 64) as u32;
        (q, x - q * self.d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn quotient_and_remainder_match_the_division_instruction() {
        let mut rng = Rng::new(7, 0);
        let divisors = (1..=300).chain([544, 1023, 1024, 65_535, 65_536, 1 << 31, u32::MAX - 1, u32::MAX]);
        for d in divisors {
            let div = Divisor::new(d);
            let edges = [0, 1, d - 1, d, d.wrapping_add(1), u32::MAX, u32::MAX - 1, u32::MAX / d * d];
            for x in edges.into_iter().chain((0..2000).map(|_| rng.below(1 << 32) as u32)) {
                assert_eq!(div.div_rem(x), (x / d, x % d), "{x} / {d}");
            }
        }
    }
}
