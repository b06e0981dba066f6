//! Config of the MPI layer (`[mpi]`) and of jobs (`[[job]]`).

use serde::{Deserialize, Serialize};

/// Costs and protocol choices of the MPI library every job uses.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MpiConfig {
    /// Messages up to this size go eagerly (data sent at once, matched at
    /// the receiver); larger ones use rendezvous (request to send, clear to
    /// send, then the data). 16 KiB is the rendezvous threshold of the
    /// libfabric CXI provider's default *(assumed for every system)*.
    pub eager_threshold_bytes: u64,
    /// Size of a rendezvous request/clear-to-send and of a get request.
    pub control_bytes: u64,
    /// CPU time the MPI library itself spends per message sent and per
    /// message received, above libfabric ([`crate::host`] adds the layers
    /// below). [DeSensi20] Fig. 5: for small messages MPI adds "only a
    /// marginal overhead" to libfabric *(50 ns each assumed)*.
    pub send_overhead_ns: f64,
    pub recv_overhead_ns: f64,
    /// Ranks on one node exchange data through memory: a fixed latency plus
    /// bytes at the copy bandwidth (GB/s).
    pub memory_latency_ns: f64,
    pub memory_gbytes_per_s: f64,
    /// Rate at which a reduction combines received data (GB/s); 0 = free.
    pub reduce_gbytes_per_s: f64,
    /// Collective algorithms (`auto` = MPICH's choice by size).
    pub algorithms: AlgorithmConfig,
    /// Peers a rank of MPICH's medium-message (scattered) alltoall posts
    /// its sends and receives to at once, waiting for the block before the
    /// next (`MPIR_CVAR_ALLTOALL_THROTTLE`, MPICH's default 32); 0 posts
    /// every peer at once, as MPICH does.
    pub alltoall_throttle: u32,
    /// Application-aware routing (jobs with `routing = "app-aware"`).
    pub app_aware: super::app_aware::AppAwareConfig,
    /// The routing mode of MPI_Alltoall's messages in jobs whose mode is
    /// Aries' default `adaptive-0`: Cray MPICH sets it apart
    /// (MPICH_GNI_A2A_ROUTING_MODE), ADAPTIVE_1 by default ([DeSensi19]
    /// Sec. 2.2, footnote 2). `adaptive-0` keeps them with the job.
    pub gni_a2a_routing: crate::routing::Algorithm,
}

impl Default for MpiConfig {
    fn default() -> Self {
        MpiConfig {
            eager_threshold_bytes: 16_384,
            control_bytes: 64,
            send_overhead_ns: 50.0,
            recv_overhead_ns: 50.0,
            memory_latency_ns: 250.0,
            memory_gbytes_per_s: 10.0,
            reduce_gbytes_per_s: 0.0,
            algorithms: AlgorithmConfig::default(),
            alltoall_throttle: crate::mpi::collectives::ALLTOALL_THROTTLE,
            app_aware: Default::default(),
            gni_a2a_routing: crate::routing::Algorithm::Adaptive(1),
        }
    }
}

/// Algorithm of each collective: `auto` or a name of `mpi::collectives`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct AlgorithmConfig {
    pub allreduce: String,
    pub alltoall: String,
    pub bcast: String,
    pub allgather: String,
    pub reduce_scatter: String,
}

impl Default for AlgorithmConfig {
    fn default() -> Self {
        let auto = || "auto".to_string();
        AlgorithmConfig { allreduce: auto(), alltoall: auto(), bcast: auto(), allgather: auto(), reduce_scatter: auto() }
    }
}

/// A job's routing: a routing mode, or paper 004's application-aware
/// choice between two modes per message (`"app-aware"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobRouting {
    Mode(crate::routing::Algorithm),
    AppAware,
}

impl<'de> Deserialize<'de> for JobRouting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use crate::names::Named;
        let name = String::deserialize(d)?;
        if name == super::app_aware::ROUTING_NAME {
            return Ok(JobRouting::AppAware);
        }
        crate::routing::Algorithm::from_name(&name)
            .map(JobRouting::Mode)
            .map_err(|m| serde::de::Error::custom(format!("{m} (or {:?} for an MPI job)", super::app_aware::ROUTING_NAME)))
    }
}

impl serde::Serialize for JobRouting {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use crate::names::Named;
        s.serialize_str(match self {
            JobRouting::Mode(a) => a.name(),
            JobRouting::AppAware => super::app_aware::ROUTING_NAME,
        })
    }
}

/// One job: its nodes, ranks, where it runs in the network and what it does.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct JobConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `"all"`, `{count}`, `{fraction}` or `{list}`, as for traffic sources.
    pub nodes: serde_json::Value,
    /// `linear`, `interleaved` or `random` (paper 000 Fig. 7).
    pub placement: crate::traffic::nodes::Placement,
    /// Processes per node.
    pub ppn: u32,
    /// With `ppn` above 1: each of a node's processes runs its own copy of
    /// the workload over one process per node (process k of every node
    /// forms copy k), as [DeSensi20] Sec. III runs its aggressors ("the
    /// congestion pattern is concurrently executed PPN times"); without it
    /// the workload runs once over all nodes x ppn ranks.
    pub ppn_copies: bool,
    pub start_ns: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<JobRouting>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dscp: Option<u32>,
    /// What the ranks run: a workload name (docs/workloads.md), `trace`
    /// (a DUMPI trace at `trace`) or `program` (ops given inline).
    pub workload: super::workloads::Workload,
    /// Message or buffer size of the workload.
    pub bytes: u64,
    /// Iterations of a named workload (10 when not given); for an inline
    /// program, how many times its ops run in a row (once when not given).
    /// A trace runs as recorded: setting it there is an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
    /// A statistical stopping rule: `"paper"` or a table (see
    /// [`crate::mpi::stop_rule`]); `iterations` is then the most it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_rule: Option<serde_json::Value>,
    /// Compute time per iteration (ns) where the workload has one.
    pub compute_ns: f64,
    /// Run the program again and again until the run ends (aggressors).
    pub repeat: bool,
    /// Bursty aggressors (paper 000 Fig. 12): messages per burst and the
    /// pause between bursts; 0 = persistent.
    pub burst_messages: u32,
    pub burst_gap_ns: f64,
    /// Workload-specific parameters (see docs/workloads.md).
    pub params: serde_json::Map<String, serde_json::Value>,
    /// Trace replay: its path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// Factor on every compute operation of the job's program (a trace's
    /// gaps between calls, a generated workload's compute); 0 drops them,
    /// replaying communication only (CODES' `--disable_compute`).
    pub compute_scale: f64,
    /// The program itself (`workload = "program"`), as produced by a trace
    /// reader or by hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<crate::mpi::Program>,
    /// Seed offset of the workload's random choices.
    pub seed: u64,
}

/// `bytes` of a job that does not set it.
pub const DEFAULT_BYTES: u64 = 8;

impl Default for JobConfig {
    fn default() -> Self {
        JobConfig {
            name: None,
            nodes: serde_json::Value::String("all".into()),
            placement: crate::traffic::nodes::Placement::Linear,
            ppn: 1,
            ppn_copies: false,
            start_ns: 0.0,
            routing: None,
            class: None,
            dscp: None,
            workload: super::workloads::Workload::Collective(super::op::Collective::Allreduce),
            bytes: DEFAULT_BYTES,
            iterations: None,
            stop_rule: None,
            compute_ns: 0.0,
            repeat: false,
            burst_messages: 0,
            burst_gap_ns: 0.0,
            params: Default::default(),
            trace: None,
            compute_scale: 1.0,
            program: None,
            seed: 0,
        }
    }
}
