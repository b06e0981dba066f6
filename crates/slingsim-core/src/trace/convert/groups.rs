//! MPI groups as ordered lists of world ranks, and the group calls of a
//! trace applied to one rank's group handles (needed to know whom an
//! MPI_Comm_create includes).

use std::collections::HashMap;

use crate::trace::dumpi::{Arg, Call};

/// DUMPI's handle of MPI_GROUP_EMPTY.
const GROUP_EMPTY: u16 = 2;

/// One rank's groups: handle -> members as world ranks, in group order.
#[derive(Clone, Debug, Default)]
pub struct Groups {
    by_handle: HashMap<u16, Vec<u32>>,
}

impl Groups {
    /// Members of the group `handle`, if known.
    pub fn get(&self, handle: u16) -> Option<&[u32]> {
        if handle == GROUP_EMPTY {
            return Some(&[]);
        }
        self.by_handle.get(&handle).map(Vec::as_slice)
    }

    /// Applies a group call; `comm_members` gives the members of one of the
    /// rank's communicator handles. Returns false when `call` is no group call.
    pub fn apply(&mut self, call: &Call, comm_members: impl Fn(u16) -> Option<Vec<u32>>) -> bool {
        let new = match call.name {
            "MPI_Comm_group" => call.comm("comm").and_then(comm_members),
            "MPI_Group_incl" => self.pick(call, true),
            "MPI_Group_excl" => self.pick(call, false),
            "MPI_Group_range_incl" => self.range(call, true),
            "MPI_Group_range_excl" => self.range(call, false),
            "MPI_Group_union" | "MPI_Group_intersection" | "MPI_Group_difference" => self.combine(call),
            "MPI_Group_free" => {
                if let Some(g) = call.group("group") {
                    self.by_handle.remove(&g);
                }
                return true;
            }
            _ => return false,
        };
        let target = if call.name == "MPI_Comm_group" { call.group("group") } else { call.group("newgroup") };
        if let Some(handle) = target {
            match new {
                Some(members) => self.by_handle.insert(handle, members),
                None => self.by_handle.remove(&handle),
            };
        }
        true
    }

    fn pick(&self, call: &Call, include: bool) -> Option<Vec<u32>> {
        let group = self.get(call.group("group")?)?;
        let positions = call.ints("ranks")?;
        select(group, positions, include)
    }

    fn range(&self, call: &Call, include: bool) -> Option<Vec<u32>> {
        let group = self.get(call.group("group")?)?;
        let Some(Arg::IntArrays(ranges)) = call.arg("ranges") else { return None };
        let mut positions = Vec::new();
        for r in ranges {
            let (first, last, stride) = (*r.first()?, *r.get(1)?, *r.get(2)?);
            if stride == 0 {
                return None;
            }
            let mut p = first;
            while (stride > 0 && p <= last) || (stride < 0 && p >= last) {
                positions.push(p);
                p += stride;
            }
        }
        select(group, &positions, include)
    }

    fn combine(&self, call: &Call) -> Option<Vec<u32>> {
        let a = self.get(call.group("group1")?)?;
        let b = self.get(call.group("group2")?)?;
        Some(match call.name {
            "MPI_Group_union" => a.iter().chain(b.iter().filter(|r| !a.contains(r))).copied().collect(),
            "MPI_Group_intersection" => a.iter().filter(|r| b.contains(r)).copied().collect(),
            _ => a.iter().filter(|r| !b.contains(r)).copied().collect(),
        })
    }
}

/// The members at `positions` (include) or all but them (exclude).
fn select(group: &[u32], positions: &[i32], include: bool) -> Option<Vec<u32>> {
    if positions.iter().any(|&p| p < 0 || p as usize >= group.len()) {
        return None;
    }
    Some(if include {
        positions.iter().map(|&p| group[p as usize]).collect()
    } else {
        group.iter().enumerate().filter(|(i, _)| !positions.contains(&(*i as i32))).map(|(_, r)| *r).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::dumpi::Call;

    fn call(name: &'static str, args: Vec<(&'static str, Arg)>) -> Call {
        Call { id: 0, name, offset: 0, thread: None, cpu: None, wall: None, args }
    }

    #[test]
    fn group_algebra_keeps_mpi_order() {
        let mut g = Groups::default();
        let world = |_| Some(vec![10, 11, 12, 13]);
        g.apply(&call("MPI_Comm_group", vec![("comm", Arg::Comm(2)), ("group", Arg::Group(3))]), world);
        let incl = vec![("group", Arg::Group(3)), ("count", Arg::Int(2)), ("ranks", Arg::Ints(vec![3, 1])), ("newgroup", Arg::Group(4))];
        g.apply(&call("MPI_Group_incl", incl), world);
        assert_eq!(g.get(4), Some(&[13, 11][..]));
        let ranges = vec![("group", Arg::Group(3)), ("count", Arg::Int(1)), ("ranges", Arg::IntArrays(vec![vec![0, 3, 2]])), ("newgroup", Arg::Group(5))];
        g.apply(&call("MPI_Group_range_excl", ranges), world);
        assert_eq!(g.get(5), Some(&[11, 13][..]));
        let union = vec![("group1", Arg::Group(4)), ("group2", Arg::Group(5)), ("newgroup", Arg::Group(6))];
        g.apply(&call("MPI_Group_difference", union), world);
        assert_eq!(g.get(6), Some(&[][..]));
    }
}
