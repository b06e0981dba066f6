//! From `[[job]]` tables to running jobs: node sets by placement, ranks on
//! nodes (consecutive ranks share a node, `ppn` per node), programs from
//! workloads, traces or inline.

use super::config::JobConfig;
use super::op::{Op, Program};
use super::runtime::{Params, Runtime};
use super::state::{Job, Rank};
use super::stop_rule::{StopRule, DEFAULT_CAP_FACTOR};
use crate::error::{ConfigError, Result};
use crate::metrics::Histogram;
use crate::rng::Rng;
use crate::traffic::nodes::{NodeAllocator, Selection};
use crate::units::{ns_to_ps, Ps};

/// A job with its nodes and program, before it has a traffic source.
pub struct JobPlan {
    pub name: String,
    pub nodes: Vec<u32>,
    pub ppn: u32,
    pub program: Program,
    pub start: Ps,
    pub repeat: bool,
    pub stop: Option<StopRule>,
}

/// Plans every job of the config in order, taking nodes from `alloc`
/// (after the traffic sources). `taken` are the traffic sources' names.
pub fn plan_jobs(jobs: &[JobConfig], alloc: &mut NodeAllocator, seed: u64, taken: &[String]) -> Result<Vec<JobPlan>> {
    let mut out: Vec<JobPlan> = Vec::with_capacity(jobs.len());
    for (i, j) in jobs.iter().enumerate() {
        let field = format!("job[{i}]");
        let name = j.name.clone().unwrap_or_else(|| format!("job{i}"));
        if taken.contains(&name) || out.iter().any(|p| p.name == name) {
            return Err(ConfigError::new(format!("{field}.name"), format!("{name:?} is already the name of a traffic source or job")));
        }
        if j.ppn == 0 {
            return Err(ConfigError::new(format!("{field}.ppn"), "must be at least 1 process per node"));
        }
        if !(j.start_ns.is_finite() && j.start_ns >= 0.0) {
            return Err(ConfigError::new(format!("{field}.start_ns"), "must be zero or positive"));
        }
        if !(j.compute_scale.is_finite() && j.compute_scale >= 0.0) {
            return Err(ConfigError::new(format!("{field}.compute_scale"), "must be zero (drop compute gaps) or positive"));
        }
        let (stop, capped) = stop_rule(&field, j)?;
        let j = capped.as_ref().unwrap_or(j);
        let mut rng = Rng::new(seed, 0x1_7000 + i as u64);
        let placement = j.placement;
        let fixed = fixed_program(&field, j)?;
        if j.ppn_copies && fixed.is_some() {
            return Err(ConfigError::new(
                format!("{field}.ppn_copies"),
                "copies per process are made of a named workload; a trace or inline program already names every rank: remove ppn_copies",
            ));
        }
        let mut sel = Selection::parse(&format!("{field}.nodes"), &j.nodes)?;
        if let (Some(p), Selection::All) = (&fixed, &sel) {
            sel = Selection::Count(p.ranks.div_ceil(j.ppn)); // a trace's ranks decide its nodes
        }
        let nodes = alloc.take(&format!("{field}.nodes"), &sel, placement, &mut rng)?;
        let slots = nodes.len() as u64 * j.ppn as u64;
        if slots > u32::MAX as u64 / 2 {
            return Err(ConfigError::new(format!("{field}.ppn"), "too many ranks"));
        }
        let program = match fixed {
            Some(p) => {
                let need = p.ranks.div_ceil(j.ppn);
                if nodes.len() as u32 != need {
                    return Err(ConfigError::new(
                        format!("{field}.nodes"),
                        format!("the program has {} ranks, which fill {need} nodes at ppn = {}, but the job has {} nodes; set nodes = {{ count = {need} }} or change ppn", p.ranks, j.ppn, nodes.len()),
                    ));
                }
                scale_compute(p, j.compute_scale)
            }
            None if j.ppn_copies => super::copies::per_process(generated_program(&field, j, nodes.len() as u32, seed)?, j.ppn),
            None => generated_program(&field, j, slots as u32, seed)?,
        };
        super::validate::validate(&format!("{field}.program"), &program)?;
        out.push(JobPlan { name, nodes, ppn: j.ppn, program, start: ns_to_ps(j.start_ns), repeat: j.repeat, stop });
    }
    Ok(out)
}

/// Job `j`'s stop rule, if it has one, and, when it leaves `iterations`
/// unset, the job with its cap in their place
/// ([`DEFAULT_CAP_FACTOR`] x the rule's minimum).
fn stop_rule(field: &str, j: &JobConfig) -> Result<(Option<StopRule>, Option<JobConfig>)> {
    use super::workloads::Workload;
    let Some(value) = &j.stop_rule else { return Ok((None, None)) };
    let at = format!("{field}.stop_rule");
    let rule = StopRule::parse(&at, value)?;
    if j.repeat {
        return Err(ConfigError::new(at, "a repeating job never stops on its own; remove repeat = true, or the stop rule"));
    }
    if j.workload == Workload::Trace {
        return Err(ConfigError::new(at, "a trace replays as recorded and has no iterations to stop after; use a named workload"));
    }
    match j.iterations {
        Some(n) if n < rule.min_iterations => Err(ConfigError::new(
            format!("{field}.iterations"),
            format!("is the most the stop rule may run, so at least its min_iterations ({}); raise it or leave it out (then {} x min_iterations)", rule.min_iterations, DEFAULT_CAP_FACTOR),
        )),
        Some(_) => Ok((Some(rule), None)),
        None => {
            let cap = rule.min_iterations.saturating_mul(DEFAULT_CAP_FACTOR);
            Ok((Some(rule), Some(JobConfig { iterations: Some(cap), ..j.clone() })))
        }
    }
}

/// The program a job running a named workload on `ranks` ranks gets in a
/// run with master seed `sim_seed` (`sim.seed`), its compute scaled by the
/// job's `compute_scale`.
pub fn generated_program(field: &str, j: &JobConfig, ranks: u32, sim_seed: u64) -> Result<Program> {
    let program = super::workloads::generate(field, j, ranks, sim_seed ^ j.seed.wrapping_mul(0x9E37_79B9))?;
    Ok(scale_compute(program, j.compute_scale))
}

/// [`generated_program`] of a `[[job]]` table given as JSON text, as the
/// JSON text of its [`Program`].
pub fn generated_program_json(job_json: &str, ranks: u32, sim_seed: u64) -> Result<String> {
    let de = &mut serde_json::Deserializer::from_str(job_json);
    let job: JobConfig = serde_path_to_error::deserialize(de).map_err(|e| ConfigError::new(format!("job.{}", e.path()), e.inner().to_string()))?;
    if matches!(job.workload, super::workloads::Workload::Trace | super::workloads::Workload::Program) {
        return Err(ConfigError::new("job.workload", "a trace or inline program is not generated; name a workload such as \"amg\" or \"multigrid\""));
    }
    if ranks == 0 {
        return Err(ConfigError::new("ranks", "must be at least 1"));
    }
    let program = generated_program("job", &job, ranks, sim_seed)?;
    super::validate::validate("job.program", &program)?;
    Ok(serde_json::to_string(&program).expect("a program serialises"))
}

/// The program of a job that brings its own (inline or a trace).
fn fixed_program(field: &str, j: &JobConfig) -> Result<Option<Program>> {
    use super::workloads::Workload;
    match j.workload {
        Workload::Program => {
            let p = j.program.clone().ok_or_else(|| ConfigError::new(format!("{field}.program"), "workload = \"program\" needs the program (ranks, comms, ops)"))?;
            Ok(Some(repeat_program(&format!("{field}.iterations"), p, j.iterations.unwrap_or(1))?))
        }
        Workload::Trace => {
            if j.iterations.is_some() {
                return Err(ConfigError::new(format!("{field}.iterations"), "a trace replays as recorded; remove iterations (use repeat = true to run it again and again)"));
            }
            let path = j.trace.as_deref().ok_or_else(|| ConfigError::new(format!("{field}.trace"), "workload = \"trace\" needs trace = PATH (a DUMPI .meta file or its folder)"))?;
            let trace = crate::trace::read_dumpi_trace(std::path::Path::new(path)).map_err(|e| ConfigError::new(format!("{field}.trace"), e.to_string()))?;
            Ok(Some(trace.program))
        }
        _ => {
            if j.program.is_some() || j.trace.is_some() {
                return Err(ConfigError::new(format!("{field}.workload"), "program and trace go with workload = \"program\" or \"trace\""));
            }
            Ok(None)
        }
    }
}

/// Each rank's ops `n` times in a row (an inline program's `iterations`).
fn repeat_program(field: &str, mut p: Program, n: u32) -> Result<Program> {
    if n == 0 {
        return Err(ConfigError::new(field, "must be at least 1"));
    }
    crate::limits::program_fits(field, n, p.ops.iter().map(|o| o.len() as u64).sum())?;
    for ops in p.ops.iter_mut() {
        let once = std::mem::take(ops);
        for _ in 0..n {
            ops.extend(once.iter().cloned());
        }
    }
    Ok(p)
}

/// Multiplies compute gaps by `scale`; 0 drops them.
fn scale_compute(mut p: Program, scale: f64) -> Program {
    if scale == 1.0 {
        return p;
    }
    for ops in p.ops.iter_mut() {
        if scale == 0.0 {
            ops.retain(|op| !matches!(op, Op::Compute { .. }));
        } else {
            for op in ops.iter_mut() {
                if let Op::Compute { ns } = op {
                    *ns *= scale;
                }
            }
        }
    }
    p
}

/// The run-time state of the planned jobs; `routing` gives each job's
/// traffic source, routing mode code, class and whether it routes per
/// message by application-aware routing; `stop_after` names the job whose
/// end ends the run (`sim.stop_after_job`).
pub fn runtime(plans: Vec<JobPlan>, routing: &[(u16, u8, u8, bool)], params: Params, stop_after: Option<&str>) -> Result<Runtime> {
    let mut rt = Runtime { params: Some(params), ..Default::default() };
    if let Some(name) = stop_after {
        let names: Vec<&str> = plans.iter().map(|p| p.name.as_str()).collect();
        let j = names.iter().position(|n| *n == name).ok_or_else(|| ConfigError::new("sim.stop_after_job", format!("no job named {name:?}; the jobs are {names:?}")))?;
        if plans[j].repeat {
            return Err(ConfigError::new("sim.stop_after_job", format!("job {name:?} repeats and never finishes; name a job without repeat")));
        }
    }
    for (j, (plan, &(source, alg, class, app_aware))) in plans.into_iter().zip(routing).enumerate() {
        let n = plan.program.ranks;
        let first_rank = rt.ranks.len() as u32;
        for w in 0..n {
            rt.ranks.push(Rank::new(j as u32, w, plan.nodes[(w / plan.ppn) as usize]));
        }
        let comm_rank = plan
            .program
            .comms
            .iter()
            .map(|members| {
                let mut v = vec![-1i32; n as usize];
                for (i, &m) in members.iter().enumerate() {
                    v[m as usize] = i as i32;
                }
                v
            })
            .collect();
        let counts = match stop_after {
            Some(name) => plan.name == name,
            None => !plan.repeat,
        };
        if counts {
            rt.jobs_left += 1;
        }
        rt.jobs.push(Job {
            name: plan.name,
            source,
            first_rank,
            ranks: n,
            ppn: plan.ppn,
            nodes: plan.nodes,
            program: plan.program,
            comm_rank,
            alg,
            app_aware,
            mode_messages: [0; 2],
            mode_decisions: 0,
            mode_switches: 0,
            class,
            repeat: plan.repeat,
            start: plan.start,
            end: Ps::MAX,
            ranks_done: 0,
            iteration_marks: Vec::new(),
            ranks_at_mark: Vec::new(),
            packet_latency_since: (0, 0),
            iteration_packet_latency: Vec::new(),
            stop: plan.stop,
            stop_after: None,
            stop_met_at: None,
            stop_interval: None,
            message_latency: Histogram::default(),
            timed: Histogram::default(),
            timed_windows: Vec::new(),
            messages: 0,
            bytes: 0,
            collective_messages: 0,
            memory_messages: 0,
            passes: 0,
            unknown_waits: 0,
            lost_messages: 0,
            lost_bytes: 0,
            matched_messages: 0,
            rendezvous: Default::default(),
            round_spread: Default::default(),
            failed_match_attempts: 0,
            ends_run: counts,
        });
    }
    for (j, job) in rt.jobs.iter().enumerate() {
        let s = job.source as usize;
        if rt.job_of_source.len() <= s {
            rt.job_of_source.resize(s + 1, u32::MAX);
        }
        rt.job_of_source[s] = j as u32;
    }
    if rt.jobs.iter().any(|j| j.app_aware) {
        rt.app_aware = vec![Default::default(); rt.ranks.len()];
    }
    Ok(rt)
}
