//! Everything the MPI layer keeps during a run: its parameters in engine
//! units, the jobs, the ranks and the messages on their way.

use super::collectives::Algorithm;
use super::config::MpiConfig;
use super::op::Collective;
use super::state::{Job, Rank, Wire};
use crate::error::Result;
use crate::units::{ns_to_ps, Ps};

/// MPI parameters in picoseconds and bytes.
#[derive(Clone, Debug)]
pub struct Params {
    pub eager_threshold: u64,
    pub control_bytes: u64,
    /// CPU time a rank spends per message sent and received, over every
    /// software layer the job uses ([`crate::host`]).
    pub send_overhead: Ps,
    pub recv_overhead: Ps,
    /// The host stack's NIC latencies.
    pub host: crate::host::HostCosts,
    pub memory_latency: Ps,
    /// Picoseconds per byte of a memory copy and of a reduction (0: free).
    pub memory_ps_per_byte: f64,
    pub reduce_ps_per_byte: f64,
    /// Algorithm of each collective, indexed like `Collective::ALL`.
    pub algorithms: [Algorithm; 9],
    /// Peers per block of the scattered alltoall (0: all at once).
    pub alltoall_throttle: u32,
    pub app_aware: super::app_aware::AppAwareConfig,
    /// Mode of MPI_Alltoall's messages in `adaptive-0` jobs.
    pub gni_a2a_routing: crate::routing::Algorithm,
    /// Detours of the ranks' CPUs (`[host.noise]`), if any.
    pub noise: Option<crate::host::noise::Detours>,
}

impl Params {
    /// Checks and converts `[mpi]`.
    pub fn new(c: &MpiConfig, host: &crate::host::HostConfig) -> Result<Params> {
        use crate::error::ConfigError;
        use crate::limits::{self as lim, check};
        // Bounded, not only non-negative: a second of CPU per message is far
        // past any host, and 2e16 ns would overflow the engine's picoseconds.
        check("mpi.send_overhead_ns", c.send_overhead_ns, &lim::OVERHEAD_NS)?;
        check("mpi.recv_overhead_ns", c.recv_overhead_ns, &lim::OVERHEAD_NS)?;
        check("mpi.memory_latency_ns", c.memory_latency_ns, &lim::LATENCY_NS)?;
        check("mpi.memory_gbytes_per_s", c.memory_gbytes_per_s, &lim::GBYTES_PER_S)?;
        if c.reduce_gbytes_per_s != 0.0 {
            check("mpi.reduce_gbytes_per_s", c.reduce_gbytes_per_s, &lim::Limit { says: "0 (free) or between 1e-6 and 1e6 GB/s", ..lim::GBYTES_PER_S })?;
        }
        if c.control_bytes == 0 {
            return Err(ConfigError::new("mpi.control_bytes", "must be at least 1 byte"));
        }
        c.app_aware.check()?;
        let a = &c.algorithms;
        let pick = |kind: Collective, name: &str, field: &str| Algorithm::parse(&format!("mpi.algorithms.{field}"), kind, name);
        let mut algorithms = [Algorithm::Auto; 9];
        for (i, kind) in Collective::ALL.into_iter().enumerate() {
            algorithms[i] = match kind {
                Collective::Allreduce => pick(kind, &a.allreduce, "allreduce")?,
                Collective::Alltoall => pick(kind, &a.alltoall, "alltoall")?,
                Collective::Bcast => pick(kind, &a.bcast, "bcast")?,
                Collective::Allgather => pick(kind, &a.allgather, "allgather")?,
                Collective::ReduceScatter => pick(kind, &a.reduce_scatter, "reduce_scatter")?,
                _ => Algorithm::Auto,
            };
        }
        let costs = crate::host::HostCosts::new(host);
        // Rendezvous is libfabric's and MPI's protocol; verbs send at once.
        let verbs = host.layer == crate::host::SoftwareLayer::Verbs;
        Ok(Params {
            eager_threshold: if verbs { u64::MAX } else { c.eager_threshold_bytes },
            control_bytes: c.control_bytes,
            send_overhead: costs.cpu(ns_to_ps(c.send_overhead_ns)),
            recv_overhead: costs.cpu(ns_to_ps(c.recv_overhead_ns)),
            host: costs,
            memory_latency: ns_to_ps(c.memory_latency_ns),
            memory_ps_per_byte: 1000.0 / c.memory_gbytes_per_s,
            reduce_ps_per_byte: if c.reduce_gbytes_per_s > 0.0 { 1000.0 / c.reduce_gbytes_per_s } else { 0.0 },
            algorithms,
            alltoall_throttle: c.alltoall_throttle,
            app_aware: c.app_aware.clone(),
            gni_a2a_routing: c.gni_a2a_routing,
            noise: host.noise.detours(),
        })
    }

    /// Algorithm configured for `kind`.
    pub fn algorithm(&self, kind: Collective) -> Algorithm {
        // `Collective::ALL` lists the kinds in declaration order.
        self.algorithms[kind as usize]
    }
}

/// A message of the MPI layer and its endpoints (global rank indices).
#[derive(Clone, Copy, Debug)]
pub struct WireRecord {
    pub wire: Wire,
    pub from: u32,
    pub to: u32,
    pub bytes: u64,
    /// Sent through memory (ranks of one node), not through a NIC.
    pub via_memory: bool,
}

/// The MPI layer's state in a run (empty when the config has no jobs).
#[derive(Clone, Debug, Default)]
pub struct Runtime {
    pub params: Option<Params>,
    pub jobs: Vec<Job>,
    pub ranks: Vec<Rank>,
    pub wires: Vec<WireRecord>,
    pub free_wires: Vec<u32>,
    pub wires_live: u64,
    /// Flow records of finished MPI messages, reused for new ones.
    pub free_flows: Vec<u32>,
    /// Jobs that must finish before the run ends (not repeating).
    pub jobs_left: u32,
    /// Application-aware routing state of every rank (empty when no job
    /// uses it).
    pub app_aware: Vec<super::app_aware::RankState>,
    /// Until when each node's NIC matching unit is busy (matching in the
    /// NIC, [`crate::host::matching`]), indexed by node.
    pub nic_match_busy: Vec<Ps>,
    /// Until when each node's NIC command unit is busy (`host.nic_command_ns`), indexed by node.
    pub nic_command_busy: Vec<Ps>,
    /// Run-wide ids of one-sided operations, the result stores and the
    /// reliability models' counts ([`crate::host::reliability`]).
    pub next_op: u64,
    pub store: crate::host::ResultStore,
    /// Fetch-and-adds issued and the times targets applied one.
    pub amo_ops: u64,
    pub amo_runs: u64,
    /// The job counted under each traffic source (`u32::MAX`: none).
    pub job_of_source: Vec<u32>,
    /// The random stream of the ranks' detours (`[host.noise]`).
    pub noise_rng: Option<crate::rng::Rng>,
}

impl Runtime {
    /// True if the run has jobs.
    pub fn active(&self) -> bool {
        !self.jobs.is_empty()
    }

    /// The parameters (present whenever there are jobs).
    pub fn p(&self) -> &Params {
        self.params.as_ref().expect("MPI parameters are set when jobs exist")
    }

    /// Stores a message; returns its id.
    pub fn add_wire(&mut self, w: WireRecord) -> u32 {
        self.wires_live += 1;
        match self.free_wires.pop() {
            Some(i) => {
                self.wires[i as usize] = w;
                i
            }
            None => {
                self.wires.push(w);
                (self.wires.len() - 1) as u32
            }
        }
    }

    /// Takes message `id` out.
    pub fn take_wire(&mut self, id: u32) -> WireRecord {
        self.wires_live -= 1;
        self.free_wires.push(id);
        self.wires[id as usize]
    }
}
