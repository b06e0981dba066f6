//! Programs of the named workloads a job can run (docs/workloads.md).

mod aggressors;
#[cfg(test)]
mod check;
pub mod gpcnet;
mod halo;
mod micro;
mod proxies;
mod service;

use crate::error::{ConfigError, Result};
use crate::mpi::config::JobConfig;
use crate::mpi::op::{Collective, Op, Program};

/// What a workload generator gets: the job's config, its rank count and
/// its random seed.
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

/// Names of the generated workloads, for errors and docs.
pub const NAMES: &[&str] = &[
    "allreduce",
    "alltoall",
    "barrier",
    "bcast",
    "reduce",
    "allgather",
    "pingpong",
    "incast",
    "alltoall-aggressor",
    "gpcnet-rr-latency",
    "gpcnet-rr-bandwidth",
    "gpcnet-allreduce",
    "gpcnet-alltoall",
    "gpcnet-incast",
    "gpcnet-put-incast",
    "gpcnet-get-bcast",
    "halo3d",
    "sweep3d",
    "milc",
    "hpcg",
    "lammps",
    "fft",
    "resnet",
    "service",
    "silo",
    "xapian",
    "img-dnn",
    "sphinx",
];

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
    let name = job.workload.as_str();
    let collective = match name {
        "allreduce" => Some(Collective::Allreduce),
        "alltoall" => Some(Collective::Alltoall),
        "barrier" => Some(Collective::Barrier),
        "bcast" => Some(Collective::Bcast),
        "reduce" => Some(Collective::Reduce),
        "allgather" => Some(Collective::Allgather),
        _ => None,
    };
    if let Some(kind) = collective {
        spec.only_params(&[])?;
        return micro::collective(&spec, kind);
    }
    match name {
        "pingpong" => {
            spec.only_params(&[])?;
            micro::pingpong(&spec)
        }
        "incast" => {
            spec.only_params(&["target", "put"])?;
            aggressors::incast(&spec)
        }
        "alltoall-aggressor" => {
            spec.only_params(&[])?;
            aggressors::alltoall(&spec)
        }
        "gpcnet-rr-latency" => {
            spec.only_params(&[])?;
            gpcnet::random_ring(&spec, 8, 1, false)
        }
        "gpcnet-rr-bandwidth" => {
            spec.only_params(&[])?;
            gpcnet::random_ring(&spec, 131_072, gpcnet::BW_OUTSTANDING, true)
        }
        "gpcnet-allreduce" => {
            spec.only_params(&[])?;
            gpcnet::allreduce(&spec)
        }
        "gpcnet-alltoall" | "gpcnet-incast" | "gpcnet-put-incast" | "gpcnet-get-bcast" => {
            spec.only_params(&[])?;
            gpcnet::congestor(&spec, &name["gpcnet-".len()..])
        }
        "halo3d" => {
            spec.only_params(&["px", "py", "pz", "periodic"])?;
            halo::halo3d(&spec)
        }
        "sweep3d" => {
            spec.only_params(&["px", "py", "kblocks"])?;
            halo::sweep3d(&spec)
        }
        "milc" => {
            spec.only_params(&["px", "py", "pz", "pt", "cg_allreduces"])?;
            proxies::milc(&spec)
        }
        "hpcg" => {
            spec.only_params(&["px", "py", "pz", "dot_products"])?;
            proxies::hpcg(&spec)
        }
        "lammps" => {
            spec.only_params(&["px", "py", "pz"])?;
            proxies::lammps(&spec)
        }
        "fft" => {
            spec.only_params(&["prow", "pcol"])?;
            proxies::fft(&spec)
        }
        "resnet" => {
            spec.only_params(&["buckets"])?;
            proxies::resnet(&spec)
        }
        "service" | "silo" | "xapian" | "img-dnn" | "sphinx" => {
            spec.only_params(service::PARAMS)?;
            service::service(&spec, name)
        }
        other => Err(ConfigError::new(
            format!("{field}.workload"),
            format!("unknown workload {other:?}; use one of {NAMES:?}, \"trace\" (with trace = PATH) or \"program\" (with an inline program)"),
        )),
    }
}
