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

use super::Algorithm;
use crate::network::{Network, NONE};
use crate::packet::{Packet, FLAG_NONMINIMAL};
use crate::rng::Rng;
use crate::topology::GraphTopology;

/// Picks the output channel of `pkt` at switch `s`, updating its routing state.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn next_channel(
    alg: Algorithm,
    g: &GraphTopology,
    net: &Network,
    s: u32,
    pkt: &mut Packet,
    rng: &mut Rng,
    ugal_threshold: f64,
    occupancy: impl Fn(u32) -> u64,
) -> u32 {
    let undecided = pkt.flags & FLAG_NONMINIMAL == 0 && pkt.via_switch == NONE;
    match alg {
        Algorithm::Valiant if pkt.hops == 0 && undecided => {
            set_intermediate(g, s, pkt, rng);
        }
        Algorithm::Ugal if pkt.hops == 0 && undecided => return choose_ugal(g, net, s, pkt, rng, ugal_threshold, &occupancy),
        // Progressive adaptive: decide at the source switch, reconsider at
        // the next one while still minimal and inside the source group.
        Algorithm::Par
            if undecided
                && pkt.hops <= Algorithm::PAR_LAST_DECISION_HOP
                && g.groups[s as usize] == g.groups[net.endpoint_switch[pkt.src as usize] as usize] =>
        {
            return choose_ugal(g, net, s, pkt, rng, ugal_threshold, &occupancy);
        }
        _ => {}
    }
    step(g, net, s, pkt, rng, alg == Algorithm::MinimalAdaptive, &occupancy)
}

/// Compares the minimal path with one random Valiant candidate by
/// (bytes waiting for the output) x (path hops).
fn choose_ugal(g: &GraphTopology, net: &Network, s: u32, pkt: &mut Packet, rng: &mut Rng, threshold: f64, occupancy: &impl Fn(u32) -> u64) -> u32 {
    let mut nonmin = *pkt;
    if !set_intermediate(g, s, &mut nonmin, rng) {
        return step(g, net, s, pkt, rng, false, occupancy);
    }
    let via = nonmin.via_switch;
    let h_nm = (g.distance(s, via) + g.distance(via, pkt.dst_switch)) as f64;
    let h_min = g.distance(s, pkt.dst_switch) as f64;
    let mut min = *pkt;
    let ch_min = step(g, net, s, &mut min, rng, true, occupancy);
    let ch_nm = step(g, net, s, &mut nonmin, rng, true, occupancy);
    if occupancy(ch_min) as f64 * h_min <= occupancy(ch_nm) as f64 * h_nm + threshold {
        *pkt = min;
        ch_min
    } else {
        *pkt = nonmin;
        ch_nm
    }
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
