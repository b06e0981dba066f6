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

use super::adaptive::Paths;
use crate::ids::{ChannelId, Id, SwitchId};
use crate::network::{Network, NONE};
use crate::packet::{PacketHot as Packet, FLAG_NONMINIMAL};
use crate::rng::Rng;
use crate::topology::GraphTopology;

impl Paths for GraphTopology {
    fn group(&self, s: SwitchId) -> u32 {
        self.groups[s.index()]
    }

    fn set_intermediate(&self, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> bool {
        set_intermediate(self, s, pkt, rng)
    }

    #[inline]
    fn step<F: FnMut(ChannelId) -> u64>(&self, net: &Network, s: SwitchId, pkt: &mut Packet, rng: &mut Rng, adaptive: bool, occupancy: &mut F) -> ChannelId {
        step(self, net, s, pkt, rng, adaptive, occupancy)
    }

    /// The neighbours one hop closer to the packet's target (up to four:
    /// a fat tree's way up may offer many, its way down one).
    fn likely_next(&self, net: &Network, s: SwitchId, pkt: &Packet, f: &mut dyn FnMut(ChannelId)) {
        let via = pkt.via_switch();
        let mut target = if !via.is_none() && via != s { via } else { pkt.dst_switch };
        if pkt.global_link != NONE {
            let hop = self.global_hops.hops[pkt.global_link as usize];
            if hop.from == s {
                return f(hop.channel);
            }
            target = hop.from;
        }
        if target == s {
            return f(net.endpoint_down[pkt.dst]);
        }
        let want = self.distance(s, target).wrapping_sub(1);
        for nb in self.neighbors(s).iter().filter(|nb| self.distance(nb.switch, target) == want).take(4) {
            f(nb.channel);
        }
    }

    fn step_one_global_hop(&self, net: &Network, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> Option<(ChannelId, u32)> {
        step_one_global_hop(self, net, s, pkt, rng)
    }

    /// The global link a one-global-hop candidate heads for (so a failed
    /// one is ruled out at the source), else none.
    fn committed_channel(&self, _net: &Network, cand: &Packet) -> ChannelId {
        if cand.global_link == NONE {
            return ChannelId::NONE;
        }
        self.global_hops.hops[cand.global_link as usize].channel
    }

    fn path_hops(&self, s: SwitchId, pkt: &Packet, cand: &Packet, nonminimal: bool) -> u32 {
        if nonminimal {
            self.distance(s, cand.via_switch()) as u32 + self.distance(cand.via_switch(), pkt.dst_switch) as u32
        } else {
            self.distance(s, pkt.dst_switch) as u32
        }
    }
}

/// Chooses a random intermediate among the switches with endpoints of the
/// source's plane, other than the current and destination switches (so a
/// Valiant path is at most twice the endpoint diameter); false if none.
/// Where intermediates go by group (Aries), traffic inside a group turns
/// at a router of its own group and traffic between groups at a router of
/// a third group ([`set_group_intermediate`]).
fn set_intermediate(g: &GraphTopology, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> bool {
    if s == pkt.dst_switch {
        return false;
    }
    if g.group_intermediates.active() {
        if let Some(chosen) = set_group_intermediate(g, s, pkt, rng) {
            return chosen;
        }
    }
    random_intermediate(&g.endpoint_switches[g.plane[s.index()] as usize], s, pkt, rng)
}

/// Aries' non-minimal paths (paper 004 Sec. 2.2: between groups they
/// "traverse an intermediate group connected to both source and
/// destination groups"; inside a group ADAPTIVE's paths have about the
/// latency of high bias's, Sec. 4.1 and Fig. 7c, so they stay in the
/// group). Between groups the intermediate is a random router of a random
/// third group, which bounds the path at 10 router hops (2 + 1 + 2 + 2 +
/// 1 + 2), the paper's "up to 10 hops". None when no third group exists
/// (a two-group system such as Crystal): the caller then draws from the
/// whole plane, so the detour uses other global links of the two groups.
fn set_group_intermediate(g: &GraphTopology, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> Option<bool> {
    let gi = &g.group_intermediates;
    let (from, to) = (g.groups[s.index()], g.groups[pkt.dst_switch.index()]);
    if from == to {
        return Some(random_intermediate(&gi.by_group[from as usize], s, pkt, rng));
    }
    let (others, nth) = gi.third(g.plane[s.index()] as usize, from, to);
    if others == 0 {
        return None;
    }
    let third = nth(rng.below(others as u64) as usize);
    let members = &gi.by_group[third as usize];
    pkt.set_via_switch(members[rng.below(members.len() as u64) as usize]);
    pkt.flags |= FLAG_NONMINIMAL;
    Some(true)
}

/// A minimal path over a uniformly drawn one of the global links from the
/// packet's group to its destination's, whichever router of the group it
/// leaves from and lands on: shortest to that link's router, across, then
/// shortest to the destination. None inside a group, on a Valiant leg, or
/// where the links are not listed (`routing.minimal_paths = "shortest"`).
fn step_one_global_hop(g: &GraphTopology, net: &Network, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> Option<(ChannelId, u32)> {
    let hops = &g.global_hops;
    if !hops.active() {
        return None;
    }
    let (a, b) = (g.groups[s.index()], g.groups[pkt.dst_switch.index()]);
    if a == b || !pkt.via_switch().is_none() {
        return None;
    }
    let (lo, hi) = hops.between(a, b);
    if lo == hi {
        return None;
    }
    let i = lo + rng.below((hi - lo) as u64) as u32;
    let hop = hops.hops[i as usize];
    let length = g.distance(s, hop.from) as u32 + 1 + g.distance(hop.to, pkt.dst_switch) as u32;
    pkt.global_link = i;
    Some((step(g, net, s, pkt, rng, false, &mut |_| 0), length))
}

/// A random switch of `candidates` other than `s` and the destination
/// switch as the packet's intermediate; false if there is none.
fn random_intermediate(candidates: &[SwitchId], s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> bool {
    if candidates.len() < 3 {
        return false;
    }
    // Rejection sampling: at most two candidates are excluded.
    for _ in 0..16 {
        let i = candidates[rng.below(candidates.len() as u64) as usize];
        if i != s && i != pkt.dst_switch {
            pkt.set_via_switch(i);
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
fn step(g: &GraphTopology, net: &Network, s: SwitchId, pkt: &mut Packet, rng: &mut Rng, adaptive: bool, occupancy: &mut impl FnMut(ChannelId) -> u64) -> ChannelId {
    if pkt.via_switch() == s {
        pkt.clear_via();
    }
    let mut target = if !pkt.via_switch().is_none() { pkt.via_switch() } else { pkt.dst_switch };
    if pkt.global_link != NONE {
        // A minimal path committed to one global link: to its switch, then across.
        let hop = g.global_hops.hops[pkt.global_link as usize];
        if hop.from == s {
            pkt.global_link = NONE;
            return hop.channel;
        }
        target = hop.from;
    }
    if target == s {
        return net.endpoint_down[pkt.dst];
    }
    let want = g.distance(s, target).wrapping_sub(1);
    // The cheapest neighbours one hop closer (all of them unless
    // adaptive), then one of them uniformly, with one random draw. One
    // pass collects them; a switch with more than `MAX_FAN` of them takes
    // a second pass instead (the same choice, from the same draw).
    const MAX_FAN: usize = 64;
    let mut fan = [ChannelId::NONE; MAX_FAN];
    let mut best = u64::MAX;
    let mut ties = 0usize;
    for nb in g.neighbors(s) {
        if g.distance(nb.switch, target) != want {
            continue;
        }
        let cost = if adaptive { occupancy(nb.channel) } else { 0 };
        if cost < best {
            (best, ties) = (cost, 0);
        }
        if cost == best {
            if ties < MAX_FAN {
                fan[ties] = nb.channel;
            }
            ties += 1;
        }
    }
    let k = if ties > 1 { rng.below(ties as u64) as usize } else { 0 };
    let chosen = if ties <= MAX_FAN { fan[k] } else { kth_cheapest(g, s, target, want, best, k, adaptive, occupancy) };
    debug_assert!(!chosen.is_none(), "no shortest-path neighbour from switch {s} toward {target}");
    chosen
}

/// The `k`th neighbour of `s` one hop closer to `target` whose cost is
/// `best` (the slow path of [`step`], for switches with many of them).
/// Occupancies are read again: reading absorbs returned credits, which
/// changes nothing a second read sees.
#[cold]
#[allow(clippy::too_many_arguments)]
fn kth_cheapest(g: &GraphTopology, s: SwitchId, target: SwitchId, want: u8, best: u64, mut k: usize, adaptive: bool, occupancy: &mut impl FnMut(ChannelId) -> u64) -> ChannelId {
    for nb in g.neighbors(s) {
        if g.distance(nb.switch, target) != want {
            continue;
        }
        let cost = if adaptive { occupancy(nb.channel) } else { 0 };
        if cost == best {
            if k == 0 {
                return nb.channel;
            }
            k -= 1;
        }
    }
    ChannelId::NONE
}
