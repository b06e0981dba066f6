//! Fit Fly (paper 003 Sec. 4.2.2): P independent Slim Fly planes with no
//! links between them, joined only by the nodes, each of which has one rail
//! into every plane. Even planes take the nodes in router order, odd planes
//! in reverse, so a node pair far apart in one plane tends to be close in
//! the other and PATH rail selection lowers the average hop count.
//!
//! Switch ids are plane-major (plane `pl` holds `pl*2q^2 ..`), groups are
//! numbered across planes (`pl*2q + g`), and so are endpoint ids; rail r of
//! a node is its endpoint in plane r.

use super::slimfly::{attach_nodes, validate, wire_plane};
use super::{Built, LinkParams};
use crate::config::{LinkConfig, NicConfig, TopologyConfig};
use crate::error::{ConfigError, Result};
use crate::network::Network;
use serde_json::json;

/// Builds a Fit Fly of `planes` Slim Fly planes; `rails` is 1 (the default,
/// taken as unset) or equal to `planes`.
pub fn build(t: &TopologyConfig, l: &LinkConfig, n: &NicConfig) -> Result<Built> {
    let planes = t.planes;
    if planes == 0 {
        return Err(ConfigError::new("topology.planes", "must be at least 1 (paper 003's Fit Fly has 2)"));
    }
    if t.rails != planes && t.rails != 1 {
        return Err(ConfigError::new(
            "topology.rails",
            format!("a fitfly node has one rail per plane: leave rails unset or make it equal to planes ({planes}), got {}", t.rails),
        ));
    }
    let (mms, nodes) = validate(t, "fitfly")?;
    let links = LinkParams::new(l, n);
    let p = t.endpoints_per_switch;
    let per_plane = mms.routers();
    let mut net = Network::default();
    for plane in 0..planes {
        wire_plane(&mut net, &mms, plane * per_plane, p, &links);
    }
    attach_nodes(&mut net, &mms, planes, p, nodes, &links);
    let groups = (0..planes).flat_map(|pl| (0..per_plane).map(move |r| (pl, r))).map(|(pl, r)| pl * 2 * mms.q + mms.group(r)).collect();
    let plane = (0..planes).flat_map(|pl| std::iter::repeat_n(pl, per_plane as usize)).collect();
    Ok(Built {
        net,
        family: "fitfly",
        groups,
        plane,
        planes,
        info: json!({"q": mms.q, "delta": mms.delta, "network_radix": mms.network_radix, "planes": planes}),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{Id, NodeId, SwitchId};
    use crate::network::{End, LinkKind};
    use crate::topology::GraphTopology;

    fn cfg(q: u32, planes: u32, p: u32) -> TopologyConfig {
        TopologyConfig { kind: crate::topology::Family::Fitfly, q: Some(q), planes, endpoints_per_switch: p, radix: 28, ..Default::default() }
    }

    fn build_cfg(t: &TopologyConfig) -> Result<Built> {
        build(t, &LinkConfig::default(), &NicConfig::default())
    }

    /// Average over ordered node pairs of the fewest switch hops, taking
    /// the best rail (PATH selection, paper 003 Sec. 4.3.1).
    fn avg_best_plane_hops(g: &GraphTopology, net: &Network) -> f64 {
        let (n, rails) = (net.nodes() as u32, net.rails);
        let sw = |node: u32, r: u32| net.endpoint_switch[net.endpoint_of(NodeId(node), r)];
        let mut total = 0u64;
        for a in 0..n {
            for b in 0..n {
                if a != b {
                    total += (0..rails).map(|r| g.distance(sw(a, r), sw(b, r)) as u64).min().unwrap();
                }
            }
        }
        total as f64 / (n as f64 * (n as f64 - 1.0))
    }

    /// Paper 003 Tables 2 and 4, Fit Fly column.
    #[test]
    fn fitfly_paper_003_table_2_and_4() {
        let mut t = cfg(13, 2, 9);
        t.rails = 2;
        let b = build_cfg(&t).unwrap();
        let net = &b.net;
        assert_eq!(net.switches(), 676);
        assert_eq!(b.groups.iter().max().unwrap() + 1, 52);
        assert_eq!(b.planes, 2);
        assert_eq!(net.rails, 2);
        assert_eq!(net.nodes(), 3042);
        let links = net.links_of_kind(LinkKind::Local) + net.links_of_kind(LinkKind::Global) + net.links_of_kind(LinkKind::Terminal);
        assert_eq!(links, 12_506);
        assert_eq!(net.links_of_kind(LinkKind::Terminal), 2 * 3042);
        for s in 0..676 {
            for port in 0..28 {
                assert!(!net.out_channel(SwitchId(s), port).is_none(), "switch {s} port {port}");
            }
        }
        let g = GraphTopology::new(b);
        assert_eq!(g.diameter, 2);
    }

    #[test]
    fn fitfly_planes_are_independent() {
        let b = build_cfg(&cfg(5, 3, 2)).unwrap();
        assert_eq!(b.net.rails, 3);
        assert_eq!(b.plane[49], 0);
        assert_eq!(b.plane[50], 1);
        assert_eq!(b.plane[149], 2);
        assert_eq!(b.groups[50], 10);
        for ch in &b.net.channels {
            if let (End::Switch { switch: a, .. }, End::Switch { switch: c, .. }) = (ch.src, ch.dst) {
                assert_eq!(b.plane[a.index()], b.plane[c.index()]);
            }
        }
        let g = GraphTopology::new(b);
        assert_eq!(g.diameter, 2); // within a plane; across planes unreachable
        assert_eq!(g.distance(SwitchId(0), SwitchId(50)), u8::MAX);
    }

    /// Sec. 4.2.2: node 0 on (alpha, 0, 0) of even planes and on
    /// (beta, q-1, q-1) of odd planes; each rail lands in its own plane.
    #[test]
    fn fitfly_odd_planes_are_mirrored() {
        let b = build_cfg(&cfg(5, 2, 2)).unwrap();
        let net = &b.net;
        let sw = |node: u32, r: u32| net.endpoint_switch[net.endpoint_of(NodeId(node), r)].0;
        assert_eq!(sw(0, 0), 0);
        assert_eq!(sw(0, 1), 50 + 49);
        assert_eq!(sw(3, 0), 1);
        assert_eq!(sw(3, 1), 50 + 48);
        assert_eq!(sw(99, 1), 50);
        for node in 0..100 {
            for r in 0..2 {
                let e = net.endpoint_of(NodeId(node), r);
                assert_eq!(net.endpoint_node[e], NodeId(node));
                assert_eq!(b.plane[sw(node, r) as usize], r);
            }
        }
    }

    /// Sec. 4.2.2: the mirrored second plane lowers the average minimal hop
    /// count under PATH selection below the single-plane Slim Fly's.
    #[test]
    fn fitfly_path_selection_beats_slimfly_hops() {
        for q in [5, 7, 13] {
            let ff = build_cfg(&cfg(q, 2, 3)).unwrap();
            let ffnet = ff.net.clone();
            let ffg = GraphTopology::new(ff);
            let mut st = cfg(q, 1, 3);
            st.kind = crate::topology::Family::Slimfly;
            let sf = super::super::slimfly::build(&st, &LinkConfig::default(), &NicConfig::default()).unwrap();
            let sfnet = sf.net.clone();
            let sfg = GraphTopology::new(sf);
            let (hf, hs) = (avg_best_plane_hops(&ffg, &ffnet), avg_best_plane_hops(&sfg, &sfnet));
            assert!(hf < hs, "q={q}: fitfly {hf:.4} vs slimfly {hs:.4}");
        }
    }

    #[test]
    fn fitfly_bad_parameters_are_explained() {
        let mut t = cfg(13, 2, 9);
        t.rails = 3;
        let e = build_cfg(&t).unwrap_err();
        assert_eq!(e.field, "topology.rails");
        let e = build_cfg(&cfg(13, 0, 9)).unwrap_err();
        assert_eq!(e.field, "topology.planes");
        let e = build_cfg(&cfg(12, 2, 9)).unwrap_err();
        assert_eq!(e.field, "topology.q");
        assert!(e.message.contains("q = 11 ") && e.message.contains("q = 13 "), "{e}");
        let mut t = cfg(13, 2, 9);
        t.q = None;
        assert_eq!(build_cfg(&t).unwrap_err().field, "topology.q");
    }
}
