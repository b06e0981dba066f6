"""Many simulations at once: fan configs out over Dask, and sweep offered load.

One simulation is one Dask task. By default a local cluster of threads (one
per core) runs them; the engine releases the GIL, so threads simulate in
parallel without copying results between processes. ``scheduler`` may
instead name an existing Dask scheduler (``"tcp://host:port"``, its workers
need slingsim installed) or ``"sync"`` to run serially in this process.
Results always come back in input order.
"""
from __future__ import annotations

import copy
import logging
import os
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from .api import Simulation
from .config import Config, ConfigError, name_entries
from .progress import ProgressBar
from .result import Result

if TYPE_CHECKING:
    import pyarrow as pa

LOAD_CURVE_COLUMNS = (
    "load",
    "offered_load",
    "accepted_load",
    "latency_mean_ns",
    "latency_p50_ns",
    "latency_p99_ns",
    "latency_p999_ns",
    "hops_mean",
    "nonminimal_fraction",
    "end_reason",
)
"""Columns of a load sweep table (plus ``label`` when one is given)."""


def default_workers() -> int:
    """Cores this process may use: one simulation thread per core."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def simulate_result(cfg: Config) -> Result:
    """One Dask task: run a resolved config and return its full :class:`Result`."""
    return Simulation(cfg).run()


def simulate_summary(cfg: Config) -> Dict[str, Any]:
    """One Dask task: run a resolved config and return only its summary (light to gather)."""
    return Simulation(cfg).run().summary


def run_many(
    configs: Sequence[Config],
    scheduler: Optional[str] = None,
    workers: Optional[int] = None,
    progress: bool = False,
) -> List[Result]:
    """Run every config (one task each) and return their results in input order."""
    return fan_out(simulate_result, configs, scheduler, workers, progress)


def run_summaries(
    configs: Sequence[Config],
    scheduler: Optional[str] = None,
    workers: Optional[int] = None,
    progress: bool = False,
) -> List[Dict[str, Any]]:
    """Like :func:`run_many` but return only the summaries, which is all a sweep table needs."""
    return fan_out(simulate_summary, configs, scheduler, workers, progress)


def run_labelled(
    points: Sequence[Tuple[Dict[str, Any], Config]],
    scheduler: Optional[str] = None,
    workers: Optional[int] = None,
    progress: bool = False,
) -> List[Tuple[Dict[str, Any], Dict[str, Any]]]:
    """Run every ``(labels, config)`` point of a study; return ``(labels, summary)`` pairs in input order."""
    summaries = run_summaries([cfg for _, cfg in points], scheduler, workers, progress)
    return [(labels, summary) for (labels, _), summary in zip(points, summaries)]


def fan_out(
    task: Callable[[Config], Any],
    configs: Sequence[Config],
    scheduler: Optional[str],
    workers: Optional[int],
    progress: bool,
) -> List[Any]:
    """Apply ``task`` to every config on the chosen scheduler; outputs in input order."""
    configs = list(configs)
    if workers is not None and workers < 1:
        raise ValueError(f"workers: {workers} is not a positive number of threads; give 1 or more")
    with ProgressBar(len(configs), f"{len(configs)} simulations", enabled=progress) as bar:
        if scheduler == "sync":
            outputs = []
            for cfg in configs:
                outputs.append(task(cfg))
                bar.update(len(outputs))
            return outputs
        return _fan_out_dask(task, configs, scheduler, workers, bar)


def _fan_out_dask(task, configs, scheduler, workers, bar) -> List[Any]:
    """Submit one task per config to a Dask client and gather the outputs in order."""
    from distributed import Client, LocalCluster, as_completed

    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers or default_workers(),
            threads_per_worker=1,
            processes=False,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    elif scheduler.startswith(("tcp://", "tls://", "inproc://", "ws://", "wss://")):
        cluster = None
        client = Client(scheduler)
    else:
        raise ValueError(
            f"scheduler: {scheduler!r} is not a scheduler address; give tcp://host:port, "
            "'sync' for serial in-process runs, or nothing for a local cluster"
        )
    try:
        futures = client.map(task, configs, pure=False)
        for done, _ in enumerate(as_completed(futures), start=1):
            bar.update(done)
        return client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def bernoulli_sources(cfg: Config) -> List[str]:
    """Names of the traffic sources with Bernoulli injection (no ``flow_bytes``)."""
    return [src["name"] for src in cfg.get("traffic", []) if "flow_bytes" not in src]


def check_loads(loads: Iterable[float]) -> List[float]:
    """The loads as floats, or a ValueError naming the first negative or non-numeric one."""
    checked = []
    for load in loads:
        if isinstance(load, bool) or not isinstance(load, (int, float)) or load != load:
            raise ValueError(f"loads: {load!r} is not a number; give fractions of injection bandwidth such as 0.1,0.2")
        if load < 0:
            raise ValueError(f"loads: {load} is negative; offered load is a fraction of injection bandwidth, 0 or more")
        checked.append(float(load))
    if not checked:
        raise ValueError("loads: empty; give at least one offered load such as 0.5")
    return checked


def configs_at_loads(cfg: Config, loads: Iterable[float], source: Optional[str] = None) -> List[Config]:
    """One config per load, with ``load`` set on the named source, or on every Bernoulli source."""
    cfg = name_entries(copy.deepcopy(cfg))
    targets = bernoulli_sources(cfg)
    if source is not None:
        if source not in targets:
            raise ConfigError(
                f"source {source!r}: not a Bernoulli traffic source of this config; "
                f"choose one of: {', '.join(targets) or '(none: every source sends fixed-size flows)'}"
            )
        targets = [source]
    elif not targets:
        raise ConfigError("traffic: no Bernoulli source to sweep (all sources set flow_bytes); add one without flow_bytes")
    configs = []
    for load in check_loads(loads):
        point = copy.deepcopy(cfg)
        for src in point["traffic"]:
            if src["name"] in targets:
                src["load"] = load
        configs.append(point)
    return configs


def load_curve_row(load: float, summary: Dict[str, Any], source: Optional[str] = None) -> Dict[str, Any]:
    """One row of a load sweep: the named source's figures, or the whole run's (latency None if nothing was delivered)."""
    figures = summary["traffic"][source] if source is not None else summary
    latency = figures["latency_ns"]
    if latency.get("count") == 0:  # nothing measured was delivered: no latency, not zero
        latency = {key: None for key in latency}
    return {
        "load": load,
        "offered_load": figures["offered_load"],
        "accepted_load": figures["accepted_load"],
        "latency_mean_ns": latency["mean"],
        "latency_p50_ns": latency["p50"],
        "latency_p99_ns": latency["p99"],
        "latency_p999_ns": latency["p999"],
        "hops_mean": figures["hops_mean"],
        "nonminimal_fraction": figures["nonminimal_fraction"],
        "end_reason": summary["end_reason"],
    }


def sweep_load(
    cfg: Config,
    loads: Iterable[float],
    source: Optional[str] = None,
    label: Optional[str] = None,
    scheduler: Optional[str] = None,
    workers: Optional[int] = None,
    progress: bool = False,
) -> "pa.Table":
    """Run ``cfg`` at each offered load and return the load curve as a table.

    ``load`` is set on every Bernoulli source, or only on ``source`` (whose
    own figures then fill the table). Columns: :data:`LOAD_CURVE_COLUMNS`,
    plus ``label`` when given (one line per label in the plots).
    """
    loads = check_loads(loads)
    summaries = run_summaries(configs_at_loads(cfg, loads, source), scheduler, workers, progress)
    rows = [load_curve_row(load, summary, source) for load, summary in zip(loads, summaries)]
    if label is not None:
        for row in rows:
            row["label"] = label
    import pyarrow as pa

    return pa.Table.from_pylist(rows)


__all__ = [
    "LOAD_CURVE_COLUMNS",
    "bernoulli_sources",
    "check_loads",
    "configs_at_loads",
    "default_workers",
    "fan_out",
    "load_curve_row",
    "run_many",
    "run_summaries",
    "sweep_load",
]
