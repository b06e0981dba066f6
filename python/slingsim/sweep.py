"""Many simulations at once: fan configs out over Dask, keep them in the result store, sweep offered load.

One simulation is one Dask task. By default a quiet local cluster of
threads (one per core) runs them; the engine releases the GIL, so threads
simulate in parallel without copying results between processes.
``scheduler`` may instead name a running Dask scheduler
(``"tcp://host:port"``, its workers need slingsim installed), be a
``distributed.Client`` or a :class:`~slingsim.cluster.BatchCluster` (Slurm
through dask-jobqueue), or ``"sync"`` to run serially in this process (see
:mod:`slingsim.cluster`). Results always come back in input order.

With a result store (``cache``, on by default, see :mod:`slingsim.store`)
every config is first looked up by the hash of its resolved form; only the
missing ones are simulated, and each finished run is stored as soon as it
comes back, so a study killed halfway resumes where it stopped. Identical
configs in one call are simulated once. Every summary carries ``cached``
(True if it was read from the store) and ``key`` (its store key).
"""
from __future__ import annotations

import copy
import sys
import warnings
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from . import provenance
from .api import Simulation, resolved_config
from .cluster import SchedulerLike, check_scheduler, dask_client, default_workers
from .config import Config, ConfigError, name_entries
from .progress import Progress
from .result import Result
from .store import CacheLike, ResultStore, open_store, run_key
from .study_overrides import with_study_overrides

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
    "cached",
)
"""Columns of a load sweep table (plus ``label`` when one is given)."""


def simulate_result(cfg: Config, command: Optional[str] = None) -> Result:
    """One Dask task: run a resolved config and return its full :class:`Result`."""
    return Simulation(cfg, command=command).run()


def simulate_summary(cfg: Config, command: Optional[str] = None) -> Dict[str, Any]:
    """One Dask task: run a resolved config and return only its summary (light to gather)."""
    return Simulation(cfg, command=command).run().summary


def run_many(
    configs: Sequence[Config],
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> List[Result]:
    """Run every config (one task each) and return their results in input order."""
    return fan_out(configs, scheduler, workers, progress, cache, tables=True)


def run_summaries(
    configs: Sequence[Config],
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> List[Dict[str, Any]]:
    """Like :func:`run_many` but return only the summaries, which is all a sweep table needs."""
    return fan_out(configs, scheduler, workers, progress, cache, tables=False)


def run_labelled(
    points: Sequence[Tuple[Dict[str, Any], Config]],
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> List[Tuple[Dict[str, Any], Dict[str, Any]]]:
    """Run every ``(labels, config)`` point of a study; return ``(labels, summary)`` pairs in input order."""
    summaries = run_summaries([cfg for _, cfg in points], scheduler, workers, progress, cache)
    return [(labels, summary) for (labels, _), summary in zip(points, summaries)]


def fan_out(
    configs: Sequence[Config],
    scheduler: SchedulerLike,
    workers: Optional[int],
    progress: bool,
    cache: CacheLike,
    tables: bool,
) -> List[Any]:
    """Run every config on the chosen scheduler, reading and filling the store;
    :class:`Result` objects if ``tables``, else summaries, in input order."""
    if workers is not None and workers < 1:
        raise ValueError(f"workers: {workers} is not a positive number of threads; give 1 or more")
    check_scheduler(scheduler)
    # every config is checked before any runs; a study's --set applies here, before the cache key
    resolved = [with_study_overrides(resolved_config(cfg)) for cfg in configs]
    keys = [run_key(cfg) for cfg in resolved]
    store = open_store(cache)
    outputs: Dict[str, Any] = {}
    if store is not None:
        for key in dict.fromkeys(keys):
            found = store.result(key) if tables else store.summary(key)
            if found is not None:
                outputs[key] = found
    stored = sum(key in outputs for key in keys)
    todo = {key: cfg for key, cfg in zip(keys, resolved) if key not in outputs}
    command = provenance.command_line()
    with Progress(len(keys), "simulations", unit="run", enabled=progress) as bar:
        if stored:
            bar.note(f"{stored} from the store")
        done = stored
        for key, output in _simulate(todo, command, scheduler, workers, tables):
            if store is not None:
                _store(store, key, output, tables)
            outputs[key] = output
            done += keys.count(key)
            bar.update(done)
    if progress and store is not None and len(keys) > 1:
        print(f"slingsim: {stored} of {len(keys)} runs read from the result store {store.root}, "
              f"{len(keys) - stored} simulated", file=sys.stderr)
    return [_marked(outputs[key], key, cached=key not in todo, tables=tables) for key in keys]


def _simulate(todo: Dict[str, Config], command: str, scheduler: SchedulerLike, workers: Optional[int],
              tables: bool) -> Iterator[Tuple[str, Any]]:
    """Run the configs ``todo`` (key -> config); yield ``(key, output)`` as each finishes."""
    if not todo:
        return
    task = simulate_result if tables else simulate_summary
    if scheduler == "sync":
        for key, cfg in todo.items():
            yield key, task(cfg, command)
        return
    from distributed import as_completed

    with dask_client(scheduler, workers) as client:
        # A study's configs may carry whole MPI programs (16,384 ranks of a
        # bisection: megabytes), which Dask warns about as a "large graph".
        # They are sent once either way; scattering them first would make a
        # batch cluster wait for its first worker before anything is queued.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
            futures = {client.submit(task, cfg, command, pure=False): key for key, cfg in todo.items()}
        for future in as_completed(futures):
            yield futures[future], future.result()


def _store(store: ResultStore, key: str, output: Any, tables: bool) -> None:
    """Put a finished run into the store (with its tables when it is a Result)."""
    if tables:
        store.put(key, output.summary, output)
    else:
        store.put(key, output)


def _marked(output: Any, key: str, cached: bool, tables: bool) -> Any:
    """The output with ``cached`` and ``key`` set on its summary (a copy, so repeats stay independent)."""
    if tables:
        marked = copy.copy(output)
        marked.summary = {**output.summary, "cached": cached, "key": key}
        return marked
    return {**output, "cached": cached, "key": key}


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
        "cached": bool(summary.get("cached", False)),
    }


def sweep_load(
    cfg: Config,
    loads: Iterable[float],
    source: Optional[str] = None,
    label: Optional[str] = None,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> "pa.Table":
    """Run ``cfg`` at each offered load and return the load curve as a table.

    ``load`` is set on every Bernoulli source, or only on ``source`` (whose
    own figures then fill the table). Columns: :data:`LOAD_CURVE_COLUMNS`
    (``cached``: the point was read from the store), plus ``label`` when
    given (one line per label in the plots). The table's schema metadata
    holds the sweep's provenance with every run's resolved config.
    """
    started = provenance.now()
    loads = check_loads(loads)
    summaries = run_summaries(configs_at_loads(cfg, loads, source), scheduler, workers, progress, cache)
    rows = [load_curve_row(load, summary, source) for load, summary in zip(loads, summaries)]
    if label is not None:
        for row in rows:
            row["label"] = label
    import pyarrow as pa

    from .tables import with_provenance

    record = provenance.study_record(summaries, started, parameters={"loads": loads, "source": source, "label": label})
    return with_provenance(pa.Table.from_pylist(rows), record)


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
