//! Programs of the named workloads a job can run (docs/workloads.md).

mod aggressors;
pub mod amg;
mod amg_levels;
#[cfg(test)]
mod check;
pub mod gpcnet;
mod halo;
pub mod message_rate;
mod micro;
pub mod multigrid;
mod phases;
mod proxies;
mod service;

use crate::error::{ConfigError, Result};
use crate::mpi::config::JobConfig;
use crate::mpi::op::{Collective, Op, Program};

/// What a workload generator gets: the job's config, its rank count and
/// its random seed.
#[derive(Clone)]
pub struct Spec<'a> {
    pub field: String,
    pub ranks: u32,
    pub bytes: u64,
    pub iterations: u32,
    pub compute_ns: f64,
    pub burst_messages: u32,
    pub burst_gap_ns: f64,
    pub params: &'a serde_json::Map<String, serde_json::Value>,
    pub seed: u64,
}

impl Spec<'_> {
    /// An integer parameter of `params`, or its default.
    pub fn param_u32(&self, key: &str, default: u32) -> Result<u32> {
        match self.params.get(key) {
            None => Ok(default),
            Some(v) => v.as_u64().filter(|&x| x <= u32::MAX as u64).map(|x| x as u32).ok_or_else(|| ConfigError::new(format!("{}.params.{key}", self.field), "must be a non-negative integer")),
        }
    }

    /// A true/false parameter of `params`, or its default.
    pub fn param_bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.params.get(key) {
            None => Ok(default),
            Some(v) => v.as_bool().ok_or_else(|| ConfigError::new(format!("{}.params.{key}", self.field), "must be true or false")),
        }
    }

    /// A number parameter of `params`, or its default.
    pub fn param_f64(&self, key: &str, default: f64) -> Result<f64> {
        match self.params.get(key) {
            None => Ok(default),
            Some(v) => v.as_f64().filter(|x| x.is_finite() && *x >= 0.0).ok_or_else(|| ConfigError::new(format!("{}.params.{key}", self.field), "must be a non-negative number")),
        }
    }

    /// Fails unless `r` is a rank of the job.
    pub fn check_rank(&self, key: &str, r: u32) -> Result<()> {
        if r >= self.ranks {
            return Err(ConfigError::new(format!("{}.params.{key}", self.field), format!("rank {r} does not exist (the job has {} ranks)", self.ranks)));
        }
        Ok(())
    }

    /// Fails on parameters the workload does not know.
    pub fn only_params(&self, known: &[&str]) -> Result<()> {
        for k in self.params.keys() {
            if !known.contains(&k.as_str()) {
                return Err(ConfigError::new(format!("{}.params.{k}", self.field), format!("not a parameter of this workload; it takes {known:?}")));
            }
        }
        Ok(())
    }
}

/// Local work of `ns` (none when zero).
pub(super) fn compute(ops: &mut Vec<Op>, ns: f64) {
    if ns > 0.0 {
        ops.push(Op::Compute { ns });
    }
}

/// What a job's ranks run (`job.workload`): a generated workload
/// (docs/workloads.md), a DUMPI `Trace`, or an inline `Program`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    Collective(Collective),
    Pingpong,
    /// Windows of small messages between rank pairs, each walking past a
    /// set number of posted receives ([Roweth] Fig. 8).
    MessageRate,
    Incast,
    AlltoallAggressor,
    GpcnetRrLatency,
    GpcnetRrBandwidth,
    GpcnetAllreduce,
    /// One of GPCNeT's congestors (its name after `gpcnet-`).
    GpcnetCongestor(&'static str),
    Halo3d,
    Sweep3d,
    Milc,
    Hpcg,
    Lammps,
    Fft,
    Resnet,
    /// An algebraic multigrid solve after AMG2013 ([McGlohon19] Sec. 6.1.1).
    Amg,
    /// A geometric multigrid solve on boxes after BoxLib's MultiGrid_C
    /// ([McGlohon19] Sec. 6.1.2).
    Multigrid,
    /// A latency-critical service; its name selects the Tailbench-like profile.
    Service(&'static str),
    Trace,
    Program,
}

impl crate::names::Named for Workload {
    const WHAT: &'static str = "workload";
    const REGISTRY: &'static [(&'static str, Self)] = &[
        ("allreduce", Workload::Collective(Collective::Allreduce)),
        ("alltoall", Workload::Collective(Collective::Alltoall)),
        ("barrier", Workload::Collective(Collective::Barrier)),
        ("bcast", Workload::Collective(Collective::Bcast)),
        ("reduce", Workload::Collective(Collective::Reduce)),
        ("allgather", Workload::Collective(Collective::Allgather)),
        ("pingpong", Workload::Pingpong),
        ("message-rate", Workload::MessageRate),
        ("incast", Workload::Incast),
        ("alltoall-aggressor", Workload::AlltoallAggressor),
        ("gpcnet-rr-latency", Workload::GpcnetRrLatency),
        ("gpcnet-rr-bandwidth", Workload::GpcnetRrBandwidth),
        ("gpcnet-allreduce", Workload::GpcnetAllreduce),
        ("gpcnet-alltoall", Workload::GpcnetCongestor("alltoall")),
        ("gpcnet-incast", Workload::GpcnetCongestor("incast")),
        ("gpcnet-put-incast", Workload::GpcnetCongestor("put-incast")),
        ("gpcnet-get-bcast", Workload::GpcnetCongestor("get-bcast")),
        ("halo3d", Workload::Halo3d),
        ("sweep3d", Workload::Sweep3d),
        ("milc", Workload::Milc),
        ("hpcg", Workload::Hpcg),
        ("lammps", Workload::Lammps),
        ("fft", Workload::Fft),
        ("resnet", Workload::Resnet),
        ("amg", Workload::Amg),
        ("multigrid", Workload::Multigrid),
        ("service", Workload::Service("service")),
        ("silo", Workload::Service("silo")),
        ("xapian", Workload::Service("xapian")),
        ("img-dnn", Workload::Service("img-dnn")),
        ("sphinx", Workload::Service("sphinx")),
        ("trace", Workload::Trace),
        ("program", Workload::Program),
    ];
}
crate::named_serde!(Workload);

/// Iterations of a named workload when the job does not say.
pub const DEFAULT_ITERATIONS: u32 = 10;

/// Builds the program of a job running a named workload on `ranks` ranks.
pub fn generate(field: &str, job: &JobConfig, ranks: u32, seed: u64) -> Result<Program> {
    let iterations = job.iterations.unwrap_or(DEFAULT_ITERATIONS);
    if iterations == 0 {
        return Err(ConfigError::new(format!("{field}.iterations"), "must be at least 1"));
    }
    let spec = Spec {
        field: field.to_string(),
        ranks,
        bytes: job.bytes,
        iterations,
        compute_ns: job.compute_ns,
        burst_messages: job.burst_messages,
        burst_gap_ns: job.burst_gap_ns,
        params: &job.params,
        seed,
    };
    if iterations > 1 {
        // The size a program of `iterations` would have, from those of one
        // and two: part of a program (untimed warm-up, say) may not grow
        // with its iterations.
        let ops = |n: u32| build(&Spec { iterations: n, ..spec.clone() }, job.workload).map(|p| p.ops.iter().map(|o| o.len() as u64).sum::<u64>());
        let (one, two) = (ops(1)?, ops(2)?);
        let each = two.saturating_sub(one);
        crate::limits::program_fits_with(&format!("{field}.iterations"), iterations, one.saturating_sub(each), each)?;
    }
    build(&spec, job.workload)
}

/// The program of `workload` as `spec` sets it up.
fn build(spec: &Spec<'_>, workload: Workload) -> Result<Program> {
    match workload {
        Workload::Collective(kind) => {
            spec.only_params(&[])?;
            micro::collective(&spec, kind)
        }
        Workload::Pingpong => {
            spec.only_params(&[])?;
            micro::pingpong(&spec)
        }
        Workload::MessageRate => {
            spec.only_params(message_rate::PARAMS)?;
            message_rate::message_rate(spec)
        }
        Workload::Incast => {
            spec.only_params(&["target", "put", "flush_each", "completion"])?;
            aggressors::incast(&spec)
        }
        Workload::AlltoallAggressor => {
            spec.only_params(&["first_round"])?;
            aggressors::alltoall(&spec)
        }
        Workload::GpcnetRrLatency => {
            spec.only_params(&["rings", "warmup_iterations"])?;
            gpcnet::random_ring(&spec, 8, 1, false)
        }
        Workload::GpcnetRrBandwidth => {
            spec.only_params(&["rings", "warmup_iterations"])?;
            gpcnet::random_ring(&spec, 131_072, gpcnet::BW_OUTSTANDING, true)
        }
        Workload::GpcnetAllreduce => {
            spec.only_params(&["warmup_iterations"])?;
            gpcnet::allreduce(&spec)
        }
        Workload::GpcnetCongestor(kind) => {
            spec.only_params(&[])?;
            gpcnet::congestor(&spec, kind)
        }
        Workload::Halo3d => {
            spec.only_params(&["px", "py", "pz", "periodic"])?;
            halo::halo3d(&spec)
        }
        Workload::Sweep3d => {
            spec.only_params(&["px", "py", "kblocks"])?;
            halo::sweep3d(&spec)
        }
        Workload::Milc => {
            spec.only_params(&["px", "py", "pz", "pt", "cg_allreduces"])?;
            proxies::milc(&spec)
        }
        Workload::Hpcg => {
            spec.only_params(&["px", "py", "pz", "dot_products"])?;
            proxies::hpcg(&spec)
        }
        Workload::Lammps => {
            spec.only_params(&["px", "py", "pz"])?;
            proxies::lammps(&spec)
        }
        Workload::Fft => {
            spec.only_params(&["prow", "pcol"])?;
            proxies::fft(&spec)
        }
        Workload::Resnet => {
            spec.only_params(&["buckets"])?;
            proxies::resnet(&spec)
        }
        Workload::Amg => {
            spec.only_params(amg::PARAMS)?;
            amg::amg(&spec)
        }
        Workload::Multigrid => {
            spec.only_params(multigrid::PARAMS)?;
            multigrid::multigrid(&spec)
        }
        Workload::Service(name) => {
            spec.only_params(service::PARAMS)?;
            service::service(&spec, name)
        }
        Workload::Trace | Workload::Program => unreachable!("traces and inline programs bring their own program"),
    }
}
