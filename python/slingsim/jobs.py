"""MPI jobs: isolated baselines and congestion impact ([DeSensi20] Eq. 1).

A job's congestion impact is C = mean(T_congested) / mean(T_isolated) of
its iteration times: ``T_isolated`` from a run of the job alone (every
other job and traffic source dropped), ``T_congested`` from the run as
configured. The 99th-percentile ratio and, for jobs with rank timers
(GPCNeT victims, services), the ratios of their timed distributions are
reported beside it.
"""
from __future__ import annotations

import copy
from typing import Any, Dict, Iterable, List, Optional

from .config import Config, ConfigError, resolve


def job_names(cfg: Config) -> List[str]:
    """Names of the config's jobs, in order."""
    return [job.get("name") for job in cfg.get("job", [])]


def isolate(cfg: Config, job: str) -> Config:
    """A copy of ``cfg`` running only ``job``: other jobs and all traffic sources dropped."""
    names = job_names(cfg)
    if job not in names:
        raise ConfigError(f"impact: no job named {job!r}; the config has jobs {names}")
    out = copy.deepcopy(cfg)
    out["job"] = [j for j in out["job"] if j.get("name") == job]
    out.pop("traffic", None)
    return out


def _ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return a / b if a is not None and b not in (None, 0) else None


def impact(isolated: Dict[str, Any], congested: Dict[str, Any], job: str) -> Dict[str, Any]:
    """Congestion impact of ``job`` from the summaries of its isolated and congested runs."""
    iso, con = isolated["jobs"][job], congested["jobs"][job]
    for label, j in (("isolated", iso), ("congested", con)):
        if not j["iteration_ns"]:
            raise ConfigError(f"impact: job {job!r} completed no iteration in the {label} run "
                              f"(end reason {(isolated if label == 'isolated' else congested)['end_reason']!r}); "
                              "give it iterations and a long enough sim.max_time_ns")
    out = {
        "job": job,
        "isolated_iteration_ns": iso["iteration_ns"],
        "congested_iteration_ns": con["iteration_ns"],
        "impact_mean": _ratio(con["iteration_ns"]["mean"], iso["iteration_ns"]["mean"]),
        "impact_p99": _ratio(con["iteration_ns"]["p99"], iso["iteration_ns"]["p99"]),
    }
    if iso["timed_ns"].get("count") and con["timed_ns"].get("count"):
        out["timed_impact_mean"] = _ratio(con["timed_ns"]["mean"], iso["timed_ns"]["mean"])
        out["timed_impact_p99"] = _ratio(con["timed_ns"]["p99"], iso["timed_ns"]["p99"])
    return out


def congestion_impact(
    config: Any,
    job: str,
    overrides: Iterable[str] = (),
    seed: Optional[int] = None,
    scheduler: Any = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: Any = True,
) -> Dict[str, Any]:
    """Run ``job`` alone and as configured (two simulations, in parallel over
    Dask) and return its congestion impact plus both summaries
    (``isolated_summary``, ``congested_summary``); ``scheduler`` and ``cache``
    are those of :func:`slingsim.sweep.run_summaries`."""
    from .sweep import run_summaries

    cfg = resolve(config, overrides, seed=seed)
    summaries = run_summaries([isolate(cfg, job), cfg], scheduler, workers, progress, cache)
    out = impact(summaries[0], summaries[1], job)
    out["isolated_summary"], out["congested_summary"] = summaries
    return out
