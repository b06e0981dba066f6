//! Routing on the 1D dragonfly.
//!
//! Paths: minimal is local-global-local (at most 3 switch hops); Valiant
//! goes through a random intermediate group (at most 5 hops) or, inside a
//! group, a random intermediate switch (2 hops). The virtual channel of a
//! switch-to-switch hop is the number of hops already taken, so every
//! dependency goes from a lower to a higher VC and no cycle can form
//! (deadlock freedom by construction; VCs needed = longest path).

use super::adaptive::Paths;
use crate::ids::{ChannelId, SwitchId};
use crate::network::{Network, NONE};
use crate::packet::{PacketHot as Packet, FLAG_NONMINIMAL};
use crate::rng::Rng;
use crate::topology::dragonfly::{GlobalLink, PairLinks};
use crate::topology::Dragonfly;

impl Paths for Dragonfly {
    fn group(&self, s: SwitchId) -> u32 {
        Dragonfly::group(self, s)
    }

    fn set_intermediate(&self, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> bool {
        set_intermediate(self, s, pkt, rng)
    }

    #[inline]
    fn step<F: FnMut(ChannelId) -> u64>(&self, net: &Network, s: SwitchId, pkt: &mut Packet, rng: &mut Rng, _adaptive: bool, _occupancy: &mut F) -> ChannelId {
        step(self, net, s, pkt, rng)
    }

    fn path_hops(&self, s: SwitchId, pkt: &Packet, cand: &Packet, nonminimal: bool) -> u32 {
        if nonminimal {
            valiant_hops_estimate(self, s, cand)
        } else {
            min_hops(self, s, pkt.dst_switch)
        }
    }

    fn likely_next(&self, net: &Network, s: SwitchId, pkt: &Packet, f: &mut dyn FnMut(ChannelId)) {
        likely_next(self, net, s, pkt, f)
    }

    fn step_one_global_hop(&self, net: &Network, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> Option<(ChannelId, u32)> {
        step_one_global_hop(self, net, s, pkt, rng)
    }

    /// The global link the path heads for, a hop away.
    fn committed_channel(&self, net: &Network, cand: &Packet) -> ChannelId {
        if cand.global_link == NONE {
            return ChannelId::NONE;
        }
        let l = self.global_link(cand.global_link);
        net.out_channel(l.from, l.port)
    }
}

/// Chooses a Valiant intermediate; false when none exists (then the packet
/// routes minimally).
fn set_intermediate(df: &Dragonfly, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> bool {
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
        let (x, y) = (s.0 - base, pkt.dst_switch.0 - base);
        let (lo, hi) = (x.min(y), x.max(y));
        let mut r = rng.below((a - 2) as u64) as u32;
        if r >= lo {
            r += 1;
        }
        if r >= hi {
            r += 1;
        }
        pkt.set_via_switch(SwitchId(base + r));
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
        pkt.set_via_group(r);
    }
    pkt.flags |= FLAG_NONMINIMAL;
    true
}

/// Follows the packet's routing state one hop.
#[inline]
fn step(df: &Dragonfly, net: &Network, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> ChannelId {
    let gs = df.group(s);
    if pkt.via_group() == gs {
        pkt.clear_via();
        pkt.global_link = NONE;
    }
    if pkt.via_switch() == s {
        pkt.clear_via();
    }
    if !pkt.via_switch().is_none() {
        return local_hop(df, net, s, pkt.via_switch(), rng);
    }
    let via_group = pkt.via_group();
    if s == pkt.dst_switch && via_group == NONE {
        return net.endpoint_down[pkt.dst];
    }
    let (target_group, target_switch) =
        if via_group != NONE { (via_group, SwitchId::NONE) } else { (df.group(pkt.dst_switch), pkt.dst_switch) };
    if gs == target_group {
        return local_hop(df, net, s, pkt.dst_switch, rng);
    }
    if pkt.global_link == NONE {
        pkt.global_link = pick_global(df, s, gs, target_group, target_switch, rng);
    }
    let link = df.global_link(pkt.global_link);
    if link.from == s {
        pkt.global_link = NONE;
        net.out_channel(s, link.port)
    } else {
        local_hop(df, net, s, link.from, rng)
    }
}

/// A minimal path over a uniformly drawn one of the global links between
/// the packet's group and its destination's, whichever switch of the group
/// it leaves from and lands on: up to local, global, local (3 hops). None
/// unless `routing.minimal_paths = "one-global-hop"`, and for a packet
/// already in its destination group or on a Valiant leg.
fn step_one_global_hop(df: &Dragonfly, net: &Network, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> Option<(ChannelId, u32)> {
    if !df.one_global_hop {
        return None;
    }
    let (gs, gd) = (df.group(s), df.group(pkt.dst_switch));
    if gs == gd || pkt.via_group() != NONE || !pkt.via_switch().is_none() || df.links_per_group_pair == 0 {
        return None;
    }
    let first = df.first_link_between(gs, gd);
    let i = if df.links_down() == 0 {
        first + rng.below(df.links_per_group_pair as u64) as u32
    } else {
        // Uniformly over the pair's links that are up (at least one is).
        let up = || (first..first + df.links_per_group_pair).filter(|&i| df.link_up(df.global_link(i)));
        let k = rng.below(up().count() as u64) as usize;
        up().nth(k).expect("a group pair keeps a link up")
    };
    let link = df.global_link(i);
    let hops = (link.from != s) as u32 + 1 + (link.to != pkt.dst_switch) as u32;
    // Committed to that link, the packet follows it as `step` does any.
    pkt.global_link = i;
    Some((step(df, net, s, pkt, rng), hops))
}

/// [`step`]'s choice read without taking it: every channel it may return
/// from `s` for `pkt` (nothing where it would first pick a global link).
fn likely_next(df: &Dragonfly, net: &Network, s: SwitchId, pkt: &Packet, f: &mut dyn FnMut(ChannelId)) {
    let gs = df.group(s);
    let mut via_group = pkt.via_group();
    let mut via_switch = pkt.via_switch();
    let mut global_link = pkt.global_link;
    if via_group == gs {
        via_group = NONE;
        via_switch = SwitchId::NONE;
        global_link = NONE;
    }
    if via_switch == s {
        via_switch = SwitchId::NONE;
    }
    let local = |t: SwitchId, f: &mut dyn FnMut(ChannelId)| {
        for j in 0..df.local_links_per_pair.min(2) {
            f(net.out_channel(s, df.local_port(s, t, j)));
        }
    };
    if !via_switch.is_none() {
        return local(via_switch, f);
    }
    if s == pkt.dst_switch && via_group == NONE {
        return f(net.endpoint_down[pkt.dst]);
    }
    let target_group = if via_group != NONE { via_group } else { df.group(pkt.dst_switch) };
    if gs == target_group {
        return local(pkt.dst_switch, f);
    }
    if global_link == NONE {
        return;
    }
    let link = df.global_link(global_link);
    if link.from == s {
        f(net.out_channel(s, link.port))
    } else {
        local(link.from, f)
    }
}

/// Channel of a random one of the parallel local links from `s` to `t`
/// (of those up, where some are down from the start).
#[inline]
fn local_hop(df: &Dragonfly, net: &Network, s: SwitchId, t: SwitchId, rng: &mut Rng) -> ChannelId {
    let k = df.local_links_per_pair;
    let j = if k <= 1 {
        0
    } else if df.links_down() == 0 {
        rng.below(k as u64) as u32
    } else {
        // Uniformly over the pair's links that are up (at least one is).
        let up = || (0..k).filter(|&j| df.local_up(s, t, j));
        let n = rng.below(up().count() as u64) as usize;
        up().nth(n).expect("a switch pair keeps a local link up")
    };
    net.out_channel(s, df.local_port(s, t, j))
}

/// Index (into `all_global_links`) of a random shortest-path global link
/// from switch `s` of group `from` toward group `to` (and switch `target`
/// there, if known), among those not down from the start. Ties are broken
/// uniformly, with one random draw.
fn pick_global(df: &Dragonfly, s: SwitchId, from: u32, to: u32, target: SwitchId, rng: &mut Rng) -> u32 {
    let first = df.first_link_between(from, to);
    let up = |l: GlobalLink| df.link_up(l);
    // One loop per way of listing the links, so neither pays for the other.
    let i = match df.links_from_to(from, to) {
        PairLinks::Table(links) => pick_shortest(links.copied(), s, target, up, rng),
        PairLinks::Computed(links) => pick_shortest(links, s, target, up, rng),
    };
    first + i
}

/// Position among `links` of a random one of those with the fewest hops
/// from `s` to `target` (any switch of the far group if NONE), of those
/// that are `up`.
#[inline]
fn pick_shortest<I: Iterator<Item = GlobalLink> + Clone>(links: I, s: SwitchId, target: SwitchId, up: impl Fn(GlobalLink) -> bool, rng: &mut Rng) -> u32 {
    let hops = |l: GlobalLink| {
        if up(l) {
            (l.from != s) as u32 + (!target.is_none() && l.to != target) as u32
        } else {
            u32::MAX
        }
    };
    // One pass collects the shortest; a pair with more than `MAX_FAN` of
    // them takes a second pass instead (the same choice from the same draw).
    const MAX_FAN: usize = 32;
    let mut fan = [0u32; MAX_FAN];
    let (mut best, mut ties) = (u32::MAX, 0usize);
    for (i, l) in links.clone().enumerate() {
        let h = hops(l);
        if h == u32::MAX {
            continue;
        }
        if h < best {
            (best, ties) = (h, 0);
        }
        if h == best {
            if ties < MAX_FAN {
                fan[ties] = i as u32;
            }
            ties += 1;
        }
    }
    let mut k = if ties > 1 { rng.below(ties as u64) as usize } else { 0 };
    if ties <= MAX_FAN {
        return fan[k];
    }
    for (i, l) in links.enumerate() {
        if hops(l) == best {
            if k == 0 {
                return i as u32;
            }
            k -= 1;
        }
    }
    unreachable!("a group pair has a link")
}

/// Switch-to-switch hops of a minimal path from `s` to `d`.
pub fn min_hops(df: &Dragonfly, s: SwitchId, d: SwitchId) -> u32 {
    if s == d {
        return 0;
    }
    let (gs, gd) = (df.group(s), df.group(d));
    if gs == gd {
        return 1;
    }
    let hops = |l: GlobalLink| if df.link_up(l) { (l.from != s) as u32 + 1 + (l.to != d) as u32 } else { u32::MAX };
    match df.links_from_to(gs, gd) {
        PairLinks::Table(links) => links.copied().map(hops).min(),
        PairLinks::Computed(links) => links.map(hops).min(),
    }
    .unwrap_or(u32::MAX)
}

/// Estimated hops of a Valiant path already set on `pkt` at switch `s`.
fn valiant_hops_estimate(df: &Dragonfly, s: SwitchId, pkt: &Packet) -> u32 {
    if !pkt.via_switch().is_none() {
        return 2;
    }
    // To the intermediate group (the chosen link), then on average a
    // global hop and a local hop to the destination.
    let first = if pkt.global_link == NONE { 0 } else { (df.global_link(pkt.global_link).from != s) as u32 + 1 };
    first.max(1) + 2
}
