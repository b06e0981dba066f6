//! Communicators rebuilt across ranks.
//!
//! A trace names communicators by per-rank handles (DUMPI: 2 is
//! MPI_COMM_WORLD, 3 MPI_COMM_SELF, 4 and up the rank's own creations). MPI
//! makes every member of a parent communicator call the same creating calls
//! on it in the same order, so the k-th creating call a rank makes on a
//! parent is the same creation at every member; a creation is rebuilt once
//! all the parent's members have joined it:
//!
//! - MPI_Comm_split: one communicator per colour (negative colours, i.e.
//!   MPI_UNDEFINED, get none), ordered by (key, rank in the parent);
//! - MPI_Comm_dup: the parent's members;
//! - MPI_Comm_create: the group's members in group order (groups are
//!   followed through the rank's group calls); others get MPI_COMM_NULL;
//! - MPI_Cart_create / MPI_Graph_create: the first prod(dims) / nodes ranks
//!   of the parent in parent order (a reorder the MPI library may have made
//!   is not recorded, so none is assumed);
//! - MPI_Cart_sub: ranks of the parent grid sharing their coordinates in the
//!   dropped dimensions (row-major grid, as MPI's).
//!
//! Numbering: 0 is MPI_COMM_WORLD, 1 + r is rank r's MPI_COMM_SELF, then
//! new communicators in the order their creations complete while the
//! ranks' calls are scanned in rank order; the communicators of one
//! creation (a split's colours) by their lowest world rank. Two creations
//! with the same members (a Cartesian communicator over the whole world, a
//! dup) stay two communicators, as in MPI.

use std::collections::HashMap;

use super::groups::Groups;
use super::warnings::Warnings;
use crate::trace::dumpi::{Call, DumpiTrace};

/// DUMPI's handle of MPI_COMM_WORLD.
pub const COMM_WORLD: u16 = 2;
/// DUMPI's handle of MPI_COMM_SELF.
pub const COMM_SELF: u16 = 3;

/// Calls that make a communicator out of a parent and are rebuilt.
pub fn is_creation(name: &str) -> bool {
    matches!(name, "MPI_Comm_split" | "MPI_Comm_dup" | "MPI_Comm_create" | "MPI_Cart_create" | "MPI_Cart_sub" | "MPI_Graph_create")
}

/// The job's communicators and which one each creating call made.
#[derive(Clone, Debug, Default)]
pub struct CommTable {
    /// Members of each communicator as world ranks, in communicator rank order.
    pub members: Vec<Vec<u32>>,
    /// Per rank: index of a creating call among the rank's calls -> the
    /// communicator it made there (None: MPI_COMM_NULL or not rebuilt).
    pub made: Vec<HashMap<usize, Option<u32>>>,
    /// What could not be rebuilt.
    pub warnings: Warnings,
}

impl CommTable {
    /// Id of rank `rank`'s MPI_COMM_SELF.
    pub fn self_comm(rank: u32) -> u32 {
        1 + rank
    }

    /// Rank of world rank `rank` in communicator `comm`.
    pub fn rank_in(&self, comm: u32, rank: u32) -> Option<usize> {
        self.members.get(comm as usize)?.iter().position(|&r| r == rank)
    }
}

/// What a rank asked of a creation.
#[derive(Clone, Debug, PartialEq)]
enum Wish {
    Split { color: i32, key: i32 },
    Dup,
    Create { group: Option<Vec<u32>> },
    Cart { dims: Vec<i32> },
    Graph { nodes: i32 },
    Sub { remain: Vec<i32> },
}

struct Participant {
    rank: u32,
    parent_rank: usize,
    call: usize,
    newcomm: Option<u16>,
    wish: Wish,
}

struct Creation {
    parent: u32,
    call_name: &'static str,
    participants: Vec<Participant>,
    resolved: bool,
}

/// Where one rank's scan stands.
struct Cursor {
    next: usize,
    handles: HashMap<u16, u32>,
    groups: Groups,
    ordinals: HashMap<u32, usize>,
    waiting: Option<usize>,
}

/// Rebuilds the communicators of a trace.
pub fn rebuild(trace: &DumpiTrace) -> CommTable {
    Rebuild::new(trace).run()
}

struct Rebuild<'a> {
    trace: &'a DumpiTrace,
    table: CommTable,
    cursors: Vec<Cursor>,
    creations: Vec<Creation>,
    by_key: HashMap<(u32, usize), usize>,
    cart_dims: HashMap<u32, Vec<i32>>,
}

impl<'a> Rebuild<'a> {
    fn new(trace: &'a DumpiTrace) -> Rebuild<'a> {
        let n = trace.ranks.len() as u32;
        let mut members = vec![(0..n).collect::<Vec<u32>>()];
        members.extend((0..n).map(|r| vec![r]));
        let cursors = (0..n)
            .map(|r| Cursor {
                next: 0,
                handles: HashMap::from([(COMM_WORLD, 0), (COMM_SELF, CommTable::self_comm(r))]),
                groups: Groups::default(),
                ordinals: HashMap::new(),
                waiting: None,
            })
            .collect();
        let table = CommTable { members, made: vec![HashMap::new(); n as usize], warnings: Warnings::default() };
        Rebuild { trace, table, cursors, creations: Vec::new(), by_key: HashMap::new(), cart_dims: HashMap::new() }
    }

    fn run(mut self) -> CommTable {
        loop {
            let mut progress = false;
            for rank in 0..self.cursors.len() {
                progress |= self.advance(rank);
            }
            for idx in 0..self.creations.len() {
                let c = &self.creations[idx];
                if !c.resolved && c.participants.len() == self.table.members[c.parent as usize].len() {
                    self.resolve(idx);
                    progress = true;
                }
            }
            if progress {
                continue;
            }
            // Stuck: some member never joined a creation (a trace cut short).
            match self.creations.iter().position(|c| !c.resolved) {
                Some(idx) => {
                    self.table.warnings.add("{n} communicator creations not joined by every member of the parent (rebuilt from the ranks that joined)");
                    self.resolve(idx);
                }
                None => return self.table,
            }
        }
    }

    /// Scans rank `rank`'s calls up to its next creation; true if it moved.
    fn advance(&mut self, rank: usize) -> bool {
        let trace = self.trace;
        let calls = &trace.ranks[rank].calls;
        if let Some(idx) = self.cursors[rank].waiting {
            if !self.creations[idx].resolved {
                return false;
            }
            self.cursors[rank].waiting = None;
        }
        let start = self.cursors[rank].next;
        while self.cursors[rank].next < calls.len() {
            let i = self.cursors[rank].next;
            self.cursors[rank].next += 1;
            let call = &calls[i];
            let members = &self.table.members;
            let cursor = &mut self.cursors[rank];
            let handles = &cursor.handles;
            if cursor.groups.apply(call, |h| handles.get(&h).map(|&id| members[id as usize].clone())) {
                continue;
            }
            if call.name == "MPI_Comm_free" {
                if let Some(h) = call.comm("comm") {
                    cursor.handles.remove(&h);
                }
            } else if is_creation(call.name) {
                self.join(rank, i, call);
                return true;
            }
        }
        self.cursors[rank].next != start
    }

    /// Registers rank `rank`'s creating call `i` with its creation.
    fn join(&mut self, rank: usize, i: usize, call: &'a Call) {
        let cursor = &mut self.cursors[rank];
        let newcomm = new_handle(call);
        let parent_handle = parent_handle(call);
        let parent = parent_handle.and_then(|h| cursor.handles.get(&h).copied());
        let parent_rank = parent.and_then(|p| self.table.rank_in(p, rank as u32));
        let (Some(parent), Some(parent_rank)) = (parent, parent_rank) else {
            self.table.warnings.add("{n} communicator creations on a communicator that was not rebuilt (ops on the result are dropped)");
            if let Some(h) = newcomm {
                cursor.handles.remove(&h);
            }
            self.table.made[rank].insert(i, None);
            return;
        };
        let wish = wish(call, &cursor.groups);
        let ordinal = cursor.ordinals.entry(parent).or_insert(0);
        let key = (parent, *ordinal);
        *ordinal += 1;
        let creations = &mut self.creations;
        let idx = *self.by_key.entry(key).or_insert_with(|| {
            creations.push(Creation { parent, call_name: call.name, participants: Vec::new(), resolved: false });
            creations.len() - 1
        });
        self.creations[idx].participants.push(Participant { rank: rank as u32, parent_rank, call: i, newcomm, wish });
        cursor.waiting = Some(idx);
    }

    /// Makes the communicators of creation `idx` and binds the participants' handles.
    fn resolve(&mut self, idx: usize) {
        let mut participants = std::mem::take(&mut self.creations[idx].participants);
        participants.sort_by_key(|p| p.parent_rank);
        let parent = self.creations[idx].parent;
        let call_name = self.creations[idx].call_name;
        let calls = &self.trace.ranks;
        if participants.iter().any(|p| calls[p.rank as usize].calls[p.call].name != call_name) {
            self.table.warnings.add("{n} communicator creations where the ranks made different calls (rebuilt as the first rank's call)");
        }
        let (outputs, dims) = self.split_into_comms(parent, &participants);
        let mut made: Vec<(Vec<usize>, Option<Vec<i32>>)> = outputs.into_iter().zip(dims).collect();
        made.sort_by_key(|(members, _)| members.iter().map(|&i| participants[i].rank).min());
        let mut assigned: HashMap<usize, u32> = HashMap::new();
        for (members, dims) in made {
            let id = self.table.members.len() as u32;
            self.table.members.push(members.iter().map(|&i| participants[i].rank).collect());
            if let Some(d) = dims {
                self.cart_dims.insert(id, d);
            }
            for i in members {
                assigned.insert(i, id);
            }
        }
        for (i, p) in participants.iter().enumerate() {
            let id = assigned.get(&i).copied();
            self.table.made[p.rank as usize].insert(p.call, id);
            let cursor = &mut self.cursors[p.rank as usize];
            if let Some(h) = p.newcomm {
                match id {
                    Some(id) => cursor.handles.insert(h, id),
                    None => cursor.handles.remove(&h),
                };
            }
        }
        self.creations[idx].resolved = true;
    }

    /// The new communicators of a creation as lists of participant indices
    /// in communicator rank order, with each one's grid dims if Cartesian.
    fn split_into_comms(&mut self, parent: u32, ps: &[Participant]) -> (Vec<Vec<usize>>, Vec<Option<Vec<i32>>>) {
        let all: Vec<usize> = (0..ps.len()).collect();
        match &ps[0].wish {
            Wish::Dup => (vec![all], vec![self.cart_dims.get(&parent).cloned()]),
            Wish::Split { .. } => {
                let mut by_color: Vec<(i32, Vec<(i32, usize)>)> = Vec::new();
                for (i, p) in ps.iter().enumerate() {
                    let Wish::Split { color, key } = p.wish else { continue };
                    if color < 0 {
                        continue;
                    }
                    match by_color.iter_mut().find(|(c, _)| *c == color) {
                        Some((_, v)) => v.push((key, i)),
                        None => by_color.push((color, vec![(key, i)])),
                    }
                }
                let comms: Vec<Vec<usize>> = by_color
                    .into_iter()
                    .map(|(_, mut v)| {
                        v.sort();
                        v.into_iter().map(|(_, i)| i).collect()
                    })
                    .collect();
                let n = comms.len();
                (comms, vec![None; n])
            }
            Wish::Create { .. } => {
                let group = ps.iter().find_map(|p| match &p.wish {
                    Wish::Create { group: Some(g) } => Some(g.clone()),
                    _ => None,
                });
                let Some(group) = group else {
                    self.table.warnings.add("{n} MPI_Comm_create calls on a group that was not rebuilt (ops on the result are dropped)");
                    return (vec![], vec![]);
                };
                let members: Vec<usize> = group.iter().filter_map(|r| ps.iter().position(|p| p.rank == *r)).collect();
                if members.is_empty() {
                    return (vec![], vec![]);
                }
                (vec![members], vec![None])
            }
            Wish::Cart { dims } => {
                let size: i64 = dims.iter().map(|&d| d.max(0) as i64).product();
                let members: Vec<usize> = all.into_iter().filter(|&i| (ps[i].parent_rank as i64) < size).collect();
                (vec![members], vec![Some(dims.clone())])
            }
            Wish::Graph { nodes } => (vec![all.into_iter().filter(|&i| (ps[i].parent_rank as i64) < *nodes as i64).collect()], vec![None]),
            Wish::Sub { remain } => self.cart_sub(parent, ps, remain),
        }
    }

    fn cart_sub(&mut self, parent: u32, ps: &[Participant], remain: &[i32]) -> (Vec<Vec<usize>>, Vec<Option<Vec<i32>>>) {
        let Some(dims) = self.cart_dims.get(&parent).cloned().filter(|d| d.len() == remain.len()) else {
            self.table.warnings.add("{n} MPI_Cart_sub calls on a communicator without a known grid (rebuilt as a dup)");
            return (vec![(0..ps.len()).collect()], vec![None]);
        };
        let mut groups: Vec<(Vec<i32>, Vec<usize>)> = Vec::new();
        for (i, p) in ps.iter().enumerate() {
            let coords = unravel(p.parent_rank, &dims);
            let fixed: Vec<i32> = coords.iter().zip(remain).filter(|(_, &keep)| keep == 0).map(|(c, _)| *c).collect();
            match groups.iter_mut().find(|(f, _)| *f == fixed) {
                Some((_, v)) => v.push(i),
                None => groups.push((fixed, vec![i])),
            }
        }
        let sub_dims: Vec<i32> = dims.iter().zip(remain).filter(|(_, &keep)| keep != 0).map(|(d, _)| *d).collect();
        let n = groups.len();
        (groups.into_iter().map(|(_, v)| v).collect(), vec![Some(sub_dims); n])
    }
}

/// Row-major coordinates of `rank` in a grid of `dims`.
fn unravel(rank: usize, dims: &[i32]) -> Vec<i32> {
    let mut coords = vec![0; dims.len()];
    let mut rest = rank as i64;
    for (c, &d) in coords.iter_mut().zip(dims).rev() {
        let d = d.max(1) as i64;
        *c = (rest % d) as i32;
        rest /= d;
    }
    coords
}

fn parent_handle(call: &Call) -> Option<u16> {
    call.comm("oldcomm").or_else(|| call.comm("comm"))
}

fn new_handle(call: &Call) -> Option<u16> {
    call.comm("newcomm")
}

fn wish(call: &Call, groups: &Groups) -> Wish {
    match call.name {
        "MPI_Comm_split" => Wish::Split { color: call.int("color").unwrap_or(-1), key: call.int("key").unwrap_or(0) },
        "MPI_Comm_create" => Wish::Create { group: call.group("group").and_then(|g| groups.get(g)).map(<[u32]>::to_vec) },
        "MPI_Cart_create" => Wish::Cart { dims: call.ints("dims").unwrap_or_default().to_vec() },
        "MPI_Graph_create" => Wish::Graph { nodes: call.int("nodes").unwrap_or(0) },
        "MPI_Cart_sub" => Wish::Sub { remain: call.ints("remain_dims").unwrap_or_default().to_vec() },
        _ => Wish::Dup,
    }
}

#[cfg(test)]
mod tests;
