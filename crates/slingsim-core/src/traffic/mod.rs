//! Synthetic traffic sources (MODEL.md Sec. 7): named sources, each with its
//! own node set, destination pattern and injection process.

pub mod nodes;
pub mod pattern;

use crate::ids::NodeId;
use crate::config::TrafficConfig;
use crate::error::{ConfigError, Result};
use crate::network::Network;
use crate::rng::Rng;
use crate::topology::Topology;
use crate::units::Ps;
use nodes::{NodeAllocator, Selection};
pub use pattern::{Pattern, PatternKind};

/// Arrival process of messages at an offered load (`traffic.process`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Process {
    /// One message per message-time slot with probability `load` (geometric gaps).
    Bernoulli,
    /// Exponential gaps with the same mean.
    Poisson,
    /// Gaps of exactly the mean, each node starting at a random phase: the
    /// background of [McGlohon19] Sec. 6.1.3, one message per node every
    /// `interval_ns` (CODES' synthetic ranks wait their mean interval plus
    /// a 1 ns exponential jitter between messages).
    Periodic,
    /// Gaps of exactly the mean, every node's first message at the source's
    /// start: the nodes send in lockstep, as CODES' synthetic ranks do (each
    /// schedules its first message after a 1 ns exponential jitter from
    /// time 0, `model-net-mpi-replay.c`), so a background of large messages
    /// arrives in synchronised bursts.
    PeriodicAligned,
}

impl crate::names::Named for Process {
    const WHAT: &'static str = "arrival process";
    const REGISTRY: &'static [(&'static str, Self)] = &[("bernoulli", Process::Bernoulli), ("poisson", Process::Poisson), ("periodic", Process::Periodic), ("periodic-aligned", Process::PeriodicAligned)];
}
crate::named_serde!(Process);

/// How a source injects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Injection {
    /// Messages of `message_bytes` at `load`, arriving by `process`.
    Bernoulli { load: f64, message_bytes: u64, process: Process },
    /// `per_node` flows of `bytes` each, started at once.
    Flows { bytes: u64, per_node: u32 },
}

/// A built traffic source.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub nodes: Vec<u32>,
    /// Group of each member (for group-aware patterns).
    pub groups: Vec<u32>,
    pub pattern: Pattern,
    pub injection: Injection,
    pub start_ps: Ps,
    /// Offered-load sources stop generating here (`Ps::MAX`: never).
    pub stop_ps: Ps,
}

/// Builds every source of a config, allocating their node sets in order.
/// Nodes come from `alloc`, which jobs then take theirs from.
pub fn build_sources(cfgs: &[TrafficConfig], topo: &Topology, net: &Network, seed: u64, alloc: &mut NodeAllocator) -> Result<Vec<Source>> {
    let mut out: Vec<Source> = Vec::with_capacity(cfgs.len());
    if cfgs.len() > u16::MAX as usize {
        return Err(ConfigError::new("traffic", "too many traffic sources"));
    }
    for (i, t) in cfgs.iter().enumerate() {
        let field = format!("traffic[{i}]");
        let name = t.name.clone().unwrap_or_else(|| format!("traffic{i}"));
        if out.iter().any(|s| s.name == name) {
            return Err(ConfigError::new(format!("{field}.name"), format!("duplicate traffic source name {name:?}")));
        }
        let mut rng = Rng::new(seed, 0x7000 + i as u64);
        let sel = Selection::parse(&format!("{field}.nodes"), &t.nodes)?;
        let placement = t.placement;
        let nodes = alloc.take(&format!("{field}.nodes"), &sel, placement, &mut rng)?;
        let groups: Vec<u32> = nodes.iter().map(|&n| topo.group(net.endpoint_switch[net.endpoint_of(NodeId(n), 0)])).collect();
        let pattern = Pattern::build(&field, t.pattern, &groups, t.target, &mut rng)?;
        // Loads, sizes and counts are checked with the config's numbers.
        if t.interval_ns.is_some() && t.flow_bytes.is_some() {
            return Err(ConfigError::new(format!("{field}.interval_ns"), "a flow source (flow_bytes) starts its flows at once and has no interval; drop one of the two"));
        }
        let injection = match t.flow_bytes {
            Some(bytes) => Injection::Flows { bytes, per_node: t.flows_per_node },
            // The load follows from the message size and the interval once
            // the injection bandwidth is known (engine/build.rs).
            None if t.interval_ns.is_some() => Injection::Bernoulli { load: 1.0, message_bytes: t.message_bytes, process: t.process },
            None => Injection::Bernoulli { load: t.load, message_bytes: t.message_bytes, process: t.process },
        };
        let stop_ps = t.stop_ns.map_or(Ps::MAX, crate::units::ns_to_ps);
        out.push(Source { name, nodes, groups, pattern, injection, start_ps: crate::units::ns_to_ps(t.start_ns), stop_ps });
    }
    Ok(out)
}
