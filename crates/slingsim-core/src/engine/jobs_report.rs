//! Results of MPI jobs: per-job times, iterations, message latencies and
//! where unfinished ranks wait.

use crate::names::Named;
use super::{Simulation, NEVER};
use crate::mpi::state::{Blocked, Job};
use crate::table::{Column, Table};
use crate::units::{ps_to_ns, Ps};
use serde_json::{json, Map, Value};

/// At most this many waiting ranks are listed per job.
const MAX_LISTED: usize = 20;

impl Simulation {
    /// Iteration times of a job (ps): the latest rank's mark of each
    /// iteration minus that of the one before (the job's start for the
    /// first); only iterations every rank has marked.
    pub(crate) fn iteration_times(&self, j: usize) -> Vec<Ps> {
        let job = &self.mpi.jobs[j];
        let mut out = Vec::new();
        let mut prev = job.start;
        for (i, &m) in job.iteration_marks.iter().enumerate() {
            if job.ranks_at_mark[i] < job.ranks {
                break;
            }
            out.push(m.saturating_sub(prev));
            prev = m;
        }
        out
    }

    /// The NIC counters of a job's nodes (every rail), summed: what
    /// [DeSensi19] reads per job, its packets' mean latency `L` and mean
    /// stall per flit `s` among them. A node shared with another job
    /// counts that job's packets too.
    fn job_nic_counters(&self, nodes: &[u32]) -> Value {
        let mut c = super::nic::NicCounters::default();
        for &n in nodes {
            c.add(&self.node_nic_counters(n));
        }
        json!({
            "packets_sent": c.packets,
            "flits_sent": c.flits,
            "packets_delivered": c.delivered,
            "mean_latency_ns": c.mean_latency_ns(),
            "stall_ns_per_flit": c.stall_ns_per_flit(),
        })
    }

    /// `jobs` of the summary: one entry per job.
    pub(crate) fn jobs_summary(&self) -> Value {
        let mut out = Map::new();
        for (j, job) in self.mpi.jobs.iter().enumerate() {
            out.insert(job.name.clone(), self.job_summary(j, job));
        }
        Value::Object(out)
    }

    /// The summary of job `j`.
    fn job_summary(&self, j: usize, job: &Job) -> Value {
        let times: Vec<f64> = self.iteration_times(j).iter().map(|&t| ps_to_ns(t)).collect();
        let stats = iteration_stats(&times);
        // A job that lost data did not do what it was asked, even if
        // its ranks ran to the end of their programs.
        let ended = job.end != NEVER;
        let finished = ended && job.lost_messages == 0;
        let waiting = self.waiting_ranks(job);
        let comm = self.communication_times(j);
        let (app_aware, app_aware_decisions) = app_aware_summary(job);
        let stop_rule = stop_rule_summary(job);
        let mut entry = json!({
            "ranks": job.ranks,
            "nodes": job.nodes.len(),
            "node_ids": job.nodes,
            "ppn": job.ppn,
            "repeat": job.repeat,
            "start_ns": ps_to_ns(job.start),
            "finished": finished,
            "end_ns": if ended { json!(ps_to_ns(job.end)) } else { Value::Null },
            "runtime_ns": if finished { json!(ps_to_ns(job.end - job.start)) } else { Value::Null },
            "lost_messages": job.lost_messages,
            "lost_bytes": job.lost_bytes,
            "iterations": times.len(),
            "iteration_ns": stats,
            "iteration_times_ns": times,
            "iteration_packet_latency_ns": job.iteration_packet_latency.iter().take(times.len()).map(|m| m.map(|ps| ps / 1000.0)).collect::<Vec<_>>(),
            "passes": job.passes,
            "messages": job.messages,
            "collective_messages": job.collective_messages,
            "memory_messages": job.memory_messages,
            "bytes": job.bytes,
            "message_latency_ns": job.message_latency.summary(1e-3),
            "timed_ns": job.timed.summary(1e-3),
            "timed_window_ns": timed_windows(&job.timed_windows),
            "unknown_waits": job.unknown_waits,
            "warnings": job.program.warnings,
            "ranks_done": job.ranks_done,
            "waiting_ranks": waiting,
            "app_aware_messages": app_aware,
            "app_aware_decisions": app_aware_decisions,
            "nic_counters": self.job_nic_counters(&job.nodes),
            "matching": {
                "messages": job.matched_messages,
                "failed_attempts": job.failed_match_attempts,
                "failed_attempts_per_message": job.failed_match_attempts as f64 / job.matched_messages.max(1) as f64,
            },
            "rendezvous": job.rendezvous.summary(),
            "collective_rounds": job.round_spread.summary(),
            "max_comm_time_ns": comm.max_span,
            "mpi_time_ns": comm.mpi_time,
            "mpi_time_fraction": comm.mpi_fraction,
            "mpi_cpu_ns": comm.mpi_cpu,
            "mpi_cpu_fraction": comm.mpi_cpu_fraction,
        });
        if !stop_rule.is_null() {
            entry["stop_rule"] = stop_rule;
        }
        if self.mpi.p().noise.is_some() {
            entry["host_noise"] = self.host_noise_summary(job);
        }
        entry
    }

    /// Ranks of `job` waiting on a request when the run ended (at most
    /// `MAX_LISTED`): where each one stopped in its program.
    fn waiting_ranks(&self, job: &Job) -> Vec<Value> {
        self
            .mpi
            .ranks
            .iter()
            .skip(job.first_rank as usize)
            .take(job.ranks as usize)
            .filter(|r| r.blocked == Blocked::Wait && !job.repeat)
            .take(MAX_LISTED)
            .map(|r| json!({"rank": r.world, "node": r.node, "op_index": r.pc.saturating_sub(1), "op": job.program.ops[r.world as usize].get(r.pc.saturating_sub(1))}))
            .collect()
    }

    /// How long host noise's detours held up the ranks of `job`.
    fn host_noise_summary(&self, job: &Job) -> Value {
        let ranks = &self.mpi.ranks[job.first_rank as usize..(job.first_rank + job.ranks) as usize];
        let total: u64 = ranks.iter().map(|r| r.detoured.0).sum();
        json!({
            "detoured_ns": total as f64 / 1000.0,
            "detoured_ns_per_rank": total as f64 / 1000.0 / job.ranks.max(1) as f64,
        })
    }

    /// One row per job iteration: job, iteration, time.
    pub fn iterations_table(&self) -> Table {
        let (mut job, mut it, mut ns) = (Vec::new(), Vec::new(), Vec::new());
        for (j, x) in self.mpi.jobs.iter().enumerate() {
            for (i, t) in self.iteration_times(j).into_iter().enumerate() {
                job.push(x.name.clone());
                it.push(i as u64);
                ns.push(ps_to_ns(t));
            }
        }
        let mut t = Table::default();
        t.push("job", Column::Str(job));
        t.push("iteration", Column::U64(it));
        t.push("time_ns", Column::F64(ns));
        t
    }
}

/// A job's communication times (null where they do not apply).
struct CommunicationTimes {
    /// [McGlohon19] Sec. 6.2: per rank, from its first message to the
    /// completion of its last request; the maximum over the ranks.
    max_span: Value,
    /// Per rank, time from the job's start to the rank's end not spent in
    /// compute operations (CODES' "comm. time": elapsed minus compute):
    /// `{mean, max}` over the ranks.
    mpi_time: Value,
    /// Mean over the ranks of that time, divided by the job's run time.
    mpi_fraction: Value,
    /// Per rank, the MPI work its CPU did (the layers' per-message times,
    /// eager copies, software matching; [`crate::mpi::state::Rank::cpu_work`]):
    /// `{mean, max}` over the ranks.
    mpi_cpu: Value,
    /// The busiest rank's MPI CPU work over the job's run time: near 1, a
    /// CPU was busy with MPI the whole run, and the host bounds the job.
    mpi_cpu_fraction: Value,
}

impl Simulation {
    /// Communication times of job `j`: null unless every rank finished (a
    /// repeating job's ranks never do), the span null if no rank sent.
    fn communication_times(&self, j: usize) -> CommunicationTimes {
        let job = &self.mpi.jobs[j];
        let ranks = &self.mpi.ranks[job.first_rank as usize..(job.first_rank + job.ranks) as usize];
        let finished = job.end != NEVER && !job.repeat && ranks.iter().all(|r| r.done_at != NEVER);
        if !finished {
            return CommunicationTimes {
                max_span: Value::Null,
                mpi_time: Value::Null,
                mpi_fraction: Value::Null,
                mpi_cpu: Value::Null,
                mpi_cpu_fraction: Value::Null,
            };
        }
        let max_span = ranks
            .iter()
            .filter(|r| r.first_message != NEVER)
            .map(|r| r.last_completion.saturating_sub(r.first_message))
            .max()
            .map_or(Value::Null, |ps| json!(ps_to_ns(ps)));
        let mpi: Vec<Ps> = ranks
            .iter()
            .map(|r| {
                let compute: Ps = job.program.ops[r.world as usize]
                    .iter()
                    .map(|op| match op {
                        crate::mpi::Op::Compute { ns } => crate::units::ns_to_ps(*ns),
                        _ => Ps::ZERO,
                    })
                    .sum();
                (r.done_at - job.start).saturating_sub(compute)
            })
            .collect();
        let mean = mpi.iter().map(|&t| t.as_f64()).sum::<f64>() / mpi.len().max(1) as f64;
        let runtime = (job.end - job.start).as_f64();
        let cpu_mean = ranks.iter().map(|r| r.cpu_work.as_f64()).sum::<f64>() / ranks.len().max(1) as f64;
        let cpu_max = ranks.iter().map(|r| r.cpu_work).max().unwrap_or(Ps::ZERO);
        CommunicationTimes {
            max_span,
            mpi_time: json!({"mean": mean / 1000.0, "max": ps_to_ns(mpi.iter().copied().max().unwrap_or(Ps::ZERO))}),
            mpi_fraction: if runtime > 0.0 { json!(mean / runtime) } else { Value::Null },
            mpi_cpu: json!({"mean": cpu_mean / 1000.0, "max": ps_to_ns(cpu_max)}),
            mpi_cpu_fraction: if runtime > 0.0 { json!(cpu_max.as_f64() / runtime) } else { Value::Null },
        }
    }
}

/// Mean, median, p99, min, max and the quartile coefficient of dispersion
/// QCD = (Q3 - Q1) / (Q3 + Q1) (paper 004 Sec. 3.3) of iteration times.
fn iteration_stats(times: &[f64]) -> Value {
    if times.is_empty() {
        return Value::Null;
    }
    let mut v = times.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let q = |f: f64| {
        let x = f * (v.len() - 1) as f64;
        let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (x - lo as f64)
    };
    let (q1, q3) = (q(0.25), q(0.75));
    json!({
        "mean": v.iter().sum::<f64>() / v.len() as f64,
        "p50": q(0.5),
        "p99": q(0.99),
        "min": v[0],
        "max": v[v.len() - 1],
        "qcd": if q1 + q3 > 0.0 { (q3 - q1) / (q3 + q1) } else { 0.0 },
    })
}

/// The spans of a job's timed windows (first start to last stop over its
/// ranks, per iteration), summarised as the ranks' timers are.
fn timed_windows(windows: &[(Ps, Ps)]) -> Value {
    let mut h = crate::metrics::Histogram::default();
    for &(a, b) in windows.iter().filter(|(a, b)| a <= b) {
        h.record(b - a);
    }
    h.summary(1e-3)
}

/// Messages `job` sent in each routing mode and the decisions behind them
/// (application-aware routing only; null otherwise).
fn app_aware_summary(job: &Job) -> (Value, Value) {
    let modes = crate::mpi::app_aware::MODES;
    if job.app_aware {
        (
            json!({modes[0].name(): job.mode_messages[0], modes[1].name(): job.mode_messages[1]}),
            json!({"decisions": job.mode_decisions, "switches": job.mode_switches}),
        )
    } else {
        (Value::Null, Value::Null)
    }
}

/// The statistical stopping rule of `job`, if it has one: met or not, after
/// how many iterations, the median and its 95% interval.
fn stop_rule_summary(job: &Job) -> Value {
    match job.stop {
        None => Value::Null,
        Some(rule) => {
            let ns = |ps: f64| ps / 1000.0;
            let m = job.stop_interval;
            json!({
                "min_iterations": rule.min_iterations,
                "min_time_ns": ps_to_ns(rule.min_time),
                "ci_fraction": rule.ci_fraction,
                "met": job.stop_met_at.is_some(),
                "met_after_iterations": job.stop_met_at,
                "median_ns": m.map(|m| ns(m.median)),
                "ci95_ns": m.map(|m| [ns(m.lo), ns(m.hi)]),
            })
        }
    }
}
