//! Routing on the 1D dragonfly.
//!
//! Paths: minimal is local-global-local (at most 3 switch hops); Valiant
//! goes through a random intermediate group (at most 5 hops) or, inside a
//! group, a random intermediate switch (2 hops). The virtual channel of a
//! switch-to-switch hop is the number of hops already taken, so every
//! dependency goes from a lower to a higher VC and no cycle can form
//! (deadlock freedom by construction; VCs needed = longest path).

use super::Algorithm;
use crate::network::{Network, NONE};
use crate::packet::{Packet, FLAG_NONMINIMAL};
use crate::rng::Rng;
use crate::topology::Dragonfly;

/// Picks the output channel of `pkt` at switch `s`, updating its routing state.
/// `occupancy(ch)` estimates the bytes waiting for channel `ch` (UGAL).
#[inline]
pub fn next_channel(
    alg: Algorithm,
    df: &Dragonfly,
    net: &Network,
    s: u32,
    pkt: &mut Packet,
    rng: &mut Rng,
    ugal_threshold: f64,
    occupancy: impl Fn(u32) -> u64,
) -> u32 {
    let minimal_so_far = pkt.flags & FLAG_NONMINIMAL == 0;
    if pkt.hops == 0 && minimal_so_far && pkt.global_link == NONE {
        match alg {
            Algorithm::Minimal | Algorithm::MinimalAdaptive => {}
            Algorithm::Valiant => {
                set_intermediate(df, s, pkt, rng);
            }
            Algorithm::Ugal | Algorithm::Par => return ugal(df, net, s, pkt, rng, ugal_threshold, occupancy),
        }
    } else if alg == Algorithm::Par
        && minimal_so_far
        && pkt.hops <= Algorithm::PAR_LAST_DECISION_HOP
        && df.group(s) == df.group(net.endpoint_switch[pkt.src as usize])
    {
        // PAR: the packet went one local hop minimally; look again here.
        pkt.global_link = NONE;
        return ugal(df, net, s, pkt, rng, ugal_threshold, occupancy);
    }
    step(df, net, s, pkt, rng)
}

/// UGAL-L at the source switch: compare queue x hops of the minimal path and
/// of one random Valiant candidate.
fn ugal(df: &Dragonfly, net: &Network, s: u32, pkt: &mut Packet, rng: &mut Rng, threshold: f64, occupancy: impl Fn(u32) -> u64) -> u32 {
    let mut nonmin = *pkt;
    if !set_intermediate(df, s, &mut nonmin, rng) {
        return step(df, net, s, pkt, rng);
    }
    let mut min = *pkt;
    let ch_min = step(df, net, s, &mut min, rng);
    let h_min = min_hops(df, s, pkt.dst_switch) as f64;
    let ch_nm = step(df, net, s, &mut nonmin, rng);
    let h_nm = valiant_hops_estimate(df, s, &nonmin) as f64;
    let cost_min = occupancy(ch_min) as f64 * h_min;
    let cost_nm = occupancy(ch_nm) as f64 * h_nm;
    if cost_min <= cost_nm + threshold {
        *pkt = min;
        ch_min
    } else {
        *pkt = nonmin;
        ch_nm
    }
}

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
