//! Slim Fly (paper 003 Sec. 4.2, after Besta & Hoefler, SC14): the
//! diameter-2 MMS graph of a prime power q = 4w + d, d in {-1, 0, 1}.
//! 2q^2 routers form two subgraphs alpha and beta of q local groups of q
//! routers each; with the generator sets X, X' of GF(q) (paper 003 Eq. 1-3):
//!
//! - (alpha, x, y) ~ (alpha, x, y')  iff  y - y' in X   (local)
//! - (beta, m, c)  ~ (beta, m, c')   iff  c - c' in X'  (local)
//! - (alpha, x, y) ~ (beta, m, c)    iff  y = m x + c   (global)
//!
//! Every router then has k' = (3q - d) / 2 network ports. Router numbering:
//! alpha (x, y) is `x*q + y`, beta (m, c) is `q^2 + m*q + c`, so the group of
//! router r is `r / q` (alpha groups 0..q, beta groups q..2q).
//!
//! Port layout of every router: `[0, p)` endpoints, then the k' network
//! ports: local neighbours, then global ones, each in router order.
//! Endpoint `e` sits on switch `e / p`, port `e % p`.

use super::galois::{prime_power, GaloisField};
use super::{Built, LinkParams};
use crate::config::{LinkConfig, NicConfig, TopologyConfig};
use crate::error::{ConfigError, Result};
use crate::ids::{EndpointId, IdVec, NodeId, SwitchId};
use crate::network::{LinkKind, Network};
use serde_json::json;

/// Largest q accepted: the builder and the shortest-path tables grow as q^3
/// and q^4; q = 256 already means 131,072 routers per plane.
const MAX_Q: u32 = 256;

/// The MMS graph of one Slim Fly plane.
#[derive(Clone, Debug)]
pub struct MmsGraph {
    /// Prime power q.
    pub q: u32,
    /// d in q = 4w + d.
    pub delta: i32,
    /// Network ports per router, k' = (3q - d) / 2.
    pub network_radix: u32,
    /// Neighbours of each router: local ones, then global ones, each sorted.
    adj: Vec<Vec<u32>>,
}

impl MmsGraph {
    /// Builds the graph of a valid q (see [`check_q`]).
    pub fn new(q: u32) -> Result<MmsGraph> {
        let delta = check_q(q)?;
        let field = GaloisField::new(q).expect("check_q accepted a prime power");
        let (x_set, xp_set) = generator_sets(&field, delta);
        let qq = q * q;
        let mut adj = Vec::with_capacity(2 * qq as usize);
        for x in 0..q {
            for y in 0..q {
                let mut local: Vec<u32> = x_set.iter().map(|&e| x * q + field.sub(y, e)).collect();
                local.sort_unstable();
                let global = (0..q).map(|m| qq + m * q + field.sub(y, field.mul(m, x)));
                adj.push(local.into_iter().chain(global).collect());
            }
        }
        for m in 0..q {
            for c in 0..q {
                let mut local: Vec<u32> = xp_set.iter().map(|&e| qq + m * q + field.sub(c, e)).collect();
                local.sort_unstable();
                let global = (0..q).map(|x| x * q + field.add(field.mul(m, x), c));
                adj.push(local.into_iter().chain(global).collect());
            }
        }
        let network_radix = ((3 * q as i64 - delta as i64) / 2) as u32;
        Ok(MmsGraph { q, delta, network_radix, adj })
    }

    /// Routers of the plane, 2q^2.
    pub fn routers(&self) -> u32 {
        2 * self.q * self.q
    }

    /// Local group of router `r` (alpha groups 0..q, beta groups q..2q).
    pub fn group(&self, r: u32) -> u32 {
        r / self.q
    }

    /// Neighbours of router `r`, in port order.
    pub fn neighbors(&self, r: u32) -> &[u32] {
        &self.adj[r as usize]
    }
}

/// The generator sets X (alpha groups) and X' (beta groups) from the
/// primitive element xi (Besta & Hoefler, SC14, Sec. 3.1; paper 003 step 4),
/// as exponents of xi:
/// - d = 1:  X = {0, 2, ..., q-3},  X' = {1, 3, ..., q-2};
/// - d = 0:  X = {0, 2, ..., q-2},  X' = {1, 3, ..., q-1};
/// - d = -1: X = {0, 2, ..., 2w-2} u {2w-1, 2w+1, ..., 4w-3},
///   X' = {1, 3, ..., 2w-1} u {2w, 2w+2, ..., 4w-2}.
///
/// Each set is closed under negation, so Eq. 1-2 are symmetric, and has
/// (q - d) / 2 elements. (For d = -1 the odd run of X' ends at 2w-1 = the
/// exponent of -1; ending it at 2w-3, as some restatements do, leaves X'
/// one element short and the beta routers with degree k' - 1.)
pub fn generator_sets(f: &GaloisField, delta: i32) -> (Vec<u32>, Vec<u32>) {
    let q = f.q;
    let steps = |from: u32, to: u32| (from..=to).step_by(2).collect::<Vec<u32>>();
    let (x, xp) = match delta {
        1 => (steps(0, q - 3), steps(1, q - 2)),
        0 => (steps(0, q - 2), steps(1, q - 1)),
        _ => {
            let w = (q + 1) / 4;
            let x = [steps(0, 2 * w - 2), steps(2 * w - 1, 4 * w - 3)].concat();
            let xp = [steps(1, 2 * w - 1), steps(2 * w, 4 * w - 2)].concat();
            (x, xp)
        }
    };
    let to_elements = |e: Vec<u32>| e.into_iter().map(|i| f.pow_xi(i)).collect();
    (to_elements(x), to_elements(xp))
}

/// Whether q is a prime power q = 4w + d with d in {-1, 0, 1}.
fn valid_q(q: u32) -> bool {
    q >= 3 && q % 4 != 2 && prime_power(q).is_some()
}

/// Checks `q` and returns d; the error names the nearest valid choices.
pub fn check_q(q: u32) -> Result<i32> {
    if q > MAX_Q {
        return Err(ConfigError::new(
            "topology.q",
            format!("q = {q} means {} routers per plane, beyond this build's limit q <= {MAX_Q}; choose a smaller prime power", 2 * q as u64 * q as u64),
        ));
    }
    if valid_q(q) {
        return Ok(match q % 4 {
            1 => 1,
            0 => 0,
            _ => -1,
        });
    }
    let below = (3..q).rev().find(|&v| valid_q(v));
    let above = (q + 1..).find(|&v| valid_q(v)).expect("odd primes are unbounded");
    let why = if prime_power(q).is_some() {
        format!("q = {q} is a prime power but q = 4w + d needs d in {{-1, 0, 1}} (q mod 4 = 2 has no MMS graph)")
    } else {
        format!("q = {q} is not a prime power, so GF(q) does not exist")
    };
    let nearest = match below {
        Some(b) => format!("the nearest valid values are q = {b} ({} routers) and q = {above} ({} routers)", 2 * b * b, 2 * above * above),
        None => format!("the smallest valid value is q = {above} ({} routers)", 2 * above * above),
    };
    Err(ConfigError::new("topology.q", format!("{why}; {nearest}")))
}

/// Reads `q`, checks the ports and node count shared by Slim Fly and Fit
/// Fly; returns the graph and the number of nodes.
pub(crate) fn validate(t: &TopologyConfig, kind: &str) -> Result<(MmsGraph, u32)> {
    let q = t.q.ok_or_else(|| {
        ConfigError::new(
            "topology.q",
            format!("a {kind} needs the prime power q of its MMS graph (2q^2 routers per plane); set e.g. q = 13 with endpoints_per_switch = 9 for 3,042 nodes (paper 003 Table 2)"),
        )
    })?;
    let mms = MmsGraph::new(q)?;
    let p = t.endpoints_per_switch;
    if p == 0 {
        return Err(ConfigError::new("topology.endpoints_per_switch", "must be at least 1"));
    }
    let used = mms.network_radix as u64 + p as u64;
    if used > t.radix as u64 {
        return Err(ConfigError::new(
            "topology.radix",
            format!(
                "q = {q} gives every router {} network ports, plus {p} endpoint ports = {used}, more than the radix {}; \
                 raise topology.radix to at least {used}, lower endpoints_per_switch, or choose a smaller q",
                mms.network_radix, t.radix
            ),
        ));
    }
    // Endpoint and channel ids are u32: keep all planes well below 2^32 endpoints.
    if mms.routers() as u64 * p as u64 * t.planes.max(1) as u64 > (u32::MAX / 8) as u64 {
        return Err(ConfigError::new("topology.endpoints_per_switch", format!("{p} endpoints on each of {} routers is too many endpoints", mms.routers())));
    }
    let ports = mms.routers() * p;
    let nodes = t.nodes.unwrap_or(ports);
    if nodes == 0 || nodes > ports {
        return Err(ConfigError::new(
            "topology.nodes",
            format!("must be between 1 and {ports} ({} routers x {p} endpoints per plane), got {nodes}", mms.routers()),
        ));
    }
    Ok((mms, nodes))
}

/// Adds one plane's routers (ids from `first`) and cables the MMS graph.
pub(crate) fn wire_plane(net: &mut Network, mms: &MmsGraph, first: u32, p: u32, links: &LinkParams) {
    for _ in 0..mms.routers() {
        net.add_switch(p + mms.network_radix);
    }
    for a in 0..mms.routers() {
        for (i, &b) in mms.neighbors(a).iter().enumerate() {
            if b < a {
                continue;
            }
            let j = mms.neighbors(b).iter().position(|&x| x == a).expect("MMS adjacency is symmetric");
            let (kind, (rate, lat)) =
                if mms.group(a) == mms.group(b) { (LinkKind::Local, links.local) } else { (LinkKind::Global, links.global) };
            net.connect_switches(kind, (SwitchId(first + a), p + i as u32), (SwitchId(first + b), p + j as u32), rate, lat);
        }
    }
}

/// Router of node `i` in plane `plane`: in order on even planes (node 0 on
/// (alpha, 0, 0)), in reverse on odd planes (node 0 on (beta, q-1, q-1)),
/// paper 003 Sec. 4.2.2.
pub fn terminal_router(mms: &MmsGraph, plane: u32, node: u32, p: u32) -> u32 {
    if plane % 2 == 1 {
        mms.routers() - 1 - node / p
    } else {
        node / p
    }
}

/// Attaches `nodes` nodes with one rail per plane (rail = plane); endpoint
/// ids are plane-major like the switches, `e = switch * p + port`.
pub(crate) fn attach_nodes(net: &mut Network, mms: &MmsGraph, planes: u32, p: u32, nodes: u32, links: &LinkParams) {
    let ports = planes * mms.routers() * p;
    net.rails = planes;
    net.endpoint_node = IdVec::filled(NodeId::NONE, ports as usize);
    net.node_endpoints = Vec::with_capacity((nodes * planes) as usize);
    for node in 0..nodes {
        for plane in 0..planes {
            let s = plane * mms.routers() + terminal_router(mms, plane, node, p);
            let e = s * p + node % p;
            net.node_endpoints.push(EndpointId(e));
            net.endpoint_node[EndpointId(e)] = NodeId(node);
        }
    }
    let (rate, lat) = links.terminal;
    net.attach_populated(ports, |e| (SwitchId(e.0 / p), e.0 % p), rate, lat);
}

/// Builds a single-plane Slim Fly; `rails` must be 1 (use `fitfly` for more).
pub fn build(t: &TopologyConfig, l: &LinkConfig, n: &NicConfig) -> Result<Built> {
    let (mms, nodes) = validate(t, "slimfly")?;
    if t.rails != 1 {
        return Err(ConfigError::new(
            "topology.rails",
            format!("a slimfly has one plane, so one rail per node (got {}); for R rails use kind = \"fitfly\" with planes = R", t.rails),
        ));
    }
    let links = LinkParams::new(l, n);
    let p = t.endpoints_per_switch;
    let mut net = Network::default();
    wire_plane(&mut net, &mms, 0, p, &links);
    attach_nodes(&mut net, &mms, 1, p, nodes, &links);
    let groups = (0..mms.routers()).map(|r| mms.group(r)).collect();
    Ok(Built {
        net,
        family: "slimfly",
        groups,
        plane: vec![0; mms.routers() as usize],
        planes: 1,
        info: json!({"q": mms.q, "delta": mms.delta, "network_radix": mms.network_radix}),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{EndpointId, Id, NodeId, SwitchId};
    use crate::topology::GraphTopology;

    fn cfg(q: u32, p: u32, radix: u32) -> TopologyConfig {
        TopologyConfig { kind: crate::topology::Family::Slimfly, q: Some(q), endpoints_per_switch: p, radix, ..Default::default() }
    }

    fn build_q(q: u32) -> Built {
        build(&cfg(q, 1, 1000), &LinkConfig::default(), &NicConfig::default()).unwrap()
    }

    /// Paper 003 Tables 2 and 4, Slim Fly column.
    #[test]
    fn slimfly_paper_003_table_2_and_4() {
        let b = build(&cfg(13, 9, 28), &LinkConfig::default(), &NicConfig::default()).unwrap();
        let net = &b.net;
        assert_eq!(net.switches(), 338);
        assert_eq!(b.groups.iter().max().unwrap() + 1, 26);
        assert_eq!(net.nodes(), 3042);
        assert_eq!(b.info["network_radix"], 19);
        assert_eq!(b.info["delta"], 1);
        let (local, global, term) =
            (net.links_of_kind(LinkKind::Local), net.links_of_kind(LinkKind::Global), net.links_of_kind(LinkKind::Terminal));
        assert_eq!(global, 13 * 13 * 13); // q from each of the q^2 alpha routers
        assert_eq!(local + global, 3211);
        assert_eq!(term, 3042);
        assert_eq!(local + global + term, 6253);
        // Radix 19 + 9 = 28, every port cabled.
        for s in 0..338 {
            for port in 0..28 {
                assert!(!net.out_channel(SwitchId(s), port).is_none(), "switch {s} port {port}");
            }
        }
        let g = GraphTopology::new(b);
        assert_eq!(g.diameter, 2);
    }

    /// Degree k' = (3q - d)/2, symmetric adjacency, no self loops or
    /// duplicates, for every valid q up to 64.
    #[test]
    fn slimfly_mms_is_regular_and_undirected() {
        for q in (3..=64).filter(|&q| valid_q(q)) {
            let mms = MmsGraph::new(q).unwrap();
            assert_eq!(mms.network_radix as i64, (3 * q as i64 - mms.delta as i64) / 2);
            for a in 0..mms.routers() {
                let nb = mms.neighbors(a);
                assert_eq!(nb.len() as u32, mms.network_radix, "q={q} router {a}");
                let mut sorted = nb.to_vec();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), nb.len(), "q={q}: duplicate neighbour of {a}");
                assert!(!nb.contains(&a), "q={q}: self loop at {a}");
                for &b in nb {
                    assert!(mms.neighbors(b).contains(&a), "q={q}: {a}->{b} not symmetric");
                }
            }
        }
    }

    /// Diameter 2 for each residue class of q mod 4 and for extension fields.
    #[test]
    fn slimfly_diameter_is_two() {
        for q in [3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27] {
            let g = GraphTopology::new(build_q(q));
            assert_eq!(g.diameter, 2, "q = {q}");
        }
    }

    /// Every router reaches every other within two hops, for all valid q up
    /// to 64 (checked on the adjacency directly; cheaper than full BFS).
    #[test]
    fn slimfly_diameter_two_for_all_q_up_to_64() {
        for q in (3..=64).filter(|&q| valid_q(q)) {
            let mms = MmsGraph::new(q).unwrap();
            let n = mms.routers();
            let mut stamp = vec![u32::MAX; n as usize];
            for a in 0..n {
                stamp[a as usize] = a;
                for &b in mms.neighbors(a) {
                    stamp[b as usize] = a;
                    for &c in mms.neighbors(b) {
                        stamp[c as usize] = a;
                    }
                }
                assert!(stamp.iter().all(|&s| s == a), "q = {q}: router {a} has a router beyond 2 hops");
            }
        }
    }

    #[test]
    fn slimfly_groups_and_link_kinds() {
        let b = build_q(5);
        assert_eq!(b.groups[0], 0);
        assert_eq!(b.groups[24], 4);
        assert_eq!(b.groups[25], 5);
        assert_eq!(b.groups[49], 9);
        for ch in &b.net.channels {
            if let (crate::network::End::Switch { switch: a, .. }, crate::network::End::Switch { switch: c, .. }) = (ch.src, ch.dst) {
                let same = b.groups[a.index()] == b.groups[c.index()];
                assert_eq!(ch.kind == LinkKind::Local, same);
                // No links between two groups of the same subgraph.
                assert!(same || (a.0 < 25) != (c.0 < 25));
            }
        }
    }

    #[test]
    fn slimfly_bad_q_names_the_nearest_values() {
        for (q, lo, hi) in [(6, 5, 7), (10, 9, 11), (12, 11, 13), (14, 13, 16), (2, 0, 3), (1, 0, 3), (15, 13, 16)] {
            let e = build(&cfg(q, 1, 64), &LinkConfig::default(), &NicConfig::default()).unwrap_err();
            assert_eq!(e.field, "topology.q");
            assert!(e.message.contains(&format!("q = {hi} ")), "{e}");
            if lo > 0 {
                assert!(e.message.contains(&format!("q = {lo} ")), "{e}");
            }
        }
    }

    #[test]
    fn slimfly_missing_q_and_small_radix_are_explained() {
        let mut t = cfg(13, 9, 27);
        let e = build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap_err();
        assert_eq!(e.field, "topology.radix");
        assert!(e.message.contains("at least 28"), "{e}");
        t.q = None;
        let e = build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap_err();
        assert_eq!(e.field, "topology.q");
        assert!(e.message.contains("set e.g. q = 13"), "{e}");
        let mut t = cfg(5, 2, 64);
        t.rails = 2;
        let e = build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap_err();
        assert_eq!(e.field, "topology.rails");
        assert!(e.message.contains("fitfly"));
    }

    #[test]
    fn slimfly_partial_population_and_rates() {
        let mut t = cfg(5, 3, 64);
        t.nodes = Some(10);
        let l = LinkConfig { global_bandwidth_bps: Some(50e9), ..Default::default() };
        let b = build(&t, &l, &NicConfig::default()).unwrap();
        assert_eq!(b.net.nodes(), 10);
        assert_eq!(b.net.endpoint_up.len(), 150);
        assert_eq!(b.net.endpoint_switch[EndpointId(9)], SwitchId(3));
        assert_eq!(b.net.endpoint_of(NodeId(7), 0), EndpointId(7));
        for ch in &b.net.channels {
            let want = match ch.kind {
                LinkKind::Global => 50e9,
                LinkKind::Local => 200e9,
                LinkKind::Terminal => 100e9,
            };
            assert!((ch.rate.bps() - want).abs() < 1e3);
        }
        t.nodes = Some(151);
        assert_eq!(build(&t, &l, &NicConfig::default()).unwrap_err().field, "topology.nodes");
    }
}
