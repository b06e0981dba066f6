//! Routing on the 1D dragonfly.
//!
//! Paths: minimal is local-global-local (at most 3 switch hops); Valiant
//! goes through a random intermediate group (at most 5 hops) or, inside a
//! group, a random intermediate switch (2 hops). The virtual channel of a
//! switch-to-switch hop is the number of hops already taken, so every
//! dependency goes from a lower to a higher VC and no cycle can form
//! (deadlock freedom by construction; VCs needed = longest path).

use super::{flow_hash, Algorithm, Biases, PathClass};
use crate::network::{Network, NONE};
use crate::packet::{Packet, FLAG_NONMINIMAL};
use crate::rng::Rng;
use crate::topology::Dragonfly;

/// Picks the output channel of `pkt` at switch `s` under routing mode
/// `alg`, updating its routing state. `occupancy(ch)` estimates the bytes
/// waiting for channel `ch` (for the adaptive modes).
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn next_channel(
    alg: Algorithm,
    df: &Dragonfly,
    net: &Network,
    s: u32,
    pkt: &mut Packet,
    rng: &mut Rng,
    biases: &Biases,
    occupancy: impl Fn(u32) -> u64,
) -> u32 {
    let minimal_so_far = pkt.flags & FLAG_NONMINIMAL == 0;
    let at_source = pkt.hops == 0 && minimal_so_far && pkt.global_link == NONE;
    if alg.hashed() {
        // The same flow always draws the same choices.
        let h = flow_hash(alg, pkt.src, pkt.dst, pkt.created);
        if alg == Algorithm::NminHash && at_source {
            set_intermediate(df, s, pkt, &mut Rng::new(h, 0));
        }
        return step(df, net, s, pkt, &mut Rng::new(h, 1 + s as u64));
    }
    let (n_min, n_nonmin) = candidates(alg);
    if at_source {
        if alg == Algorithm::Valiant {
            set_intermediate(df, s, pkt, rng);
        } else if n_min > 0 {
            return choose_among(df, net, s, pkt, rng, n_min, n_nonmin, biases.of(alg, 0), occupancy);
        }
    } else if alg.path_class() == PathClass::Progressive
        && minimal_so_far
        && pkt.hops <= Algorithm::PAR_LAST_DECISION_HOP
        && df.group(s) == df.group(net.endpoint_switch[pkt.src as usize])
    {
        // PAR / ADAPTIVE_1: one local hop taken minimally; look again here.
        pkt.global_link = NONE;
        return choose_among(df, net, s, pkt, rng, n_min, n_nonmin, biases.of(alg, pkt.hops), occupancy);
    }
    step(df, net, s, pkt, rng)
}

/// Minimal and non-minimal candidates an adaptive mode compares.
pub fn candidates(alg: Algorithm) -> (u32, u32) {
    match alg {
        Algorithm::Ugal | Algorithm::Par => (1, 1),
        Algorithm::Slingshot | Algorithm::Adaptive(_) => (2, 2),
        _ => (0, 0),
    }
}

/// Evaluates `n_min` minimal and `n_nonmin` Valiant candidate paths from
/// the source switch by (bytes waiting at their first output) x (path
/// hops), plus `bias` on the non-minimal ones, and takes the cheapest;
/// ties go to the minimal path (UGAL-L for 1 + 1, Slingshot and Aries
/// adaptive routing for 2 + 2: paper 000 Sec. II-C, 004 Sec. 2.2).
#[allow(clippy::too_many_arguments)]
fn choose_among(
    df: &Dragonfly,
    net: &Network,
    s: u32,
    pkt: &mut Packet,
    rng: &mut Rng,
    n_min: u32,
    n_nonmin: u32,
    bias: f64,
    occupancy: impl Fn(u32) -> u64,
) -> u32 {
    let mut best: Option<(f64, Packet, u32)> = None;
    for i in 0..n_min + n_nonmin {
        let nonmin = i >= n_min;
        let mut cand = *pkt;
        if nonmin && !set_intermediate(df, s, &mut cand, rng) {
            continue;
        }
        let ch = step(df, net, s, &mut cand, rng);
        let hops = if nonmin { valiant_hops_estimate(df, s, &cand) } else { min_hops(df, s, pkt.dst_switch) };
        let mut cost = occupancy(ch) as f64 * hops as f64 + if nonmin { bias } else { 0.0 };
        if cand.global_link != NONE {
            // The global link the path heads for, a hop away: a failed one
            // (removed from the routing tables) rules the path out.
            let l = df.all_global_links()[cand.global_link as usize];
            if occupancy(net.out_channel(l.from, l.port)) >= FAILED_LINK {
                cost = f64::INFINITY;
            }
        }
        if best.as_ref().map_or(true, |(c, _, _)| cost < *c) {
            best = Some((cost, cand, ch));
        }
    }
    let (_, cand, ch) = best.expect("a minimal candidate always exists");
    *pkt = cand;
    ch
}

/// Occupancy the engine reports for a failed link.
pub const FAILED_LINK: u64 = u64::MAX / 4;

/// Chooses a Valiant intermediate; false when none exists (then the packet
/// routes minimally).
fn set_intermediate(df: &Dragonfly, s: u32, pkt: &mut Packet, rng: &mut Rng) -> bool {
    let (gs, gd) = (df.group(s), df.group(pkt.dst_switch));
    if s == pkt.dst_switch {
        return false;
    }
    if gs == gd {
        let a = df.switches_per_group;
        if a < 3 {
            return false;
        }
        // Random switch of the group other than source and destination.
        let base = gs * a;
        let (x, y) = (s - base, pkt.dst_switch - base);
        let (lo, hi) = (x.min(y), x.max(y));
        let mut r = rng.below((a - 2) as u64) as u32;
        if r >= lo {
            r += 1;
        }
        if r >= hi {
            r += 1;
        }
        pkt.via_switch = base + r;
    } else {
        let g = df.groups;
        if g < 3 {
            return false;
        }
        let (lo, hi) = (gs.min(gd), gs.max(gd));
        let mut r = rng.below((g - 2) as u64) as u32;
        if r >= lo {
            r += 1;
        }
        if r >= hi {
            r += 1;
        }
        pkt.via_group = r;
    }
    pkt.flags |= FLAG_NONMINIMAL;
    true
}

/// Follows the packet's routing state one hop.
#[inline]
fn step(df: &Dragonfly, net: &Network, s: u32, pkt: &mut Packet, rng: &mut Rng) -> u32 {
    let gs = df.group(s);
    if pkt.via_group == gs {
        pkt.via_group = NONE;
        pkt.global_link = NONE;
    }
    if pkt.via_switch == s {
        pkt.via_switch = NONE;
    }
    if pkt.via_switch != NONE {
        return local_hop(df, net, s, pkt.via_switch, rng);
    }
    if s == pkt.dst_switch && pkt.via_group == NONE {
        return net.endpoint_down[pkt.dst as usize];
    }
    let (target_group, target_switch) =
        if pkt.via_group != NONE { (pkt.via_group, NONE) } else { (df.group(pkt.dst_switch), pkt.dst_switch) };
    if gs == target_group {
        return local_hop(df, net, s, pkt.dst_switch, rng);
    }
    if pkt.global_link == NONE {
        pkt.global_link = pick_global(df, s, gs, target_group, target_switch, rng);
    }
    let link = df.all_global_links()[pkt.global_link as usize];
    if link.from == s {
        pkt.global_link = NONE;
        net.out_channel(s, link.port)
    } else {
        local_hop(df, net, s, link.from, rng)
    }
}

/// Channel of a random one of the parallel local links from `s` to `t`.
#[inline]
fn local_hop(df: &Dragonfly, net: &Network, s: u32, t: u32, rng: &mut Rng) -> u32 {
    let k = df.local_links_per_pair;
    let j = if k > 1 { rng.below(k as u64) as u32 } else { 0 };
    net.out_channel(s, df.local_port(s, t, j))
}

/// Index (into `all_global_links`) of a random shortest-path global link
/// from switch `s` of group `from` toward group `to` (and switch `target`
/// there, if known). Ties are broken uniformly.
fn pick_global(df: &Dragonfly, s: u32, from: u32, to: u32, target: u32, rng: &mut Rng) -> u32 {
    let links = df.links_between(from, to);
    let base = df.all_global_links().as_ptr() as usize;
    let offset = (links.as_ptr() as usize - base) / std::mem::size_of::<crate::topology::dragonfly::GlobalLink>();
    let mut best = u32::MAX;
    let mut chosen = 0usize;
    let mut ties = 0u64;
    for (i, l) in links.iter().enumerate() {
        let h = (l.from != s) as u32 + (target != NONE && l.to != target) as u32;
        if h < best {
            best = h;
            chosen = i;
            ties = 1;
        } else if h == best {
            ties += 1;
            if rng.below(ties) == 0 {
                chosen = i;
            }
        }
    }
    (offset + chosen) as u32
}

/// Switch-to-switch hops of a minimal path from `s` to `d`.
pub fn min_hops(df: &Dragonfly, s: u32, d: u32) -> u32 {
    if s == d {
        return 0;
    }
    let (gs, gd) = (df.group(s), df.group(d));
    if gs == gd {
        return 1;
    }
    df.links_between(gs, gd).iter().map(|l| (l.from != s) as u32 + 1 + (l.to != d) as u32).min().unwrap_or(u32::MAX)
}

/// Estimated hops of a Valiant path already set on `pkt` at switch `s`.
fn valiant_hops_estimate(df: &Dragonfly, s: u32, pkt: &Packet) -> u32 {
    if pkt.via_switch != NONE {
        return 2;
    }
    // To the intermediate group (the chosen link), then on average a
    // global hop and a local hop to the destination.
    let first = if pkt.global_link == NONE { 0 } else { (df.all_global_links()[pkt.global_link as usize].from != s) as u32 + 1 };
    first.max(1) + 2
}
