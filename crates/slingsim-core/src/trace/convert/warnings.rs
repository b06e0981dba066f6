//! What a trace holds that the program format cannot say, counted per kind
//! so the program's `warnings` read "12 waits on requests no recorded call
//! opened ..." rather than one line per occurrence.

use std::collections::BTreeMap;

/// Occurrences per kind; a kind is a sentence with `{n}` for the count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Warnings {
    counts: BTreeMap<&'static str, u64>,
}

impl Warnings {
    /// Counts one occurrence of `kind`.
    pub fn add(&mut self, kind: &'static str) {
        self.add_many(kind, 1);
    }

    /// Counts `n` occurrences of `kind`.
    pub fn add_many(&mut self, kind: &'static str, n: u64) {
        if n > 0 {
            *self.counts.entry(kind).or_insert(0) += n;
        }
    }

    /// Adds another tally to this one.
    pub fn merge(&mut self, other: Warnings) {
        for (kind, n) in other.counts {
            self.add_many(kind, n);
        }
    }

    /// The sentences, counts filled in, in a fixed order.
    pub fn lines(&self) -> Vec<String> {
        self.counts.iter().map(|(kind, n)| kind.replace("{n}", &n.to_string())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_kind() {
        let mut w = Warnings::default();
        w.add("{n} waits on unknown requests");
        w.add_many("{n} waits on unknown requests", 2);
        w.add_many("{n} never", 0);
        assert_eq!(w.lines(), ["3 waits on unknown requests"]);
    }
}
