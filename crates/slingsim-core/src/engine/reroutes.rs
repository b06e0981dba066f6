//! The fabric manager's reroutes during a run (`links.reroute_after_ns`).
//!
//! Links down from the start are out of the routes the topology is built
//! with (`topology/down_links.rs`). A link that fails during the run at t
//! stays in the routes until t + `links.reroute_after_ns`, when the fabric
//! manager has computed routes without it: from then on, a packet first
//! routed leaves it out. Each such moment starts a set of routes (an
//! epoch) built like the start's, without every link down by then. A
//! packet keeps the set it was first routed with (`PacketHot::epoch`) to
//! its destination: its path then stays within the hop-indexed VCs of one
//! set of routes, which the run is built with enough of for every set.
//! Packets already under way may still meet the failed link and be resent;
//! a resent packet is routed afresh.

use crate::config::Config;
use crate::error::{ConfigError, Result};
use crate::ids::ChannelId;
use crate::network::Network;
use crate::routing::Algorithm;
use crate::topology::{down_links, Topology};
use crate::units::{ns_to_ps, ps_to_ns, Ps};

/// The most bytes of shortest-path tables the reroutes may keep: each set
/// of routes on a graph-routed family holds a table of switches^2 bytes.
const MAX_TABLE_BYTES: u64 = 4 << 30;

/// The sets of routes after the fabric manager's reroutes.
#[derive(Default)]
pub(crate) struct Reroutes {
    /// When each set after the start's takes over, in order.
    pub at: Vec<Ps>,
    /// The set of routes taking over at `at[k]` (epoch k + 1).
    topos: Vec<Topology>,
}

impl Reroutes {
    /// The sets of routes for the links of `fail_at` that fail during the
    /// run, when `links.reroute_after_ns` is given; none otherwise.
    pub fn new(cfg: &Config, base: &Topology, net: &Network, fail_at: &[(ChannelId, Ps)]) -> Result<Reroutes> {
        let Some(delay_ns) = cfg.links.reroute_after_ns else { return Ok(Reroutes::default()) };
        let mut times: Vec<Ps> = fail_at.iter().map(|&(_, t)| t).filter(|&t| t > Ps::ZERO).collect();
        times.sort_unstable();
        times.dedup();
        if times.len() > u8::MAX as usize {
            return Err(ConfigError::new(
                "links.reroute_after_ns",
                format!(
                    "links fail at {} different times; the fabric manager's reroutes are modelled for at most {} (give failures common times)",
                    times.len(),
                    u8::MAX
                ),
            ));
        }
        if let Topology::Graph(g) = base {
            check_table_bytes(g.switches(), times.len())?;
        }
        let mut out = Reroutes::default();
        for &t in &times {
            let down: Vec<ChannelId> = fail_at.iter().filter(|&&(_, at)| at <= t).map(|&(c, _)| c).collect();
            let mut topo = base.clone();
            let when = format!("from {} ns", ps_to_ns(t));
            down_links::route_around(&mut topo, net, &down, &when).map_err(|what| {
                ConfigError::new(
                    "links.reroute_after_ns",
                    format!("{what}: the fabric manager has no route to take; leave links.reroute_after_ns out to study the loss"),
                )
            })?;
            out.at.push(t + ns_to_ps(delay_ns));
            out.topos.push(topo);
        }
        Ok(out)
    }

    /// The set of routes a packet first routed at `now` takes.
    #[inline]
    pub fn epoch_at(&self, now: Ps) -> u8 {
        if self.at.is_empty() {
            return 0;
        }
        self.at.partition_point(|&t| t <= now) as u8
    }

    /// The routes of `epoch` (0: `base`, those of the start).
    #[inline]
    pub fn topo<'a>(&'a self, base: &'a Topology, epoch: u8) -> &'a Topology {
        if epoch == 0 {
            base
        } else {
            &self.topos[epoch as usize - 1]
        }
    }

    /// The longest path of `alg` over every set after the start's.
    pub fn max_hops(&self, alg: Algorithm) -> u32 {
        self.topos.iter().map(|t| t.max_hops(alg)).max().unwrap_or(0)
    }
}

/// Refuses reroutes whose copies of the shortest-path tables (one of
/// `switches`^2 bytes per failure time) would pass [`MAX_TABLE_BYTES`].
fn check_table_bytes(switches: usize, times: usize) -> Result<()> {
    let bytes = (switches as u64).pow(2) * times as u64;
    if bytes <= MAX_TABLE_BYTES {
        return Ok(());
    }
    Err(ConfigError::new(
        "links.reroute_after_ns",
        format!(
            "links fail at {times} different times, and each reroute keeps {switches}^2 bytes of shortest-path tables: \
             {:.1} GiB, more than the {} GiB allowed; give the failures fewer distinct times",
            bytes as f64 / (1u64 << 30) as f64,
            MAX_TABLE_BYTES >> 30
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reroutes_of_large_graphs_are_bounded_by_their_tables() {
        assert!(check_table_bytes(1000, 255).is_ok());
        assert!(check_table_bytes(16_384, 16).is_ok(), "4 GiB exactly");
        let e = check_table_bytes(16_384, 17).unwrap_err().to_string();
        assert!(e.starts_with("links.reroute_after_ns") && e.contains("17 different times") && e.contains("4.2 GiB"), "{e}");
    }
}
