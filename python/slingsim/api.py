"""Public Python API: build, step and run simulations, and inspect topologies.

Configs are resolved here (preset or file, overrides, dropped sources, seed,
then every default the engine fills in) and handed to the compiled engine
``slingsim._core`` as JSON. The engine releases the GIL while it simulates,
so simulations in threads run in parallel. :func:`run` keeps its runs in
the result store (:mod:`slingsim.store`) unless told not to.
"""
from __future__ import annotations

import json
import math
import operator
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, Optional, Tuple, Union

from . import _core, provenance
from .config import Config, ConfigError, resolve_traced, to_json
from .origins import Sources
from .progress import Progress
from .result import Result, table_from_columns

if TYPE_CHECKING:
    import pyarrow as pa

    from .store import CacheLike

ConfigLike = Union[str, Path, Config]

PROGRESS_STEPS = 50
"""A run with a progress bar advances in this many slices of its simulated time."""


class Simulation:
    """One simulation built from a config, runnable all at once or step by step.

    >>> sim = Simulation("examples/small-dragonfly", overrides=["traffic.uniform.load=0.2"])
    >>> sim.run_until(5_000)          # simulated ns; True once the run has ended
    False
    >>> result = sim.run()

    ``config`` is the resolved config, every default filled in (see
    :func:`resolved_config`); ``build_s`` the wall time the engine took to
    build the network. ``command`` is the command line recorded in the
    run's provenance (default: this process's).
    """

    def __init__(
        self,
        config_or_preset: ConfigLike,
        overrides: Iterable[str] = (),
        without: Iterable[str] = (),
        seed: Optional[int] = None,
        command: Optional[str] = None,
    ) -> None:
        self.config, sources = _resolved(config_or_preset, overrides, without, seed)
        self.started = provenance.now()
        self._command = command
        started = time.perf_counter()
        with sources.explaining():
            self._engine = _core.Simulation(to_json(self.config))
        self.build_s = time.perf_counter() - started
        self.wall_s = 0.0
        self.cpu_s = 0.0

    @property
    def now_ns(self) -> float:
        """Current simulated time in ns."""
        return self._engine.now_ns

    @property
    def end_ns(self) -> float:
        """Simulated time at which the run ends (warmup + duration, or the time limit)."""
        return self._engine.end_ns

    @property
    def finished(self) -> bool:
        """Whether the run has ended (time limit, all flows done, or deadlock)."""
        return self._engine.finished

    def run_until(self, t_ns: float) -> bool:
        """Advance to simulated time ``t_ns`` (0 or more; ``math.inf`` runs to the end);
        returns True once the run has ended."""
        if isinstance(t_ns, bool) or not isinstance(t_ns, (int, float)) or math.isnan(t_ns) or t_ns < 0:
            raise _argument_error("t_ns", t_ns, "a simulated time in ns, 0 or more (math.inf: to the end)")
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return self._engine.run_until(float(t_ns))
        finally:
            self.wall_s += time.perf_counter() - started
            self.cpu_s += time.thread_time() - cpu

    def run(self, progress: bool = False) -> Result:
        """Run to the end and return the :class:`Result`; ``progress`` shows a bar
        (simulated microseconds, with ETA) on a terminal or in a notebook."""
        end_ns = self.end_ns
        with Progress(round(end_ns / 1000), "simulating", unit="us", enabled=progress) as bar:
            if bar.shown:
                for step in range(1, PROGRESS_STEPS + 1):
                    target = end_ns * step / PROGRESS_STEPS
                    if self.run_until(target):
                        break
                    bar.update(round(target / 1000))
            if not self.finished:
                started, cpu = time.perf_counter(), time.thread_time()
                self._engine.run()
                self.wall_s += time.perf_counter() - started
                self.cpu_s += time.thread_time() - cpu
            bar.update(round(end_ns / 1000))
        return self.result()

    def summary(self) -> Dict[str, Any]:
        """The engine's summary so far, plus ``wall_s`` (run time) and ``cpu_s``
        (CPU time of the thread that ran the engine: the run time on an
        otherwise idle core) measured in Python and ``provenance`` (what produced the run: resolved config,
        version, commit, seed, command, start time, platform)."""
        summary = json.loads(self._engine.summary_json())
        summary["traffic"] = in_config_order(summary.get("traffic", {}), self.config)
        summary["wall_s"] = self.wall_s
        summary["cpu_s"] = self.cpu_s
        summary.setdefault("build_s", self.build_s)
        summary["provenance"] = provenance.record(self.config, self.started, self._command)
        return summary

    def result(self) -> Result:
        """The summary and tables as they stand now (call after the run for final figures)."""
        return Result(
            summary=self.summary(),
            config=self.config,
            packets=self._engine.packets_table(),
            links=self._engine.links_table(),
            flows=self._engine.flows_table(),
            nic=self._engine.nic_counters_table(),
            timeline=self._engine.timeline_table(),
            iterations=self._engine.iterations_table(),
            link_snapshots=self._engine.link_snapshots_table(),
        )

    def nic_counters(self) -> "pa.Table":
        """NIC counters per node so far ([DeSensi19] Sec. 2.3): packets and
        flits sent, stalled time, cumulative packet latency; read them
        between ``run_until`` steps to steer a run."""
        return table_from_columns(self._engine.nic_counters_table())

    def send(
        self,
        src: int,
        dst: int,
        nbytes: int,
        source: Optional[str] = None,
        routing: Optional[str] = None,
        traffic_class: Optional[str] = None,
    ) -> int:
        """Send one message of ``nbytes`` from node ``src`` to node ``dst`` now.

        ``routing`` (a ``routing.algorithm`` name) and ``traffic_class`` (a
        ``[[classes]]`` name) apply to this message alone; ``source`` names
        the traffic source it is counted under (default ``"api"``). Returns
        a flow id for :meth:`flow_end_ns`; the message also appears in the
        flows table. This is the per-message routing API the MPI layer and
        application-aware routing use ([DeSensi19]).
        """
        src, dst = _integer("src", src, U32, "a node index"), _integer("dst", dst, U32, "a node index")
        nbytes = _integer("nbytes", nbytes, 2**64, "a message size in bytes")
        for name, value in (("source", source), ("routing", routing), ("traffic_class", traffic_class)):
            if value is not None and not isinstance(value, str):
                raise _argument_error(name, value, "a name (a string) or None")
        return self._engine.send_message(src, dst, nbytes, source, routing, traffic_class)

    def flow_end_ns(self, flow: int) -> Optional[float]:
        """When a sent message (or flow) ended in ns, None while under way: all its
        bytes delivered, or delivered or lost (:meth:`flow_lost_bytes` says how many
        were lost; a message that lost bytes did not complete)."""
        return self._engine.flow_end_ns(_integer("flow", flow, U32, "a flow id from send()"))

    def flow_lost_bytes(self, flow: int) -> int:
        """Bytes a sent message (or flow) lost to failed links or a lossy class's drops."""
        lost = self._engine.flow_lost_bytes(_integer("flow", flow, U32, "a flow id from send()"))
        if lost is None:
            raise _argument_error("flow", flow, "a flow id from send() or the flows table")
        return lost


U32 = 2**32
"""Node indices and flow ids are 32-bit in the engine."""


def _integer(name: str, value: Any, limit: int, what: str) -> int:
    """``value`` as an int in ``0 .. limit - 1``, else a ConfigError naming the argument."""
    try:
        number = operator.index(value) if not isinstance(value, bool) else None
    except TypeError:
        number = None
    if number is None or not 0 <= number < limit:
        raise _argument_error(name, value, f"{what}, an integer from 0 to {limit - 1}")
    return number


def _argument_error(name: str, value: Any, allowed: str) -> ConfigError:
    """A ConfigError about the API argument ``name``: its value and what it takes."""
    err = ConfigError(f"{name}: {value!r} is not {allowed}")
    err.field = name
    return err


def in_config_order(per_source: Dict[str, Any], cfg: Config) -> Dict[str, Any]:
    """Per-source figures ordered as the sources appear in the config (the engine sorts them by name)."""
    order = [src.get("name") for src in cfg.get("traffic", [])]
    ranked = sorted(per_source, key=lambda name: order.index(name) if name in order else len(order))
    return {name: per_source[name] for name in ranked}


def run(
    config_or_preset: ConfigLike,
    overrides: Iterable[str] = (),
    without: Iterable[str] = (),
    seed: Optional[int] = None,
    progress: bool = True,
    cache: "CacheLike" = True,
) -> Result:
    """Build and run one simulation to the end, or read it from the result store.

    ``overrides`` are dotted ``key=value`` strings (``routing.algorithm=ugal``),
    ``without`` names traffic sources or jobs to drop, ``seed`` sets
    ``sim.seed``, ``progress`` shows a bar for runs longer than a few
    seconds (terminal or notebook). ``cache``: True keeps the run in the
    default store and reads it from there next time, False runs it
    regardless, a folder or :class:`~slingsim.store.ResultStore` names the
    store. The summary's ``cached`` says whether the run was read from the
    store, ``key`` is its store key.
    """
    from .store import open_store, run_key

    config, sources = _resolved(config_or_preset, overrides, without, seed)
    store = open_store(cache)
    key = run_key(config)
    found = store.result(key) if store is not None else None
    if found is None:
        with sources.explaining():
            found = Simulation(config).run(progress=progress)
        if store is not None:
            store.put(key, found.summary, found)
        cached = False
    else:
        cached = True
    found.summary.update(cached=cached, key=key)
    return found


def run_summary(
    config_or_preset: ConfigLike,
    overrides: Iterable[str] = (),
    without: Iterable[str] = (),
    seed: Optional[int] = None,
    progress: bool = True,
    cache: "CacheLike" = True,
) -> Dict[str, Any]:
    """Like :func:`run` but return only the summary; the store keeps (and
    needs) only the summary, so no table is written or read."""
    from .store import open_store, run_key

    config, sources = _resolved(config_or_preset, overrides, without, seed)
    store = open_store(cache)
    key = run_key(config)
    summary = store.summary(key) if store is not None else None
    cached = summary is not None
    if summary is None:
        with sources.explaining():
            summary = Simulation(config).run(progress=progress).summary
        if store is not None:
            store.put(key, summary)
    return {**summary, "cached": cached, "key": key}


def resolved_config(
    config_or_preset: ConfigLike,
    overrides: Iterable[str] = (),
    without: Iterable[str] = (),
    seed: Optional[int] = None,
) -> Config:
    """The config a run uses, with every default the engine fills in written out.

    Loads the preset or file, applies ``overrides``, drops ``without``, sets
    ``seed``, then adds every key the engine would default (the
    ``[topology]`` keys of the chosen family only). The engine validates it
    on the way: a bad field raises :class:`~slingsim.ConfigError` naming it.
    Running the returned dict gives bit-identical results to running the
    original; it is what ``config.json`` and ``provenance.config`` record.
    An error names where the refused field was set (file and line, override
    or seed), or says it was left at its default (see :class:`~slingsim.ConfigError`).
    """
    return _resolved(config_or_preset, overrides, without, seed)[0]


def _resolved(
    config_or_preset: ConfigLike,
    overrides: Iterable[str],
    without: Iterable[str],
    seed: Optional[int],
) -> Tuple[Config, Sources]:
    """:func:`resolved_config`, and where each value was set, for later errors of the engine."""
    cfg, sources = resolve_traced(config_or_preset, overrides, without, seed)
    with sources.explaining():
        return json.loads(_core.resolved_config(to_json(cfg))), sources


def validate(config_or_preset: ConfigLike, overrides: Iterable[str] = (), without: Iterable[str] = ()) -> Config:
    """Check a whole config as a run would (every key, traffic sources, jobs,
    traces: the engine builds the simulation) without simulating; returns the
    resolved config. A config with neither traffic nor jobs cannot run, so
    only its keys are checked (its topology is then all it describes).
    Errors name where the field was set."""
    config, sources = _resolved(config_or_preset, overrides, without, None)
    if config.get("traffic") or config.get("job"):
        with sources.explaining():
            _core.Simulation(to_json(config))
    return config


def topology(config_or_preset: ConfigLike, overrides: Iterable[str] = (), check_deadlock: bool = False) -> Dict[str, Any]:
    """Analytics of a config's topology: endpoints, switches, links by kind,
    diameter, bandwidths, cost, saturation bounds.

    With ``check_deadlock`` the result also has ``deadlock_free`` (routing
    name -> bool) and ``deadlock`` (routing name -> the full report of the
    channel-dependency-graph check, with a cycle if one exists).
    """
    cfg, sources = resolve_traced(config_or_preset, overrides)
    text = to_json(cfg)
    with sources.explaining():
        analytics = json.loads(_core.topology_analytics(text))
        reports = json.loads(_core.check_deadlock(text)) if check_deadlock else {}
    if check_deadlock:
        analytics["deadlock_free"] = {name: r["deadlock_free"] for name, r in reports.items()}
        analytics["deadlock"] = reports
    return analytics


def topology_graphml(config_or_preset: ConfigLike, path: Union[str, Path], overrides: Iterable[str] = ()) -> Path:
    """Write the config's topology as GraphML (switches, endpoints, links) to ``path``."""
    cfg, sources = resolve_traced(config_or_preset, overrides)
    with sources.explaining():
        text = _core.topology_graphml(to_json(cfg))
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return out


def engine_version() -> str:
    """Version of the compiled engine crate."""
    return _core.version()
