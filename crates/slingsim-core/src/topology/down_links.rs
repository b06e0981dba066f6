//! Links down from the start (`links.failed` and `links.random_failures`
//! with `at_ns` = 0) leave the routes, as a fabric manager leaves them out
//! of the routes of a network it brings up; a set that leaves part of the
//! network without a route is refused, naming the key that chose it.

use super::dragonfly::Cut;
use super::{Dragonfly, GraphTopology};
use crate::config::Config;
use crate::error::{ConfigError, Result};
use crate::ids::ChannelId;
use crate::network::{End, Network};
use crate::units::Ps;

/// Output channels (both directions) of the failed links down
/// from the start (`at_ns` = 0).
fn down_from_start(net: &Network, cfg: &Config) -> Result<Vec<ChannelId>> {
    Ok(net.failed_channels(&cfg.links, cfg.sim.seed)?.into_iter().filter(|&(_, at)| at == Ps::ZERO).map(|(c, _)| c).collect())
}

/// The dragonfly's routes without the links down from the start: a group
/// pair's other global links, a switch pair's other parallel local links.
pub(super) fn route_dragonfly_around(df: &mut Dragonfly, net: &Network, cfg: &Config) -> Result<()> {
    let down: Vec<_> = down_from_start(net, cfg)?
        .into_iter()
        .filter_map(|c| match net.channels[c].src {
            End::Switch { switch, port } => Some((switch, port)),
            End::Endpoint(_) => None,
        })
        .collect();
    if down.is_empty() {
        return Ok(());
    }
    df.route_around(&down).map_err(|cut| {
        let what = match cut {
            Cut::Groups(a, b) => format!("every global link from group {a} to group {b} is down from the start (at_ns = 0), so no route joins them"),
            Cut::Switches(s, t) => format!(
                "every local link from switch {s} to switch {t} is down from the start (at_ns = 0): the dragonfly's paths \
                 (local, global, local) need one between every two switches of a group"
            ),
        };
        cut_network(cfg, what)
    })
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

/// Tables computed around the failed links down from the start
/// (`at_ns` = 0), as the fabric manager routes a network it brings up with
/// those links down: no routing mode takes them. Links that fail later
/// stay in the tables (packets sent over them are lost and resent; the
/// adaptive modes pass them by where an equal path remains).
pub(super) fn route_graph_around(g: &mut GraphTopology, net: &Network, cfg: &Config) -> Result<()> {
    let down = down_from_start(net, cfg)?;
    if down.is_empty() {
        return Ok(());
    }
    g.route_around(&down)
        .map_err(|(a, b)| cut_network(cfg, format!("with the links down from the start (at_ns = 0) switch {a} no longer reaches switch {b}, and both hold nodes")))
}
