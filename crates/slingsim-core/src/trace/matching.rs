//! Static checks of a program's communication: which sends meet which
//! receives, and whether the ranks of a communicator agree on its
//! collectives.
//!
//! Matching follows MPI's rules without timing: per communicator and
//! receiving rank, receives are taken in the order the rank posts them; a
//! receive from rank `s` takes the earliest send from `s` to it not yet
//! matched whose tag it accepts (messages from one sender do not overtake
//! each other, but a tag can skip past another). A receive from
//! MPI_ANY_SOURCE takes such a send from the lowest-numbered sender that
//! has one (without times, which sender's message arrives first is
//! unknown; the sample traces have no wildcards). Operations with
//! MPI_PROC_NULL are no messages.

use std::collections::{BTreeMap, HashMap};

use crate::mpi::{Collective, Op, Program, ANY_SOURCE, ANY_TAG};

/// How the program's point-to-point messages pair up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Matching {
    /// Send/receive pairs.
    pub matched: u64,
    /// Sends no receive takes.
    pub unmatched_sends: u64,
    /// Receives no send feeds (including operations naming a rank outside
    /// their communicator).
    pub unmatched_recvs: u64,
}

impl Matching {
    /// Sends and receives left without a partner.
    pub fn unmatched(&self) -> u64 {
        self.unmatched_sends + self.unmatched_recvs
    }
}

/// A send waiting for its receive: tag and whether it was taken.
struct PendingSend {
    tag: i32,
    taken: bool,
}

/// Pairs the sends and receives of `program`.
pub fn match_messages(program: &Program) -> Matching {
    // (comm, receiver's comm rank) -> sender's comm rank -> sends in order.
    let mut sends: HashMap<(u32, i32), BTreeMap<i32, Vec<PendingSend>>> = HashMap::new();
    // (comm, receiver's comm rank) -> (source, tag) in posting order.
    let mut recvs: HashMap<(u32, i32), Vec<(i32, i32)>> = HashMap::new();
    let mut result = Matching::default();
    for (world, ops) in program.ops.iter().enumerate() {
        for op in ops {
            let (comm, peer, tag, sending) = match *op {
                Op::Send { comm, peer, tag, .. } | Op::Isend { comm, peer, tag, .. } => (comm, peer, tag, true),
                Op::Recv { comm, peer, tag, .. } | Op::Irecv { comm, peer, tag, .. } => (comm, peer, tag, false),
                _ => continue,
            };
            let members = program.comms.get(comm as usize).map(Vec::as_slice).unwrap_or_default();
            let me = program.rank_in(comm, world);
            let peer_ok = peer >= 0 && (peer as usize) < members.len() || (!sending && peer == ANY_SOURCE);
            let Some(me) = me.filter(|_| peer_ok) else {
                if peer >= 0 || peer == ANY_SOURCE {
                    // Not a member, or a peer outside the communicator.
                    if sending { result.unmatched_sends += 1 } else { result.unmatched_recvs += 1 }
                }
                continue;
            };
            if sending {
                sends.entry((comm, peer)).or_default().entry(me as i32).or_default().push(PendingSend { tag, taken: false });
            } else {
                recvs.entry((comm, me as i32)).or_default().push((peer, tag));
            }
        }
    }
    for (key, posted) in recvs {
        let mut from = sends.remove(&key).unwrap_or_default();
        for (source, tag) in posted {
            let found = from
                .iter_mut()
                .filter(|(s, _)| source == ANY_SOURCE || **s == source)
                .find_map(|(_, queue)| queue.iter_mut().find(|m| !m.taken && (tag == ANY_TAG || m.tag == tag)));
            match found {
                Some(send) => {
                    send.taken = true;
                    result.matched += 1;
                }
                None => result.unmatched_recvs += 1,
            }
        }
        result.unmatched_sends += from.values().flatten().filter(|m| !m.taken).count() as u64;
    }
    result.unmatched_sends += sends.values().flat_map(|m| m.values()).flatten().count() as u64;
    result
}

/// Communicators whose members do not all make the same sequence of
/// collectives (kind and root), each with a description; empty when every
/// communicator is consistent.
pub fn collective_mismatches(program: &Program) -> Vec<String> {
    let mut seqs: BTreeMap<u32, BTreeMap<u32, Vec<(Collective, u32)>>> = BTreeMap::new();
    for (world, ops) in program.ops.iter().enumerate() {
        for op in ops {
            if let Op::Coll { kind, comm, root, .. } = *op {
                seqs.entry(comm).or_default().entry(world as u32).or_default().push((kind, root));
            }
        }
    }
    let mut problems = Vec::new();
    for (comm, by_rank) in seqs {
        let members = program.comms.get(comm as usize).cloned().unwrap_or_default();
        let empty = Vec::new();
        let first = by_rank.get(members.first().unwrap_or(&0)).unwrap_or(&empty);
        for &m in &members {
            let seq = by_rank.get(&m).unwrap_or(&empty);
            if seq != first {
                problems.push(format!(
                    "communicator {comm}: rank {m} makes {} collectives, rank {} makes {} (or in another order)",
                    seq.len(),
                    members[0],
                    first.len()
                ));
            }
        }
        if let Some(outsider) = by_rank.keys().find(|r| !members.contains(r)) {
            problems.push(format!("communicator {comm}: rank {outsider} is no member but makes collectives on it"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::PROC_NULL;

    fn send(peer: i32, tag: i32) -> Op {
        Op::Isend { comm: 0, peer, tag, bytes: 8, req: 0 }
    }

    fn recv(peer: i32, tag: i32) -> Op {
        Op::Recv { comm: 0, peer, tag, bytes: 8 }
    }

    fn program(ops: Vec<Vec<Op>>) -> Program {
        let mut p = Program::new(ops.len() as u32);
        p.ops = ops;
        p
    }

    #[test]
    fn tags_may_overtake_but_wildcards_take_the_first() {
        // Rank 0 sends tags 1 then 2; rank 1 receives tag 2 first, then any tag.
        let p = program(vec![vec![send(1, 1), send(1, 2)], vec![recv(0, 2), recv(0, ANY_TAG)]]);
        assert_eq!(match_messages(&p), Matching { matched: 2, unmatched_sends: 0, unmatched_recvs: 0 });
        // A receive from MPI_ANY_SOURCE takes the lowest sender with a message.
        let p = program(vec![vec![recv(ANY_SOURCE, 5), recv(ANY_SOURCE, 5)], vec![send(0, 5)], vec![send(0, 5), send(0, 7)]]);
        assert_eq!(match_messages(&p), Matching { matched: 2, unmatched_sends: 1, unmatched_recvs: 0 });
    }

    #[test]
    fn proc_null_is_no_message_and_strays_are_counted() {
        let p = program(vec![vec![send(PROC_NULL, 0), send(1, 3), send(7, 0)], vec![recv(PROC_NULL, 0), recv(0, 4)]]);
        assert_eq!(match_messages(&p), Matching { matched: 0, unmatched_sends: 2, unmatched_recvs: 1 });
    }

    #[test]
    fn collective_order_is_checked_per_communicator() {
        let barrier = Op::Coll { kind: Collective::Barrier, comm: 0, bytes: 0, root: 0, counts: None, req: None };
        let bcast = Op::Coll { kind: Collective::Bcast, comm: 0, bytes: 8, root: 0, counts: None, req: None };
        assert!(collective_mismatches(&program(vec![vec![barrier.clone(), bcast.clone()], vec![barrier.clone(), bcast.clone()]])).is_empty());
        assert_eq!(collective_mismatches(&program(vec![vec![barrier.clone(), bcast.clone()], vec![bcast, barrier]])).len(), 1);
    }
}
