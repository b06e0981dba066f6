//! Finite fields GF(q), q = p^m, for the Slim Fly MMS construction (paper
//! 003 Sec. 4.2.1, step 3). An element is the integer whose base-p digits
//! are the coefficients of its polynomial over GF(p) (for m = 1, the residue
//! itself). The field is GF(p)[x] / f for a monic f of degree m found by
//! search such that x has multiplicative order q - 1 modulo f: that makes f
//! irreducible (a reducible f leaves fewer than q - 1 units) and x a
//! primitive element xi. Products then go through log / antilog tables.

/// The finite field of order q = p^m with its primitive element.
#[derive(Clone, Debug)]
pub struct GaloisField {
    /// Order q.
    pub q: u32,
    /// Characteristic p.
    pub p: u32,
    /// Degree m of the extension (q = p^m).
    pub m: u32,
    /// `exp[i]` = xi^i for i in [0, q - 1).
    exp: Vec<u32>,
    /// `log[a]` = i with xi^i = a, for a != 0.
    log: Vec<u32>,
}

/// `(p, m)` with `q = p^m` and p prime, or `None` if q is not a prime power.
pub fn prime_power(q: u32) -> Option<(u32, u32)> {
    if q < 2 {
        return None;
    }
    // Smallest prime factor: the first divisor up to sqrt(q), else q itself.
    let p = (2..).take_while(|d| d * d <= q).find(|d| q % d == 0).unwrap_or(q);
    let (mut rest, mut m) = (q, 0);
    while rest % p == 0 {
        rest /= p;
        m += 1;
    }
    (rest == 1).then_some((p, m))
}

impl GaloisField {
    /// The field of order `q`, or `None` if `q` is not a prime power.
    pub fn new(q: u32) -> Option<GaloisField> {
        let (p, m) = prime_power(q)?;
        // Low coefficients f_0..f_{m-1} of the monic modulus, tried in order.
        let exp = (0..q).find_map(|low| powers_of_x(p, m, &digits(low, p, m)))?;
        let mut log = vec![0; q as usize];
        for (i, &a) in exp.iter().enumerate() {
            log[a as usize] = i as u32;
        }
        Some(GaloisField { q, p, m, exp, log })
    }

    /// The primitive element xi: its powers are all nonzero elements.
    pub fn primitive(&self) -> u32 {
        self.pow_xi(1)
    }

    /// xi^i (any i; exponents wrap modulo q - 1).
    pub fn pow_xi(&self, i: u32) -> u32 {
        self.exp[(i % (self.q - 1)) as usize]
    }

    /// a + b (digit-wise modulo p).
    pub fn add(&self, a: u32, b: u32) -> u32 {
        self.zip_digits(a, b, |x, y| (x + y) % self.p)
    }

    /// a - b.
    pub fn sub(&self, a: u32, b: u32) -> u32 {
        self.zip_digits(a, b, |x, y| (x + self.p - y) % self.p)
    }

    /// -a.
    pub fn neg(&self, a: u32) -> u32 {
        self.sub(0, a)
    }

    /// a * b.
    pub fn mul(&self, a: u32, b: u32) -> u32 {
        if a == 0 || b == 0 {
            return 0;
        }
        let i = self.log[a as usize] + self.log[b as usize];
        self.exp[(i % (self.q - 1)) as usize]
    }

    /// Combines the base-p digits of `a` and `b` one by one.
    fn zip_digits(&self, mut a: u32, mut b: u32, f: impl Fn(u32, u32) -> u32) -> u32 {
        let (mut out, mut place) = (0, 1);
        for _ in 0..self.m {
            out += f(a % self.p, b % self.p) * place;
            a /= self.p;
            b /= self.p;
            place *= self.p;
        }
        out
    }
}

/// The m base-p digits of `v`, lowest first.
fn digits(mut v: u32, p: u32, m: u32) -> Vec<u32> {
    (0..m)
        .map(|_| {
            let d = v % p;
            v /= p;
            d
        })
        .collect()
}

/// Powers x^0 .. x^(q-2) modulo f = x^m + low[m-1] x^(m-1) + ... + low[0],
/// as element integers, if x has order exactly q - 1; otherwise `None`.
fn powers_of_x(p: u32, m: u32, low: &[u32]) -> Option<Vec<u32>> {
    let q = p.pow(m);
    let mut coeffs = vec![0u32; m as usize];
    coeffs[0] = 1;
    let mut out = Vec::with_capacity(q as usize - 1);
    for _ in 0..q - 1 {
        let v = coeffs.iter().rev().fold(0, |acc, &c| acc * p + c);
        if !out.is_empty() && v == 1 {
            return None; // order below q - 1
        }
        out.push(v);
        // Multiply by x: shift up, then replace x^m by -(low part of f).
        let top = coeffs[m as usize - 1];
        for i in (0..m as usize).rev() {
            let shifted = if i == 0 { 0 } else { coeffs[i - 1] };
            coeffs[i] = (shifted + (p - top * low[i] % p)) % p;
        }
    }
    let back = coeffs.iter().rev().fold(0, |acc, &c| acc * p + c);
    (back == 1).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn galois_prime_powers_are_recognised() {
        assert_eq!(prime_power(2), Some((2, 1)));
        assert_eq!(prime_power(13), Some((13, 1)));
        assert_eq!(prime_power(16), Some((2, 4)));
        assert_eq!(prime_power(27), Some((3, 3)));
        assert_eq!(prime_power(49), Some((7, 2)));
        for bad in [0, 1, 6, 10, 12, 14, 15, 18, 100] {
            assert_eq!(prime_power(bad), None, "{bad}");
        }
    }

    /// Field axioms checked exhaustively, prime and extension fields alike.
    #[test]
    fn galois_field_axioms() {
        for q in [2, 3, 4, 5, 7, 8, 9, 16, 25, 27, 32, 49] {
            let f = GaloisField::new(q).unwrap();
            // xi generates every nonzero element exactly once.
            let mut seen = vec![false; q as usize];
            for i in 0..q - 1 {
                let a = f.pow_xi(i);
                assert!(a != 0 && !seen[a as usize], "q={q}: xi^{i} repeats");
                seen[a as usize] = true;
            }
            for a in 0..q {
                assert_eq!(f.add(a, f.neg(a)), 0);
                assert_eq!(f.mul(a, 1), a);
                if a != 0 {
                    assert!((1..q).any(|b| f.mul(a, b) == 1), "q={q}: {a} has no inverse");
                }
                for b in 0..q {
                    assert_eq!(f.add(a, b), f.add(b, a));
                    assert_eq!(f.mul(a, b), f.mul(b, a));
                    assert_eq!(f.sub(f.add(a, b), b), a);
                    for c in [0, 1, q - 1, q / 2] {
                        // Distributivity ties the log tables to the digit-wise sum.
                        assert_eq!(f.mul(a, f.add(b, c)), f.add(f.mul(a, b), f.mul(a, c)), "q={q}");
                    }
                }
            }
        }
    }

    #[test]
    fn galois_not_a_prime_power_has_no_field() {
        assert!(GaloisField::new(6).is_none());
        assert!(GaloisField::new(1).is_none());
    }
}
