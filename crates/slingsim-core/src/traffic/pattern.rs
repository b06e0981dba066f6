//! Synthetic destination patterns (MODEL.md Sec. 7).

use crate::error::{ConfigError, Result};
use crate::rng::Rng;

/// Where each member of a node set sends. Members are indices into the
/// source's node list.
#[derive(Clone, Debug)]
pub enum Pattern {
    /// A uniformly random other member per message.
    Uniform,
    /// A fixed random derangement: member i always sends to `map[i]`.
    Permutation(Vec<u32>),
    /// Member in group i sends to a random member in the next group that has
    /// members: `targets[i]` lists the candidate members.
    GroupAdversarial(Vec<Vec<u32>>),
    /// Everyone sends to one member.
    Incast(u32),
    /// The set split in two halves; member i sends to its partner.
    Bisection(Vec<u32>),
}

/// A destination pattern as a config names it (`traffic.pattern`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatternKind {
    Uniform,
    Permutation,
    GroupAdversarial,
    Incast,
    Bisection,
}

impl crate::names::Named for PatternKind {
    const WHAT: &'static str = "pattern";
    const REGISTRY: &'static [(&'static str, Self)] = &[
        ("uniform", PatternKind::Uniform),
        ("permutation", PatternKind::Permutation),
        ("group_adversarial", PatternKind::GroupAdversarial),
        ("incast", PatternKind::Incast),
        ("bisection", PatternKind::Bisection),
    ];
}
crate::named_serde!(PatternKind);

impl Pattern {
    /// Builds a pattern for `n` members; `groups[i]` is member i's group.
    pub fn build(field: &str, kind: PatternKind, groups: &[u32], target: u32, rng: &mut Rng) -> Result<Pattern> {
        use crate::names::Named;
        let name = kind.name();
        let n = groups.len();
        let need_two = || {
            if n < 2 {
                Err(ConfigError::new(format!("{field}.nodes"), format!("pattern {name:?} needs at least 2 nodes, got {n}")))
            } else {
                Ok(())
            }
        };
        match kind {
            PatternKind::Uniform => {
                need_two()?;
                Ok(Pattern::Uniform)
            }
            PatternKind::Permutation => {
                need_two()?;
                // Sattolo's algorithm gives a single cycle: no member maps to itself.
                let mut map: Vec<u32> = (0..n as u32).collect();
                for i in (1..n).rev() {
                    let j = rng.below(i as u64) as usize;
                    map.swap(i, j);
                }
                Ok(Pattern::Permutation(map))
            }
            PatternKind::GroupAdversarial => {
                let max_g = *groups.iter().max().unwrap_or(&0) as usize;
                let mut by_group: Vec<Vec<u32>> = vec![Vec::new(); max_g + 1];
                for (i, &g) in groups.iter().enumerate() {
                    by_group[g as usize].push(i as u32);
                }
                let occupied: Vec<usize> = (0..=max_g).filter(|&g| !by_group[g].is_empty()).collect();
                if occupied.len() < 2 {
                    return Err(ConfigError::new(format!("{field}.nodes"), "group_adversarial needs nodes in at least 2 groups"));
                }
                let mut targets = vec![Vec::new(); max_g + 1];
                for (k, &g) in occupied.iter().enumerate() {
                    targets[g] = by_group[occupied[(k + 1) % occupied.len()]].clone();
                }
                Ok(Pattern::GroupAdversarial(targets))
            }
            PatternKind::Incast => {
                need_two()?;
                if target as usize >= n {
                    return Err(ConfigError::new(format!("{field}.target"), format!("must be below the node count {n}, got {target}")));
                }
                Ok(Pattern::Incast(target))
            }
            PatternKind::Bisection => {
                need_two()?;
                if n % 2 != 0 {
                    return Err(ConfigError::new(format!("{field}.nodes"), format!("bisection needs an even number of nodes, got {n}")));
                }
                let h = n / 2;
                let mut second: Vec<u32> = (h as u32..n as u32).collect();
                rng.shuffle(&mut second);
                let mut map = vec![0u32; n];
                for i in 0..h {
                    map[i] = second[i];
                    map[second[i] as usize] = i as u32;
                }
                Ok(Pattern::Bisection(map))
            }
        }
    }

    /// Destination member of a message from `member` (in group `group`);
    /// `None` for the incast target itself, which does not send.
    #[inline]
    pub fn destination(&self, member: u32, group: u32, n: u32, rng: &mut Rng) -> Option<u32> {
        match self {
            Pattern::Uniform => {
                let mut d = rng.below(n as u64 - 1) as u32;
                if d >= member {
                    d += 1;
                }
                Some(d)
            }
            Pattern::Permutation(map) | Pattern::Bisection(map) => Some(map[member as usize]),
            Pattern::GroupAdversarial(t) => {
                let c = &t[group as usize];
                Some(c[rng.below(c.len() as u64) as usize])
            }
            Pattern::Incast(t) => (member != *t).then_some(*t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_has_no_fixed_point() {
        let g = vec![0; 50];
        let Pattern::Permutation(map) = Pattern::build("t", PatternKind::Permutation, &g, 0, &mut Rng::new(3, 3)).unwrap() else { panic!() };
        let mut seen = map.clone();
        seen.sort();
        assert_eq!(seen, (0..50).collect::<Vec<_>>());
        assert!(map.iter().enumerate().all(|(i, &d)| i as u32 != d));
    }

    #[test]
    fn bisection_pairs_cross_halves() {
        let g = vec![0; 10];
        let Pattern::Bisection(map) = Pattern::build("t", PatternKind::Bisection, &g, 0, &mut Rng::new(3, 3)).unwrap() else { panic!() };
        for i in 0..10u32 {
            assert_eq!(map[map[i as usize] as usize], i);
            assert_ne!(i < 5, map[i as usize] < 5);
        }
    }

    #[test]
    fn adversarial_goes_to_next_group() {
        let g = vec![0, 0, 1, 1, 2, 2];
        let p = Pattern::build("t", PatternKind::GroupAdversarial, &g, 0, &mut Rng::new(3, 3)).unwrap();
        let mut r = Rng::new(1, 1);
        for m in 0..6u32 {
            let d = p.destination(m, g[m as usize], 6, &mut r).unwrap();
            assert_eq!(g[d as usize], (g[m as usize] + 1) % 3);
        }
    }
}
