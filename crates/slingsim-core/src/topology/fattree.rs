//! Three-level folded Clos (fat tree) from routers of even radix k
//! (MODEL.md Sec. 3): k pods of k/2 edge and k/2 aggregation switches, and
//! (k/2)^2 core switches, for k^3/4 endpoints at full bisection bandwidth.
//! Inside a pod every edge switch has one link to every aggregation switch
//! (`LinkKind::Local`); aggregation switch `j` of every pod links to the
//! k/2 core switches of core stripe `j`, one link per pod to each
//! (`LinkKind::Global`).
//!
//! **Taper** `t` in (0, 1] (default 1) is the fraction of the
//! aggregation-to-core links that is cabled: every aggregation switch keeps
//! `u = clamp(round(t * k/2), 1, k/2)` of its k/2 up-links, those to the
//! first `u` core switches of its stripe, and the core switches left
//! without links are not built. So the core has `(k/2) * u` switches, each
//! still reaching every pod; every stripe keeps at least one core switch,
//! so every switch stays reachable; the pods are oversubscribed `k/2 : u`
//! towards the core. `t = 0.5` with k = 24 cables 6 of 12 up-links per
//! aggregation switch and builds 72 of the 144 core switches. Analytics
//! report the effective taper `u / (k/2)`.
//!
//! Switch ids: pod `P` owns `[P*k, (P+1)*k)`, its k/2 edge switches first,
//! then its k/2 aggregation switches; the core follows, stripe by stripe
//! (`k*k + j*u + i`). Edge ports: `[0, k/2)` endpoints, then one up-port per
//! aggregation switch. Aggregation ports: one per edge switch, then `u`
//! up-ports. Core ports: one per pod. Switch groups are the pods; the core
//! is group k. Endpoint `e` sits on edge switch `e / (k/2)` (edge switches
//! numbered across pods), port `e % (k/2)`.

use super::megafly::{attach_nodes, check_nodes, check_size, Terminals};
use super::Built;
use crate::config::{LinkConfig, NicConfig, TopologyConfig};
use crate::error::{ConfigError, Result};
use crate::ids::SwitchId;
use crate::network::{LinkKind, Network};
use serde_json::json;

/// Validates the parameters and builds a fat tree network.
pub fn build(t: &TopologyConfig, links: &LinkConfig, nic: &NicConfig) -> Result<Built> {
    let (k, up) = validate(t)?;
    let half = k / 2;
    let lp = super::LinkParams::new(links, nic);
    let ((local_rate, lat_local), (global_rate, lat_global)) = (lp.local, lp.global);
    let mut net = Network { rails: t.rails, ..Network::default() };
    let edge = |pod: u32, i: u32| pod * k + i;
    let agg = |pod: u32, j: u32| pod * k + half + j;
    let core = |j: u32, i: u32| k * k + j * up + i;
    let mut groups = Vec::with_capacity((k * k + half * up) as usize);
    for pod in 0..k {
        for _ in 0..half {
            net.add_switch(k);
        }
        for _ in 0..half {
            net.add_switch(half + up);
        }
        groups.extend(std::iter::repeat_n(pod, k as usize));
    }
    for _ in 0..half * up {
        net.add_switch(k);
    }
    groups.extend(std::iter::repeat_n(k, (half * up) as usize));
    for pod in 0..k {
        for i in 0..half {
            for j in 0..half {
                net.connect_switches(LinkKind::Local, (SwitchId(edge(pod, i)), half + j), (SwitchId(agg(pod, j)), i), local_rate, lat_local);
            }
        }
        for j in 0..half {
            for i in 0..up {
                net.connect_switches(LinkKind::Global, (SwitchId(agg(pod, j)), half + i), (SwitchId(core(j, i)), pod), global_rate, lat_global);
            }
        }
    }
    let edges: Vec<u32> = (0..k).flat_map(|pod| (0..half).map(move |i| edge(pod, i))).collect();
    let term = Terminals { per_group: half, p: half, rails: t.rails, nodes: t.nodes, rate: lp.terminal.0, latency: lp.terminal.1 };
    attach_nodes(&mut net, &edges, &term);
    let switches = groups.len();
    Ok(Built {
        net,
        family: "fattree",
        groups,
        plane: vec![0; switches],
        planes: 1,
        info: json!({ "radix": k, "pods": k, "core_switches": half * up, "taper": up as f64 / half as f64 }),
    })
}

/// Checks the parameters; returns the radix and the up-links cabled per
/// aggregation switch.
fn validate(t: &TopologyConfig) -> Result<(u32, u32)> {
    let k = t.radix;
    if k < 4 || k % 2 != 0 {
        let nearest = if k < 4 { "use 4 or more".to_string() } else { format!("use {} or {}", k - 1, k as u64 + 1) };
        return Err(ConfigError::new(
            "topology.radix",
            format!("a 3-level fat tree needs an even radix of at least 4 (half the ports down, half up), got {k}; {nearest}"),
        ));
    }
    let half = k / 2;
    let taper = t.taper.unwrap_or(1.0);
    if !(taper > 0.0 && taper <= 1.0) {
        return Err(ConfigError::new("topology.taper", format!("must be in (0, 1] (the fraction of aggregation-to-core links cabled), got {taper}")));
    }
    let up = ((taper * half as f64).round() as u32).clamp(1, half);
    check_size(k as u64 * k as u64 + half as u64 * up as u64, k as u64 * half as u64 * half as u64, "radix")?;
    check_nodes(k as u64 * half as u64 * half as u64, half, "the endpoints per edge switch, radix / 2,", t.rails, t.nodes)?;
    Ok((k, up))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{Id, NodeId};
    use crate::topology::GraphTopology;


    fn fattree(k: u32, taper: Option<f64>) -> TopologyConfig {
        TopologyConfig { kind: crate::topology::Family::Fattree, radix: k, taper, ..Default::default() }
    }

    #[test]
    fn k24_counts() {
        let b = build(&fattree(24, None), &LinkConfig::default(), &NicConfig::default()).unwrap();
        let net = &b.net;
        assert_eq!(net.switches(), 24 * 24 + 144);
        assert_eq!(net.nodes(), 3456, "k^3/4 endpoints");
        assert_eq!(net.links_of_kind(LinkKind::Terminal), 3456);
        assert_eq!(net.links_of_kind(LinkKind::Local), 3456, "edge-aggregation");
        assert_eq!(net.links_of_kind(LinkKind::Global), 3456, "aggregation-core");
        assert_eq!(b.info["core_switches"], 144);
        assert_eq!(b.groups[720 - 1], 24);
        // Full bisection: every port of every switch is cabled.
        for s in 0..720u32 {
            for port in 0..24 {
                assert!(!net.out_channel(SwitchId(s), port).is_none(), "switch {s} port {port}");
            }
        }
        let g = GraphTopology::new(b);
        assert!(g.is_connected());
        assert_eq!(g.diameter, 4, "edge -> aggregation -> core -> aggregation -> edge");
        assert_eq!(g.distance(SwitchId(0), SwitchId(1)), 2, "edge switches of one pod meet at an aggregation switch");
        assert_eq!(g.distance(SwitchId(0), SwitchId(24)), 4, "edge switches of two pods meet at a core switch");
    }

    /// The table is filled by searching back from each target; a search
    /// forward from each source over `neighbors` must find the same
    /// distances (a tapered tree, so not every switch is alike).
    #[test]
    fn distances_match_a_forward_search() {
        let b = build(&fattree(8, Some(0.5)), &LinkConfig::default(), &NicConfig::default()).unwrap();
        let g = GraphTopology::new(b);
        let n = g.switches();
        for src in 0..n {
            let mut dist = vec![u8::MAX; n];
            dist[src] = 0;
            let mut queue = std::collections::VecDeque::from([src]);
            while let Some(s) = queue.pop_front() {
                for nb in g.neighbors(SwitchId::from_index(s)) {
                    if dist[nb.switch.index()] == u8::MAX {
                        dist[nb.switch.index()] = dist[s] + 1;
                        queue.push_back(nb.switch.index());
                    }
                }
            }
            for (d, &want) in dist.iter().enumerate() {
                assert_eq!(g.distance(SwitchId::from_index(src), SwitchId::from_index(d)), want, "from switch {src} to {d}");
            }
        }
    }

    #[test]
    fn taper_halves_the_core() {
        let b = build(&fattree(24, Some(0.5)), &LinkConfig::default(), &NicConfig::default()).unwrap();
        assert_eq!(b.net.switches(), 576 + 72);
        assert_eq!(b.net.links_of_kind(LinkKind::Global), 3456 / 2);
        assert_eq!(b.info["taper"], 0.5);
        let g = GraphTopology::new(b);
        assert!(g.is_connected() && g.diameter == 4);
        // The smallest taper still keeps one core switch per stripe.
        let b = build(&fattree(4, Some(0.01)), &LinkConfig::default(), &NicConfig::default()).unwrap();
        assert_eq!(b.info["core_switches"], 2);
        let g = GraphTopology::new(b);
        assert!(g.is_connected() && g.diameter == 4);
    }

    #[test]
    fn rails_and_partial_population() {
        let mut t = fattree(8, None);
        t.rails = 2;
        t.nodes = Some(50);
        let b = build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap();
        assert_eq!(b.net.nodes(), 50);
        for n in 0..50 {
            let (e0, e1) = (b.net.endpoint_of(NodeId(n), 0), b.net.endpoint_of(NodeId(n), 1));
            let (s0, s1) = (b.net.endpoint_switch[e0], b.net.endpoint_switch[e1]);
            assert!(s0 != s1 && b.groups[s0.index()] == b.groups[s1.index()]);
        }
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let e = build(&fattree(23, None), &LinkConfig::default(), &NicConfig::default()).unwrap_err();
        assert_eq!(e.field, "topology.radix");
        assert!(e.message.contains("even") && e.message.contains("use 22 or 24"), "{e}");
        let e = build(&fattree(2, None), &LinkConfig::default(), &NicConfig::default()).unwrap_err();
        assert_eq!(e.field, "topology.radix");
        assert!(e.message.contains("use 4 or more"), "{e}");
        let e = build(&fattree(116, None), &LinkConfig::default(), &NicConfig::default()).unwrap_err();
        assert_eq!(e.field, "topology.radix");
        assert!(e.message.contains("16820 switches exceed"), "{e}");
        let e = build(&fattree(24, Some(1.5)), &LinkConfig::default(), &NicConfig::default()).unwrap_err();
        assert_eq!(e.field, "topology.taper");
        let mut t = fattree(6, None);
        t.rails = 2;
        let e = build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap_err();
        assert_eq!(e.field, "topology.rails");
        assert!(e.message.contains("radix / 2, (3) must be a multiple of rails (2)"), "{e}");
        let mut t = fattree(4, None);
        t.nodes = Some(17);
        assert_eq!(build(&t, &LinkConfig::default(), &NicConfig::default()).unwrap_err().field, "topology.nodes");
    }
}
