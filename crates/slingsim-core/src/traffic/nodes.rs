//! Node sets of traffic sources and jobs, and their placement on the free
//! nodes (paper 000 Fig. 7: linear, interleaved, random).

use crate::error::{ConfigError, Result};
use crate::rng::Rng;
use serde_json::Value;

/// How many nodes a source asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    /// Every node still free.
    All,
    Count(u32),
    Fraction(f64),
    /// Exactly these nodes.
    List(Vec<u32>),
}

/// How a count or fraction is picked from the free nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The first free nodes, in order.
    Linear,
    /// Evenly spread over the free nodes (two half-size jobs alternate).
    Interleaved,
    /// A seeded random sample.
    Random,
}

impl crate::names::Named for Placement {
    const WHAT: &'static str = "placement";
    const REGISTRY: &'static [(&'static str, Self)] =
        &[("linear", Placement::Linear), ("interleaved", Placement::Interleaved), ("random", Placement::Random)];
}
crate::named_serde!(Placement);

impl Selection {
    /// Parses `"all"`, `{count = N}`, `{fraction = f}` or `{list = [..]}`.
    pub fn parse(field: &str, v: &Value) -> Result<Selection> {
        let bad = || ConfigError::new(field, "expected \"all\", { count = N }, { fraction = F } or { list = [node, ...] }");
        match v {
            Value::String(s) if s == "all" => Ok(Selection::All),
            Value::Object(m) if m.len() == 1 => {
                let (k, x) = m.iter().next().unwrap();
                match k.as_str() {
                    "count" => {
                        let n = x.as_u64().filter(|&n| n >= 1).ok_or_else(|| ConfigError::new(format!("{field}.count"), "must be a positive integer"))?;
                        Ok(Selection::Count(n as u32))
                    }
                    "fraction" => {
                        let f = x.as_f64().filter(|f| *f > 0.0 && *f <= 1.0).ok_or_else(|| ConfigError::new(format!("{field}.fraction"), "must be in (0, 1]"))?;
                        Ok(Selection::Fraction(f))
                    }
                    "list" => {
                        let arr = x.as_array().ok_or_else(bad)?;
                        let mut out = Vec::with_capacity(arr.len());
                        for n in arr {
                            let n = n.as_u64().ok_or_else(|| ConfigError::new(format!("{field}.list"), "node ids must be non-negative integers"))?;
                            out.push(n as u32);
                        }
                        if out.is_empty() {
                            return Err(ConfigError::new(format!("{field}.list"), "must not be empty"));
                        }
                        Ok(Selection::List(out))
                    }
                    _ => Err(bad()),
                }
            }
            _ => Err(bad()),
        }
    }
}

/// Free nodes, handed out to sources in config order.
pub struct NodeAllocator {
    free: Vec<bool>,
    total: usize,
}

impl NodeAllocator {
    /// All `nodes` nodes free.
    pub fn new(nodes: usize) -> NodeAllocator {
        NodeAllocator { free: vec![true; nodes], total: nodes }
    }

    /// Takes nodes for one source; `field` names its config key for errors.
    pub fn take(&mut self, field: &str, sel: &Selection, placement: Placement, rng: &mut Rng) -> Result<Vec<u32>> {
        let free: Vec<u32> = (0..self.total as u32).filter(|&n| self.free[n as usize]).collect();
        let count = match sel {
            Selection::All => free.len(),
            Selection::Count(n) => *n as usize,
            Selection::Fraction(f) => ((self.total as f64 * f).round() as usize).max(1),
            Selection::List(list) => {
                for &n in list {
                    if n as usize >= self.total {
                        return Err(ConfigError::new(format!("{field}.list"), format!("node {n} does not exist (the system has {} nodes)", self.total)));
                    }
                    if !self.free[n as usize] {
                        return Err(ConfigError::new(format!("{field}.list"), format!("node {n} is listed twice or already used by an earlier source")));
                    }
                    self.free[n as usize] = false;
                }
                return Ok(list.clone());
            }
        };
        if count == 0 || count > free.len() {
            return Err(ConfigError::new(field, format!(
                    "asks for {count} nodes but {} are free (of {}); earlier traffic sources and jobs hold the rest (a preset's [[traffic]] takes every node: write traffic = [] before the tables, or drop it with --without NAME)",
                    free.len(),
                    self.total
                )));
        }
        let mut chosen: Vec<u32> = match placement {
            Placement::Linear => free[..count].to_vec(),
            Placement::Interleaved => (0..count).map(|i| free[i * free.len() / count]).collect(),
            Placement::Random => {
                let mut f = free.clone();
                rng.shuffle(&mut f);
                f.truncate(count);
                f
            }
        };
        chosen.sort_unstable();
        for &n in &chosen {
            self.free[n as usize] = false;
        }
        Ok(chosen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_halves_alternate() {
        let mut a = NodeAllocator::new(8);
        let mut rng = Rng::new(1, 1);
        let j1 = a.take("t", &Selection::Count(4), Placement::Interleaved, &mut rng).unwrap();
        let j2 = a.take("t", &Selection::All, Placement::Linear, &mut rng).unwrap();
        assert_eq!(j1, vec![0, 2, 4, 6]);
        assert_eq!(j2, vec![1, 3, 5, 7]);
    }

    #[test]
    fn random_is_reproducible() {
        let pick = |seed| NodeAllocator::new(100).take("t", &Selection::Count(10), Placement::Random, &mut Rng::new(seed, 3)).unwrap();
        assert_eq!(pick(5), pick(5));
        assert_ne!(pick(5), pick(6));
    }

    #[test]
    fn overlapping_lists_fail() {
        let mut a = NodeAllocator::new(8);
        let mut rng = Rng::new(1, 1);
        a.take("traffic[0].nodes", &Selection::List(vec![1, 2]), Placement::Linear, &mut rng).unwrap();
        let e = a.take("traffic[1].nodes", &Selection::List(vec![2]), Placement::Linear, &mut rng).unwrap_err();
        assert_eq!(e.field, "traffic[1].nodes.list");
    }
}
