//! Megafly, also called Dragonfly+ (paper 003 Sec. 6.3.2, MODEL.md Sec. 3):
//! every group is a two-level fat tree, a complete bipartite graph of leaf
//! and spine routers. Leaves hold the endpoints and one link to every spine
//! of their group; spines hold the global links; groups are connected
//! all-to-all with several links per group pair, as in the 1D dragonfly.
//!
//! Switch ids: group `G` owns `[G*(l+s), (G+1)*(l+s))`, its `l` leaves first,
//! then its `s` spines. Leaf ports: `[0, p)` endpoints, then one port per
//! spine (spine order). Spine ports: one per leaf (leaf order), then `h`
//! global ports. Endpoint `e` sits on leaf `e / p` (leaves numbered across
//! groups), port `e % p`.
//!
//! Defaults: `leaves_per_group` and `spines_per_group` are `radix / 2`
//! (the balanced Dragonfly+ of a radix-k router); `global_links_per_group_pair`
//! is as many as the spine ports allow, `floor(s*h / (g-1))`.
//!
//! The node attachment shared by the leaf-and-spine families (Megafly, fat
//! tree, Aries) lives here too: [`check_nodes`] and [`attach_nodes`].

use super::Built;
use crate::config::{LinkConfig, NicConfig, TopologyConfig};
use crate::error::{ConfigError, Result};
use crate::ids::{EndpointId, IdVec, NodeId, SwitchId};
use crate::network::{LinkKind, Network};
use crate::units::{Ps, Rate};
use serde_json::json;

/// Megafly parameters after defaults and validation.
struct Shape {
    groups: u32,
    leaves: u32,
    spines: u32,
    /// Endpoint ports per leaf.
    p: u32,
    /// Global ports per spine.
    h: u32,
    /// Global links per pair of groups.
    lpp: u32,
}

/// Validates the parameters and builds a Megafly network.
pub fn build(t: &TopologyConfig, links: &LinkConfig, nic: &NicConfig) -> Result<Built> {
    let m = validate(t)?;
    let (g, l, s, p, h) = (m.groups, m.leaves, m.spines, m.p, m.h);
    let per_group = l + s;
    let lp = super::LinkParams::new(links, nic);
    let ((local_rate, lat_local), (global_rate, lat_global)) = (lp.local, lp.global);
    let mut net = Network { rails: t.rails, ..Network::default() };
    let mut groups = Vec::with_capacity((g * per_group) as usize);
    for grp in 0..g {
        for _ in 0..l {
            net.add_switch(p + s);
        }
        for _ in 0..s {
            net.add_switch(l + h);
        }
        groups.extend(std::iter::repeat_n(grp, per_group as usize));
    }
    // Local links: the complete bipartite graph leaves x spines of each group.
    for grp in 0..g {
        for i in 0..l {
            for j in 0..s {
                let leaf = grp * per_group + i;
                let spine = grp * per_group + l + j;
                net.connect_switches(LinkKind::Local, (SwitchId(leaf), p + j), (SwitchId(spine), i), local_rate, lat_local);
            }
        }
    }
    // Global links: `lpp` per group pair. A group numbers its s*h global
    // ports as slots (spine slot / h, port slot % h); the arrangement decides
    // which slot carries link `k` to the peer group of rank `r`.
    let round_robin = t.arrangement == "round-robin";
    let slot = |rank: u32, k: u32| if round_robin { k * (g - 1) + rank } else { rank * m.lpp + k };
    let port_of = |grp: u32, slot: u32| (SwitchId(grp * per_group + l + slot / h), l + slot % h);
    for gi in 0..g {
        for gj in (gi + 1)..g {
            for k in 0..m.lpp {
                // Peers are ranked in group order, skipping the group itself.
                let a = port_of(gi, slot(gj - 1, k));
                let b = port_of(gj, slot(gi, k));
                net.connect_switches(LinkKind::Global, a, b, global_rate, lat_global);
            }
        }
    }
    let leaves: Vec<u32> = (0..g).flat_map(|grp| (0..l).map(move |i| grp * per_group + i)).collect();
    let term = Terminals { per_group: l, p, rails: t.rails, nodes: t.nodes, rate: lp.terminal.0, latency: lp.terminal.1 };
    attach_nodes(&mut net, &leaves, &term);
    Ok(Built {
        net,
        family: "megafly",
        groups,
        plane: vec![0; (g * per_group) as usize],
        planes: 1,
        info: json!({ "leaves_per_group": l, "spines_per_group": s, "global_links_per_group_pair": m.lpp }),
    })
}

/// Applies the defaults and checks every parameter.
fn validate(t: &TopologyConfig) -> Result<Shape> {
    let f = |k: &str| format!("topology.{k}");
    let leaves = t.leaves_per_group.unwrap_or(t.radix / 2);
    let spines = t.spines_per_group.unwrap_or(t.radix / 2);
    for (k, v) in [
        ("groups", t.groups),
        ("leaves_per_group", leaves),
        ("spines_per_group", spines),
        ("endpoints_per_switch", t.endpoints_per_switch),
        ("radix", t.radix),
    ] {
        if v == 0 {
            return Err(ConfigError::new(f(k), "must be at least 1"));
        }
    }
    let (g, p, h) = (t.groups, t.endpoints_per_switch, t.global_ports_per_switch);
    if p as u64 + spines as u64 > t.radix as u64 {
        return Err(ConfigError::new(
            f("radix"),
            format!(
                "a leaf needs {p} endpoint + {spines} spine ports = {} > radix {}; \
                 lower endpoints_per_switch or spines_per_group, or raise topology.radix",
                p as u64 + spines as u64,
                t.radix
            ),
        ));
    }
    if leaves as u64 + h as u64 > t.radix as u64 {
        return Err(ConfigError::new(
            f("radix"),
            format!(
                "a spine needs {leaves} leaf + {h} global ports = {} > radix {}; \
                 lower leaves_per_group or global_ports_per_switch, or raise topology.radix",
                leaves as u64 + h as u64,
                t.radix
            ),
        ));
    }
    if !["consecutive", "round-robin"].contains(&t.arrangement.as_str()) {
        return Err(ConfigError::new(f("arrangement"), format!("unknown arrangement {:?}; use \"consecutive\" or \"round-robin\"", t.arrangement)));
    }
    check_size(g as u64 * (leaves as u64 + spines as u64), g as u64 * leaves as u64 * p as u64, "groups")?;
    let ports = spines as u64 * h as u64;
    let lpp = global_links_per_pair(g, ports, t.global_links_per_group_pair, "spines_per_group x global_ports_per_switch")?;
    check_nodes(g as u64 * leaves as u64 * p as u64, p, "endpoints_per_switch", t.rails, t.nodes)?;
    Ok(Shape { groups: g, leaves, spines, p, h, lpp })
}

/// Links per group pair of an all-to-all group network with `ports` global
/// ports per group: `given` if it fits, else the most the ports allow.
/// Errors name `topology.groups` (too many groups for the ports) or
/// `topology.global_links_per_group_pair` (more links than ports).
pub(super) fn global_links_per_pair(groups: u32, ports: u64, given: Option<u32>, ports_are: &str) -> Result<u32> {
    if groups <= 1 {
        return match given {
            Some(n) if n > 0 => Err(ConfigError::new(
                "topology.global_links_per_group_pair",
                format!("a single group has no peer group to link to; remove it or use 2 or more groups (got {n})"),
            )),
            _ => Ok(0),
        };
    }
    let peers = groups as u64 - 1;
    let max = ports / peers;
    if max == 0 {
        return Err(ConfigError::new(
            "topology.groups",
            format!(
                "{groups} groups cannot be connected all-to-all: each group has {ports} global ports ({ports_are}) for {peers} peer groups; \
                 use at most {} groups or more global ports",
                ports + 1
            ),
        ));
    }
    let max = max.min(u32::MAX as u64) as u32;
    match given {
        None => Ok(max),
        Some(n) if n >= 1 && n <= max => Ok(n),
        Some(n) => Err(ConfigError::new(
            "topology.global_links_per_group_pair",
            format!("must be between 1 and {max} ({ports} global ports per group ({ports_are}) / {peers} peer groups), got {n}"),
        )),
    }
}

/// Most endpoint ports a builder accepts (keeps endpoint ids far from `u32::MAX`).
const MAX_ENDPOINT_PORTS: u64 = 1 << 24;

/// Refuses, before anything is allocated, a network larger than the
/// shortest-path tables support ([`graph::MAX_SWITCHES`](super::graph::MAX_SWITCHES))
/// or with more than 2^24 endpoint ports; `field` is the key to lower.
pub(super) fn check_size(switches: u64, ports: u64, field: &str) -> Result<()> {
    let max = super::graph::MAX_SWITCHES as u64;
    if switches > max {
        return Err(ConfigError::new(
            format!("topology.{field}"),
            format!("{switches} switches exceed the {max} that shortest-path routing tables support in this release; lower {field}"),
        ));
    }
    if ports > MAX_ENDPOINT_PORTS {
        return Err(ConfigError::new(
            format!("topology.{field}"),
            format!("{ports} endpoint ports exceed the {MAX_ENDPOINT_PORTS} a network may have; lower {field}"),
        ));
    }
    Ok(())
}

/// How endpoints are attached to the endpoint-bearing switches (leaves,
/// edge switches, Aries routers).
pub(super) struct Terminals {
    /// Endpoint-bearing switches per group (rails of a node stay in its group).
    pub per_group: u32,
    /// Endpoint ports per switch, ports `[0, p)`.
    pub p: u32,
    pub rails: u32,
    /// Populated nodes; `None` fills every port.
    pub nodes: Option<u32>,
    pub rate: Rate,
    pub latency: Ps,
}

/// Checks `rails` and `nodes` against `ports` endpoint ports of `p` per
/// switch; `p_is` says where `p` comes from, for the message.
pub(super) fn check_nodes(ports: u64, p: u32, p_is: &str, rails: u32, nodes: Option<u32>) -> Result<()> {
    if rails == 0 {
        return Err(ConfigError::new("topology.rails", "must be at least 1"));
    }
    if p % rails != 0 {
        return Err(ConfigError::new("topology.rails", format!("{p_is} ({p}) must be a multiple of rails ({rails}): the rails of a node sit on different switches")));
    }
    if let Some(n) = nodes {
        if n == 0 || n as u64 * rails as u64 > ports {
            return Err(ConfigError::new(
                "topology.nodes",
                format!("must be between 1 and {} ({ports} endpoint ports / {rails} rails), got {n}", ports / rails as u64),
            ));
        }
    }
    Ok(())
}

/// Attaches the populated nodes to `switches` (endpoint-bearing switches in
/// group order). Nodes fill groups in order; node `m` of a group has base
/// switch `m / (p/R)` of the group and its rail `r` sits on the switch `r`
/// after the base, so the rails of a node land on different switches of
/// one group (as the dragonfly does, paper 000 Sec. III). Endpoint `e` is
/// port `e % p` of `switches[e / p]`.
pub(super) fn attach_nodes(net: &mut Network, switches: &[u32], t: &Terminals) {
    let (a, p, r) = (t.per_group, t.p, t.rails);
    let per_switch = p / r;
    let per_group = a * per_switch;
    let ports = switches.len() as u32 * p;
    let total = t.nodes.unwrap_or(ports / r);
    net.endpoint_node = IdVec::filled(NodeId::NONE, ports as usize);
    net.node_endpoints = Vec::with_capacity((total * r) as usize);
    for node in 0..total {
        let (grp, m) = (node / per_group, node % per_group);
        let (base, q) = (m / per_switch, m % per_switch);
        for rail in 0..r {
            let e = (grp * a + (base + rail) % a) * p + rail * per_switch + q;
            net.node_endpoints.push(EndpointId(e));
            net.endpoint_node[EndpointId(e)] = NodeId(node);
        }
    }
    net.attach_populated(ports, |e| (SwitchId(switches[(e.0 / p) as usize]), e.0 % p), t.rate, t.latency);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{Id, NodeId, SwitchId};
    use crate::network::End;
    use crate::topology::{Dragonfly, GraphTopology};

    /// Paper 003 Table 2: the Megafly of radix 36.
    fn megafly_3k() -> TopologyConfig {
        TopologyConfig {
            kind: crate::topology::Family::Megafly,
            groups: 10,
            leaves_per_group: Some(18),
            spines_per_group: Some(18),
            endpoints_per_switch: 18,
            global_ports_per_switch: 18,
            radix: 36,
            ..Default::default()
        }
    }

    /// Switch ports cabled to a global link (Table 2's "global connections").
    fn global_ports(net: &Network) -> usize {
        net.channels.iter().filter(|c| c.kind == LinkKind::Global && matches!(c.src, End::Switch { .. })).count()
    }

    fn total_links(net: &Network) -> usize {
        net.links_of_kind(LinkKind::Terminal) + net.links_of_kind(LinkKind::Local) + net.links_of_kind(LinkKind::Global)
    }


    /// Largest distance between two leaves (finite: the network is connected).
    fn leaf_diameter(g: &GraphTopology, groups: u32, l: u32, s: u32) -> u8 {
        let leaves: Vec<u32> = (0..groups).flat_map(|grp| (0..l).map(move |i| grp * (l + s) + i)).collect();
        leaves.iter().flat_map(|&a| leaves.iter().map(move |&b| g.distance(SwitchId(a), SwitchId(b)))).max().unwrap()
    }

    #[test]
    fn table2_megafly() {
        let b = build(&megafly_3k(), &LinkConfig::default(), &NicConfig::default()).unwrap();
        let net = &b.net;
        assert_eq!(net.switches(), 360);
        assert_eq!(net.nodes(), 3240);
        assert_eq!(b.groups.iter().max(), Some(&9));
        assert_eq!(total_links(net), 8100, "Table 4");
        assert_eq!(global_ports(net), 3240, "Table 2 global connections");
        assert_eq!(b.info["global_links_per_group_pair"], 36);
        // Nodes sit on leaves only, 18 each.
        let mut per_switch = vec![0; 360];
        for &e in &net.node_endpoints {
            per_switch[net.endpoint_switch[e].index()] += 1;
        }
        assert!((0..360).all(|s| per_switch[s] == if s % 36 < 18 { 18 } else { 0 }));
        // Every port of every router is cabled: 36 ports each.
        for s in 0..360u32 {
            for port in 0..36 {
                assert!(!net.out_channel(SwitchId(s), port).is_none(), "switch {s} port {port}");
            }
        }
        let g = GraphTopology::new(b);
        // Between leaves (the switches with endpoints): leaf -> spine ->
        // global -> spine -> leaf. (Two spines of different groups without a
        // direct link are 5 apart, but no traffic starts or ends at a spine.)
        assert!(g.is_connected());
        assert_eq!(g.diameter, 3, "megafly-3k diameter between leaves");
        // Leaf to leaf: leaf -> spine -> spine -> leaf.
        assert_eq!(leaf_diameter(&g, 10, 18, 18), 3, "megafly-3k diameter between leaves");
        assert_eq!(g.distance(SwitchId(0), SwitchId(1)), 2, "two leaves of a group meet at a spine");
    }

    #[test]
    fn table2_dragonfly() {
        let t = TopologyConfig {
            groups: 19,
            switches_per_group: 18,
            endpoints_per_switch: 9,
            local_links_per_pair: 1,
            global_ports_per_switch: 9,
            radix: 36,
            ..Default::default()
        };
        let (df, net) = Dragonfly::build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap();
        assert_eq!(net.switches(), 342);
        assert_eq!(df.groups, 19);
        assert_eq!(net.nodes(), 3078);
        assert_eq!(total_links(&net), 7524, "Table 4");
        assert_eq!(global_ports(&net), 3078, "Table 2 global connections");
        let groups = (0..342).map(|s| s / 18).collect();
        let built = Built { net, family: "dragonfly", groups, plane: vec![0; 342], planes: 1, info: json!({}) };
        let g = GraphTopology::new(built);
        assert!(g.is_connected());
        assert_eq!(g.diameter, 3, "dragonfly-3k diameter");
    }

    #[test]
    fn round_robin_and_defaults() {
        let mut t = megafly_3k();
        t.arrangement = "round-robin".into();
        t.global_links_per_group_pair = Some(10);
        t.rails = 2;
        t.nodes = Some(1000);
        let b = build(&t, &LinkConfig { global_bandwidth_bps: Some(50e9), ..Default::default() }, &NicConfig::default()).unwrap();
        assert_eq!(b.net.links_of_kind(LinkKind::Global), 45 * 10);
        assert!(b.net.channels.iter().filter(|c| c.kind == LinkKind::Global).all(|c| c.rate.bps() == 50e9));
        assert_eq!(b.net.nodes(), 1000);
        for n in 0..1000 {
            let (e0, e1) = (b.net.endpoint_of(NodeId(n), 0), b.net.endpoint_of(NodeId(n), 1));
            let (s0, s1) = (b.net.endpoint_switch[e0], b.net.endpoint_switch[e1]);
            assert!(s0 != s1 && s0.0 / 36 == s1.0 / 36, "rails of node {n} on switches {s0}, {s1}");
        }
        let g = GraphTopology::new(b);
        assert_eq!(leaf_diameter(&g, 10, 18, 18), 3);
        // Default: radix / 2 leaves and spines.
        let d = TopologyConfig { kind: crate::topology::Family::Megafly, radix: 16, endpoints_per_switch: 8, global_ports_per_switch: 8, ..Default::default() };
        let b = build(&d, &LinkConfig::default(), &NicConfig::default()).unwrap();
        assert_eq!(b.net.switches(), 4 * 16);
        assert_eq!(b.info["global_links_per_group_pair"], 21);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let err = |f: &dyn Fn(&mut TopologyConfig)| {
            let mut t = megafly_3k();
            f(&mut t);
            build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap_err()
        };
        let e = err(&|t| t.global_links_per_group_pair = Some(37));
        assert_eq!(e.field, "topology.global_links_per_group_pair");
        assert!(e.message.contains("between 1 and 36"), "{e}");
        let e = err(&|t| t.global_ports_per_switch = 19);
        assert_eq!(e.field, "topology.radix");
        assert!(e.message.contains("spine"), "{e}");
        let e = err(&|t| t.endpoints_per_switch = 19);
        assert_eq!(e.field, "topology.radix");
        assert!(e.message.contains("leaf"), "{e}");
        let e = err(&|t| t.groups = 326);
        assert_eq!(e.field, "topology.groups");
        assert!(e.message.contains("at most 325 groups"), "{e}");
        let e = err(&|t| t.nodes = Some(3241));
        assert_eq!(e.field, "topology.nodes");
        let e = err(&|t| t.rails = 4);
        assert_eq!(e.field, "topology.rails");
        let e = err(&|t| t.groups = 1000);
        assert_eq!(e.field, "topology.groups");
        assert!(e.message.contains("36000 switches exceed"), "{e}");
    }
}
