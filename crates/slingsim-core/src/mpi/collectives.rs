//! Collectives as rounds of point-to-point messages, with the algorithms of
//! MPICH (Thakur, Rabenseifner and Gropp, "Optimization of collective
//! communication operations in MPICH", IJHPCA 2005) and its default
//! switch points. A rank runs its rounds in order; inside a round its sends
//! and receives are all posted at once and the round ends when all of them
//! have completed (then any reduction of the received data is charged).

use super::op::Collective;
use crate::error::{ConfigError, Result};

/// One round of a rank's part in a collective. Peers are ranks of the
/// communicator.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Round {
    pub sends: Vec<(u32, u64)>,
    pub recvs: Vec<(u32, u64)>,
    /// Bytes combined after the round's receives (reductions).
    pub reduce_bytes: u64,
}

/// An algorithm a collective can run with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// MPICH's choice by message size and communicator size.
    Auto,
    RecursiveDoubling,
    Rabenseifner,
    Ring,
    Bruck,
    /// MPICH's medium-message alltoall: nonblocking sends and receives to
    /// a throttle of peers at a time (`mpi.alltoall_throttle`).
    Scattered,
    Pairwise,
    Binomial,
    ScatterAllgather,
    RecursiveHalving,
    Dissemination,
}

impl Algorithm {
    /// The algorithms `kind` accepts (after `auto`).
    pub fn choices(kind: Collective) -> &'static [(&'static str, Algorithm)] {
        use Algorithm::*;
        match kind {
            Collective::Allreduce => &[("recursive_doubling", RecursiveDoubling), ("rabenseifner", Rabenseifner), ("ring", Ring)],
            Collective::Alltoall => &[("bruck", Bruck), ("scattered", Scattered), ("pairwise", Pairwise)],
            Collective::Bcast => &[("binomial", Binomial), ("scatter_allgather", ScatterAllgather)],
            Collective::Allgather => &[("recursive_doubling", RecursiveDoubling), ("ring", Ring)],
            Collective::ReduceScatter => &[("recursive_halving", RecursiveHalving), ("pairwise", Pairwise)],
            Collective::Barrier => &[("dissemination", Dissemination)],
            Collective::Reduce | Collective::Gather | Collective::Scatter => &[("binomial", Binomial)],
        }
    }

    /// Parses the algorithm named for `kind`; `field` names the config key.
    pub fn parse(field: &str, kind: Collective, name: &str) -> Result<Algorithm> {
        if name == "auto" {
            return Ok(Algorithm::Auto);
        }
        let choices = Algorithm::choices(kind);
        choices.iter().find(|(n, _)| *n == name).map(|&(_, a)| a).ok_or_else(|| {
            let names: Vec<&str> = std::iter::once("auto").chain(choices.iter().map(|(n, _)| *n)).collect();
            ConfigError::new(field, format!("unknown {} algorithm {name:?}; use one of {names:?}", kind.name()))
        })
    }
}

/// MPICH's default switch points (bytes).
const ALLREDUCE_SHORT: u64 = 2048;
const ALLTOALL_SHORT: u64 = 256;
const ALLTOALL_MEDIUM: u64 = 32_768;
/// Peers a rank of the scattered alltoall exchanges with at once by
/// default (MPICH's `MPIR_CVAR_ALLTOALL_THROTTLE`, default 32;
/// `mpi.alltoall_throttle`).
pub const ALLTOALL_THROTTLE: u32 = 32;
const BCAST_SHORT: u64 = 12_288;
const BCAST_MIN_PROCS: u32 = 8;
const ALLGATHER_LONG_TOTAL: u64 = 524_288;

/// The algorithm `auto` resolves to for `kind` with `bytes` on `p` ranks.
pub fn resolve(kind: Collective, alg: Algorithm, bytes: u64, p: u32) -> Algorithm {
    use Algorithm::*;
    if alg != Auto {
        return alg;
    }
    let pof2 = p.is_power_of_two();
    match kind {
        Collective::Allreduce => {
            if bytes <= ALLREDUCE_SHORT || bytes < p as u64 {
                RecursiveDoubling
            } else {
                Rabenseifner
            }
        }
        Collective::Alltoall => {
            if bytes <= ALLTOALL_SHORT {
                Bruck
            } else if bytes <= ALLTOALL_MEDIUM {
                Scattered
            } else {
                Pairwise
            }
        }
        Collective::Bcast => {
            if bytes < BCAST_SHORT || p < BCAST_MIN_PROCS {
                Binomial
            } else {
                ScatterAllgather
            }
        }
        Collective::Allgather => {
            if pof2 && bytes * p as u64 <= ALLGATHER_LONG_TOTAL {
                RecursiveDoubling
            } else {
                Ring
            }
        }
        Collective::ReduceScatter => {
            if pof2 {
                RecursiveHalving
            } else {
                Pairwise
            }
        }
        Collective::Barrier => Dissemination,
        Collective::Reduce | Collective::Gather | Collective::Scatter => Binomial,
    }
}

/// The rounds rank `r` of `p` runs for one collective. `bytes` as in
/// [`super::Op::Coll`]; `counts` (bytes to each rank) only for alltoall;
/// `throttle`: peers per block of the scattered alltoall (0: all at once).
#[allow(clippy::too_many_arguments)]
pub fn schedule(kind: Collective, alg: Algorithm, p: u32, r: u32, bytes: u64, root: u32, counts: Option<&[u64]>, throttle: u32) -> Vec<Round> {
    if p <= 1 {
        return Vec::new();
    }
    let alg = resolve(kind, alg, bytes, p);
    match kind {
        Collective::Barrier => dissemination(p, r),
        Collective::Allreduce => match alg {
            Algorithm::Rabenseifner => rabenseifner(p, r, bytes),
            Algorithm::Ring => ring_allreduce(p, r, bytes),
            _ => recursive_doubling_allreduce(p, r, bytes),
        },
        Collective::Alltoall => match (alg, counts) {
            (_, Some(c)) => pairwise_alltoall(p, r, |peer| c.get(peer as usize).copied().unwrap_or(0)),
            (Algorithm::Bruck, None) => bruck(p, r, bytes),
            (Algorithm::Scattered, None) => scattered_alltoall(p, r, bytes, throttle),
            _ => pairwise_alltoall(p, r, |_| bytes),
        },
        Collective::Bcast => match alg {
            Algorithm::ScatterAllgather => {
                let chunk = bytes.div_ceil(p as u64);
                let mut rounds = binomial_scatter(p, r, root, chunk);
                rounds.extend(ring_allgather(p, r, chunk));
                rounds
            }
            _ => binomial_bcast(p, r, root, bytes),
        },
        Collective::Reduce => binomial_reduce(p, r, root, |_| bytes, true),
        Collective::Gather => binomial_reduce(p, r, root, |subtree| subtree as u64 * bytes, false),
        Collective::Scatter => binomial_scatter(p, r, root, bytes),
        Collective::Allgather => match alg {
            Algorithm::RecursiveDoubling if p.is_power_of_two() => recursive_doubling_allgather(p, r, bytes),
            _ => ring_allgather(p, r, bytes),
        },
        Collective::ReduceScatter => match alg {
            Algorithm::RecursiveHalving if p.is_power_of_two() => recursive_halving(p, r, bytes),
            _ => pairwise_reduce_scatter(p, r, bytes),
        },
    }
}

fn exchange(peer: u32, send: u64, recv: u64, reduce: u64) -> Round {
    Round { sends: vec![(peer, send)], recvs: vec![(peer, recv)], reduce_bytes: reduce }
}

fn send_only(peer: u32, bytes: u64) -> Round {
    Round { sends: vec![(peer, bytes)], ..Default::default() }
}

fn recv_only(peer: u32, bytes: u64, reduce: u64) -> Round {
    Round { recvs: vec![(peer, bytes)], reduce_bytes: reduce, ..Default::default() }
}

/// Largest power of two not above `p`.
fn pof2_below(p: u32) -> u32 {
    1 << (31 - p.leading_zeros())
}

/// Barrier: in round k rank r signals r + 2^k and waits for r - 2^k.
fn dissemination(p: u32, r: u32) -> Vec<Round> {
    let mut out = Vec::new();
    let mut d = 1;
    while d < p {
        out.push(Round { sends: vec![((r + d) % p, 0)], recvs: vec![((r + p - d) % p, 0)], reduce_bytes: 0 });
        d <<= 1;
    }
    out
}

/// MPICH's fold of a non-power-of-two communicator onto the largest power
/// of two below it: the first 2 * rem ranks pair up, even ones hand their
/// data to the odd one and sit out. Returns this rank's new rank (None if
/// it sits out), the pre-rounds, and the post-rounds (results handed back).
fn fold(p: u32, r: u32, bytes: u64) -> (Option<u32>, Vec<Round>, Vec<Round>) {
    let pof2 = pof2_below(p);
    let rem = p - pof2;
    if r < 2 * rem {
        if r % 2 == 0 {
            (None, vec![send_only(r + 1, bytes)], vec![recv_only(r + 1, bytes, 0)])
        } else {
            (Some(r / 2), vec![recv_only(r - 1, bytes, bytes)], vec![send_only(r - 1, bytes)])
        }
    } else {
        (Some(r - rem), Vec::new(), Vec::new())
    }
}

/// Real rank of a folded rank.
fn unfold(p: u32, nr: u32) -> u32 {
    let rem = p - pof2_below(p);
    if nr < rem {
        nr * 2 + 1
    } else {
        nr + rem
    }
}

/// Allreduce for short messages: log2(p) exchanges of the whole buffer.
fn recursive_doubling_allreduce(p: u32, r: u32, bytes: u64) -> Vec<Round> {
    let (nr, mut out, post) = fold(p, r, bytes);
    if let Some(nr) = nr {
        let pof2 = pof2_below(p);
        let mut mask = 1;
        while mask < pof2 {
            out.push(exchange(unfold(p, nr ^ mask), bytes, bytes, bytes));
            mask <<= 1;
        }
    }
    out.extend(post);
    out
}

/// Allreduce for long messages: a reduce-scatter by recursive halving then
/// an allgather by recursive doubling (2 log2(p) rounds, each rank sends
/// about 2 n (p-1)/p bytes).
fn rabenseifner(p: u32, r: u32, bytes: u64) -> Vec<Round> {
    let (nr, mut out, post) = fold(p, r, bytes);
    if let Some(nr) = nr {
        let pof2 = pof2_below(p);
        let mut part = bytes;
        let mut halves = Vec::new();
        let mut mask = pof2 >> 1;
        while mask >= 1 {
            part = part.div_ceil(2);
            out.push(exchange(unfold(p, nr ^ mask), part, part, part));
            halves.push((mask, part));
            mask >>= 1;
        }
        for &(mask, part) in halves.iter().rev() {
            out.push(exchange(unfold(p, nr ^ mask), part, part, 0));
        }
    }
    out.extend(post);
    out
}

/// Allreduce as a ring reduce-scatter then a ring allgather (2 (p-1) rounds of n/p).
fn ring_allreduce(p: u32, r: u32, bytes: u64) -> Vec<Round> {
    let chunk = bytes.div_ceil(p as u64);
    let (next, prev) = ((r + 1) % p, (r + p - 1) % p);
    let mut out: Vec<Round> = (1..p).map(|_| Round { sends: vec![(next, chunk)], recvs: vec![(prev, chunk)], reduce_bytes: chunk }).collect();
    out.extend(ring_allgather(p, r, chunk));
    out
}

/// Alltoall for short messages (Bruck): ceil(log2 p) rounds; in round k a
/// rank forwards to r + 2^k every block whose index has bit k set.
fn bruck(p: u32, r: u32, bytes: u64) -> Vec<Round> {
    let mut out = Vec::new();
    let mut k = 1;
    while k < p {
        // Indices below p with bit k set: k per full period of 2k, plus the tail's.
        let blocks = ((p / (2 * k)) * k + (p % (2 * k)).saturating_sub(k)) as u64;
        out.push(Round { sends: vec![((r + k) % p, blocks * bytes)], recvs: vec![((r + p - k) % p, blocks * bytes)], reduce_bytes: 0 });
        k <<= 1;
    }
    out
}

/// MPICH's medium-message alltoall: the peers at offsets 0 to p - 1 in
/// blocks of `throttle` (0: one block of every peer, as MPICH posts all
/// of them at once when its throttle is 0); in a block a rank receives from r + i and
/// sends to r - i for each offset i, all posted at once, and waits for all of
/// them. Offset 0 is the rank's own block, a local copy, so the first round
/// has one peer fewer than the others (as in MPICH, whose first block
/// includes itself).
fn scattered_alltoall(p: u32, r: u32, bytes: u64, throttle: u32) -> Vec<Round> {
    let block = if throttle == 0 { p } else { throttle };
    (0..p)
        .step_by(block as usize)
        .map(|start| {
            let offsets = start.max(1)..start.saturating_add(block).min(p);
            Round {
                recvs: offsets.clone().map(|i| ((r + i) % p, bytes)).collect(),
                sends: offsets.map(|i| ((r + p - i) % p, bytes)).collect(),
                reduce_bytes: 0,
            }
        })
        .filter(|round| !round.sends.is_empty())
        .collect()
}

/// Alltoall by pairwise exchange: p - 1 rounds, partner r XOR i when p is a
/// power of two, else send to r + i and receive from r - i.
fn pairwise_alltoall(p: u32, r: u32, to: impl Fn(u32) -> u64) -> Vec<Round> {
    (1..p)
        .map(|i| {
            let (dst, src) = if p.is_power_of_two() { (r ^ i, r ^ i) } else { ((r + i) % p, (r + p - i) % p) };
            Round { sends: vec![(dst, to(dst))], recvs: vec![(src, to(src))], reduce_bytes: 0 }
        })
        .collect()
}

/// Binomial-tree broadcast: receive from the parent, then send to the
/// children, largest subtree first (each send its own round, as MPICH's
/// blocking sends).
fn binomial_bcast(p: u32, r: u32, root: u32, bytes: u64) -> Vec<Round> {
    binomial_down(p, r, root, |_| bytes)
}

/// Binomial scatter of `chunk` bytes per rank from `root`: each rank
/// receives its subtree's chunks, then hands each child its subtree's.
fn binomial_scatter(p: u32, r: u32, root: u32, chunk: u64) -> Vec<Round> {
    binomial_down(p, r, root, |subtree| subtree as u64 * chunk)
}

/// Data flowing down a binomial tree rooted at `root`: one receive from
/// the parent, then a send to each child, largest subtree first; a
/// message to or from a subtree of n ranks carries `size(n)` bytes.
fn binomial_down(p: u32, r: u32, root: u32, size: impl Fn(u32) -> u64) -> Vec<Round> {
    let rr = (r + p - root) % p;
    let abs = |x: u32| (x + root) % p;
    let mut out = Vec::new();
    let mut mask = 1;
    while mask < p {
        if rr & mask != 0 {
            out.push(recv_only(abs(rr - mask), size(mask.min(p - rr)), 0));
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rr + mask < p {
            out.push(send_only(abs(rr + mask), size(mask.min(p - rr - mask))));
        }
        mask >>= 1;
    }
    out
}

/// Binomial reduce (or gather) toward `root`: receive from each child in
/// turn (`size(subtree)` bytes), then send to the parent.
fn binomial_reduce(p: u32, r: u32, root: u32, size: impl Fn(u32) -> u64, reduce: bool) -> Vec<Round> {
    let rr = (r + p - root) % p;
    let abs = |x: u32| (x + root) % p;
    let mut out = Vec::new();
    let mut mask = 1;
    while mask < p {
        if rr & mask == 0 {
            let child = rr | mask;
            if child < p {
                let n = size(mask.min(p - child));
                out.push(recv_only(abs(child), n, if reduce { n } else { 0 }));
            }
        } else {
            let subtree = mask.min(p - rr);
            out.push(send_only(abs(rr & !mask), size(subtree)));
            break;
        }
        mask <<= 1;
    }
    out
}

/// Allgather on a power of two: round k exchanges 2^k blocks with r XOR 2^k.
fn recursive_doubling_allgather(p: u32, r: u32, bytes: u64) -> Vec<Round> {
    let mut out = Vec::new();
    let mut mask = 1;
    while mask < p {
        out.push(exchange(r ^ mask, mask as u64 * bytes, mask as u64 * bytes, 0));
        mask <<= 1;
    }
    out
}

/// Allgather around a ring: p - 1 rounds, each passing one block on.
fn ring_allgather(p: u32, r: u32, bytes: u64) -> Vec<Round> {
    let (next, prev) = ((r + 1) % p, (r + p - 1) % p);
    (1..p).map(|_| Round { sends: vec![(next, bytes)], recvs: vec![(prev, bytes)], reduce_bytes: 0 }).collect()
}

/// Reduce-scatter on a power of two: round k sends the half the partner
/// keeps (p / 2^(k+1) blocks) and combines the half it keeps.
fn recursive_halving(p: u32, r: u32, bytes: u64) -> Vec<Round> {
    let mut out = Vec::new();
    let mut mask = p >> 1;
    while mask >= 1 {
        let n = mask as u64 * bytes;
        out.push(exchange(r ^ mask, n, n, n));
        mask >>= 1;
    }
    out
}

/// Reduce-scatter by pairwise exchange: p - 1 rounds of one block.
fn pairwise_reduce_scatter(p: u32, r: u32, bytes: u64) -> Vec<Round> {
    (1..p).map(|i| Round { sends: vec![((r + i) % p, bytes)], recvs: vec![((r + p - i) % p, bytes)], reduce_bytes: bytes }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Every message one rank sends is one its peer receives, in the same
    /// order (so point-to-point matching pairs them).
    fn balanced(kind: Collective, alg: Algorithm, p: u32, bytes: u64, root: u32) -> HashMap<(u32, u32), u64> {
        let mut sent: HashMap<(u32, u32), Vec<u64>> = HashMap::new();
        let mut recvd: HashMap<(u32, u32), Vec<u64>> = HashMap::new();
        for r in 0..p {
            for round in schedule(kind, alg, p, r, bytes, root, None, ALLTOALL_THROTTLE) {
                for (peer, b) in round.sends {
                    assert_ne!(peer, r);
                    sent.entry((r, peer)).or_default().push(b);
                }
                for (peer, b) in round.recvs {
                    recvd.entry((peer, r)).or_default().push(b);
                }
            }
        }
        assert_eq!(sent, recvd, "{kind:?} {alg:?} p={p}");
        sent.into_iter().map(|(k, v)| (k, v.iter().sum())).collect()
    }

    #[test]
    fn every_algorithm_pairs_its_messages() {
        for p in [2, 3, 5, 7, 8, 12, 16] {
            for kind in Collective::ALL {
                for root in [0, p - 1] {
                    balanced(kind, Algorithm::Auto, p, 1000, root);
                    for &(_, a) in Algorithm::choices(kind) {
                        balanced(kind, a, p, 1000, root);
                    }
                }
            }
        }
    }

    #[test]
    fn bytes_reach_every_rank() {
        // Alltoall: every rank pair carries exactly `bytes` (pairwise), or
        // each rank sends (p - 1) blocks in total over the Bruck rounds
        // counted with multiplicity of forwarding.
        let p = 6;
        let m = balanced(Collective::Alltoall, Algorithm::Pairwise, p, 100, 0);
        assert_eq!(m.len(), (p * (p - 1)) as usize);
        assert!(m.values().all(|&b| b == 100));
        // Scattered: the same, over blocks of 32 peers.
        let m = balanced(Collective::Alltoall, Algorithm::Scattered, 70, 100, 0);
        assert_eq!(m.len(), 70 * 69);
        assert!(m.values().all(|&b| b == 100));
        // Allgather ring: each rank passes p - 1 blocks to its successor.
        let m = balanced(Collective::Allgather, Algorithm::Ring, p, 10, 0);
        assert!(m.values().all(|&b| b == 10 * (p as u64 - 1)));
        // Binomial bcast reaches every non-root exactly once.
        for r in 0..p {
            let rounds = schedule(Collective::Bcast, Algorithm::Binomial, p, r, 10, 2, None, ALLTOALL_THROTTLE);
            let recvs: usize = rounds.iter().map(|x| x.recvs.len()).sum();
            assert_eq!(recvs, if r == 2 { 0 } else { 1 });
        }
    }

    #[test]
    fn auto_switches_where_mpich_does() {
        assert_eq!(resolve(Collective::Alltoall, Algorithm::Auto, 256, 16), Algorithm::Bruck);
        assert_eq!(resolve(Collective::Alltoall, Algorithm::Auto, 257, 16), Algorithm::Scattered);
        assert_eq!(resolve(Collective::Alltoall, Algorithm::Auto, 32_768, 16), Algorithm::Scattered);
        assert_eq!(resolve(Collective::Alltoall, Algorithm::Auto, 32_769, 16), Algorithm::Pairwise);
        assert_eq!(resolve(Collective::Allreduce, Algorithm::Auto, 2048, 16), Algorithm::RecursiveDoubling);
        assert_eq!(resolve(Collective::Allreduce, Algorithm::Auto, 2049, 16), Algorithm::Rabenseifner);
        assert_eq!(resolve(Collective::Bcast, Algorithm::Auto, 1 << 20, 16), Algorithm::ScatterAllgather);
        assert_eq!(resolve(Collective::Bcast, Algorithm::Auto, 1 << 20, 4), Algorithm::Binomial);
    }

    #[test]
    fn round_counts_follow_the_algorithms() {
        assert_eq!(schedule(Collective::Allreduce, Algorithm::RecursiveDoubling, 16, 3, 8, 0, None, ALLTOALL_THROTTLE).len(), 4);
        assert_eq!(schedule(Collective::Allreduce, Algorithm::Rabenseifner, 16, 3, 1 << 20, 0, None, ALLTOALL_THROTTLE).len(), 8);
        assert_eq!(schedule(Collective::Barrier, Algorithm::Auto, 5, 0, 0, 0, None, ALLTOALL_THROTTLE).len(), 3);
        assert_eq!(schedule(Collective::Alltoall, Algorithm::Bruck, 8, 0, 8, 0, None, ALLTOALL_THROTTLE).len(), 3);
        assert_eq!(schedule(Collective::Alltoall, Algorithm::Pairwise, 8, 0, 1024, 0, None, ALLTOALL_THROTTLE).len(), 7);
        // Scattered: blocks of 32 offsets, the first without the rank itself.
        let rounds = schedule(Collective::Alltoall, Algorithm::Scattered, 70, 5, 1024, 0, None, ALLTOALL_THROTTLE);
        assert_eq!(rounds.iter().map(|r| r.sends.len()).collect::<Vec<_>>(), vec![31, 32, 6]);
        assert_eq!(rounds[0].sends[0], (4, 1024));
        assert_eq!(rounds[0].recvs[0], (6, 1024));
        // Another throttle cuts the same offsets into other blocks; 0 posts
        // every peer in one block, as MPICH does when its throttle is 0.
        let blocks = |t| schedule(Collective::Alltoall, Algorithm::Scattered, 70, 5, 1024, 0, None, t).iter().map(|r| r.sends.len()).collect::<Vec<_>>();
        assert_eq!(blocks(8), [vec![7], vec![8; 7], vec![6]].concat());
        assert_eq!(blocks(0), vec![69]);
        assert_eq!(blocks(1000), vec![69]);
        let all = schedule(Collective::Alltoall, Algorithm::Scattered, 70, 5, 1024, 0, None, 0);
        assert_eq!((all[0].sends[0], all[0].recvs[0], all[0].sends[68]), ((4, 1024), (6, 1024), (6, 1024)));
        // Non-power of two: 6 ranks fold onto 4; ranks 0 and 2 sit out.
        assert_eq!(schedule(Collective::Allreduce, Algorithm::RecursiveDoubling, 6, 0, 8, 0, None, ALLTOALL_THROTTLE).len(), 2);
        assert_eq!(schedule(Collective::Allreduce, Algorithm::RecursiveDoubling, 6, 1, 8, 0, None, ALLTOALL_THROTTLE).len(), 4);
        assert!(Algorithm::parse("mpi.algorithms.alltoall", Collective::Alltoall, "ring").is_err());
    }
}
