//! The Slingshot 1D dragonfly (paper 000 Sec. II-B, MODEL.md Sec. 3): g
//! groups of a fully connected switches, p endpoints per switch, h global
//! ports per switch, groups all-to-all with several links per group pair.
//!
//! Port layout of every switch: `[0, p)` endpoints, then `(a-1) * k` local
//! ports (k parallel links to each peer, peers in switch order), then `h`
//! global ports. Endpoint `e` sits on switch `e / p`, port `e % p`.

use crate::config::{LinkConfig, NicConfig, TopologyConfig};
use crate::divisor::Divisor;
use crate::error::{ConfigError, Result};
use crate::ids::{EndpointId, IdVec, NodeId, SwitchId};
use crate::network::{LinkKind, Network};
use crate::units::{Ps, Rate};

/// Bytes of global-link table above which routing computes a link from the
/// wiring rather than reading it. A read that hits the caches is cheaper
/// than the computation (Shandy's 5 KB table: 4% slower computed); on the
/// 279,040-endpoint preset (3.5 MB, read at random) the read missed and
/// computing took 0.94x the CPU time.
pub const COMPUTED_LINKS_ABOVE: usize = 1 << 20;

/// One direction of a global link, as seen by routing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobalLink {
    /// Switch (global id) the link leaves from.
    pub from: SwitchId,
    /// Port on `from`.
    pub port: u32,
    /// Switch the link lands on.
    pub to: SwitchId,
}

/// A built dragonfly: its parameters and the global wiring tables.
#[derive(Clone, Debug)]
pub struct Dragonfly {
    pub groups: u32,
    pub switches_per_group: u32,
    pub endpoints_per_switch: u32,
    pub local_links_per_pair: u32,
    pub global_ports_per_switch: u32,
    pub links_per_group_pair: u32,
    /// Where the global links sit.
    wiring: Wiring,
    /// `links_per_group_pair` and `groups - 1` as divisors, for
    /// [`Self::global_link`].
    per_pair: Divisor,
    peers: Divisor,
    /// Slots between a pair's successive links (1, or `groups - 1` round
    /// robin), as whole switches and remaining ports.
    slot_step: (u32, u32),
    /// Routing computes global links from the wiring instead of reading
    /// `links`: set where the table is too large to stay in the caches
    /// ([`COMPUTED_LINKS_ABOVE`]).
    computed: bool,
    /// Global links sorted by (source group, destination group); each pair's
    /// start is [`Self::first_link_between`].
    links: Vec<GlobalLink>,
    /// Adaptive routing's second minimal candidate may cross any global
    /// link between the two groups (`routing.minimal_paths =
    /// "one-global-hop"`), not only those of the fewest switch hops.
    pub one_global_hop: bool,
    /// Switch-to-switch links down (as the switch and port of their
    /// output, sorted), which routing leaves out: a group pair's other
    /// global links and a switch pair's other parallel local links take
    /// their traffic.
    down: Vec<(SwitchId, u32)>,
}

/// Where links down from the start leave a dragonfly without a route its
/// paths (local, global, local) can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Every global link from the first group to the second is down.
    Groups(u32, u32),
    /// Every parallel local link from the first switch to the second is down.
    Switches(SwitchId, SwitchId),
}

/// Where the global links of a dragonfly sit: the slot a group gives its
/// `l`th link to a peer group (by the arrangement), and the switch and
/// global port of a slot.
#[derive(Clone, Copy, Debug)]
struct Wiring {
    groups: u32,
    switches_per_group: u32,
    links_per_group_pair: u32,
    round_robin: bool,
    /// The first global port of a switch (after endpoints and local ports).
    first_port: u32,
    /// `global_ports_per_switch` as a divisor.
    per_switch: Divisor,
    /// With `cabling = "spread"` on a group that cables fewer global ports
    /// than it has: its first `extra` switches hold `base + 1` cabled
    /// ports, the others `base`, and slots fill them in that order. None:
    /// slots fill the switches `global_ports_per_switch` at a time.
    spread: Option<(u32, u32)>,
}

impl Wiring {
    /// Slot of group's `l`th link to the peer of rank `peer_rank` among its peers.
    #[inline]
    fn slot(&self, peer_rank: u32, l: u32) -> u32 {
        if self.round_robin {
            l * (self.groups - 1) + peer_rank
        } else {
            peer_rank * self.links_per_group_pair + l
        }
    }

    /// Switch (global id) of slot `slot` of group `group`, and its global port index (0-based).
    #[inline]
    fn place(&self, group: u32, slot: u32) -> (u32, u32) {
        let (switch, port) = match self.spread {
            None => self.per_switch.div_rem(slot),
            Some((base, extra)) => {
                let big = extra * (base + 1);
                if slot < big {
                    (slot / (base + 1), slot % (base + 1))
                } else {
                    let rest = slot - big;
                    (extra + rest / base.max(1), rest % base.max(1))
                }
            }
        };
        (group * self.switches_per_group + switch, port)
    }
}

impl Dragonfly {
    /// Validates the parameters and builds the dragonfly and its network.
    pub fn build(t: &TopologyConfig, links: &LinkConfig, nic: &NicConfig) -> Result<(Dragonfly, Network)> {
        let lpp = validate(t)?;
        let (g, a, p, k, h) = (t.groups, t.switches_per_group, t.endpoints_per_switch, t.local_links_per_pair, t.global_ports_per_switch);
        let lp = super::LinkParams::new(links, nic);
        let ((local_rate, lat_local), (global_rate, lat_global), (term_rate, lat_term)) = (lp.local, lp.global, lp.terminal);
        let mut net = Network { rails: t.rails, ..Network::default() };
        let radix = p + (a - 1) * k + h;
        for _ in 0..g * a {
            net.add_switch(radix);
        }
        // Local links: all-to-all inside each group, k in parallel.
        for grp in 0..g {
            for x in 0..a {
                for y in (x + 1)..a {
                    for j in 0..k {
                        let (sx, sy) = (grp * a + x, grp * a + y);
                        let px = p + local_rank(x, y) * k + j;
                        let py = p + local_rank(y, x) * k + j;
                        net.connect_switches(LinkKind::Local, (SwitchId(sx), px), (SwitchId(sy), py), local_rate, lat_local);
                    }
                }
            }
        }
        // Global links: lpp per group pair, slot chosen by the arrangement.
        let round_robin = t.arrangement == "round-robin";
        let cabled = lpp * (g - 1);
        let spread = (t.cabling == "spread" && cabled < a * h).then_some((cabled / a, cabled % a));
        let wiring = Wiring { groups: g, switches_per_group: a, links_per_group_pair: lpp, round_robin, first_port: p + (a - 1) * k, per_switch: Divisor::new(h.max(1)), spread };
        let mut dirlinks = Vec::with_capacity((g * (g - 1) * lpp) as usize);
        for gi in 0..g {
            for gj in (gi + 1)..g {
                for l in 0..lpp {
                    let (si, pi) = wiring.place(gi, wiring.slot(gj - 1, l));
                    let (sj, pj) = wiring.place(gj, wiring.slot(gi, l));
                    let (pi, pj) = (wiring.first_port + pi, wiring.first_port + pj);
                    net.connect_switches(LinkKind::Global, (SwitchId(si), pi), (SwitchId(sj), pj), global_rate, lat_global);
                    dirlinks.push(GlobalLink { from: SwitchId(si), port: pi, to: SwitchId(sj) });
                    dirlinks.push(GlobalLink { from: SwitchId(sj), port: pj, to: SwitchId(si) });
                }
            }
        }
        dirlinks.sort_by_key(|l| ((l.from.0 / a) * g + l.to.0 / a, l.from, l.port));
        attach_nodes(&mut net, t, term_rate, lat_term)?;
        let df = Dragonfly {
            groups: g,
            switches_per_group: a,
            endpoints_per_switch: p,
            local_links_per_pair: k,
            global_ports_per_switch: h,
            links_per_group_pair: lpp,
            per_pair: Divisor::new(lpp.max(1)),
            peers: Divisor::new((g - 1).max(1)),
            slot_step: wiring.per_switch.div_rem(wiring.slot(0, 1) - wiring.slot(0, 0)),
            computed: dirlinks.len() * std::mem::size_of::<GlobalLink>() > COMPUTED_LINKS_ABOVE,
            wiring,
            links: dirlinks,
            one_global_hop: false,
            down: Vec::new(),
        };
        Ok((df, net))
    }

    /// Group of switch `s`.
    #[inline]
    pub fn group(&self, s: SwitchId) -> u32 {
        s.0 / self.switches_per_group
    }

    /// Leaves the links of `down` (switch-to-switch output channels as
    /// switch and port; both directions of a cable) out of every route, as
    /// a fabric manager routes a network it brings up with them down: a
    /// group pair's other global links, a switch pair's other parallel
    /// local links. Fails where no such link is left, since going around
    /// it would take a path outside local, global, local.
    pub fn route_around(&mut self, down: &[(SwitchId, u32)]) -> std::result::Result<(), Cut> {
        self.down = down.to_vec();
        self.down.sort_unstable();
        for a in 0..self.groups {
            for b in (0..self.groups).filter(|&b| b != a) {
                if self.links_per_group_pair > 0 && self.links_between(a, b).iter().all(|&l| !self.link_up(l)) {
                    return Err(Cut::Groups(a, b));
                }
            }
        }
        for &(s, _) in &self.down {
            let base = self.group(s) * self.switches_per_group;
            for t in (base..base + self.switches_per_group).map(SwitchId).filter(|&t| t != s) {
                if (0..self.local_links_per_pair).all(|j| !self.local_up(s, t, j)) {
                    return Err(Cut::Switches(s, t));
                }
            }
        }
        Ok(())
    }

    /// Whether the link leaving switch `s` on `port` is up (routing may take it).
    #[inline]
    fn port_up(&self, s: SwitchId, port: u32) -> bool {
        self.down.is_empty() || self.down.binary_search(&(s, port)).is_err()
    }

    /// Whether global link `l` is up (routing may take it).
    #[inline]
    pub fn link_up(&self, l: GlobalLink) -> bool {
        self.port_up(l.from, l.port)
    }

    /// Whether parallel local link `j` from switch `s` to switch `t` of its
    /// group is up (routing may take it).
    #[inline]
    pub fn local_up(&self, s: SwitchId, t: SwitchId, j: u32) -> bool {
        self.port_up(s, self.local_port(s, t, j))
    }

    /// Directed links left out of routes.
    pub fn links_down(&self) -> usize {
        self.down.len()
    }

    /// Global links from group `from` to group `to`.
    #[inline]
    pub fn links_between(&self, from: u32, to: u32) -> &[GlobalLink] {
        if from == to {
            return &[];
        }
        let first = self.first_link_between(from, to) as usize;
        &self.links[first..first + self.links_per_group_pair as usize]
    }

    /// Port of switch `s` for parallel local link `j` to switch `t` of the same group.
    #[inline]
    pub fn local_port(&self, s: SwitchId, t: SwitchId, j: u32) -> u32 {
        let a = self.switches_per_group;
        self.endpoints_per_switch + local_rank(s.0 % a, t.0 % a) * self.local_links_per_pair + j
    }

    /// All directed global links, grouped by group pair.
    pub fn all_global_links(&self) -> &[GlobalLink] {
        &self.links
    }

    /// Index in [`Self::all_global_links`] of the first link from group
    /// `from` to group `to` (`from != to`), computed from the wiring rather
    /// than read from a table: every group pair has `links_per_group_pair`
    /// links, the pairs in (from, to) order. Routing calls this on every
    /// hop that leaves a group; on the 279,040-endpoint preset the table
    /// read missed the caches.
    #[inline]
    pub fn first_link_between(&self, from: u32, to: u32) -> u32 {
        let peer = to - (to > from) as u32;
        (from * (self.groups - 1) + peer) * self.links_per_group_pair
    }

    /// Global link `i` of [`Self::all_global_links`], computed from the
    /// wiring the build lays out (no memory read).
    #[inline]
    pub fn global_link(&self, i: u32) -> GlobalLink {
        if !self.computed {
            return self.links[i as usize];
        }
        self.compute_link(i)
    }

    /// [`Self::global_link`] from the wiring alone.
    #[inline]
    fn compute_link(&self, i: u32) -> GlobalLink {
        let w = &self.wiring;
        let (pair, l) = self.per_pair.div_rem(i);
        let (from, peer) = self.peers.div_rem(pair);
        let to = peer + (peer >= from) as u32;
        let (switch_from, port) = w.place(from, w.slot(peer, l));
        let (switch_to, _) = w.place(to, w.slot(from - (from > to) as u32, l));
        GlobalLink { from: SwitchId(switch_from), port: w.first_port + port, to: SwitchId(switch_to) }
    }

    /// The global links from group `from` to group `to` (`from != to`), in
    /// [`Self::all_global_links`] order, computed from the wiring: the first
    /// by division, each next by stepping its slot.
    #[inline]
    pub fn links_from_to(&self, from: u32, to: u32) -> PairLinks<'_> {
        // Stepping a slot assumes switches of `global_ports_per_switch`
        // slots each; spread cabling reads the table.
        if !self.computed || self.wiring.spread.is_some() {
            let first = self.first_link_between(from, to) as usize;
            return PairLinks::Table(self.links[first..first + self.links_per_group_pair as usize].iter());
        }
        let w = &self.wiring;
        let (switch_from, port_from) = w.place(from, w.slot(to - (to > from) as u32, 0));
        let (switch_to, port_to) = w.place(to, w.slot(from - (from > to) as u32, 0));
        PairLinks::Computed(SteppedLinks {
            left: self.links_per_group_pair,
            from: Slot { switch: switch_from, port: port_from },
            to: Slot { switch: switch_to, port: port_to },
            step: self.slot_step,
            ports: self.global_ports_per_switch,
            first_port: w.first_port,
        })
    }
}

/// A global slot of a group: its switch (global id) and global port index.
#[derive(Clone, Copy, Debug)]
struct Slot {
    switch: u32,
    port: u32,
}

impl Slot {
    #[inline]
    fn advance(&mut self, (switches, ports): (u32, u32), per_switch: u32) {
        self.switch += switches;
        self.port += ports;
        if self.port >= per_switch {
            self.port -= per_switch;
            self.switch += 1;
        }
    }
}

/// The links of one group pair ([`Dragonfly::links_from_to`]): read from
/// the table, or computed.
#[derive(Clone, Debug)]
pub enum PairLinks<'a> {
    Table(std::slice::Iter<'a, GlobalLink>),
    Computed(SteppedLinks),
}

impl Iterator for PairLinks<'_> {
    type Item = GlobalLink;

    #[inline]
    fn next(&mut self) -> Option<GlobalLink> {
        match self {
            PairLinks::Table(links) => links.next().copied(),
            PairLinks::Computed(links) => links.next(),
        }
    }
}

/// A group pair's links computed slot by slot.
#[derive(Clone, Copy, Debug)]
pub struct SteppedLinks {
    left: u32,
    from: Slot,
    to: Slot,
    step: (u32, u32),
    ports: u32,
    first_port: u32,
}

impl Iterator for SteppedLinks {
    type Item = GlobalLink;

    #[inline]
    fn next(&mut self) -> Option<GlobalLink> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let link = GlobalLink { from: SwitchId(self.from.switch), port: self.first_port + self.from.port, to: SwitchId(self.to.switch) };
        self.from.advance(self.step, self.ports);
        self.to.advance(self.step, self.ports);
        Some(link)
    }
}

/// Position of switch `y` among the peers of switch `x` (both local indices).
#[inline]
fn local_rank(x: u32, y: u32) -> u32 {
    if y < x {
        y
    } else {
        y - 1
    }
}

/// Checks every parameter and returns the links per group pair.
fn validate(t: &TopologyConfig) -> Result<u32> {
    let f = |k: &str| format!("topology.{k}");
    for (k, v) in [
        ("groups", t.groups),
        ("switches_per_group", t.switches_per_group),
        ("endpoints_per_switch", t.endpoints_per_switch),
        ("rails", t.rails),
        ("radix", t.radix),
    ] {
        if v == 0 {
            return Err(ConfigError::new(f(k), "must be at least 1"));
        }
    }
    let (g, a, p, k, h) = (t.groups, t.switches_per_group, t.endpoints_per_switch, t.local_links_per_pair, t.global_ports_per_switch);
    if a > 1 && k == 0 {
        return Err(ConfigError::new(f("local_links_per_pair"), "must be at least 1 when a group has more than one switch"));
    }
    let used = p as u64 + (a as u64 - 1) * k as u64 + h as u64;
    if used > t.radix as u64 {
        return Err(ConfigError::new(
            f("global_ports_per_switch"),
            format!(
                "{p} endpoint + {} local + {h} global ports = {used} exceed the switch radix {}; \
                 lower endpoints_per_switch, switches_per_group, local_links_per_pair or global_ports_per_switch, or raise topology.radix",
                (a - 1) * k,
                t.radix
            ),
        ));
    }
    if !["consecutive", "round-robin"].contains(&t.arrangement.as_str()) {
        return Err(ConfigError::new(f("arrangement"), format!("unknown arrangement {:?}; use \"consecutive\" or \"round-robin\"", t.arrangement)));
    }
    if !["fill", "spread"].contains(&t.cabling.as_str()) {
        return Err(ConfigError::new(f("cabling"), format!("unknown cabling {:?}; use \"fill\" or \"spread\"", t.cabling)));
    }
    if g == 1 {
        return Ok(0);
    }
    let max = a * h / (g - 1);
    if max == 0 {
        return Err(ConfigError::new(
            f("groups"),
            format!(
                "{g} groups cannot be connected all-to-all: each group has {} global ports for {} peer groups; \
                 use at most {} groups or more global_ports_per_switch",
                a * h,
                g - 1,
                a * h + 1
            ),
        ));
    }
    let lpp = match (t.global_links_per_group_pair, t.taper) {
        (Some(_), Some(_)) => {
            return Err(ConfigError::new(f("taper"), "give either global_links_per_group_pair or taper, not both"));
        }
        (Some(n), None) => {
            if n == 0 || n > max {
                return Err(ConfigError::new(
                    f("global_links_per_group_pair"),
                    format!("must be between 1 and {max} ({a} switches x {h} global ports / {} peer groups), got {n}", g - 1),
                ));
            }
            n
        }
        (None, Some(x)) => {
            if !(x > 0.0 && x <= 1.0) {
                return Err(ConfigError::new(f("taper"), format!("must be in (0, 1], got {x}")));
            }
            ((max as f64 * x).round() as u32).max(1)
        }
        (None, None) => max,
    };
    if p % t.rails != 0 {
        return Err(ConfigError::new(f("rails"), format!("endpoints_per_switch ({p}) must be a multiple of rails ({})", t.rails)));
    }
    let ports = g as u64 * a as u64 * p as u64;
    if let Some(n) = t.nodes {
        if n == 0 || n as u64 * t.rails as u64 > ports {
            return Err(ConfigError::new(f("nodes"), format!("must be between 1 and {} ({ports} endpoint ports / {} rails), got {n}", ports / t.rails as u64, t.rails)));
        }
    }
    Ok(lpp)
}

/// Attaches populated nodes: node `m` of a group has base switch
/// `m / (p/R)`; its rail `r` sits on the switch `r` after the base, so the
/// rails of a node land on different switches (Shandy, paper 000 Sec. III).
fn attach_nodes(net: &mut Network, t: &TopologyConfig, rate: Rate, latency: Ps) -> Result<()> {
    let (a, p, r) = (t.switches_per_group, t.endpoints_per_switch, t.rails);
    let per_switch = p / r;
    let per_group = a * per_switch;
    let total_nodes = t.nodes.unwrap_or(t.groups * per_group);
    let ports = t.groups * a * p;
    net.endpoint_node = IdVec::filled(NodeId::NONE, ports as usize);
    net.node_endpoints = Vec::with_capacity((total_nodes * r) as usize);
    for node in 0..total_nodes {
        let (grp, m) = (node / per_group, node % per_group);
        let (base, q) = (m / per_switch, m % per_switch);
        for rail in 0..r {
            let s = grp * a + (base + rail) % a;
            let e = s * p + rail * per_switch + q;
            net.node_endpoints.push(EndpointId(e));
            net.endpoint_node[EndpointId(e)] = NodeId(node);
        }
    }
    net.attach_populated(ports, |e| (SwitchId(e.0 / p), e.0 % p), rate, latency);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(g: u32, a: u32, p: u32, k: u32, h: u32) -> TopologyConfig {
        TopologyConfig { groups: g, switches_per_group: a, endpoints_per_switch: p, local_links_per_pair: k, global_ports_per_switch: h, ..Default::default() }
    }

    #[test]
    fn global_links_take_their_own_bandwidth() {
        let links = LinkConfig { global_bandwidth_bps: Some(100e9), ..Default::default() };
        let (_, net) = Dragonfly::build(&cfg(4, 8, 16, 4, 6), &links, &NicConfig::default()).unwrap();
        for c in &net.channels {
            let want = match c.kind {
                LinkKind::Global => 100e9,
                LinkKind::Local => 200e9,
                LinkKind::Terminal => 100e9,
            };
            assert_eq!(c.rate.bps(), Rate::from_bps(want).bps(), "{:?}", c.kind);
        }
    }

    #[test]
    fn computed_global_links_are_the_built_table() {
        // (groups, switches, endpoints, local links per pair, global ports, links per group pair)
        let shapes = [(4, 8, 16, 4, 6, None), (4, 8, 16, 4, 6, Some(5)), (9, 4, 4, 2, 2, None), (5, 4, 2, 1, 3, None),
                      (33, 8, 4, 1, 4, None), (3, 2, 1, 1, 3, Some(2)), (2, 3, 2, 2, 1, None)];
        for (g, a, p, k, h, lpp) in shapes {
            for (arrangement, cabling) in [("consecutive", "fill"), ("round-robin", "fill"), ("consecutive", "spread"), ("round-robin", "spread")] {
                let t = TopologyConfig { global_links_per_group_pair: lpp, arrangement: arrangement.into(), cabling: cabling.into(), ..cfg(g, a, p, k, h) };
                let (df, _) = Dragonfly::build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap();
                let all = df.all_global_links();
                assert_eq!(all.len() as u32, g * (g - 1) * df.links_per_group_pair, "{t:?}");
                let computed = Dragonfly { computed: true, ..df.clone() };
                for (i, l) in all.iter().enumerate() {
                    assert_eq!(df.global_link(i as u32), *l, "link {i} of {t:?}");
                    assert_eq!(computed.global_link(i as u32), *l, "computed link {i} of {t:?}");
                }
                for from in 0..g {
                    for to in (0..g).filter(|&to| to != from) {
                        let first = df.first_link_between(from, to) as usize;
                        assert_eq!(&all[first..first + df.links_per_group_pair as usize], df.links_between(from, to), "{from}->{to} of {t:?}");
                        assert_eq!(df.links_from_to(from, to).collect::<Vec<_>>(), df.links_between(from, to), "{from}->{to} of {t:?}");
                        assert_eq!(computed.links_from_to(from, to).collect::<Vec<_>>(), df.links_between(from, to), "computed {from}->{to} of {t:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn spread_cabling_puts_a_tapered_groups_links_on_every_switch() {
        // Shandy: 56 of a group's 112 global ports cabled, 8 links per group pair.
        let shandy = |cabling: &str| {
            let t = TopologyConfig { global_links_per_group_pair: Some(8), cabling: cabling.into(), rails: 2, ..cfg(8, 16, 16, 2, 7) };
            Dragonfly::build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap()
        };
        let ((fill, fill_net), (spread, spread_net)) = (shandy("fill"), shandy("spread"));
        let per_switch = crate::topology::analytics::global_links_per_switch;
        assert_eq!(per_switch(&fill_net), serde_json::json!({"min": 0, "max": 7, "switches_without": 64}), "fill: 8 switches of each group hold none");
        assert_eq!(per_switch(&spread_net), serde_json::json!({"min": 3, "max": 4, "switches_without": 0}), "spread: 3 or 4 each");
        assert_eq!(fill.all_global_links().len(), spread.all_global_links().len());
        // Every global port cabled (Malbec): nothing to spread, the same wiring.
        let malbec = |cabling: &str| {
            let t = TopologyConfig { cabling: cabling.into(), ..cfg(4, 8, 16, 4, 6) };
            Dragonfly::build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap().0
        };
        assert_eq!(malbec("fill").all_global_links(), malbec("spread").all_global_links());
    }

    #[test]
    fn malbec_wiring() {
        let (df, net) = Dragonfly::build(&cfg(4, 8, 16, 4, 6), &LinkConfig::default(), &NicConfig::default()).unwrap();
        assert_eq!(df.links_per_group_pair, 16);
        assert_eq!(net.switches(), 32);
        assert_eq!(net.links_of_kind(LinkKind::Global), 6 * 16);
        assert_eq!(net.links_of_kind(LinkKind::Local), 4 * 28 * 4);
        for gi in 0..4 {
            for gj in 0..4 {
                if gi != gj {
                    let l = df.links_between(gi, gj);
                    assert_eq!(l.len(), 16);
                    assert!(l.iter().all(|x| df.group(x.from) == gi && df.group(x.to) == gj));
                }
            }
        }
        // Every global port is cabled exactly once.
        for s in 0..32 {
            for port in 0..16 + 28 + 6 {
                assert!(!net.out_channel(SwitchId(s), port).is_none(), "switch {s} port {port}");
            }
        }
    }

    #[test]
    fn too_many_ports_is_explained() {
        let e = Dragonfly::build(&cfg(4, 8, 16, 4, 40), &LinkConfig::default(), &NicConfig::default()).unwrap_err();
        assert_eq!(e.field, "topology.global_ports_per_switch");
        assert!(e.message.contains("radix"));
    }

    #[test]
    fn too_many_groups_is_explained() {
        let e = Dragonfly::build(&cfg(40, 2, 4, 1, 2), &LinkConfig::default(), &NicConfig::default()).unwrap_err();
        assert_eq!(e.field, "topology.groups");
        assert!(e.message.contains("at most 5 groups"), "{e}");
    }

    #[test]
    fn rails_land_on_different_switches() {
        let mut t = cfg(2, 4, 4, 1, 2);
        t.rails = 2;
        let (_, net) = Dragonfly::build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap();
        assert_eq!(net.nodes(), 16);
        for n in 0..16 {
            let (e0, e1) = (net.endpoint_of(NodeId(n), 0), net.endpoint_of(NodeId(n), 1));
            assert_ne!(net.endpoint_switch[e0], net.endpoint_switch[e1]);
            assert_eq!(net.endpoint_switch[e0].0 / 4, net.endpoint_switch[e1].0 / 4);
        }
    }
}
