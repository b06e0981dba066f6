//! Analytics of the shortest-path-routed families: counts, radix used,
//! diameter, average minimal hops, global and bisection bandwidth, cost.

use super::GraphTopology;
use crate::config::Config;
use crate::ids::{Id, SwitchId};
use crate::network::{End, LinkKind, Network};
use serde_json::{json, Value};

/// Analytics of a graph-routed topology.
pub fn analyze(cfg: &Config, g: &GraphTopology, net: &Network) -> Value {
    let rails = net.rails.max(1);
    let nodes = net.nodes();
    let s_count = g.switches();
    // Ports used per switch: switch-facing plus endpoint ports.
    let mut used = vec![0u32; s_count];
    for ch in &net.channels {
        if let End::Switch { switch, .. } = ch.src {
            used[switch.index()] += 1;
        }
    }
    let global_bw: f64 = net.channels.iter().filter(|c| c.kind == LinkKind::Global).map(|c| c.rate.bytes_per_s()).sum();
    let injection: f64 = net.channels.iter().filter(|c| matches!(c.src, End::Endpoint(_))).map(|c| c.rate.bytes_per_s()).sum();
    let mut v = json!({
        "kind": g.family,
        "endpoints": net.endpoint_up.iter().filter(|c| !c.is_none()).count(),
        "nodes": nodes,
        "rails": rails,
        "planes": g.planes,
        "switches": s_count,
        "groups": g.groups.iter().max().map_or(0, |m| m + 1),
        "links": {
            "terminal": net.links_of_kind(LinkKind::Terminal),
            "local": net.links_of_kind(LinkKind::Local),
            "global": net.links_of_kind(LinkKind::Global),
        },
        "radix_used": used.iter().max().copied().unwrap_or(0),
        "global_links_per_switch": super::analytics::global_links_per_switch(net),
        "diameter": g.diameter,
        "avg_min_hops": avg_min_hops(g, net),
        "injection_bw_Bps": injection,
        "global_bw_Bps": global_bw,
        "bisection_bw_Bps": super::bisection::min_balanced_cut(net, &g.groups, &g.plane).map(|c| c.min(injection)),
        "bisection_method": "smallest balanced cut found by Kernighan-Lin swaps (an upper bound on the minimum)",
        "cost_usd": cost(cfg, net),
    });
    if let Value::Object(info) = &g.info {
        for (k, x) in info {
            v[k] = x.clone();
        }
    }
    v
}

/// Network cost: every link (terminal links included) and router at the
/// unit prices of `[cost]` (paper 003 Table 4).
pub fn cost(cfg: &Config, net: &Network) -> f64 {
    let links = net.links_of_kind(LinkKind::Terminal) + net.links_of_kind(LinkKind::Local) + net.links_of_kind(LinkKind::Global);
    links as f64 * cfg.cost.link_usd + net.switches() as f64 * cfg.cost.router_usd
}

/// Average over ordered pairs of distinct nodes of the fewest switch-to-
/// switch hops between them, over all rail pairs in the same plane (the
/// hops a PATH rail selection achieves, paper 003 Sec. 4.3).
fn avg_min_hops(g: &GraphTopology, net: &Network) -> f64 {
    let n = net.nodes();
    if n < 2 {
        return 0.0;
    }
    let rails = net.rails as usize;
    // Switch of each (node, rail).
    let sw: Vec<SwitchId> = net.node_endpoints.iter().map(|&e| net.endpoint_switch[e]).collect();
    // Sample node pairs on large systems; all pairs up to 4096 nodes.
    let exact = n <= 4096;
    let mut total = 0.0;
    let mut count = 0.0;
    let mut rng = crate::rng::Rng::new(12345, 1);
    let pairs: Box<dyn Iterator<Item = (usize, usize)>> = if exact {
        Box::new((0..n).flat_map(move |a| (0..n).filter(move |&b| b != a).map(move |b| (a, b))))
    } else {
        Box::new((0..2_000_000).map(move |_| {
            let a = rng.below(n as u64) as usize;
            let mut b = rng.below(n as u64 - 1) as usize;
            if b >= a {
                b += 1;
            }
            (a, b)
        }))
    };
    for (a, b) in pairs {
        let mut best = u8::MAX;
        for r in 0..rails {
            let (sa, sb) = (sw[a * rails + r], sw[b * rails + r]);
            best = best.min(g.distance(sa, sb));
        }
        if best != u8::MAX {
            total += best as f64;
            count += 1.0;
        }
    }
    if count == 0.0 {
        0.0
    } else {
        total / count
    }
}
