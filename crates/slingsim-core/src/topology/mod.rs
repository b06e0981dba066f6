//! Topology families. Each builds a [`Network`] plus the routing tables of
//! its family; the engine dispatches on [`Topology`] without virtual calls.

pub mod analytics;
pub mod dragonfly;

use crate::config::Config;
use crate::error::{ConfigError, Result};
use crate::network::Network;
pub use dragonfly::Dragonfly;

/// A built topology of one family.
#[derive(Clone, Debug)]
pub enum Topology {
    Dragonfly(Dragonfly),
}

/// Topology families this build can construct.
pub const KINDS: &[&str] = &["dragonfly"];

impl Topology {
    /// Builds the topology named by `topology.kind`.
    pub fn build(cfg: &Config) -> Result<(Topology, Network)> {
        match cfg.topology.kind.as_str() {
            "dragonfly" => {
                let (df, net) = Dragonfly::build(&cfg.topology, &cfg.links, &cfg.nic)?;
                Ok((Topology::Dragonfly(df), net))
            }
            other => Err(ConfigError::new(
                "topology.kind",
                format!("unknown topology {other:?}; this release builds: {}", KINDS.join(", ")),
            )),
        }
    }

    /// Group of a switch (the whole network is one group for flat families).
    #[inline]
    pub fn group(&self, s: u32) -> u32 {
        match self {
            Topology::Dragonfly(d) => d.group(s),
        }
    }
}
