//! The Cray XC (Aries) 2D dragonfly (paper 004 Sec. 2.1, MODEL.md Sec. 3).
//! A group is a grid of `rows` chassis (6) by `columns` blade slots (16),
//! one Aries router per blade. The routers of a row (one chassis) are all
//! connected with `row_links` (1) links per pair, over 15 intra-chassis
//! tiles; the routers of a column (the same slot in every chassis) with
//! `column_links` (3) links per pair, over 5 x 3 intra-group tiles. Each
//! router serves `endpoints_per_switch` (4) nodes and has up to
//! `global_ports_per_switch` (10) optical ports to other groups; groups are
//! connected all-to-all with `global_links_per_group_pair` links (default:
//! as many as the global ports allow). Paper 004 Fig. 1 draws the chassis
//! as columns; here a chassis is a row, as in the config keys.
//!
//! Minimal paths (router-to-router hops): 0 between nodes of one blade, 1
//! inside a chassis or a column, at most 2 inside a group, and at most
//! 2 + 1 + 2 = 5 between groups (Fig. 1's 5-hop path, when neither end is
//! on a router holding the global link), i.e. one to six routers visited.
//!
//! The port check is `endpoints + (columns-1)*row_links +
//! (rows-1)*column_links + global <= radix`; an Aries has 48 tiles, 8 of
//! them processor tiles for its 4 NICs, and 4 + 15 + 15 + 10 = 44 fit. Local
//! links run at `links.bandwidth_bps` (electrical 5.25 GB/s), global links
//! at `links.global_bandwidth_bps` (optical 4.7 GB/s), see `aries-crystal`.
//!
//! Switch ids: group `G`, row `r`, column `c` is `G*R*C + r*C + c`. Ports:
//! `[0, p)` endpoints, then `(C-1)*row_links` row ports (peers in column
//! order), `(R-1)*column_links` column ports (peers in row order), then the
//! global ports. A group numbers its global ports as slots spread over its
//! routers first (slot `s`: router `s % (R*C)`, global port `s / (R*C)`),
//! and link `k` to the peer group of rank `j` takes slot `k*(g-1) + j`, so
//! a partly cabled system spreads its global links over many routers. Group
//! `G` then rotates the slots of global port layer `l` by `7 * l * G`
//! routers ([`spread_slot`]): both ends of a link are rotated by their own
//! group, so a router's global links land on different routers of the
//! other group, not all on the one with its own index, and a node pair in
//! two groups has several minimal paths *(assumed: the papers do
//! not give the cabling; with every link of a router on one far router,
//! two groups had a single minimal path funnelled through one local link,
//! and Crystal's inter-group ping-pong was 1.4x slower with high bias,
//! the reverse of [DeSensi19] Fig. 7)*.

use super::megafly::{attach_nodes, check_nodes, check_size, global_links_per_pair, Terminals};
use super::Built;
use crate::config::{LinkConfig, NicConfig, TopologyConfig};
use crate::error::{ConfigError, Result};
use crate::ids::SwitchId;
use crate::network::{LinkKind, Network};
use serde_json::json;

/// Chassis (rows) per group of a Cray XC system.
pub const ROWS: u32 = 6;
/// Blades (columns) per chassis.
pub const COLUMNS: u32 = 16;
/// Links between two routers of a chassis.
pub const ROW_LINKS: u32 = 1;
/// Links between two routers of a column (three tiles per connection).
pub const COLUMN_LINKS: u32 = 3;
/// Nodes per Aries router.
pub const ENDPOINTS: u32 = 4;
/// Optical global ports per Aries router.
pub const GLOBAL_PORTS: u32 = 10;
/// Tiles of an Aries router.
pub const RADIX: u32 = 48;

/// The config with the Aries defaults for `endpoints_per_switch` (4),
/// `global_ports_per_switch` (10) and `radix` (48) where `given` (the
/// `[topology]` keys of the config) does not set them: these fields are
/// not optional and their generic defaults are the Slingshot ones.
pub fn with_defaults(t: &TopologyConfig, given: &[String]) -> TopologyConfig {
    let has = |k: &str| given.iter().any(|g| g == k);
    let mut t = t.clone();
    if !has("endpoints_per_switch") {
        t.endpoints_per_switch = ENDPOINTS;
    }
    if !has("global_ports_per_switch") {
        t.global_ports_per_switch = GLOBAL_PORTS;
    }
    if !has("radix") {
        t.radix = RADIX;
    }
    t
}

/// Aries parameters after defaults and validation.
struct Shape {
    groups: u32,
    rows: u32,
    columns: u32,
    row_links: u32,
    column_links: u32,
    p: u32,
    h: u32,
    lpp: u32,
}

/// Validates the parameters and builds an Aries network.
pub fn build(t: &TopologyConfig, links: &LinkConfig, nic: &NicConfig) -> Result<Built> {
    let a = validate(t)?;
    let (g, rows, cols, p, h) = (a.groups, a.rows, a.columns, a.p, a.h);
    let per_group = rows * cols;
    let row_base = p;
    let col_base = p + (cols - 1) * a.row_links;
    let global_base = col_base + (rows - 1) * a.column_links;
    let lp = super::LinkParams::new(links, nic);
    let ((local_rate, lat_local), (global_rate, lat_global)) = (lp.local, lp.global);
    let mut net = Network { rails: t.rails, ..Network::default() };
    for _ in 0..g * per_group {
        net.add_switch(global_base + h);
    }
    let router = |grp: u32, r: u32, c: u32| SwitchId(grp * per_group + r * cols + c);
    for grp in 0..g {
        // Rows (chassis): all-to-all over the columns.
        for r in 0..rows {
            for c in 0..cols {
                for d in (c + 1)..cols {
                    for j in 0..a.row_links {
                        let pc = row_base + rank(c, d) * a.row_links + j;
                        let pd = row_base + rank(d, c) * a.row_links + j;
                        net.connect_switches(LinkKind::Local, (router(grp, r, c), pc), (router(grp, r, d), pd), local_rate, lat_local);
                    }
                }
            }
        }
        // Columns: all-to-all over the rows.
        for c in 0..cols {
            for r in 0..rows {
                for q in (r + 1)..rows {
                    for j in 0..a.column_links {
                        let pr = col_base + rank(r, q) * a.column_links + j;
                        let pq = col_base + rank(q, r) * a.column_links + j;
                        net.connect_switches(LinkKind::Local, (router(grp, r, c), pr), (router(grp, q, c), pq), local_rate, lat_local);
                    }
                }
            }
        }
    }
    let port_of = |grp: u32, slot: u32| (SwitchId(grp * per_group + slot % per_group), global_base + slot / per_group);
    for gi in 0..g {
        for gj in (gi + 1)..g {
            for k in 0..a.lpp {
                let x = port_of(gi, spread_slot(gi, k * (g - 1) + gj - 1, per_group));
                let y = port_of(gj, spread_slot(gj, k * (g - 1) + gi, per_group));
                net.connect_switches(LinkKind::Global, x, y, global_rate, lat_global);
            }
        }
    }
    let routers: Vec<u32> = (0..g * per_group).collect();
    let term = Terminals { per_group, p, rails: t.rails, nodes: t.nodes, rate: lp.terminal.0, latency: lp.terminal.1 };
    attach_nodes(&mut net, &routers, &term);
    Ok(Built {
        net,
        family: "aries",
        groups: routers.iter().map(|s| s / per_group).collect(),
        plane: vec![0; routers.len()],
        planes: 1,
        info: json!({
            "rows": rows,
            "columns": cols,
            "row_links": a.row_links,
            "column_links": a.column_links,
            "global_links_per_group_pair": a.lpp,
        }),
    })
}

/// Position of peer `y` among the peers of `x` (both in one row or column).
#[inline]
fn rank(x: u32, y: u32) -> u32 {
    if y < x {
        y
    } else {
        y - 1
    }
}

/// Applies the defaults of the optional keys and checks every parameter.
fn validate(t: &TopologyConfig) -> Result<Shape> {
    let f = |k: &str| format!("topology.{k}");
    let rows = t.rows.unwrap_or(ROWS);
    let columns = t.columns.unwrap_or(COLUMNS);
    let row_links = t.row_links.unwrap_or(ROW_LINKS);
    let column_links = t.column_links.unwrap_or(COLUMN_LINKS);
    for (k, v) in [("groups", t.groups), ("rows", rows), ("columns", columns), ("endpoints_per_switch", t.endpoints_per_switch), ("radix", t.radix)] {
        if v == 0 {
            return Err(ConfigError::new(f(k), "must be at least 1"));
        }
    }
    if columns > 1 && row_links == 0 {
        return Err(ConfigError::new(f("row_links"), "must be at least 1 when a row has more than one router"));
    }
    if rows > 1 && column_links == 0 {
        return Err(ConfigError::new(f("column_links"), "must be at least 1 when a column has more than one router"));
    }
    let (p, h) = (t.endpoints_per_switch, t.global_ports_per_switch);
    let row_ports = (columns as u64 - 1) * row_links as u64;
    let col_ports = (rows as u64 - 1) * column_links as u64;
    let used = p as u64 + row_ports + col_ports + h as u64;
    if used > t.radix as u64 {
        return Err(ConfigError::new(
            f("radix"),
            format!(
                "{p} endpoint + {row_ports} row + {col_ports} column + {h} global ports = {used} exceed the router radix {}; \
                 lower endpoints_per_switch, columns, row_links, rows, column_links or global_ports_per_switch, or raise topology.radix",
                t.radix
            ),
        ));
    }
    let per_group = rows as u64 * columns as u64;
    check_size(t.groups as u64 * per_group, t.groups as u64 * per_group * p as u64, "groups")?;
    let ports = per_group * h as u64;
    let lpp = global_links_per_pair(t.groups, ports, t.global_links_per_group_pair, "rows x columns x global_ports_per_switch")?;
    check_nodes(t.groups as u64 * rows as u64 * columns as u64 * p as u64, p, "endpoints_per_switch", t.rails, t.nodes)?;
    Ok(Shape { groups: t.groups, rows, columns, row_links, column_links, p, h, lpp })
}

/// Where group `group` puts its global-port slot `slot`: the same global
/// port layer, rotated by `7 * layer * group` routers. Within one group
/// this is a rotation of each layer, a bijection, so every port is cabled
/// once; the two ends of a link rotate by different amounts, so the links
/// of one router reach different routers. (Until 2026-11-29 only the far
/// end rotated, by `7 * layer`: with more than two groups a group's far
/// ends then landed on slots its near ends used, and Piz Daint's and
/// Cori's shapes cabled 2,809 and 4,788 ports twice, the later cable
/// silently replacing the earlier. Two groups, as Crystal, are cabled as
/// before: group 0 does not rotate and group 1 rotates by `7 * layer`.)
fn spread_slot(group: u32, slot: u32, per_group: u32) -> u32 {
    let (layer, r) = (slot / per_group, slot % per_group);
    let turn = (7u64 * layer as u64 * group as u64 % per_group as u64) as u32;
    layer * per_group + (r + turn) % per_group
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{Id, NodeId, SwitchId};
    use crate::units::Rate;
    use crate::topology::GraphTopology;


    /// A default Aries (6 x 16 routers, 4 nodes, 10 global ports, radix 48).
    fn aries(groups: u32, lpp: Option<u32>) -> TopologyConfig {
        let t = TopologyConfig { kind: crate::topology::Family::Aries, groups, global_links_per_group_pair: lpp, ..Default::default() };
        with_defaults(&t, &[])
    }

    fn built(t: &TopologyConfig) -> GraphTopology {
        GraphTopology::new(build(t, &LinkConfig::default(), &NicConfig::default()).unwrap())
    }

    /// Router of node `n`.
    fn router_of(g: &GraphTopology, net: &Network, n: u32) -> SwitchId {
        let s = net.endpoint_switch[net.endpoint_of(NodeId(n), 0)];
        assert!(s.index() < g.switches());
        s
    }

    #[test]
    fn group_shape() {
        let b = build(&aries(2, None), &LinkConfig::default(), &NicConfig::default()).unwrap();
        let net = &b.net;
        assert_eq!(net.switches(), 192);
        assert_eq!(net.nodes(), 768, "4 nodes per router");
        // Per group: 6 rows x C(16,2) + 16 columns x C(6,2) x 3 links.
        assert_eq!(net.links_of_kind(LinkKind::Local), 2 * (6 * 120 + 16 * 15 * 3));
        assert_eq!(net.links_of_kind(LinkKind::Global), 960, "10 global ports x 96 routers");
        for s in 0..192u32 {
            for port in 0..44 {
                assert!(!net.out_channel(SwitchId(s), port).is_none(), "router {s} port {port}");
            }
        }
    }

    #[test]
    fn hop_counts_of_paper_004() {
        // One global link between the groups, as in Fig. 1.
        let t = aries(2, Some(1));
        let b = build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap();
        let net = b.net.clone();
        let g = GraphTopology::new(b);
        let node = |grp: u32, r: u32, c: u32, slot: u32| (grp * 96 + r * 16 + c) * 4 + slot;
        let hops = |x: u32, y: u32| g.distance(router_of(&g, &net, x), router_of(&g, &net, y));
        assert_eq!(hops(node(0, 2, 5, 0), node(0, 2, 5, 3)), 0, "same blade");
        assert_eq!(hops(node(0, 2, 5, 0), node(0, 2, 11, 1)), 1, "same chassis");
        assert_eq!(hops(node(0, 2, 5, 0), node(0, 4, 5, 1)), 1, "same slot, other chassis");
        assert_eq!(hops(node(0, 2, 5, 0), node(0, 4, 11, 1)), 2, "same group");
        assert_eq!(hops(node(0, 2, 5, 0), node(1, 3, 7, 2)), 5, "different groups, Fig. 1");
        assert_eq!(hops(node(0, 0, 0, 0), node(1, 0, 0, 0)), 1, "the two routers of the global link");
        // Bounds over all router pairs: at most 2 inside and 5 between groups.
        let mut inside = 0;
        let mut between = 0;
        for s in 0..192 {
            for d in 0..192 {
                let h = g.distance(SwitchId(s), SwitchId(d));
                if s / 96 == d / 96 {
                    inside = inside.max(h);
                } else {
                    between = between.max(h);
                }
            }
        }
        assert_eq!((inside, between), (2, 5));
        assert_eq!(g.diameter, 5);
    }

    #[test]
    fn crystal() {
        // Paper 000 Sec. III: 2 groups, 698 nodes, at most 384 per group.
        let mut t = aries(2, None);
        t.nodes = Some(698);
        let b = build(&t, &LinkConfig { bandwidth_bps: 42e9, global_bandwidth_bps: Some(37.6e9), ..Default::default() }, &NicConfig::default())
            .unwrap();
        assert_eq!(b.net.nodes(), 698);
        let in_group0 = b.net.node_endpoints.iter().filter(|&&e| b.net.endpoint_switch[e] < SwitchId(96)).count();
        assert_eq!(in_group0, 384);
        assert!(b.net.channels.iter().all(|c| match c.kind {
            LinkKind::Global => c.rate.bps() == Rate::from_bps(37.6e9).bps(),
            LinkKind::Local => c.rate.bps() == Rate::from_bps(42e9).bps(),
            LinkKind::Terminal => true,
        }));
        assert_eq!(b.info["global_links_per_group_pair"], 960);
        // A router's 10 global links land on 10 different routers of the
        // other group, so nodes in two groups have several minimal paths.
        let far: std::collections::BTreeSet<_> = b
            .net
            .channels
            .iter()
            .filter(|c| c.kind == LinkKind::Global && matches!(c.src, crate::network::End::Switch { switch, .. } if switch == SwitchId(0)))
            .filter_map(|c| match c.dst {
                crate::network::End::Switch { switch, .. } => Some(switch),
                crate::network::End::Endpoint(_) => None,
            })
            .collect();
        assert_eq!(far.len(), 10);
        let g = GraphTopology::new(b);
        // Every router holds global links: source -> global -> 2 local hops.
        assert!(g.is_connected());
        assert_eq!(g.diameter, 3);
    }

    /// Piz Daint's and Cori's shapes (20 and 34 groups, every group pair
    /// with its share of the 960 global ports): every port's cable is the
    /// one whose end it is, and each group pair gets its links. Until
    /// 2026-11-29 these shapes cabled thousands of ports twice.
    #[test]
    fn many_groups_cable_every_global_port_once() {
        for groups in [3, 20, 34] {
            let b = build(&aries(groups, None), &LinkConfig::default(), &NicConfig::default()).unwrap();
            let net = &b.net;
            let lpp = 960 / (groups - 1);
            let mut pairs = std::collections::BTreeMap::new();
            for (i, c) in net.channels.iter().enumerate() {
                if c.kind != LinkKind::Global {
                    continue;
                }
                let (crate::network::End::Switch { switch: a, port }, crate::network::End::Switch { switch: d, .. }) = (c.src, c.dst) else {
                    panic!("a global channel between two switches");
                };
                assert_eq!(net.out_channel(a, port).index(), i, "{groups} groups: router {} port {port} holds another cable", a.0);
                *pairs.entry((a.0 / 96, d.0 / 96)).or_insert(0u32) += 1;
            }
            assert_eq!(pairs.len() as u32, groups * (groups - 1), "{groups} groups: every ordered group pair");
            assert!(pairs.values().all(|&n| n == lpp), "{groups} groups: {lpp} links per pair each way");
        }
    }

    /// Non-minimal paths as Aries draws them (paper 004 Sec. 2.2): inside
    /// a group the intermediate router is of that group; between groups it
    /// is of a third group, every third group drawn; with only two groups
    /// the detour takes a router of either.
    #[test]
    fn intermediates_by_group() {
        use crate::packet::Packet;
        use crate::routing::adaptive::Paths;
        use crate::rng::Rng;
        // As the topology builder sets up every Aries network.
        let by_group = |t: &TopologyConfig| {
            let mut g = built(t);
            g.route_detours_by_group();
            g
        };
        let g = by_group(&aries(4, None));
        let mut rng = Rng::new(7, 0);
        let draw = |g: &GraphTopology, from: u32, to: u32, rng: &mut Rng| {
            let mut p = Packet::new(crate::ids::EndpointId(0), crate::ids::EndpointId(0), SwitchId(to), 0, 0).hot;
            assert!(g.set_intermediate(SwitchId(from), &mut p, rng));
            let via = p.via_switch();
            assert!(via != SwitchId(from) && via != SwitchId(to));
            g.groups[via.index()]
        };
        // Routers 0 and 5 of group 0.
        for _ in 0..500 {
            assert_eq!(draw(&g, 0, 5, &mut rng), 0, "inside a group the detour stays in it");
        }
        // Router 0 (group 0) to router 100 (group 1): groups 2 and 3 only.
        let mut seen = [0u32; 4];
        for _ in 0..1000 {
            seen[draw(&g, 0, 100, &mut rng) as usize] += 1;
        }
        assert_eq!(&seen[..2], &[0, 0], "never the source or destination group: {seen:?}");
        assert!(seen[2] > 400 && seen[3] > 400, "both third groups, about evenly: {seen:?}");
        // Two groups: no third group, any router of the two but the ends.
        let two = by_group(&aries(2, None));
        let mut seen = [0u32; 2];
        for _ in 0..1000 {
            seen[draw(&two, 0, 100, &mut rng) as usize] += 1;
        }
        assert!(seen[0] > 400 && seen[1] > 400, "{seen:?}");
    }

    #[test]
    fn more_groups_connect_all_to_all() {
        let g = built(&aries(9, None));
        assert_eq!(g.info["global_links_per_group_pair"], 120);
        assert!(g.is_connected() && g.diameter <= 5);
        let mut small = aries(3, Some(2));
        small.rows = Some(2);
        small.columns = Some(3);
        small.rails = 2;
        let g = built(&small);
        assert_eq!(g.switches(), 18);
        assert!(g.is_connected() && g.diameter <= 5);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let err = |f: &dyn Fn(&mut TopologyConfig)| {
            let mut t = aries(2, None);
            f(&mut t);
            build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap_err()
        };
        let e = err(&|t| t.global_links_per_group_pair = Some(961));
        assert_eq!(e.field, "topology.global_links_per_group_pair");
        assert!(e.message.contains("between 1 and 960"), "{e}");
        let e = err(&|t| t.global_ports_per_switch = 15);
        assert_eq!(e.field, "topology.radix");
        assert!(e.message.contains("= 49 exceed the router radix 48"), "{e}");
        let e = err(&|t| t.groups = 171);
        assert_eq!(e.field, "topology.groups");
        assert!(e.message.contains("16416 switches exceed"), "{e}");
        let e = err(&|t| {
            (t.rows, t.columns, t.global_ports_per_switch, t.groups) = (Some(1), Some(2), 1, 4);
        });
        assert_eq!(e.field, "topology.groups");
        assert!(e.message.contains("use at most 3 groups"), "{e}");
        let e = err(&|t| t.nodes = Some(769));
        assert_eq!(e.field, "topology.nodes");
        let e = err(&|t| t.column_links = Some(0));
        assert_eq!(e.field, "topology.column_links");
    }

    #[test]
    fn given_keys_keep_their_values() {
        let t = TopologyConfig { endpoints_per_switch: 2, radix: 64, ..Default::default() };
        let d = with_defaults(&t, &["endpoints_per_switch".into(), "radix".into()]);
        assert_eq!((d.endpoints_per_switch, d.global_ports_per_switch, d.radix), (2, 10, 64));
    }
}
