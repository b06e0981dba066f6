"""[DeSensi19] Sec. 2.4: Eq. 2 against the simulated ping-pong over many allocations of two nodes.

The paper checks its model of a message's time from the NIC counters,

    T = (p + 512) / 1024 * L + f * (s + 1)      (NIC cycles; Eq. 2)

against a ping-pong run in 40 allocations on Piz Daint, at message sizes from 128 B to 16 MiB, and
finds an average correlation of 79% ([DeSensi19] Sec. 2.4). Here each allocation is two nodes drawn
by :func:`slingsim.experiments.allocation.fragmented` from all of ``aries-daint`` (seeded), in turn on
one router, on two routers of one group and in two groups, as a batch system leaves a two-node job;
other users' jobs (:func:`~slingsim.experiments.allocation.background_jobs`) hold ``OCCUPANCY`` of the
free nodes of the pair's groups. At each size the pair runs a few round trips, each after a short
jittered pause (:func:`slingsim.experiments.aries_allocation_noise.pingpong_program`). Per run:

- the time per message, half of a round trip, averaged over the run's round trips;
- Eq. 2 from the sending node's NIC counters of that run (``nic`` table, docs/results.md): L its
  mean request-to-response latency, s its stalled cycles per request flit, with p packets of at
  most 64 B and f = 5p request flits for PUTs ([DeSensi19] Sec. 2.1), a cycle being one flit's time
  at the NIC's rate (as ``aries-pingpong-routing`` computes them).

Across the allocations of one size the recipe reports Pearson's correlation of the two, and its mean
over the sizes, beside the paper's 79%; and the mean relative error of Eq. 2. Eq. 2 counts the
network only: MPI's and the host's costs per message (the rendezvous handshake above 16 KiB, copies
of eager messages) are in the simulated time and not in Eq. 2, which moves Eq. 2 below the time by an
amount that depends on the size but hardly on the allocation: it costs accuracy, not correlation.
"""
from __future__ import annotations

import copy
import math
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
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_many  # noqa: E402
from . import allocation  # noqa: E402
from .aries_allocation_noise import LABELS, check_background, distance_of, pauses, pingpong_program  # noqa: E402
from .aries_pingpong_routing import eq2_model, router_place  # noqa: E402
from .output import study_output  # noqa: E402
from .placement import NodeLayout  # noqa: E402

NAME = "aries-model-check"
SYSTEM = "aries-daint"
ALLOCATIONS = 40
QUICK_ALLOCATIONS = 10
SIZES = (128, 2_048, 32_768, 524_288, 16_777_216)
"""128 B to 16 MiB ([DeSensi19] Sec. 2.4's range) in steps of 16x: one eager size below a packet's
worth of window, one eager of 32 packets, one rendezvous size below the 1024-packet window and two
above it, where the p / 1024 x L term of Eq. 2 counts."""
QUICK_SIZES = (128, 4_096, 131_072, 1_048_576)
SHAPES = ((1, 1), (2, 1), (2, 2))
"""(routers, groups) of the allocations, in turn: one router, two routers of one group, two groups."""
SEED = 40
"""Allocation i is drawn with seed ``SEED + i``; its background with the same seed."""
OCCUPANCY = 0.5
"""Share of the free nodes of the pair's groups that other jobs hold *(assumed, as in aries-allocation-noise)*."""
PAUSE_NS = 10_000
"""Mean pause before each round trip (uniform from 0.5 to 1.5 times it)."""
MIN_ALLOCATIONS = 3
"""Fewest allocations a correlation is computed over."""


def round_trips_for(nbytes: int) -> int:
    """Round trips per run: more for small messages, whose time is short beside the run's setup."""
    if nbytes <= 32_768:
        return 5
    if nbytes <= 1_048_576:
        return 2
    return 1


def allocations(count: int, seed: int = SEED) -> List[Dict[str, Any]]:
    """``count`` two-node allocations of ``aries-daint``, shapes in turn from ``SHAPES``, nodes drawn
    with seeds ``seed``, ``seed + 1``, ...; each checked (:func:`check_allocation`)."""
    if count < MIN_ALLOCATIONS:
        raise ValueError(f"{NAME}: allocations = {count}; a correlation needs at least {MIN_ALLOCATIONS}")
    cfg = load_config(SYSTEM)
    layout = NodeLayout(cfg["topology"])
    out = []
    for i in range(count):
        routers, groups = SHAPES[i % len(SHAPES)]
        nodes = allocation.fragmented(layout, 2, routers, groups, seed + i)
        out.append({"allocation": i, "seed": seed + i, **check_allocation(cfg, nodes, routers, groups)})
    return out


def check_allocation(cfg: Config, nodes: Sequence[int], routers: int, groups: int) -> Dict[str, Any]:
    """Where a pair sits; raises ``ValueError`` unless it is two nodes on ``routers`` routers in
    ``groups`` groups."""
    layout = NodeLayout(cfg["topology"])
    if len(nodes) != 2 or nodes[0] == nodes[1] or not all(0 <= n < layout.nodes for n in nodes):
        raise ValueError(f"{NAME}: an allocation must be two different nodes of the {layout.nodes}, got {list(nodes)}")
    got = allocation.shape(layout, nodes)
    if (got.routers, got.groups) != (routers, groups):
        raise ValueError(f"{NAME}: allocation {list(nodes)} spans {got.routers} router(s) in {got.groups} group(s); "
                         f"it should span {routers} in {groups}")
    a, b = (router_place(cfg, n) for n in nodes)
    return {"nodes": list(nodes), "routers": [a["router"], b["router"]], "groups": sorted({a["group"], b["group"]}),
            "distance": distance_of(a, b)}


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): each allocation at each size, beside its background."""
    base = load_config(SYSTEM)
    layout = NodeLayout(base["topology"])
    points = []
    for alloc in allocations(QUICK_ALLOCATIONS if quick else ALLOCATIONS):
        pair = alloc["nodes"]
        background = allocation.background_jobs(layout, pair, OCCUPANCY, alloc["seed"], groups=alloc["groups"])
        checked = check_background(layout, background, {"pair": tuple(pair)}, alloc["groups"], name=NAME)
        for k, nbytes in enumerate(QUICK_SIZES if quick else SIZES):
            gaps = pauses(alloc["seed"] * 100 + k, round_trips_for(nbytes), PAUSE_NS)
            cfg = copy.deepcopy(base)
            cfg["traffic"] = []
            cfg["job"] = [{"name": "pingpong", "workload": "program", "program": pingpong_program(nbytes, gaps),
                           "nodes": {"list": pair}}] + copy.deepcopy(background)
            cfg["sim"]["seed"] = alloc["seed"]
            cfg["sim"]["max_time_ns"] = 1e8  # a safety net: the longest run (16 MiB) takes about 7 ms
            labels = {"allocation": alloc["allocation"], "seed": alloc["seed"], "nodes": pair,
                      "distance": alloc["distance"], "groups": alloc["groups"], "bytes": nbytes,
                      "background_nodes": checked["nodes"], "pauses_ns": gaps}
            points.append((labels, cfg))
    return points


def run_row(labels: Dict[str, Any], summary: Dict[str, Any], nic_rows: List[Dict[str, Any]],
            cfg: Config) -> Dict[str, Any]:
    """One run: the time per message, the sender's L and s, and Eq. 2 from them."""
    if summary["end_reason"] != "jobs_done":
        raise RuntimeError(f"{NAME}: allocation {labels['allocation']} at {labels['bytes']} B ended with "
                           f"{summary['end_reason']!r}, not with the ping-pong done")
    job = summary["jobs"]["pingpong"]
    gaps = labels["pauses_ns"]
    if len(job["iteration_times_ns"]) != len(gaps):
        raise RuntimeError(f"{NAME}: allocation {labels['allocation']} at {labels['bytes']} B completed "
                           f"{len(job['iteration_times_ns'])} of {len(gaps)} round trips")
    sender = labels["nodes"][0]
    counters = next(r for r in nic_rows if r["node"] == sender)
    if not counters["responses"] or not counters["flits_sent"]:
        raise RuntimeError(f"{NAME}: node {sender} got no responses; the NIC counters cannot give L and s")
    cycle_ns = cfg["nic"]["flit_bytes"] * 8 / cfg["nic"]["bandwidth_bps"] * 1e9
    latency = counters["cumulative_response_latency_ns"] / counters["responses"]
    stall = counters["stalled_ns"] / cycle_ns / counters["flits_sent"]
    per_message = [(t - g) / 2 for t, g in zip(job["iteration_times_ns"], gaps)]
    time_us = sum(per_message) / len(per_message) / 1e3
    model = eq2_model(cfg, latency, stall, labels["bytes"])
    row = {k: v for k, v in labels.items() if k != "pauses_ns"}
    return {**row, "round_trips": len(gaps), "time_us": time_us, "latency_L_ns": latency, "stall_ratio_s": stall,
            "model_us": model["model_us"], "model_error": model["model_us"] / time_us - 1,
            "window_term_us": model["window_term_us"], "flit_term_us": model["flit_term_us"],
            "nonminimal_fraction": summary["nonminimal_fraction"]}


def pearson(xs: Sequence[float], ys: Sequence[float]) -> Optional[float]:
    """Pearson's correlation of two equally long series; None with fewer than ``MIN_ALLOCATIONS`` points
    or when either series is constant (no correlation is defined)."""
    if len(xs) != len(ys):
        raise ValueError(f"{NAME}: correlation of {len(xs)} estimates with {len(ys)} times; give as many of each")
    if len(xs) < MIN_ALLOCATIONS:
        return None
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    dx, dy = x - x.mean(), y - y.mean()
    norm = math.sqrt(float(np.dot(dx, dx)) * float(np.dot(dy, dy)))
    if norm == 0.0 or norm < 1e-12 * (np.abs(x).sum() * np.abs(y).sum()):
        return None
    return float(np.dot(dx, dy) / norm)


def key_figures(rows: List[Dict[str, Any]], allocs: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Per size the correlation of Eq. 2 with the time across allocations (also across the allocations on
    two routers only) and the mean relative error; their means over the sizes; the paper's number."""
    sizes = sorted({r["bytes"] for r in rows})
    corr, apart, err, signed = {}, {}, {}, {}
    for nbytes in sizes:
        mine = [r for r in rows if r["bytes"] == nbytes]
        r = pearson([m["model_us"] for m in mine], [m["time_us"] for m in mine])
        corr[str(nbytes)] = None if r is None else round(r, 4)
        # Without the one-router pairs, whose short path sets them apart from all others.
        two = [m for m in mine if m["distance"] != "inter_nodes"]
        r = pearson([m["model_us"] for m in two], [m["time_us"] for m in two])
        apart[str(nbytes)] = None if r is None else round(r, 4)
        err[str(nbytes)] = round(float(np.mean([abs(m["model_error"]) for m in mine])), 4)
        signed[str(nbytes)] = round(float(np.mean([m["model_error"] for m in mine])), 4)
    defined = [v for v in corr.values() if v is not None]
    shapes = {d: sum(1 for a in allocs if a["distance"] == d) for d in LABELS}
    return {
        "allocations": len(allocs),
        "sizes": sizes,
        "correlation_per_size": corr,
        "mean_correlation": round(float(np.mean(defined)), 4) if defined else None,
        "correlation_per_size_two_routers": apart,
        "mean_abs_error": round(float(np.mean([abs(r["model_error"]) for r in rows])), 4),
        "abs_error_per_size": err,
        "error_per_size": signed,
        "pairs_checked": True,
        "allocations_by_distance": shapes,
        "paper": {"source": "[DeSensi19] Sec. 2.4 (Piz Daint, ping-pong in 40 allocations, 128 B to 16 MiB)",
                  "mean_correlation": 0.79,
                  "finding": "Eq. 2 from the NIC counters correlates with the measured time, 79% on average over "
                             "the message sizes"},
    }


def run_aries_model_check(
    out_dir: Union[str, Path] = "out/aries-model-check",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``aries_model_check.parquet`` (one row per allocation and size) and
    ``aries_model_check.png``; return the rows with the correlations in the table's metadata."""
    started = provenance.now()
    allocs = allocations(QUICK_ALLOCATIONS if quick else ALLOCATIONS)
    points = study_points(quick)
    results = run_many([cfg for _, cfg in points], scheduler, workers, progress, cache)
    rows, summaries = [], []
    for (labels, _), result in zip(points, results):
        summaries.append(result.summary)
        rows.append(run_row(labels, result.summary, result.nic.to_pylist(), result.config))
    checks = key_figures(rows, allocs)
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(aries_model_check=rows)
        plot(rows, checks, out.path / "aries_model_check.png", out.provenance)
        return out.table(rows, checks)


def size_label(nbytes: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale} {unit}"
    return f"{nbytes} B"


def plot(rows: List[Dict[str, Any]], checks: Dict[str, Any], path: Path,
         provenance: Optional[Dict[str, Any]] = None) -> Path:
    """One panel per size: the Eq. 2 estimate against the simulated time per message of each allocation,
    coloured by distance, with the diagonal and the size's correlation."""
    sizes = sorted({r["bytes"] for r in rows})
    fig, axes = plt.subplots(1, len(sizes), figsize=(2.6 * len(sizes), 2.9), squeeze=False)
    colours = dict(zip(LABELS, ("tab:blue", "tab:orange", "tab:green", "tab:red")))
    for ax, nbytes in zip(axes[0], sizes):
        mine = [r for r in rows if r["bytes"] == nbytes]
        for d in LABELS:
            pts = [r for r in mine if r["distance"] == d]
            if pts:
                ax.scatter([r["time_us"] for r in pts], [r["model_us"] for r in pts], s=10, color=colours[d],
                           label=LABELS[d])
        values = [r["time_us"] for r in mine] + [r["model_us"] for r in mine]
        low, high = min(values), max(values)
        pad = 0.05 * (high - low or high)
        ax.plot([low - pad, high + pad], [low - pad, high + pad], color="grey", lw=0.8, ls="--")
        r = checks["correlation_per_size"][str(nbytes)]
        ax.set_title(f"{size_label(nbytes)}: r = {'n/a' if r is None else f'{r:.2f}'}", fontsize=8)
        ax.set_xlabel("simulated time per message (us)", fontsize=7)
        ax.tick_params(labelsize=6)
    axes[0][0].set_ylabel("Eq. 2 estimate (us)", fontsize=7)
    axes[0][0].legend(fontsize=6)
    fig.suptitle("Aries (Piz Daint): Eq. 2 from the NIC counters against the ping-pong time, "
                 "over allocations ([DeSensi19] Sec. 2.4)", fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
