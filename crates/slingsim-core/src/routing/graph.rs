//! Routing on shortest-path tables (Slim Fly, Fit Fly, Megafly, fat tree,
//! Aries). Minimal routing moves to a neighbour one hop closer to the
//! target; Valiant first visits a random intermediate switch of the same
//! plane; UGAL and PAR choose between the two. On a fat tree the shortest
//! paths are exactly the up*/down* paths, so `minimal-adaptive` is up/down
//! routing with an adaptive choice among the up ports.
//!
//! Virtual channels are hop-indexed as on the dragonfly (see
//! `routing::dragonfly`): a path of at most H hops needs H VCs and the
//! channel dependency graph is acyclic.

use super::{flow_hash, Algorithm, Biases, PathClass};
use crate::network::{Network, NONE};
use crate::packet::{Packet, FLAG_NONMINIMAL};
use crate::rng::Rng;
use crate::topology::GraphTopology;

/// Picks the output channel of `pkt` at switch `s` under routing mode
/// `alg`, updating its routing state.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn next_channel(
    alg: Algorithm,
    g: &GraphTopology,
    net: &Network,
    s: u32,
    pkt: &mut Packet,
    rng: &mut Rng,
    biases: &Biases,
    occupancy: impl Fn(u32) -> u64,
) -> u32 {
    let minimal_so_far = pkt.flags & FLAG_NONMINIMAL == 0 && pkt.via_switch == NONE;
    let at_source = pkt.hops == 0 && minimal_so_far;
    if alg.hashed() {
        let h = flow_hash(alg, pkt.src, pkt.dst, pkt.created);
        if alg == Algorithm::NminHash && at_source {
            set_intermediate(g, s, pkt, &mut Rng::new(h, 0));
        }
        return step(g, net, s, pkt, &mut Rng::new(h, 1 + s as u64), false, &occupancy);
    }
    let (n_min, n_nonmin) = super::dragonfly::candidates(alg);
    if at_source {
        if alg == Algorithm::Valiant {
            set_intermediate(g, s, pkt, rng);
        } else if n_min > 0 {
            return choose_among(g, net, s, pkt, rng, n_min, n_nonmin, biases.of(alg, 0), &occupancy);
        }
    } else if alg.path_class() == PathClass::Progressive
        && minimal_so_far
        && pkt.hops <= Algorithm::PAR_LAST_DECISION_HOP
        && g.groups[s as usize] == g.groups[net.endpoint_switch[pkt.src as usize] as usize]
    {
        // PAR / ADAPTIVE_1: reconsider one hop later inside the source group.
        return choose_among(g, net, s, pkt, rng, n_min, n_nonmin, biases.of(alg, pkt.hops), &occupancy);
    }
    step(g, net, s, pkt, rng, alg == Algorithm::MinimalAdaptive, &occupancy)
}

/// As on the dragonfly: the cheapest of `n_min` minimal and `n_nonmin`
/// Valiant candidates by (bytes waiting) x (path hops) + bias.
#[allow(clippy::too_many_arguments)]
fn choose_among(
    g: &GraphTopology,
    net: &Network,
    s: u32,
    pkt: &mut Packet,
    rng: &mut Rng,
    n_min: u32,
    n_nonmin: u32,
    bias: f64,
    occupancy: &impl Fn(u32) -> u64,
) -> u32 {
    let mut best: Option<(f64, Packet, u32)> = None;
    for i in 0..n_min + n_nonmin {
        let nonmin = i >= n_min;
        let mut cand = *pkt;
        if nonmin && !set_intermediate(g, s, &mut cand, rng) {
            continue;
        }
        let hops = if nonmin {
            g.distance(s, cand.via_switch) as u32 + g.distance(cand.via_switch, pkt.dst_switch) as u32
        } else {
            g.distance(s, pkt.dst_switch) as u32
        };
        // Random next hops: the candidates differ, and the comparison adapts.
        let ch = step(g, net, s, &mut cand, rng, false, occupancy);
        let cost = occupancy(ch) as f64 * hops as f64 + if nonmin { bias } else { 0.0 };
        if best.as_ref().map_or(true, |(c, _, _)| cost < *c) {
            best = Some((cost, cand, ch));
        }
    }
    let (_, cand, ch) = best.expect("a minimal candidate always exists");
    *pkt = cand;
    ch
}

/// Chooses a random intermediate among the switches with endpoints of the
/// source's plane, other than the current and destination switches (so a
/// Valiant path is at most twice the endpoint diameter); false if none.
fn set_intermediate(g: &GraphTopology, s: u32, pkt: &mut Packet, rng: &mut Rng) -> bool {
    if s == pkt.dst_switch {
        return false;
    }
    let candidates = &g.endpoint_switches[g.plane[s as usize] as usize];
    if candidates.len() < 3 {
        return false;
    }
    // Rejection sampling: at most two candidates are excluded.
    for _ in 0..16 {
        let i = candidates[rng.below(candidates.len() as u64) as usize];
        if i != s && i != pkt.dst_switch {
            pkt.via_switch = i;
            pkt.flags |= FLAG_NONMINIMAL;
            return true;
        }
    }
    false
}

/// One hop toward the current target (intermediate switch, then the
/// destination): a random neighbour one hop closer, or the least occupied
/// of them when `adaptive`.
#[inline]
fn step(g: &GraphTopology, net: &Network, s: u32, pkt: &mut Packet, rng: &mut Rng, adaptive: bool, occupancy: &impl Fn(u32) -> u64) -> u32 {
    if pkt.via_switch == s {
        pkt.via_switch = NONE;
    }
    let target = if pkt.via_switch != NONE { pkt.via_switch } else { pkt.dst_switch };
    if target == s {
        return net.endpoint_down[pkt.dst as usize];
    }
    let want = g.distance(s, target).wrapping_sub(1);
    let mut chosen = NONE;
    let mut best = u64::MAX;
    let mut ties = 0u64;
    for nb in g.neighbors(s) {
        if g.distance(nb.switch, target) != want {
            continue;
        }
        let cost = if adaptive { occupancy(nb.channel) } else { 0 };
        if cost < best {
            best = cost;
            chosen = nb.channel;
            ties = 1;
        } else if cost == best {
            ties += 1;
            if rng.below(ties) == 0 {
                chosen = nb.channel;
            }
        }
    }
    debug_assert_ne!(chosen, NONE, "no shortest-path neighbour from switch {s} toward {target}");
    chosen
}
