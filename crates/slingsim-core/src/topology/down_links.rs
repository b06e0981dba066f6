//! Links that are down leave the routes, as a fabric manager leaves them out
//! of the routes it computes: those down from the start (`links.failed` and
//! `links.random_failures` with `at_ns` = 0) when the network is built, and,
//! with `links.reroute_after_ns`, those failing later once the fabric
//! manager has reacted (`engine/reroutes.rs`). A set that leaves part of the
//! network without a route is refused, naming the key that chose it.

use super::dragonfly::Cut;
use super::{Dragonfly, GraphTopology, Topology};
use crate::config::Config;
use crate::error::{ConfigError, Result};
use crate::ids::ChannelId;
use crate::network::{End, Network};
use crate::units::Ps;

/// Leaves the links of `down` (output channels, both directions of each
/// cable) out of `topo`'s routes; on a cut, says what is cut, the links
/// being down `when`.
pub(crate) fn route_around(topo: &mut Topology, net: &Network, down: &[ChannelId], when: &str) -> std::result::Result<(), String> {
    match topo {
        Topology::Dragonfly(df) => dragonfly_around(df, net, down, when),
        Topology::Graph(g) => graph_around(g, down, when),
    }
}

/// The dragonfly's routes without `down`: a group pair's other global
/// links, a switch pair's other parallel local links.
fn dragonfly_around(df: &mut Dragonfly, net: &Network, down: &[ChannelId], when: &str) -> std::result::Result<(), String> {
    let down: Vec<_> = down
        .iter()
        .filter_map(|&c| match net.channels[c].src {
            End::Switch { switch, port } => Some((switch, port)),
            End::Endpoint(_) => None,
        })
        .collect();
    df.route_around(&down).map_err(|cut| match cut {
        Cut::Groups(a, b) => format!("every global link from group {a} to group {b} is down {when}, so no route joins them"),
        Cut::Switches(s, t) => format!(
            "every local link from switch {s} to switch {t} is down {when}: the dragonfly's paths (local, global, local) \
             need one between every two switches of a group"
        ),
    })
}

/// The shortest-path tables without `down`.
fn graph_around(g: &mut GraphTopology, down: &[ChannelId], when: &str) -> std::result::Result<(), String> {
    g.route_around(down).map_err(|(a, b)| format!("with the links down {when} switch {a} no longer reaches switch {b}, and both hold nodes"))
}

/// Builds `topo`'s routes without the failed links down from the start
/// (`at_ns` = 0). Links that fail later stay in them (packets sent over
/// them are lost and resent; the adaptive modes pass them by where an
/// equal path remains) until the fabric manager reacts, if it is modelled.
pub(super) fn route_around_down_at_start(topo: &mut Topology, net: &Network, cfg: &Config) -> Result<()> {
    let down: Vec<ChannelId> =
        net.failed_channels(&cfg.links, cfg.sim.seed)?.into_iter().filter(|&(_, at)| at == Ps::ZERO).map(|(c, _)| c).collect();
    if down.is_empty() {
        return Ok(());
    }
    route_around(topo, net, &down, "from the start (at_ns = 0)").map_err(|what| cut_network(cfg, what))
}

/// The error for links down from the start that leave part of the network
/// without a route to another, naming the key that chose them.
fn cut_network(cfg: &Config, what: String) -> ConfigError {
    match &cfg.links.random_failures {
        Some(_) => ConfigError::new(
            "links.random_failures",
            format!(
                "{what} (with the cables links.failed lists and those drawn with sim.seed = {}); \
                 draw fewer, draw with another seed, or fail them later (at_ns > 0) to study the loss",
                cfg.sim.seed
            ),
        ),
        None => ConfigError::new("links.failed", format!("{what}; keep one up, or fail the links later (at_ns > 0) to study the loss")),
    }
}
