//! Topology families. Each builds a [`Network`]; the Slingshot dragonfly
//! keeps closed-form routing tables of its own ([`Dragonfly`]), the other
//! families are routed on shortest-path tables ([`GraphTopology`]). The
//! engine dispatches on [`Topology`] without virtual calls.

pub mod aries;
pub mod analytics;
pub mod bisection;
pub(crate) mod down_links;
pub mod dragonfly;
pub mod fattree;
pub mod fitfly;
pub mod galois;
pub mod graph;
pub mod graph_analytics;
pub mod graphml;
pub mod megafly;
pub mod slimfly;

use crate::config::{Config, LinkConfig, NicConfig};
use crate::names::Named;
use crate::error::{ConfigError, Result};
use crate::ids::{Id, SwitchId};
use crate::network::Network;
use crate::units::{ns_to_ps, Ps, Rate};
use crate::routing::MinimalPaths;
pub use dragonfly::Dragonfly;
pub use graph::GraphTopology;

/// A built topology.
#[derive(Clone, Debug)]
pub enum Topology {
    /// Slingshot 1D dragonfly with closed-form routing.
    Dragonfly(Dragonfly),
    /// Any other family, routed on shortest-path tables.
    Graph(GraphTopology),
}

/// What a family builder returns besides the network.
#[derive(Clone, Debug)]
pub struct Built {
    pub net: Network,
    /// Family name (`slimfly`, `fitfly`, `megafly`, `fattree`, `aries`).
    pub family: &'static str,
    /// Group of each switch, numbered across planes (Slim Fly: its 2q
    /// local groups; fat tree: its pods, with the core as one more group).
    pub groups: Vec<u32>,
    /// Plane of each switch (0 for single-plane families).
    pub plane: Vec<u32>,
    /// Number of planes.
    pub planes: u32,
    /// Family parameters reported by analytics (e.g. `q`, `leaves_per_group`).
    pub info: serde_json::Value,
}

/// A topology family (`topology.kind`), MODEL.md Sec. 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Slingshot's 1D dragonfly.
    Dragonfly,
    /// Slim Fly (MMS graph), paper 003 Sec. 4.2.1.
    Slimfly,
    /// Fit Fly: Slim Fly planes with one rail per plane, paper 003 Sec. 4.2.2.
    Fitfly,
    /// Megafly / Dragonfly+: groups are two-level fat trees.
    Megafly,
    /// Three-level folded Clos.
    Fattree,
    /// Cray Aries: a dragonfly with 2-D groups, paper 004 Sec. 2.1.
    Aries,
}

impl crate::names::Named for Family {
    const WHAT: &'static str = "topology";
    const REGISTRY: &'static [(&'static str, Self)] = &[
        ("dragonfly", Family::Dragonfly),
        ("slimfly", Family::Slimfly),
        ("fitfly", Family::Fitfly),
        ("megafly", Family::Megafly),
        ("fattree", Family::Fattree),
        ("aries", Family::Aries),
    ];
}
crate::named_serde!(Family);

/// `[topology]` keys a family reads; any other key given is an error.
pub fn family_keys(kind: Family) -> &'static [&'static str] {
    match kind {
        Family::Dragonfly => &[
            "kind", "groups", "switches_per_group", "endpoints_per_switch", "local_links_per_pair", "global_ports_per_switch",
            "global_links_per_group_pair", "taper", "arrangement", "cabling", "radix", "nodes", "rails",
        ],
        Family::Slimfly => &["kind", "q", "endpoints_per_switch", "radix", "nodes", "rails"],
        Family::Fitfly => &["kind", "q", "planes", "endpoints_per_switch", "radix", "nodes", "rails"],
        Family::Megafly => &[
            "kind", "groups", "leaves_per_group", "spines_per_group", "endpoints_per_switch", "global_ports_per_switch",
            "global_links_per_group_pair", "arrangement", "radix", "nodes", "rails",
        ],
        Family::Fattree => &["kind", "radix", "taper", "nodes", "rails"],
        Family::Aries => &[
            "kind", "groups", "rows", "columns", "row_links", "column_links", "endpoints_per_switch", "global_ports_per_switch",
            "global_links_per_group_pair", "radix", "nodes", "rails",
        ],
    }
}

/// Rates and latencies of the three link kinds (latency includes FEC).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LinkParams {
    pub local: (Rate, Ps),
    pub global: (Rate, Ps),
    pub terminal: (Rate, Ps),
}

impl LinkParams {
    pub(crate) fn new(l: &LinkConfig, n: &NicConfig) -> LinkParams {
        let fec = l.fec_latency_ns;
        LinkParams {
            local: (Rate::from_bps(l.bandwidth_bps), ns_to_ps(l.local_latency_ns + fec)),
            global: (Rate::from_bps(l.global_bandwidth_bps.unwrap_or(l.bandwidth_bps)), ns_to_ps(l.global_latency_ns + fec)),
            terminal: (Rate::from_bps(n.bandwidth_bps), ns_to_ps(l.terminal_latency_ns + fec)),
        }
    }
}

/// Runs the listed cables on fewer lanes (both directions).
fn apply_degraded(net: &mut Network, list: &[crate::config::DegradedLink]) -> Result<()> {
    for (i, d) in list.iter().enumerate() {
        let c = net.cabled_port(&format!("links.degraded[{i}]"), d.switch, d.port)?;
        for ch in [c, net.reverse(c)] {
            let rate = net.channels[ch].rate.degraded(d.lanes, 4);
            net.channels[ch].rate = rate;
        }
    }
    Ok(())
}

impl Topology {
    /// Builds the topology named by `topology.kind`.
    pub fn build(cfg: &Config) -> Result<(Topology, Network)> {
        let kind = cfg.topology.kind;
        let allowed = family_keys(kind);
        for k in &cfg.topology_keys {
            if !allowed.contains(&k.as_str()) {
                return Err(ConfigError::new(
                    format!("topology.{k}"),
                    format!("does not apply to a {} topology; its keys are: {}", kind.name(), allowed.join(", ")),
                ));
            }
        }
        if cfg.routing.minimal_paths == MinimalPaths::OneGlobalHop && !matches!(kind, Family::Dragonfly | Family::Aries) {
            return Err(ConfigError::new(
                "routing.minimal_paths",
                format!(
                    "\"one-global-hop\" applies to the dragonfly and aries topologies, whose groups are joined by several global links; \
                     a {} routes on its shortest paths: set routing.minimal_paths = \"shortest\"",
                    kind.name()
                ),
            ));
        }
        let (t, l, n) = (&cfg.topology, &cfg.links, &cfg.nic);
        let built = match kind {
            Family::Dragonfly => {
                let (mut df, mut net) = Dragonfly::build(t, l, n)?;
                df.one_global_hop = cfg.routing.minimal_paths == MinimalPaths::OneGlobalHop;
                apply_degraded(&mut net, &cfg.links.degraded)?;
                net.shrink_to_fit();
                let mut topo = Topology::Dragonfly(df);
                down_links::route_around_down_at_start(&mut topo, &net, cfg)?;
                return Ok((topo, net));
            }
            Family::Slimfly => slimfly::build(t, l, n)?,
            Family::Fitfly => fitfly::build(t, l, n)?,
            Family::Megafly => megafly::build(t, l, n)?,
            Family::Fattree => fattree::build(t, l, n)?,
            Family::Aries => aries::build(&aries::with_defaults(t, &cfg.topology_keys), l, n)?,
        };
        let mut built = built;
        apply_degraded(&mut built.net, &cfg.links.degraded)?;
        built.net.shrink_to_fit();
        let switches = built.net.switches();
        if switches > graph::MAX_SWITCHES {
            return Err(ConfigError::new(
                "topology",
                format!(
                    "{switches} switches exceed the {} that shortest-path routing tables support in this release \
                     (they hold all-pairs distances); choose a smaller {}",
                    graph::MAX_SWITCHES,
                    kind.name()
                ),
            ));
        }
        let net = built.net.clone();
        let mut g = GraphTopology::new(built);
        if kind == Family::Aries {
            g.route_detours_by_group();
            if cfg.routing.minimal_paths == MinimalPaths::OneGlobalHop {
                g.list_global_hops();
            }
        }
        let mut topo = Topology::Graph(g);
        down_links::route_around_down_at_start(&mut topo, &net, cfg)?;
        Ok((topo, net))
    }

    /// Group of a switch.
    #[inline]
    pub fn group(&self, s: SwitchId) -> u32 {
        match self {
            Topology::Dragonfly(d) => d.group(s),
            Topology::Graph(g) => g.groups[s.index()],
        }
    }

    /// Switch-to-switch hops of a shortest path (`u32::MAX` if none).
    pub fn distance(&self, s: SwitchId, d: SwitchId) -> u32 {
        match self {
            Topology::Dragonfly(df) => crate::routing::dragonfly::min_hops(df, s, d),
            Topology::Graph(g) => match g.distance(s, d) {
                u8::MAX => u32::MAX,
                x => x as u32,
            },
        }
    }

    /// Longest path of `alg` in switch-to-switch hops: the number of
    /// hop-indexed virtual channels it needs.
    pub fn max_hops(&self, alg: crate::routing::Algorithm) -> u32 {
        match self {
            Topology::Dragonfly(_) => alg.max_hops_dragonfly(),
            Topology::Graph(g) => g.max_hops(alg),
        }
    }

    /// Family name.
    pub fn family(&self) -> &'static str {
        match self {
            Topology::Dragonfly(_) => "dragonfly",
            Topology::Graph(g) => g.family,
        }
    }
}
