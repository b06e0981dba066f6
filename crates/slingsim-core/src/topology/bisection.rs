//! Bisection bandwidth of an irregular network, estimated: the smallest cut
//! found between two halves holding equal numbers of endpoints, by
//! Kernighan-Lin pair swaps from several starting partitions. Finding the
//! true minimum bisection is NP-hard; a found cut is an upper bound on it,
//! and on structured networks (dragonfly, fat tree) it finds the cut the
//! closed forms give.

use crate::ids::Id;
use crate::network::{End, Network};
use crate::rng::Rng;

/// Largest network (in switches) the heuristic is run on.
pub const MAX_SWITCHES: usize = 1024;

/// Capacity (bytes/s, both directions) of the smallest balanced cut found,
/// or `None` for networks above [`MAX_SWITCHES`]. Independent planes (Fit
/// Fly), joined only through the nodes, are cut each on its own and the
/// cuts added: halving the nodes cuts every plane.
pub fn min_balanced_cut(net: &Network, groups: &[u32], plane: &[u32]) -> Option<f64> {
    let planes = plane.iter().max().map_or(1, |p| p + 1);
    let mut total = 0.0;
    for p in 0..planes {
        let members: Vec<u32> = (0..net.switches() as u32).filter(|&s| plane[s as usize] == p).collect();
        total += plane_cut(net, groups, &members)?;
    }
    Some(total)
}

/// The smallest balanced cut found among the switches `members`.
fn plane_cut(net: &Network, groups: &[u32], members: &[u32]) -> Option<f64> {
    let n = members.len();
    if n > MAX_SWITCHES || n < 2 {
        return None;
    }
    let mut index = vec![usize::MAX; net.switches()];
    for (i, &s) in members.iter().enumerate() {
        index[s as usize] = i;
    }
    // Symmetric capacity matrix between member switches (bytes/s, both directions).
    let mut cap = vec![0.0f64; n * n];
    for ch in &net.channels {
        if let (End::Switch { switch: a, .. }, End::Switch { switch: b, .. }) = (ch.src, ch.dst) {
            let (a, b) = (index[a.index()], index[b.index()]);
            if a == usize::MAX || b == usize::MAX {
                continue;
            }
            let c = ch.rate.bytes_per_s();
            cap[a * n + b] += c;
            cap[b * n + a] += c;
        }
    }
    let mut weight = vec![0u32; n];
    for (e, &s) in net.endpoint_switch.iter_ids() {
        if net.endpoint_up.get(e).is_some_and(|c| !c.is_none()) && index[s.index()] != usize::MAX {
            weight[index[s.index()]] += 1;
        }
    }
    let groups: Vec<u32> = members.iter().map(|&s| groups[s as usize]).collect();
    let mut best = f64::INFINITY;
    let mut rng = Rng::new(7, 7);
    for start in 0..4 {
        let mut order: Vec<usize> = (0..n).collect();
        if start == 0 {
            order.sort_by_key(|&s| (groups[s], s));
        } else {
            rng.shuffle(&mut order);
        }
        let side = balanced_split(&order, &weight);
        best = best.min(refine(n, &cap, &weight, side) / 2.0);
    }
    Some(best)
}

/// Assigns switches in `order` to side 0 until half the endpoint weight (and,
/// for weightless switches, half of them) is there.
fn balanced_split(order: &[usize], weight: &[u32]) -> Vec<bool> {
    let total: u32 = weight.iter().sum();
    let zeros = weight.iter().filter(|&&w| w == 0).count();
    let (mut w0, mut z0) = (0u32, 0usize);
    let mut side = vec![true; weight.len()];
    for &s in order {
        if weight[s] == 0 {
            if z0 < zeros / 2 {
                side[s] = false;
                z0 += 1;
            }
        } else if 2 * (w0 + weight[s]) <= total {
            side[s] = false;
            w0 += weight[s];
        }
    }
    side
}

/// Kernighan-Lin: swap the pair of equal-weight switches on opposite sides
/// with the best gain while it is positive; returns the cut (counted from
/// both sides, so twice the capacity crossing).
fn refine(n: usize, cap: &[f64], weight: &[u32], mut side: Vec<bool>) -> f64 {
    // d[v] = capacity from v to the other side minus capacity to its own side.
    let mut d = vec![0.0f64; n];
    for v in 0..n {
        for u in 0..n {
            let c = cap[v * n + u];
            d[v] += if side[u] != side[v] { c } else { -c };
        }
    }
    for _ in 0..n / 2 {
        let mut best = (1e-6, usize::MAX, usize::MAX);
        for a in (0..n).filter(|&a| !side[a]) {
            for b in (0..n).filter(|&b| side[b] && weight[b] == weight[a]) {
                let gain = d[a] + d[b] - 2.0 * cap[a * n + b];
                if gain > best.0 {
                    best = (gain, a, b);
                }
            }
        }
        let (_, a, b) = best;
        if a == usize::MAX {
            break;
        }
        // a moves to side 1, b to side 0: update every d incrementally.
        for v in 0..n {
            if v == a || v == b {
                continue;
            }
            let (ca, cb) = (cap[v * n + a], cap[v * n + b]);
            if side[v] {
                d[v] += 2.0 * cb - 2.0 * ca;
            } else {
                d[v] += 2.0 * ca - 2.0 * cb;
            }
        }
        side[a] = true;
        side[b] = false;
        for v in [a, b] {
            d[v] = (0..n).map(|u| if side[u] != side[v] { cap[v * n + u] } else { -cap[v * n + u] }).sum();
        }
    }
    let mut cut = 0.0;
    for v in 0..n {
        for u in 0..n {
            if side[u] != side[v] {
                cut += cap[v * n + u];
            }
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::topology::Topology;

    #[test]
    fn finds_the_group_cut_of_shandy() {
        // Closed form (paper 000 Sec. II-G): 4 x 4 x 8 links x 2 directions x 25 GB/s = 6.4 TB/s.
        let cfg = Config::from_json(
            r#"{"topology": {"groups": 8, "switches_per_group": 16, "endpoints_per_switch": 16,
            "local_links_per_pair": 2, "global_ports_per_switch": 7, "global_links_per_group_pair": 8, "rails": 2}}"#,
        )
        .unwrap();
        let (topo, net) = Topology::build(&cfg).unwrap();
        let groups: Vec<u32> = (0..net.switches() as u32).map(|s| topo.group(crate::ids::SwitchId(s))).collect();
        let cut = super::min_balanced_cut(&net, &groups, &vec![0; net.switches()]).unwrap();
        assert!((cut - 6.4e12).abs() < 1e9, "cut {cut}");
    }
}
