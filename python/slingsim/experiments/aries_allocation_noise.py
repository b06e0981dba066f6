"""[DeSensi19] Fig. 3: a 16 KiB ping-pong at four node distances on Piz Daint, beside other users' jobs.

The paper ran one allocation per distance -- two nodes on one blade (Inter-Nodes), on two blades of
one chassis (Inter-Blades), on two chassis of one group (Inter-Chassis), in two groups
(Inter-Groups) -- and recorded one round trip per second for 5 hours in each ([DeSensi19]
Sec. 3.1). Its findings: the median grows with the distance and the variance grows massively; some
inter-group round trips are three orders of magnitude above the median, enough to pull the mean
among the outliers; the inter-chassis median is barely above the inter-nodes one, but its outliers
make its mean nearly twice as high.

Here the four pairs sit on ``aries-daint`` (a router is a blade, a row of routers a chassis,
docs/topologies.md "Aries"); :func:`check_pairs` checks each pair's distance from the topology and
refuses to run otherwise. Other users' jobs (:func:`slingsim.experiments.allocation.background_jobs`)
fill ``OCCUPANCY`` of the free nodes of ``BACKGROUND_GROUPS``, the groups every pair sits in, where
their traffic meets the ping-pongs on minimal paths; :func:`check_background` refuses a background
that does not sit there. Each run holds the four ping-pongs and one seeded background, so the four
distances are sampled under the same background at the same moments (the paper's four runs saw
different days of the machine); their 16 KiB every few tens of microseconds is under 5% of a link.

Sampling *(our choice)*: the paper's one round trip per second over hours samples the machine at
independent moments. Simulated seconds are out of reach (a background of a few hundred nodes costs
about 10 s of CPU per simulated millisecond), so each round trip follows a pause drawn uniformly
between 0.5 and 1.5 x ``PAUSE_NS``: longer than the background's bursts (a halo exchange's 6 x 64 KiB
leave a node in about 40 us), jittered so that the samples do not lock onto the background jobs'
fixed periods, and several background seeds (``SEEDS``) give the background different shapes. The
pause is a compute operation before the ping; rank 1 marks its iteration as soon as the ping is in,
so each iteration's time is the pause plus one round trip, and the round trip is that less the
pause, exactly.
"""
from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from ..figures import plain_log_labels, save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_summaries  # noqa: E402
from . import allocation  # noqa: E402
from .aries_pingpong_routing import router_place  # noqa: E402
from .output import study_output  # noqa: E402
from .placement import NodeLayout  # noqa: E402

NAME = "aries-allocation-noise"
SYSTEM = "aries-daint"
MESSAGE_BYTES = 16 * 1024
DISTANCES: Dict[str, Tuple[int, int]] = {
    "inter_nodes": (0, 1),
    "inter_blades": (72, 108),
    "inter_chassis": (148, 308),
    "inter_groups": (348, 544),
}
"""Distance -> its two nodes, in the paper's order. ``aries-daint`` has 4 nodes per router and 16 x 6
routers per group, numbered row (chassis) by row: nodes 0 and 1 share router 0; 72 and 108 sit on
routers 18 and 27, blades 2 and 11 of chassis 1; 148 and 308 on routers 37 and 77, chassis 2 and 4;
348 on router 87 of group 0, 544 on router 136 of group 1. Each pair has chassis of its own, so the
four ping-pongs of a run do not share their first hops."""
LABELS = {"inter_nodes": "Inter-Nodes", "inter_blades": "Inter-Blades", "inter_chassis": "Inter-Chassis",
          "inter_groups": "Inter-Groups"}
BACKGROUND_GROUPS = (0, 1)
"""The groups of the background: the ones the pairs sit in (every pair's groups are checked to be here)."""
OCCUPANCY = 0.5
"""Share of the free nodes of ``BACKGROUND_GROUPS`` that other jobs hold *(assumed)*: the paper gives no
occupancy; a production machine is mostly full, but the background's CPU cost grows with its nodes."""
PAUSE_NS = 50_000
"""Mean pause before each round trip (drawn uniformly from 0.5 to 1.5 times it)."""
ROUND_TRIPS = 600
QUICK_ROUND_TRIPS = 150
SEEDS = (1, 2, 3, 4)
QUICK_SEEDS = (1,)
OUTLIER_IQRS = 1.5
"""A round trip beyond Q3 + 1.5 IQR is an outlier, as a box plot's whiskers draw it."""


def check_pairs(cfg: Config, pairs: Optional[Dict[str, Tuple[int, int]]] = None) -> Dict[str, Dict[str, Any]]:
    """Where each pair's nodes sit (router, group, chassis, blade); raises ``ValueError`` unless each pair
    is at its distance: one router for ``inter_nodes``, two blades of one chassis for ``inter_blades``,
    two chassis of one group for ``inter_chassis``, two groups for ``inter_groups``."""
    pairs = DISTANCES if pairs is None else pairs
    topo = cfg["topology"]
    if topo.get("kind") != "aries":
        raise ValueError(f"{NAME}: topology.kind must be 'aries' (the pairs are placed on Aries routers), "
                         f"got {topo.get('kind')!r}")
    nodes = NodeLayout(topo).nodes
    placed = {}
    for distance, pair in pairs.items():
        if distance not in LABELS:
            raise ValueError(f"{NAME}: unknown distance {distance!r}; use one of {list(LABELS)}")
        if len(pair) != 2 or pair[0] == pair[1]:
            raise ValueError(f"{NAME}: the {distance} pair must be two different nodes, got {list(pair)}")
        for node in pair:
            if not 0 <= node < nodes:
                raise ValueError(f"{NAME}: node {node} of the {distance} pair is not one of the {nodes} nodes "
                                 f"(0 to {nodes - 1}) of the topology")
        a, b = (router_place(cfg, n) for n in pair)
        placed[distance] = {"nodes": list(pair), "routers": [a["router"], b["router"]],
                            "groups": [a["group"], b["group"]], "chassis": [a["row"], b["row"]],
                            "blades": [a["column"], b["column"]]}
        found = distance_of(a, b)
        if found != distance:
            raise ValueError(f"{NAME}: the {distance} pair {list(pair)} sits at distance {found} (routers "
                             f"{a['router']} and {b['router']}, groups {a['group']} and {b['group']}, chassis "
                             f"{a['row']} and {b['row']}); choose nodes that are {LABELS[distance]}")
    return placed


def distance_of(a: Dict[str, int], b: Dict[str, int]) -> str:
    """The distance between two router places of :func:`router_place`."""
    if a["group"] != b["group"]:
        return "inter_groups"
    if a["row"] != b["row"]:
        return "inter_chassis"
    if a["router"] != b["router"]:
        return "inter_blades"
    return "inter_nodes"


def check_background(layout: NodeLayout, jobs: List[Dict[str, Any]], pairs: Dict[str, Tuple[int, int]],
                     groups: Sequence[int], name: str = NAME) -> Dict[str, Any]:
    """The background's node count per group; raises ``ValueError`` (prefixed by the recipe's ``name``)
    unless it has nodes in every group a pair sits in, none outside ``groups`` and none on a pair's node
    (each node in one job only)."""
    busy = {n for pair in pairs.values() for n in pair}
    seen: Dict[int, str] = {}
    per_group: Dict[int, int] = {g: 0 for g in groups}
    for job in jobs:
        for node in job["nodes"]["list"]:
            if node in busy:
                raise ValueError(f"{name}: background job {job['name']} holds node {node} of a ping-pong pair")
            if node in seen:
                raise ValueError(f"{name}: node {node} is in background jobs {seen[node]} and {job['name']}")
            seen[node] = job["name"]
            group = layout.group(node)
            if group not in per_group:
                raise ValueError(f"{name}: background job {job['name']} has node {node} in group {group}, "
                                 f"outside the background's groups {list(groups)}")
            per_group[group] += 1
    needed = sorted({layout.group(n) for n in busy})
    empty = [g for g in needed if per_group.get(g, 0) == 0]
    if empty:
        raise ValueError(f"{name}: the background has no node in group(s) {empty}, where the pairs sit; "
                         "raise the background's occupancy or add those groups")
    return {"groups": list(groups), "jobs": len(jobs), "nodes": len(seen),
            "nodes_per_group": {str(g): c for g, c in per_group.items()}}


def pauses(seed: int, round_trips: int, pause_ns: float = PAUSE_NS) -> List[int]:
    """The pause before each round trip (ns, whole): uniform from 0.5 to 1.5 x ``pause_ns``, seeded."""
    rng = random.Random(seed)
    return [round(rng.uniform(0.5, 1.5) * pause_ns) for _ in range(round_trips)]


def pingpong_program(nbytes: int, gaps: Sequence[int]) -> Dict[str, Any]:
    """An MPI ping-pong of ``nbytes`` with a pause before each ping: rank 0 computes, sends and receives,
    then marks the iteration; rank 1 marks as soon as the ping is in, then answers. The job's iteration
    time (the latest rank's mark) is then rank 0's: the pause plus one round trip."""
    ping = {"op": "send", "comm": 0, "peer": 1, "tag": 0, "bytes": nbytes}
    ops0: List[Dict[str, Any]] = []
    ops1: List[Dict[str, Any]] = []
    for gap in gaps:
        ops0 += [{"op": "compute", "ns": float(gap)}, ping,
                 {"op": "recv", "comm": 0, "peer": 1, "tag": 0, "bytes": nbytes}, {"op": "iteration_end"}]
        ops1 += [{"op": "recv", "comm": 0, "peer": 0, "tag": 0, "bytes": nbytes}, {"op": "iteration_end"},
                 {"op": "send", "comm": 0, "peer": 0, "tag": 0, "bytes": nbytes}]
    return {"ranks": 2, "comms": [[0, 1]], "ops": [ops0, ops1]}


def round_trips_ns(job: Dict[str, Any], gaps: Sequence[int]) -> List[float]:
    """Each round trip of a ping-pong job of :func:`pingpong_program`: its iteration time less its pause.
    Raises ``RuntimeError`` if the job did not complete every round trip."""
    times = job["iteration_times_ns"]
    if len(times) != len(gaps):
        raise RuntimeError(f"{NAME}: the ping-pong completed {len(times)} of its {len(gaps)} round trips")
    # To the engine's picosecond: the pause is exact, so an idle network gives equal round trips.
    return [round(t - g, 3) for t, g in zip(times, gaps)]


def run_config(seed: int, round_trips: int, pairs: Optional[Dict[str, Tuple[int, int]]] = None,
               occupancy: float = OCCUPANCY, groups: Sequence[int] = BACKGROUND_GROUPS,
               pause_ns: float = PAUSE_NS) -> Tuple[Config, Dict[str, List[int]], Dict[str, Any]]:
    """One run: the four ping-pongs beside the background of ``seed``; returns the config, each pair's
    pauses and the background's check."""
    if round_trips < 1:
        raise ValueError(f"{NAME}: round_trips = {round_trips}; give at least 1")
    if pause_ns <= 0:
        raise ValueError(f"{NAME}: pause_ns = {pause_ns}; give a positive mean pause in ns")
    pairs = DISTANCES if pairs is None else pairs
    cfg = load_config(SYSTEM)
    check_pairs(cfg, pairs)
    layout = NodeLayout(cfg["topology"])
    busy = [n for pair in pairs.values() for n in pair]
    background = allocation.background_jobs(layout, busy, occupancy, seed, groups=groups)
    checked = check_background(layout, background, pairs, groups)
    gaps = {d: pauses(seed * 100 + k, round_trips, pause_ns) for k, d in enumerate(pairs)}
    cfg["traffic"] = []
    cfg["job"] = [{"name": d, "workload": "program", "program": pingpong_program(MESSAGE_BYTES, gaps[d]),
                   "nodes": {"list": list(pair)}} for d, pair in pairs.items()] + background
    cfg["sim"]["seed"] = seed
    # A safety net only: the run ends when the four ping-pongs are done, long before.
    cfg["sim"]["max_time_ns"] = 20.0 * round_trips * pause_ns + 1e7
    return cfg, gaps, checked


def distance_stats(rtts_ns: Sequence[float]) -> Dict[str, Any]:
    """Fig. 3's numbers for one distance (us): median, mean, quartiles, IQR, p99, max, the outliers
    beyond Q3 + 1.5 IQR, and max and mean over the median. Raises ``ValueError`` on no samples."""
    x = np.asarray(rtts_ns, dtype=float) / 1e3
    if x.size == 0:
        raise ValueError(f"{NAME}: no round trips to summarise")
    q1, median, q3, p99 = np.percentile(x, [25, 50, 75, 99])
    iqr = q3 - q1
    outliers = int(np.sum(x > q3 + OUTLIER_IQRS * iqr))
    return {"samples": int(x.size), "median_us": float(median), "mean_us": float(x.mean()), "q1_us": float(q1),
            "q3_us": float(q3), "iqr_us": float(iqr), "p99_us": float(p99), "min_us": float(x.min()),
            "max_us": float(x.max()), "outliers": outliers, "outlier_fraction": outliers / x.size,
            "max_over_median": float(x.max() / median), "mean_over_median": float(x.mean() / median)}


def strictly_increasing(values: Sequence[float]) -> bool:
    return all(b > a for a, b in zip(values, values[1:]))


def key_figures(stats: Dict[str, Dict[str, Any]], placed: Dict[str, Any], background: List[Dict[str, Any]],
                cost: Dict[str, Any]) -> Dict[str, Any]:
    """Per-distance statistics and the paper's findings as booleans (distances in the paper's order)."""
    order = [d for d in LABELS if d in stats]
    out: Dict[str, Any] = {d: {k: (round(v, 4) if isinstance(v, float) else v) for k, v in stats[d].items()}
                           for d in order}
    out["median_grows_with_distance"] = strictly_increasing([stats[d]["median_us"] for d in order])
    out["iqr_grows_with_distance"] = strictly_increasing([stats[d]["iqr_us"] for d in order])
    if {"inter_groups", "inter_nodes", "inter_chassis"} <= set(stats):
        g, n, c = stats["inter_groups"], stats["inter_nodes"], stats["inter_chassis"]
        out["inter_groups_max_over_median"] = round(g["max_over_median"], 4)
        out["inter_groups_has_largest_max_over_median"] = g["max_over_median"] == max(
            stats[d]["max_over_median"] for d in order)
        out["inter_chassis_median_over_inter_nodes"] = round(c["median_us"] / n["median_us"], 4)
        out["inter_chassis_mean_over_inter_nodes"] = round(c["mean_us"] / n["mean_us"], 4)
        out["inter_chassis_mean_over_median"] = round(c["mean_over_median"], 4)
    out["pairs_checked"] = True
    out["pairs"] = placed
    out["background_checked"] = True
    out["background"] = background
    out["sampling"] = cost
    out["paper"] = {"source": "[DeSensi19] Sec. 3.1, Fig. 3 (Piz Daint, 16 KiB, one round trip per second for "
                              "5 hours per allocation)",
                    "finding": "the median grows with the distance and the variance grows massively; some "
                               "inter-group round trips are three orders of magnitude above the median; the "
                               "inter-chassis median is barely above inter-nodes but outliers make its mean "
                               "nearly twice as high"}
    return out


def run_aries_allocation_noise(
    out_dir: Union[str, Path] = "out/aries-allocation-noise",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``aries_allocation_noise.parquet`` (one row per distance),
    ``aries_allocation_noise_samples.parquet`` (every round trip) and ``aries_allocation_noise.png``;
    return the per-distance rows with the findings in the table's metadata."""
    started = provenance.now()
    seeds = QUICK_SEEDS if quick else SEEDS
    round_trips = QUICK_ROUND_TRIPS if quick else ROUND_TRIPS
    placed = check_pairs(load_config(SYSTEM))
    built = [run_config(seed, round_trips) for seed in seeds]
    summaries = run_summaries([copy.deepcopy(cfg) for cfg, _, _ in built], scheduler, workers, progress, cache)
    samples: List[Dict[str, Any]] = []
    for seed, (_, gaps, _), summary in zip(seeds, built, summaries):
        if summary["end_reason"] != "jobs_done":
            raise RuntimeError(f"{NAME}: the run of seed {seed} ended with {summary['end_reason']!r}, "
                               "not with the ping-pongs done")
        for d in DISTANCES:
            rtts = round_trips_ns(summary["jobs"][d], gaps[d])
            samples += [{"distance": d, "label": LABELS[d], "seed": seed, "round_trip": i, "pause_ns": float(g),
                         "rtt_ns": t} for i, (g, t) in enumerate(zip(gaps[d], rtts))]
    stats = {d: distance_stats([s["rtt_ns"] for s in samples if s["distance"] == d]) for d in DISTANCES}
    rows = [{"distance": d, "label": LABELS[d], **stats[d]} for d in DISTANCES]
    cost = {"seeds": list(seeds), "round_trips_per_seed": round_trips, "pause_ns_mean": PAUSE_NS,
            "occupancy": OCCUPANCY, "simulated_ns": [s["sim_time_ns"] for s in summaries],
            "cpu_s": [s.get("cpu_s") for s in summaries]}
    checks = key_figures(stats, placed, [b for _, _, b in built], cost)
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(aries_allocation_noise=rows, aries_allocation_noise_samples=samples)
        plot(samples, stats, out.path / "aries_allocation_noise.png", out.provenance)
        return out.table(rows, checks)


def plot(samples: List[Dict[str, Any]], stats: Dict[str, Dict[str, Any]], path: Path,
         provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Fig. 3: a box per distance (whiskers at 1.5 IQR, outliers as points, the mean as a triangle) on a
    log time axis, with each box's median, IQR and max over median written above it. The paper's notches
    (the median's 95% interval) are left out: with hundreds of samples they are narrower than the line."""
    order = [d for d in LABELS if d in stats]
    data = [[s["rtt_ns"] / 1e3 for s in samples if s["distance"] == d] for d in order]
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ax.boxplot(data, showmeans=True, whis=OUTLIER_IQRS, widths=0.5,
               flierprops={"marker": ".", "markersize": 3, "alpha": 0.5})
    ax.set_xticks(range(1, len(order) + 1), [LABELS[d] for d in order], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("round trip (us)", fontsize=8)
    top = max(max(d) for d in data)
    for i, d in enumerate(order, start=1):
        s = stats[d]
        label = f"median {s['median_us']:.2f}\nIQR {s['iqr_us']:.3f}\nmax/med {s['max_over_median']:.2f}"
        ax.text(i, top * 1.15, label,
                ha="center", va="bottom", fontsize=6.5)
    ax.set_ylim(top=top * 2.2)
    plain_log_labels(ax)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_title("Aries (Piz Daint): 16 KiB ping-pong by node distance, beside other jobs ([DeSensi19] Fig. 3)",
                 fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
