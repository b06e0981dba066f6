//! Deadlock check: builds the channel dependency graph (CDG) of a topology,
//! a routing algorithm and a virtual-channel scheme, and proves it acyclic
//! or returns a cycle (Dally and Seitz: a routing function is deadlock free
//! if its CDG has no cycle).
//!
//! Vertices are (channel, VC) pairs; an edge says a packet holding the first
//! may wait for the second. Edges come from the turns the routing can make,
//! over-approximated so that an acyclic result is a proof for the real
//! routing:
//! - minimal routing turns from channel u->s into s->t when both lie on a
//!   shortest path to some destination d; the hop index of u->s ranges over
//!   every value a shortest path ending at d allows;
//! - non-minimal routing (Valiant, UGAL, PAR) may, in addition, turn from
//!   any channel into any channel at any switch (every switch can be an
//!   intermediate), with hop indices up to twice the diameter.

use crate::names::Named;
use super::Algorithm;
use crate::ids::{ChannelId, Id};
use crate::network::{End, Network};
use serde_json::{json, Value};

/// Largest network (in switches) the check runs on: it holds all-pairs
/// switch distances and every (channel, VC) dependency in memory.
pub const MAX_SWITCHES: usize = 4096;

/// How hops map to virtual channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcScheme {
    /// VC = hops already taken (the scheme the engine uses).
    HopIndex,
    /// Everything on VC 0: deliberately broken, for tests and teaching.
    Single,
}

impl VcScheme {
    #[inline]
    fn vc(self, hop: u32) -> u32 {
        match self {
            VcScheme::HopIndex => hop,
            VcScheme::Single => 0,
        }
    }
}

/// Result of a check.
#[derive(Clone, Debug)]
pub struct DeadlockReport {
    pub deadlock_free: bool,
    pub vcs: u32,
    pub vertices: usize,
    pub edges: usize,
    /// A dependency cycle as (channel, vc) pairs, if one exists.
    pub cycle: Vec<(u32, u32)>,
}

impl DeadlockReport {
    /// JSON form, with the cycle's channels described by their ends.
    pub fn to_json(&self, net: &Network) -> Value {
        let describe = |e: End| match e {
            End::Switch { switch, port } => format!("switch {switch} port {port}"),
            End::Endpoint(x) => format!("endpoint {x}"),
        };
        let cycle: Vec<Value> = self
            .cycle
            .iter()
            .map(|&(c, v)| {
                let ch = &net.channels[ChannelId(c)];
                json!({"channel": c, "vc": v, "kind": ch.kind.name(), "from": describe(ch.src), "to": describe(ch.dst)})
            })
            .collect();
        json!({"deadlock_free": self.deadlock_free, "vcs": self.vcs, "vertices": self.vertices, "edges": self.edges, "cycle": cycle})
    }
}

/// Switch-level view the check needs: switch-to-switch channels and
/// all-pairs distances.
pub struct SwitchGraph {
    n: usize,
    /// Channels into and out of each switch (switch-to-switch only).
    inbound: Vec<Vec<(u32, u32)>>,  // (channel, from switch)
    outbound: Vec<Vec<(u32, u32)>>, // (channel, to switch)
    dist: Vec<u8>,
    /// Switches that hold endpoints: every route starts and ends at one.
    has_endpoints: Vec<bool>,
}

impl SwitchGraph {
    /// Extracts the switch graph of a network and its distances.
    pub fn new(net: &Network) -> SwitchGraph {
        let n = net.switches();
        let mut inbound = vec![Vec::new(); n];
        let mut outbound = vec![Vec::new(); n];
        for (c, ch) in net.channels.iter().enumerate() {
            if let (End::Switch { switch: a, .. }, End::Switch { switch: b, .. }) = (ch.src, ch.dst) {
                outbound[a.index()].push((c as u32, b.0));
                inbound[b.index()].push((c as u32, a.0));
            }
        }
        let mut dist = vec![u8::MAX; n * n];
        let mut queue = Vec::with_capacity(n);
        for src in 0..n {
            let row = src * n;
            dist[row + src] = 0;
            queue.clear();
            queue.push(src);
            let mut head = 0;
            while head < queue.len() {
                let s = queue[head];
                head += 1;
                for &(_, t) in &outbound[s] {
                    if dist[row + t as usize] == u8::MAX {
                        dist[row + t as usize] = dist[row + s] + 1;
                        queue.push(t as usize);
                    }
                }
            }
        }
        let mut has_endpoints = vec![false; n];
        for (e, &s) in net.endpoint_switch.iter_ids() {
            if net.endpoint_up.get(e).is_some_and(|c| !c.is_none()) {
                has_endpoints[s.index()] = true;
            }
        }
        SwitchGraph { n, inbound, outbound, dist, has_endpoints }
    }

    #[inline]
    fn d(&self, a: u32, b: u32) -> u8 {
        self.dist[a as usize * self.n + b as usize]
    }
}

/// Checks `alg` with `scheme` on `net` for paths of at most `max_hops`
/// switch-to-switch hops (the engine's VC count), counted from 0.
/// Injection and ejection links are left out: a NIC always drains, so they
/// cannot close a cycle.
pub fn check(net: &Network, alg: Algorithm, scheme: VcScheme, max_hops: u32) -> DeadlockReport {
    let g = SwitchGraph::new(net);
    check_graph(net, &g, alg, scheme, max_hops)
}

/// As [`check`], reusing a switch graph.
pub fn check_graph(net: &Network, g: &SwitchGraph, alg: Algorithm, scheme: VcScheme, max_hops: u32) -> DeadlockReport {
    let vcs = (0..max_hops).map(|h| scheme.vc(h)).max().unwrap_or(0) + 1;
    let nch = net.channels.len();
    let vid = |c: u32, v: u32| c as usize * vcs as usize + v as usize;
    // Many destinations share the same turns: collect edges in a set.
    let mut set: std::collections::HashSet<(u32, u32)> = std::collections::HashSet::new();
    let mut add = |a: usize, b: usize| {
        set.insert((a as u32, b as u32));
    };
    if alg.nonminimal() {
        for s in 0..g.n {
            for &(cin, _) in &g.inbound[s] {
                for &(cout, _) in &g.outbound[s] {
                    for h in 0..max_hops.saturating_sub(1) {
                        add(vid(cin, scheme.vc(h)), vid(cout, scheme.vc(h + 1)));
                    }
                }
            }
        }
    } else {
        for d in 0..g.n as u32 {
            if !g.has_endpoints[d as usize] {
                continue; // minimal routes end at a switch with endpoints
            }
            for s in 0..g.n as u32 {
                let ds = g.d(s, d);
                if ds == 0 || ds == u8::MAX {
                    continue;
                }
                for &(cin, u) in &g.inbound[s as usize] {
                    if g.d(u, d) != ds + 1 {
                        continue;
                    }
                    // Hops before u->s: h, with h + 1 + ds <= max_hops (the
                    // longest minimal path between switches with endpoints).
                    let Some(h_max) = max_hops.checked_sub(ds as u32 + 1) else { continue };
                    for &(cout, t) in &g.outbound[s as usize] {
                        if g.d(t, d) != ds - 1 {
                            continue;
                        }
                        for h in 0..=h_max {
                            add(vid(cin, scheme.vc(h)), vid(cout, scheme.vc(h + 1)));
                        }
                    }
                }
            }
        }
    }
    // Sorted adjacency, so the cycle reported does not depend on hashing.
    let mut edges: Vec<Vec<u32>> = vec![Vec::new(); nch * vcs as usize];
    let mut pairs: Vec<(u32, u32)> = set.into_iter().collect();
    pairs.sort_unstable();
    for (a, b) in pairs {
        edges[a as usize].push(b);
    }
    let edge_count = edges.iter().map(|e| e.len()).sum();
    let cycle = find_cycle(&edges);
    DeadlockReport {
        deadlock_free: cycle.is_empty(),
        vcs,
        vertices: edges.iter().enumerate().filter(|(_, e)| !e.is_empty()).count(),
        edges: edge_count,
        cycle: cycle.into_iter().map(|v| ((v / vcs as usize) as u32, (v % vcs as usize) as u32)).collect(),
    }
}

/// Iterative depth-first search; returns the vertices of one cycle, or empty.
fn find_cycle(edges: &[Vec<u32>]) -> Vec<usize> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let n = edges.len();
    let mut state = vec![NEW; n];
    let mut parent = vec![usize::MAX; n];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if state[root] != NEW || edges[root].is_empty() {
            continue;
        }
        state[root] = OPEN;
        stack.push((root, 0));
        while let Some(&mut (v, ref mut i)) = stack.last_mut() {
            if *i < edges[v].len() {
                let w = edges[v][*i] as usize;
                *i += 1;
                match state[w] {
                    NEW => {
                        state[w] = OPEN;
                        parent[w] = v;
                        stack.push((w, 0));
                    }
                    OPEN => {
                        // Back edge v -> w: the cycle is w ... v.
                        let mut cycle = vec![v];
                        let mut x = v;
                        while x != w {
                            x = parent[x];
                            cycle.push(x);
                        }
                        cycle.reverse();
                        return cycle;
                    }
                    _ => {}
                }
            } else {
                state[v] = DONE;
                stack.pop();
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::topology::Topology;

    fn net(json_text: &str) -> Network {
        Topology::build(&Config::from_json(json_text).unwrap()).unwrap().1
    }

    const MALBEC: &str = r#"{"topology": {"groups": 4, "switches_per_group": 8, "endpoints_per_switch": 16,
        "local_links_per_pair": 4, "global_ports_per_switch": 6}}"#;

    #[test]
    fn hop_indexed_vcs_are_deadlock_free_on_the_dragonfly() {
        let n = net(MALBEC);
        for alg in [Algorithm::Minimal, Algorithm::Valiant, Algorithm::Ugal] {
            let r = check(&n, alg, VcScheme::HopIndex, alg.max_hops_dragonfly());
            assert!(r.deadlock_free, "{alg:?}: cycle {:?}", r.cycle);
            assert_eq!(r.vcs, alg.max_hops_dragonfly());
            assert!(r.edges > 0);
        }
    }

    #[test]
    fn one_vc_for_everything_has_a_printed_cycle() {
        let n = net(MALBEC);
        for alg in [Algorithm::Minimal, Algorithm::Valiant] {
            let r = check(&n, alg, VcScheme::Single, alg.max_hops_dragonfly());
            assert!(!r.deadlock_free, "{alg:?} on one VC must have a cycle");
            assert!(r.cycle.len() >= 2);
            // Consecutive cycle vertices are consecutive channels: the first
            // ends where the second starts.
            for w in r.cycle.windows(2) {
                let (a, b) = (&n.channels[ChannelId(w[0].0)], &n.channels[ChannelId(w[1].0)]);
                let (End::Switch { switch: x, .. }, End::Switch { switch: y, .. }) = (a.dst, b.src) else { panic!("switch channels") };
                assert_eq!(x, y);
            }
            let j = r.to_json(&n);
            assert_eq!(j["deadlock_free"], false);
            assert!(j["cycle"][0]["from"].as_str().unwrap().starts_with("switch"));
        }
    }
}

/// Checks every routing algorithm on the topology of a config (JSON text)
/// with the engine's VC scheme: `{"<routing>": {deadlock_free, vcs, ...}}`.
pub fn check_config_json(text: &str) -> crate::error::Result<Value> {
    let cfg = crate::config::Config::from_json(text)?;
    let (topo, net) = crate::topology::Topology::build(&cfg)?;
    let mut out = serde_json::Map::new();
    if net.switches() > MAX_SWITCHES {
        let why = format!(
            "skipped: {} switches exceed the checker's limit of {MAX_SWITCHES}; the VC scheme is the same on every size of the family, so check a smaller instance",
            net.switches()
        );
        for name in Algorithm::names() {
            out.insert(name.to_string(), json!({"deadlock_free": null, "skipped": why}));
        }
        return Ok(Value::Object(out));
    }
    let g = SwitchGraph::new(&net);
    // The dependency graph depends only on the path class and the hop
    // budget: check each once and report it for every mode sharing them.
    let mut done: Vec<((super::PathClass, u32), Value)> = Vec::new();
    for &(name, alg) in Algorithm::REGISTRY {
        let key = (alg.path_class(), topo.max_hops(alg));
        let report = match done.iter().find(|(k, _)| *k == key) {
            Some((_, r)) => r.clone(),
            None => {
                let r = check_graph(&net, &g, alg, VcScheme::HopIndex, key.1).to_json(&net);
                done.push((key, r.clone()));
                r
            }
        };
        out.insert(name.to_string(), report);
    }
    Ok(Value::Object(out))
}
