//! Analytics of a built topology: counts, diameter, average minimal hops,
//! global / bisection / all-to-all bandwidth, and the saturation loads that
//! minimal routing can reach under uniform and group-adversarial traffic
//! (the channel-load bound: offered load at which the busiest channel is full).
//!
//! Hops are switch-to-switch links on a shortest path (paper 000 Sec. II-B:
//! the dragonfly has "a diameter of 3 switch-to-switch hops").

use super::{Dragonfly, Topology};
use crate::config::Config;
use crate::error::Result;
use crate::ids::{ChannelId, Id, SwitchId};
use crate::network::{LinkKind, Network};
use crate::units::Rate;
use serde_json::{json, Value};
use std::time::Instant;

/// Largest network (in switches) for which the channel-load bounds are computed.
const MAX_SWITCHES_FOR_LOAD_BOUNDS: usize = 1024;

/// Parses a config, builds its topology and returns its analytics.
pub fn analyze_json(text: &str) -> Result<Value> {
    let cfg = Config::from_json(text)?;
    let t0 = Instant::now();
    let (topo, net) = Topology::build(&cfg)?;
    let build_s = t0.elapsed().as_secs_f64();
    let mut v = analyze(&cfg, &topo, &net)?;
    v["build_s"] = json!(build_s);
    Ok(v)
}

/// Analytics of a built topology.
pub fn analyze(cfg: &Config, topo: &Topology, net: &Network) -> Result<Value> {
    let mut v = match topo {
        Topology::Dragonfly(df) => dragonfly(cfg, df, net),
        Topology::Graph(g) => super::graph_analytics::analyze(cfg, g, net),
    };
    let failed: Vec<_> = net.failed_channels(&cfg.links, cfg.sim.seed)?.into_iter().filter(|&(c, _)| c < net.reverse(c)).collect();
    if !failed.is_empty() {
        // The diameter and hops above are the routes' (without the links
        // down from the start that they leave out).
        let down = failed.iter().filter(|&&(_, at)| at == crate::units::Ps::ZERO).count();
        v["links_failed"] = json!({
            "down_at_start": down,
            "failing_later": failed.len() - down,
        });
    }
    Ok(v)
}

fn dragonfly(cfg: &Config, df: &Dragonfly, net: &Network) -> Value {
    let link_bps = Rate::from_bps(cfg.links.bandwidth_bps).bytes_per_s();
    let nic_bps = Rate::from_bps(cfg.nic.bandwidth_bps).bytes_per_s();
    let (g, a, p) = (df.groups as u64, df.switches_per_group as u64, df.endpoints_per_switch as u64);
    let global_cables = net.links_of_kind(LinkKind::Global) as f64;
    let global_bw = global_cables * 2.0 * link_bps;
    let injection = net.nodes() as f64 * net.rails as f64 * nic_bps;
    // Bisection: groups split in two halves; inside one group, switches split.
    let cut_bw = if g > 1 {
        let (g1, g2) = (g / 2, g - g / 2);
        (g1 * g2 * df.links_per_group_pair as u64) as f64 * 2.0 * link_bps
    } else {
        let (a1, a2) = (a / 2, a - a / 2);
        (a1 * a2 * df.local_links_per_pair as u64) as f64 * 2.0 * link_bps
    };
    let bisection = cut_bw.min(injection);
    let alltoall = if g > 1 { (g as f64 / (g - 1) as f64 * global_bw).min(injection) } else { injection };
    let (diameter, avg_hops) = dragonfly_distances(df);
    let (uni, adv) = if net.switches() <= MAX_SWITCHES_FOR_LOAD_BOUNDS {
        (json!(saturation(df, net, cfg, false)), if g > 1 { json!(saturation(df, net, cfg, true)) } else { Value::Null })
    } else {
        (Value::Null, Value::Null)
    };
    json!({
        "kind": "dragonfly",
        "endpoints": net.endpoint_up.len(),
        "nodes": net.nodes(),
        "rails": net.rails,
        "switches": net.switches(),
        "groups": g,
        "links": {
            "terminal": net.links_of_kind(LinkKind::Terminal),
            "local": net.links_of_kind(LinkKind::Local),
            "global": net.links_of_kind(LinkKind::Global),
        },
        "global_links_per_group_pair": df.links_per_group_pair,
        "global_links_per_switch": global_links_per_switch(net),
        "radix_used": p + (a - 1) * df.local_links_per_pair as u64 + df.global_ports_per_switch as u64,
        "diameter": diameter,
        "avg_min_hops": avg_hops,
        "injection_bw_Bps": injection,
        "global_bw_Bps": global_bw,
        "bisection_bw_Bps": bisection,
        "alltoall_peak_Bps": alltoall,
        "planes": 1,
        "cost_usd": super::graph_analytics::cost(cfg, net),
        "uniform_minimal_saturation": uni,
        "adversarial_minimal_saturation": adv,
    })
}

/// How the global links sit on the switches: the fewest and the most one
/// switch holds, and how many switches hold none (a tapered dragonfly
/// cables some ports and not others); null without global links.
pub(crate) fn global_links_per_switch(net: &Network) -> Value {
    let mut per = vec![0u32; net.switches()];
    for ch in &net.channels {
        if let (LinkKind::Global, crate::network::End::Switch { switch, .. }) = (ch.kind, ch.src) {
            per[switch.index()] += 1;
        }
    }
    if per.iter().all(|&n| n == 0) {
        return Value::Null;
    }
    json!({
        "min": per.iter().min(),
        "max": per.iter().max(),
        "switches_without": per.iter().filter(|&&n| n == 0).count(),
    })
}

/// Diameter and average minimal switch-to-switch hops over ordered pairs of
/// distinct endpoint ports. Between groups G and T a switch pair (s, d) is 1
/// hop apart if a global link joins them, 2 if s has a link to T or d a link
/// from G, else 3; counted per group pair in O(a + links).
fn dragonfly_distances(df: &Dragonfly) -> (u32, f64) {
    let (g, a, p) = (df.groups as u64, df.switches_per_group as u64, df.endpoints_per_switch as u64);
    let total = g * a * p;
    if total < 2 {
        return (0, 0.0);
    }
    let mut sum = (g * a * (a - 1) * p * p) as f64; // intra-group pairs: 1 hop
    let mut diameter = if a > 1 { 1 } else { 0 };
    let mut in_a = vec![false; a as usize];
    let mut in_b = vec![false; a as usize];
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for gs in 0..df.groups {
        for gt in 0..df.groups {
            if gs == gt {
                continue;
            }
            let links = df.links_between(gs, gt).iter().filter(|&&l| df.link_up(l));
            in_a.iter_mut().for_each(|x| *x = false);
            in_b.iter_mut().for_each(|x| *x = false);
            pairs.clear();
            for l in links {
                in_a[(l.from.0 % df.switches_per_group) as usize] = true;
                in_b[(l.to.0 % df.switches_per_group) as usize] = true;
                pairs.push((l.from.0, l.to.0));
            }
            pairs.sort_unstable();
            pairs.dedup();
            let na = in_a.iter().filter(|&&x| x).count() as u64;
            let nb = in_b.iter().filter(|&&x| x).count() as u64;
            let d1 = pairs.len() as u64;
            let within2 = na * a + a * nb - na * nb;
            let d2 = within2 - d1;
            let d3 = a * a - within2;
            sum += (p * p) as f64 * (d1 + 2 * d2 + 3 * d3) as f64;
            let dmax = if d3 > 0 { 3 } else if d2 > 0 { 2 } else { 1 };
            diameter = diameter.max(dmax);
        }
    }
    (diameter, sum / (total * (total - 1)) as f64)
}

/// Offered load (fraction of endpoint injection bandwidth) at which the
/// busiest channel saturates under minimal routing, spreading each switch
/// pair's traffic over its shortest paths the way the router does.
fn saturation(df: &Dragonfly, net: &Network, cfg: &Config, adversarial: bool) -> f64 {
    let b = Rate::from_bps(cfg.nic.bandwidth_bps).bytes_per_s();
    let (a, p) = (df.switches_per_group, df.endpoints_per_switch as f64);
    let s_count = net.switches() as u32;
    let endpoints = (s_count as f64) * p;
    let k = df.local_links_per_pair;
    let mut load = vec![0.0f64; net.channels.len()];
    let add_local = |load: &mut Vec<f64>, x: SwitchId, y: SwitchId, w: f64| {
        let up = (0..k).filter(|&j| df.local_up(x, y, j)).count().max(1);
        for j in (0..k).filter(|&j| df.local_up(x, y, j)) {
            load[net.out_channel(x, df.local_port(x, y, j)).index()] += w / up as f64;
        }
    };
    for s in (0..s_count).map(SwitchId) {
        for d in (0..s_count).map(SwitchId) {
            if s == d {
                continue;
            }
            let (gs, gd) = (df.group(s), df.group(d));
            let demand = if adversarial {
                if gd != (gs + 1) % df.groups {
                    continue;
                }
                p * b * p / (a as f64 * p)
            } else {
                p * p * b / (endpoints - 1.0)
            };
            if gs == gd {
                add_local(&mut load, s, d, demand);
                continue;
            }
            // The pair's links that routing takes (not those down from the start).
            let links = || df.links_between(gs, gd).iter().filter(|&&l| df.link_up(l));
            let hops = |l: &super::dragonfly::GlobalLink| (l.from != s) as u32 + (l.to != d) as u32;
            let best = links().map(hops).min().unwrap_or(0);
            let cands: Vec<_> = links().filter(|l| hops(l) == best).collect();
            let w = demand / cands.len() as f64;
            for l in cands {
                if l.from != s {
                    add_local(&mut load, s, l.from, w);
                }
                load[net.out_channel(l.from, l.port).index()] += w;
                if l.to != d {
                    add_local(&mut load, l.to, d, w);
                }
            }
        }
    }
    let mut bound = 1.0f64;
    for (c, &l) in load.iter().enumerate() {
        if l > 0.0 {
            bound = bound.min(net.channels[ChannelId::from_index(c)].rate.bytes_per_s() / l);
        }
    }
    bound
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyze_cfg(json_text: &str) -> Value {
        analyze_json(json_text).unwrap()
    }

    #[test]
    fn malbec_figures() {
        let v = analyze_cfg(r#"{"topology": {"groups": 4, "switches_per_group": 8, "endpoints_per_switch": 16,
            "local_links_per_pair": 4, "global_ports_per_switch": 6}, "traffic": [{}]}"#);
        assert_eq!(v["switches"], 32);
        assert!((v["global_bw_Bps"].as_f64().unwrap() - 4.8e12).abs() < 1e6);
        assert_eq!(v["diameter"], 3);
        assert_eq!(v["global_links_per_switch"], serde_json::json!({"min": 6, "max": 6, "switches_without": 0}));
    }

    #[test]
    fn shandy_figures() {
        let v = analyze_cfg(r#"{"topology": {"groups": 8, "switches_per_group": 16, "endpoints_per_switch": 16,
            "local_links_per_pair": 2, "global_ports_per_switch": 7, "global_links_per_group_pair": 8, "rails": 2},
            "traffic": [{}]}"#);
        assert_eq!(v["endpoints"], 2048);
        assert_eq!(v["links"]["global"], 224);
        assert!((v["alltoall_peak_Bps"].as_f64().unwrap() - 12.8e12).abs() < 1e6);
        assert!((v["bisection_bw_Bps"].as_f64().unwrap() - 6.4e12).abs() < 1e6);
        // 56 of a group's 112 global ports are cabled, in switch order: 8
        // switches of each group hold 7 links, the other 8 none.
        assert_eq!(v["global_links_per_switch"], serde_json::json!({"min": 0, "max": 7, "switches_without": 64}));
    }

    #[test]
    fn adversarial_bound_is_the_group_pair_links() {
        // 1 link of 200 Gb/s between groups, 16 endpoints of 100 Gb/s per group.
        let v = analyze_cfg(r#"{"topology": {"groups": 9, "switches_per_group": 4, "endpoints_per_switch": 4,
            "local_links_per_pair": 2, "global_ports_per_switch": 2}, "traffic": [{}]}"#);
        let adv = v["adversarial_minimal_saturation"].as_f64().unwrap();
        assert!((adv - 0.125).abs() < 1e-9, "{adv}");
        assert!(v["uniform_minimal_saturation"].as_f64().unwrap() > 0.8);
    }
}
