"""The GPCNeT suite on a simulated system (``slingsim gpcnet``).

As GPCNeT's ``network_load_test`` runs it (Chunduri et al., SC'19; the
congestion tests of [DeSensi20] Sec. III): 20% of the nodes run the victim
tests, the other 80% are split into four equal congestor groups running
alltoall, two-sided incast, put incast and get broadcast with 4 KiB
messages. Each victim test runs once alone and once beside the
congestors; nodes are placed at random (seeded) as the benchmark spreads
its ranks over the allocation. Congestion impact: congested / isolated for
latencies, isolated / congested for bandwidth, on the mean and the 99th
percentile (for bandwidth, the slow tail: the 99th percentile of time).

Repetition as GPCNeT's ``random_ring`` and ``allreduce_test``: the two
random-ring tests draw ``rings`` rings in turn (GPCNeT draws 30 per
measurement), and every test runs its untimed iterations before its timed
ones (by default GPCNeT's: 200 for the latency test, 1 for the bandwidth
test and the allreduce; on every ring). The latency test's figure is per
send, half an iteration's time, as GPCNeT counts its two sends.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence

from . import jobs
from .config import Config, ConfigError, resolve

VICTIMS = (
    # (name in GPCNeT's table, workload, kind, unit)
    ("RR Two-sided Lat (8 B)", "gpcnet-rr-latency", "latency", "usec"),
    ("RR Two-sided BW+Sync (131072 B)", "gpcnet-rr-bandwidth", "bandwidth", "MiB/s/rank"),
    ("Multiple Allreduce (8 B)", "gpcnet-allreduce", "latency", "usec"),
)
GPCNET_ITERATIONS = {"gpcnet-rr-latency": 200, "gpcnet-rr-bandwidth": 8, "gpcnet-allreduce": 200}
"""Timed iterations GPCNeT runs of each test (on each ring of the ring tests): ``NUM_LAT_ITERS``,
``NUM_BW_ITERS`` and ``NUM_ALLREDUCE_ITERS`` of its ``network_load_test.c``."""
GPCNET_WARMUP_ITERATIONS = {"gpcnet-rr-latency": 200, "gpcnet-rr-bandwidth": 1, "gpcnet-allreduce": 1}
"""Untimed iterations GPCNeT runs before the timed ones of each test (on each ring of the ring tests):
``p2p_latency`` loops from -200, ``p2p_neighbors`` and ``allreduce_test`` from -1."""
RING_WORKLOADS = ("gpcnet-rr-latency", "gpcnet-rr-bandwidth")
SENDS_PER_LATENCY_ITERATION = 2
"""GPCNeT's latency test reports an iteration's time over its two sends (``p2p_latency``: 5e-4 x ns)."""
CONGESTORS = ("alltoall", "incast", "put-incast", "get-bcast")
VICTIM_FRACTION = 0.2
WARMUP_NS = 1_000_000.0
"""The congestors run this long before the victims start. GPCNeT launches them first and measures
the victims under established congestion; with hundreds of senders the onset burst of an incast takes
about a millisecond to drain (on Shandy, a latency victim started 200 us in saw 3.7x, 1 ms in 1.08x)."""
CONGESTOR_BYTES = 4096
BW_BYTES_PER_ITERATION = 2 * 8 * 131_072
"""Bytes a rank sends per iteration of the bandwidth test (8 outstanding 128 KiB messages to each ring neighbour)."""


def system_nodes(cfg: Config) -> int:
    """Nodes of the config's system."""
    from .api import topology

    return int(topology(cfg)["nodes"])


def gpcnet_configs(
    system: Any,
    nodes: Optional[int] = None,
    ppn: int = 1,
    iterations: Optional[int] = None,
    congestors: Sequence[str] = CONGESTORS,
    overrides: Iterable[str] = (),
    seed: Optional[int] = None,
    warmup_ns: float = WARMUP_NS,
    rings: int = 1,
    warmup_iterations: Optional[int] = None,
) -> List[Dict[str, Any]]:
    """One ``{name, workload, kind, unit, nodes, rings, iterations, warmup_iterations, isolated, congested}``
    entry per victim test, the two configs ready to run (``nodes``: the nodes the suite uses; ``iterations``:
    timed iterations per ring, None for GPCNeT's per test; ``warmup_iterations``: untimed ones before them,
    None for GPCNeT's per test)."""
    base = resolve(system, overrides, seed=seed)
    base.pop("traffic", None)
    base.pop("job", None)
    total = system_nodes(base)
    nodes = total if nodes is None else nodes
    if not 5 <= nodes <= total:
        raise ConfigError(f"gpcnet: --nodes {nodes}: give between 5 and the system's {total} nodes")
    if ppn < 1:
        raise ConfigError(f"gpcnet: --ppn {ppn}: give at least one process per node")
    if iterations is not None and iterations < 1:
        raise ConfigError(f"gpcnet: --iterations {iterations}: give at least 1, or leave it out for GPCNeT's "
                          "(200 latency, 8 bandwidth, 200 allreduce)")
    if rings < 1:  # the engine refuses too many, naming job[0].params.rings
        raise ConfigError(f"gpcnet: --rings {rings}: give 1 or more random rings (GPCNeT draws 30 per measurement)")
    if warmup_iterations is not None and warmup_iterations < 0:
        raise ConfigError(f"gpcnet: --warmup-iterations {warmup_iterations}: give 0 or more untimed "
                          "iterations, or leave it out for GPCNeT's (200 latency, 1 bandwidth and allreduce)")
    unknown = [c for c in congestors if c not in CONGESTORS]
    if unknown:
        raise ConfigError(f"gpcnet: unknown congestors {unknown}; choose from {list(CONGESTORS)}")
    victim_nodes = max(2, round(nodes * VICTIM_FRACTION))
    group = (nodes - victim_nodes) // len(CONGESTORS)
    if congestors and group < 2:
        raise ConfigError(f"gpcnet: {nodes} nodes leave {group} per congestor group; give at least 10 nodes")
    base.setdefault("sim", {})
    out = []
    for name, workload, kind, unit in VICTIMS:
        untimed = GPCNET_WARMUP_ITERATIONS[workload] if warmup_iterations is None else warmup_iterations
        timed = GPCNET_ITERATIONS[workload] if iterations is None else iterations
        test_rings = rings if workload in RING_WORKLOADS else 1
        params: Dict[str, Any] = {"warmup_iterations": untimed}
        if workload in RING_WORKLOADS:
            params["rings"] = test_rings
        victim = {"name": "victim", "workload": workload, "nodes": {"count": victim_nodes}, "ppn": ppn,
                  "placement": "random", "iterations": timed, "start_ns": warmup_ns, "params": params}
        loaders = [{"name": f"congestor-{c}", "workload": f"gpcnet-{c}", "nodes": {"count": group}, "ppn": ppn,
                    "placement": "random", "iterations": 1, "repeat": True, "bytes": CONGESTOR_BYTES}
                   for c in congestors]
        isolated = dict(base, job=[victim])
        congested = dict(base, job=[victim, *loaders])
        out.append({"name": name, "workload": workload, "kind": kind, "unit": unit, "nodes": nodes,
                    "rings": test_rings, "iterations": timed, "warmup_iterations": untimed,
                    "isolated": isolated, "congested": congested})
    return out


OPTIONS = {"iterations": "--iterations", "params.rings": "--rings", "params.warmup_iterations": "--warmup-iterations"}
"""The victim job's fields the command's options set: an error the engine raises on one names the option."""


def _as_option(err: ConfigError) -> ConfigError:
    """An engine error on a victim job's field as an error on the option that set it (the job is the
    command's, not the user's config, so tracing it through the config would call it a default)."""
    field = err.field.split(".", 1)[1] if err.field.startswith("job[") and "." in err.field else ""
    if field not in OPTIONS:
        return err
    said = str(err)
    said = said[len(err.field) + 2:] if said.startswith(err.field + ": ") else said
    out = ConfigError(f"gpcnet: {OPTIONS[field]}: {said}")
    out.field, out.origin = err.field, OPTIONS[field]
    return out


def _figures(summary: Dict[str, Any], workload: str, kind: str) -> Dict[str, Optional[float]]:
    """Mean and 99th percentile of one victim run, in the test's unit (the latency test's per send)."""
    timed = summary["jobs"]["victim"]["timed_ns"]
    if not timed.get("count"):
        raise ConfigError(f"gpcnet: the victim completed no iteration (end reason {summary['end_reason']!r}); "
                          "raise sim.max_time_ns")
    if kind == "latency":
        per = SENDS_PER_LATENCY_ITERATION if workload == "gpcnet-rr-latency" else 1
        return {"mean": timed["mean"] / 1e3 / per, "p99": timed["p99"] / 1e3 / per}
    mib_s = lambda ns: BW_BYTES_PER_ITERATION / (ns * 1e-9) / 2**20  # noqa: E731
    return {"mean": mib_s(timed["mean"]), "p99": mib_s(timed["p99"])}


def run_gpcnet(
    system: Any,
    nodes: Optional[int] = None,
    ppn: int = 1,
    iterations: Optional[int] = None,
    congestors: Sequence[str] = CONGESTORS,
    overrides: Iterable[str] = (),
    seed: Optional[int] = None,
    scheduler: Any = None,
    workers: Optional[int] = None,
    progress: bool = True,
    warmup_ns: float = WARMUP_NS,
    cache: Any = True,
    rings: int = 1,
    warmup_iterations: Optional[int] = None,
) -> Dict[str, Any]:
    """Run the suite (two simulations per victim test, fanned out over Dask) and return
    ``{system, nodes, ppn, congestors, rings, tests: [{name, unit, rings, iterations, warmup_iterations, isolated, congested,
    impact_mean, impact_p99}]}``. ``scheduler`` and ``cache`` are those of :func:`slingsim.sweep.run_summaries`;
    ``rings`` and ``warmup_iterations`` those of :func:`gpcnet_configs`."""
    from .sweep import run_summaries

    tests = gpcnet_configs(system, nodes, ppn, iterations, congestors, overrides, seed, warmup_ns, rings,
                           warmup_iterations)
    configs = [cfg for t in tests for cfg in (t["isolated"], t["congested"])]
    try:
        summaries = run_summaries(configs, scheduler, workers, progress, cache)
    except ConfigError as err:
        raise _as_option(err) from None
    rows = []
    for i, t in enumerate(tests):
        iso_s, con_s = summaries[2 * i], summaries[2 * i + 1]
        iso, con = _figures(iso_s, t["workload"], t["kind"]), _figures(con_s, t["workload"], t["kind"])
        loop_iterations = t["rings"] * (t["warmup_iterations"] + t["iterations"])
        # Congested time over isolated time: for a bandwidth (bytes per time)
        # that is isolated over congested bandwidth, as GPCNeT reports it.
        impact = jobs.impact(iso_s, con_s, "victim")
        rows.append({
            "name": t["name"], "unit": t["unit"], "rings": t["rings"], "iterations": t["iterations"],
            "warmup_iterations": t["warmup_iterations"],
            "isolated": iso, "congested": con,
            "impact_mean": impact["timed_impact_mean"], "impact_p99": impact["timed_impact_p99"],
            "messages_per_iteration": con_s["jobs"]["victim"]["messages"] / loop_iterations,
            "wall_s": iso_s["wall_s"] + con_s["wall_s"],
        })
    return {
        "system": system if isinstance(system, str) else "config",
        "nodes": tests[0]["nodes"],
        "ppn": ppn,
        "iterations": iterations,
        "rings": rings,
        "congestors": list(congestors),
        "warmup_ns": warmup_ns,
        "tests": rows,
    }


def key_results_text(report: Dict[str, Any]) -> str:
    """GPCNeT's "key results" table: isolated, congested and impact per victim test."""
    timed = "/".join(str(t["iterations"]) for t in report["tests"])
    untimed = "/".join(str(t["warmup_iterations"]) for t in report["tests"])
    lines = [
        f"GPCNeT on {report['system']}: {report['nodes']} nodes, {report['ppn']} ppn, "
        f"congestors: {', '.join(report['congestors']) or 'none'}",
        f"{report['rings']} ring(s); per ring {timed} timed and {untimed} untimed iterations (latency/bandwidth/allreduce)",
        f"{'Name':<34}{'Isolated avg':>14}{'99%':>11}{'Congested avg':>15}{'99%':>11}"
        f"{'Impact avg':>12}{'99%':>8}  Units",
    ]
    for t in report["tests"]:
        lines.append(
            f"{t['name']:<34}{t['isolated']['mean']:>14.2f}{t['isolated']['p99']:>11.2f}"
            f"{t['congested']['mean']:>15.2f}{t['congested']['p99']:>11.2f}"
            f"{t['impact_mean']:>11.2f}x{t['impact_p99']:>7.2f}x  {t['unit']}"
        )
    return "\n".join(lines)
