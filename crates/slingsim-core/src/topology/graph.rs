//! Shortest-path tables for the families without closed-form routing
//! (Slim Fly, Fit Fly, Megafly, fat tree, Aries): the switch adjacency and
//! all-pairs switch distances, computed once by breadth-first search.

use super::Built;
use crate::ids::{ChannelId, EndpointId, Id, SwitchId};
use crate::network::{End, LinkKind, Network};

/// Largest network (in switches) routed on shortest-path tables: the
/// all-pairs distance table takes switches^2 bytes (256 MiB at this size).
pub const MAX_SWITCHES: usize = 16_384;

/// A switch-to-switch channel leaving a switch.
#[derive(Clone, Copy, Debug)]
pub struct Neighbor {
    /// Output channel.
    pub channel: ChannelId,
    /// Switch it leads to.
    pub switch: SwitchId,
    pub kind: LinkKind,
}

/// A built topology routed on shortest-path tables.
#[derive(Clone, Debug)]
pub struct GraphTopology {
    pub family: &'static str,
    pub groups: Vec<u32>,
    pub plane: Vec<u32>,
    pub planes: u32,
    pub info: serde_json::Value,
    switches: usize,
    /// `adj[adj_start[s]..adj_start[s+1]]`: switch-facing channels of switch s.
    adj_start: Vec<u32>,
    adj: Vec<Neighbor>,
    /// Hops between switches, `u8::MAX` if unreachable (different planes):
    /// `dist[d * switches + s]` is the distance from s to d.
    dist: Vec<u8>,
    /// Largest distance between two switches that hold endpoints (spines
    /// and core switches carry no traffic of their own): bounds every
    /// minimal path, and twice it every Valiant path.
    pub diameter: u32,
    /// Switches with endpoints, per plane (Valiant intermediates).
    pub endpoint_switches: Vec<Vec<SwitchId>>,
    /// Valiant intermediates chosen by group, as Aries routes (paper 004
    /// Sec. 2.2): a router of the same group for traffic inside a group,
    /// a router of a third group for traffic between groups. Empty for the
    /// families whose intermediate is any switch of the plane.
    pub group_intermediates: GroupIntermediates,
    /// Farthest switch with endpoints from any switch one hop from a switch
    /// with endpoints: where PAR may re-decide (a Megafly spine can be 5
    /// hops from a leaf of another group, more than the diameter).
    pub first_hop_reach: u32,
    /// The global links between each ordered pair of groups, listed when
    /// adaptive routing's second minimal candidate may take any of them
    /// (Aries with `routing.minimal_paths = "one-global-hop"`). Empty
    /// otherwise, and the candidate is a shortest path.
    pub global_hops: GlobalHops,
}

/// One global link, as a minimal path between two groups crosses it.
#[derive(Clone, Copy, Debug)]
pub struct GlobalHop {
    /// Switch the link leaves from, its channel there, and the switch it lands on.
    pub from: SwitchId,
    pub channel: ChannelId,
    pub to: SwitchId,
}

/// The global links of a network listed by (source group, destination group).
#[derive(Clone, Debug, Default)]
pub struct GlobalHops {
    /// Links of pair (a, b) are `hops[start[a * groups + b]..start[a * groups + b + 1]]`.
    start: Vec<u32>,
    pub hops: Vec<GlobalHop>,
    groups: usize,
}

impl GlobalHops {
    fn new(g: &GraphTopology) -> GlobalHops {
        let groups = g.groups.iter().max().map_or(0, |&x| x as usize + 1);
        let mut lists: Vec<Vec<GlobalHop>> = vec![Vec::new(); groups * groups];
        for s in 0..g.switches {
            let from = SwitchId::from_index(s);
            for nb in g.neighbors(from) {
                let (a, b) = (g.groups[s] as usize, g.groups[nb.switch.index()] as usize);
                if nb.kind == LinkKind::Global && a != b {
                    lists[a * groups + b].push(GlobalHop { from, channel: nb.channel, to: nb.switch });
                }
            }
        }
        let mut start = Vec::with_capacity(lists.len() + 1);
        let mut hops = Vec::new();
        for l in lists {
            start.push(hops.len() as u32);
            hops.extend(l);
        }
        start.push(hops.len() as u32);
        GlobalHops { start, hops, groups }
    }

    /// Whether the links are listed.
    #[inline]
    pub fn active(&self) -> bool {
        self.groups > 0
    }

    /// Index range (into `hops`) of the links from group `a` to group `b`.
    #[inline]
    pub fn between(&self, a: u32, b: u32) -> (u32, u32) {
        let i = a as usize * self.groups + b as usize;
        (self.start[i], self.start[i + 1])
    }
}

impl GraphTopology {
    /// Computes the tables of a built network.
    pub fn new(b: Built) -> GraphTopology {
        let net = &b.net;
        let s_count = net.switches();
        let mut lists: Vec<Vec<Neighbor>> = vec![Vec::new(); s_count];
        for (c, ch) in net.channels.iter_ids() {
            if let (End::Switch { switch: a, .. }, End::Switch { switch: t, .. }) = (ch.src, ch.dst) {
                lists[a.index()].push(Neighbor { channel: c, switch: t, kind: ch.kind });
            }
        }
        let mut adj_start = Vec::with_capacity(s_count + 1);
        let mut adj = Vec::new();
        for l in &lists {
            adj_start.push(adj.len() as u32);
            adj.extend_from_slice(l);
        }
        adj_start.push(adj.len() as u32);
        let mut g = GraphTopology {
            family: b.family,
            groups: b.groups,
            plane: b.plane,
            planes: b.planes,
            info: b.info,
            switches: s_count,
            adj_start,
            adj,
            dist: vec![u8::MAX; s_count * s_count],
            diameter: 0,
            endpoint_switches: Vec::new(),
            group_intermediates: GroupIntermediates::default(),
            first_hop_reach: 0,
            global_hops: GlobalHops::default(),
        };
        let mut has_endpoints = vec![false; s_count];
        for (e, &s) in net.endpoint_switch.iter_ids() {
            if net.endpoint_up.get(e).is_some_and(|c| !c.is_none()) {
                has_endpoints[s.index()] = true;
            }
        }
        g.endpoint_switches = vec![Vec::new(); g.planes.max(1) as usize];
        for s in 0..s_count {
            if has_endpoints[s] {
                g.endpoint_switches[g.plane[s] as usize].push(SwitchId::from_index(s));
            }
        }
        g.compute_distances(&has_endpoints);
        g.first_hop_reach = g.compute_first_hop_reach(&has_endpoints);
        g
    }

    /// Computes the tables again without the links in `down` (output
    /// channels; pass both directions of a cable), as a fabric manager
    /// computes its routing tables around the links that are down when
    /// it brings the network up: adjacency, distances, diameter and the
    /// first hop's reach all leave them out, so no mode routes over them.
    /// Fails with a pair of switches with endpoints, of one plane, that
    /// the remaining links no longer join.
    pub fn route_around(&mut self, down: &[ChannelId]) -> Result<(), (SwitchId, SwitchId)> {
        let mut down = down.to_vec();
        down.sort_unstable();
        let mut adj_start = Vec::with_capacity(self.switches + 1);
        let mut adj = Vec::with_capacity(self.adj.len());
        for s in 0..self.switches {
            adj_start.push(adj.len() as u32);
            adj.extend(self.neighbors(SwitchId::from_index(s)).iter().filter(|nb| down.binary_search(&nb.channel).is_err()).copied());
        }
        adj_start.push(adj.len() as u32);
        (self.adj_start, self.adj) = (adj_start, adj);
        let has_endpoints = self.has_endpoints();
        self.dist.fill(u8::MAX);
        self.diameter = 0;
        self.compute_distances(&has_endpoints);
        self.first_hop_reach = self.compute_first_hop_reach(&has_endpoints);
        if self.global_hops.active() {
            self.list_global_hops();
        }
        for list in &self.endpoint_switches {
            for &a in list {
                if let Some(&b) = list.iter().find(|&&b| self.distance(a, b) == u8::MAX) {
                    return Err((a, b));
                }
            }
        }
        Ok(())
    }

    fn compute_first_hop_reach(&self, has_endpoints: &[bool]) -> u32 {
        let mut first_hop = vec![false; self.switches];
        for s in (0..self.switches).filter(|&s| has_endpoints[s]) {
            for nb in self.neighbors(SwitchId::from_index(s)) {
                first_hop[nb.switch.index()] = true;
            }
        }
        let mut reach = 0;
        for s1 in (0..self.switches).filter(|&s| first_hop[s]) {
            for i in (0..self.switches).filter(|&i| has_endpoints[i]) {
                let d = self.distance(SwitchId::from_index(s1), SwitchId::from_index(i));
                if d != u8::MAX {
                    reach = reach.max(d as u32);
                }
            }
        }
        reach
    }

    /// Whether each switch holds endpoints.
    fn has_endpoints(&self) -> Vec<bool> {
        let mut v = vec![false; self.switches];
        for s in self.endpoint_switches.iter().flatten() {
            v[s.index()] = true;
        }
        v
    }

    /// Valiant intermediates by group from now on (Aries, [`GroupIntermediates`]).
    pub fn route_detours_by_group(&mut self) {
        self.group_intermediates = GroupIntermediates::new(&self.groups, &self.plane, &self.has_endpoints());
    }

    /// Lists the global links by group pair, so that adaptive routing's
    /// second minimal candidate may take any of them
    /// (`routing.minimal_paths = "one-global-hop"`).
    pub fn list_global_hops(&mut self) {
        self.global_hops = GlobalHops::new(self);
    }

    /// Longest path of `alg` in switch hops, which is also its VC count:
    /// minimal paths are within the diameter, Valiant paths (intermediates
    /// are switches with endpoints) within twice it, and PAR may switch to a
    /// Valiant path one hop after the source.
    pub fn max_hops(&self, alg: crate::routing::Algorithm) -> u32 {
        use crate::routing::PathClass;
        let d = self.diameter.max(1);
        match alg.path_class() {
            PathClass::Minimal => d,
            PathClass::Valiant => 2 * d,
            PathClass::Progressive => 1 + self.first_hop_reach.max(d) + d,
        }
    }

    /// Breadth-first search from every target over the reversed links:
    /// row `target` of the table holds every switch's distance to it, so
    /// routing, which scans a switch's neighbours for one target, reads
    /// one row (a group's routers sit together in it) instead of one row
    /// per neighbour.
    fn compute_distances(&mut self, has_endpoints: &[bool]) {
        let n = self.switches;
        let mut rev_start = vec![0u32; n + 1];
        for nb in &self.adj {
            rev_start[nb.switch.index() + 1] += 1;
        }
        for t in 0..n {
            rev_start[t + 1] += rev_start[t];
        }
        let mut fill = rev_start.clone();
        let mut rev = vec![0u32; self.adj.len()];
        for s in 0..n {
            for nb in self.neighbors(SwitchId::from_index(s)) {
                let t = nb.switch.index();
                rev[fill[t] as usize] = s as u32;
                fill[t] += 1;
            }
        }
        let mut queue = Vec::with_capacity(n);
        for target in 0..n {
            let row = target * n;
            self.dist[row + target] = 0;
            queue.clear();
            queue.push(target as u32);
            let mut head = 0;
            while head < queue.len() {
                let t = queue[head] as usize;
                head += 1;
                let d = self.dist[row + t];
                for &s in &rev[rev_start[t] as usize..rev_start[t + 1] as usize] {
                    if self.dist[row + s as usize] == u8::MAX {
                        self.dist[row + s as usize] = d + 1;
                        queue.push(s);
                    }
                }
            }
            if has_endpoints[target] {
                let far = queue.iter().filter(|&&s| has_endpoints[s as usize]).map(|&s| self.dist[row + s as usize] as u32).max().unwrap_or(0);
                self.diameter = self.diameter.max(far);
            }
        }
    }

    /// True if every switch reaches every other switch of its plane (the
    /// diameter alone would not see an unreachable pair).
    pub fn is_connected(&self) -> bool {
        let n = self.switches as u32;
        (0..n).all(|s| (0..n).all(|d| self.plane[s as usize] != self.plane[d as usize] || self.distance(SwitchId(s), SwitchId(d)) != u8::MAX))
    }

    /// Number of switches.
    pub fn switches(&self) -> usize {
        self.switches
    }

    /// Switch-facing channels of switch `s`.
    #[inline]
    pub fn neighbors(&self, s: SwitchId) -> &[Neighbor] {
        &self.adj[self.adj_start[s.index()] as usize..self.adj_start[s.index() + 1] as usize]
    }

    /// Hops from switch `s` to switch `d` (`u8::MAX` if unreachable).
    #[inline]
    pub fn distance(&self, s: SwitchId, d: SwitchId) -> u8 {
        self.dist[d.index() * self.switches + s.index()]
    }
}

/// Switches with endpoints listed by group, and the groups of each plane,
/// for routing whose non-minimal paths are chosen by group.
#[derive(Clone, Debug, Default)]
pub struct GroupIntermediates {
    /// Switches with endpoints of each group (indexed by group number).
    pub by_group: Vec<Vec<SwitchId>>,
    /// Groups holding switches with endpoints, per plane.
    pub plane_groups: Vec<Vec<u32>>,
    /// Position of each group in its plane's list (`u32::MAX`: no
    /// switch with endpoints), so a third group is drawn in O(1).
    pub slot: Vec<u32>,
}

impl GroupIntermediates {
    fn new(groups: &[u32], plane: &[u32], has_endpoints: &[bool]) -> GroupIntermediates {
        let n_groups = groups.iter().max().map_or(0, |&g| g as usize + 1);
        let n_planes = plane.iter().max().map_or(0, |&p| p as usize + 1);
        let mut by_group = vec![Vec::new(); n_groups];
        let mut plane_groups: Vec<Vec<u32>> = vec![Vec::new(); n_planes];
        let mut slot = vec![u32::MAX; n_groups];
        for s in (0..groups.len()).filter(|&s| has_endpoints[s]) {
            let (g, p) = (groups[s], plane[s] as usize);
            if by_group[g as usize].is_empty() {
                slot[g as usize] = plane_groups[p].len() as u32;
                plane_groups[p].push(g);
            }
            by_group[g as usize].push(SwitchId::from_index(s));
        }
        GroupIntermediates { by_group, plane_groups, slot }
    }

    /// The `k`th group of `plane`'s list leaving out groups `a` and `b`
    /// (in list order), and how many there are to choose from.
    pub fn third(&self, plane: usize, a: u32, b: u32) -> (usize, impl Fn(usize) -> u32 + '_) {
        let list = &self.plane_groups[plane];
        let x = self.slot[a as usize];
        let y = if a == b { u32::MAX } else { self.slot[b as usize] };
        let (lo, hi) = (x.min(y) as usize, x.max(y) as usize);
        let n = list.len() - [lo, hi].iter().filter(|&&v| v != u32::MAX as usize).count();
        (n, move |mut k: usize| {
            if k >= lo {
                k += 1;
            }
            if k >= hi {
                k += 1;
            }
            list[k]
        })
    }

    /// True when intermediates are chosen by group.
    pub fn active(&self) -> bool {
        !self.by_group.is_empty()
    }
}

/// Channel from switch `s` down to endpoint `e`, if attached there.
pub fn ejection(net: &Network, s: SwitchId, e: EndpointId) -> ChannelId {
    if net.endpoint_switch[e] == s {
        net.endpoint_down[e]
    } else {
        ChannelId::NONE
    }
}
