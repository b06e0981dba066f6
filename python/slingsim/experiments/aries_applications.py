"""[DeSensi19] Fig. 10: application proxies under Aries' DEFAULT, ADAPTIVE WITH HIGH BIAS and
APPLICATION-AWARE routing on Piz Daint.

The paper runs applications on 256 nodes of Piz Daint with the three routings and shows those where the
routing matters, among them MILC, HPCG, LAMMPS and FFT, and FFT once more on 64 nodes: high bias is the
better mode for FFT on 256 nodes, DEFAULT on 64, and application-aware routing follows the better one in
both (Sec. 5.2). Here the applications are slingsim's proxies of the same names (docs/workloads.md,
"Application workloads") with the settings of ``congestion-heatmap`` (``APPLICATIONS``), one rank per node,
on ``aries-daint``, each job on a seeded fragmented allocation beside a seeded background of other jobs
in its groups, as in ``aries-routing-study`` (whose allocation and background code this recipe uses).
The three runs of a case share allocation, background and seed, so only the routing differs (the paper
alternates the modes on successive iterations for the same reason).

The paper gives no shape for these jobs. *Assumed*: they are packed as densely as its 1024-node Daint job
(Sec. 5.1: 257 routers over 6 groups, so 4 nodes per router save one and about 43 routers per group):
256 nodes on 65 routers over 2 groups, 64 nodes on 17 routers in 1 group (``JOBS``).

Per case and routing: mean and median iteration time over DEFAULT's median, and app-aware's share of
messages sent with DEFAULT. ``quick`` runs the two FFT cases only, with fewer iterations.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_labelled  # noqa: E402
from .aries_routing_study import (APP_AWARE, DEFAULT, HIGH_BIAS, MAX_TIME_NS, ROUTING_NAMES, ROUTINGS,  # noqa: E402
                                  STATIC, TIE, WITHIN, Allocation, JobShape, allocation_problems,
                                  allocation_summary, draw_allocation, normalise, result_row)
from .output import study_output  # noqa: E402

SYSTEM = "aries-daint"
JOBS = {256: JobShape("Fig. 10", 256, 65, 2), 64: JobShape("Fig. 10", 64, 17, 1)}
"""Nodes -> the job's shape *(assumed, see the module docstring)*."""


@dataclass(frozen=True)
class Application:
    """A proxy as a job: workload, bytes per message, compute per iteration, iterations."""

    workload: str
    bytes: int
    compute_ns: float
    iterations: int


APPLICATIONS = {
    "MILC": Application("milc", 16_384, 20_000.0, 5),
    "HPCG": Application("hpcg", 8_192, 20_000.0, 5),
    "LAMMPS": Application("lammps", 8_192, 20_000.0, 5),
    "FFT": Application("fft", 4_096, 20_000.0, 5),
}
"""The proxies with the messages and compute ``congestion-heatmap`` gives them ([DeSensi20] Fig. 9's
victims); five iterations each."""
CASES = (("MILC", 256), ("HPCG", 256), ("LAMMPS", 256), ("FFT", 256), ("FFT", 64))
QUICK_CASES = (("FFT", 256), ("FFT", 64))
QUICK_ITERATIONS = 3


def checked_allocation(nodes: int) -> Allocation:
    """The allocation of the ``nodes``-node job and its background, or ``ValueError`` saying what is wrong."""
    if nodes not in JOBS:
        raise ValueError(f"aries-applications: no job shape for {nodes} nodes; use one of {sorted(JOBS)}")
    alloc = draw_allocation(SYSTEM, JOBS[nodes])
    problems = allocation_problems(alloc)
    if problems:
        raise ValueError(f"aries-applications: {nodes} nodes: " + "; ".join(problems))
    return alloc


def point_config(alloc: Allocation, app: Application, iterations: int, routing: str) -> Config:
    """The application on every node of ``alloc`` with ``routing``, beside the background."""
    if routing not in ROUTINGS:
        raise ValueError(f"aries-applications: routing {routing!r} is not one of {ROUTINGS}")
    cfg = load_config(alloc.system)
    cfg["traffic"] = []
    cfg["sim"]["max_time_ns"] = MAX_TIME_NS
    job = {"name": "app", "workload": app.workload, "bytes": app.bytes, "compute_ns": app.compute_ns,
           "iterations": iterations, "nodes": {"list": list(alloc.nodes)}, "routing": routing}
    cfg["job"] = [job] + [dict(bg) for bg in alloc.background]
    return cfg


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): each case under each routing."""
    points = []
    for name, nodes in QUICK_CASES if quick else CASES:
        app = APPLICATIONS[name]
        iterations = min(app.iterations, QUICK_ITERATIONS) if quick else app.iterations
        alloc = checked_allocation(nodes)
        for routing in ROUTINGS:
            # The row layout of aries-routing-study: system, test, size (here the node count), routing.
            labels = {"system": SYSTEM, "test": name, "size": f"{nodes} nodes", "nodes": nodes,
                      "bytes": app.bytes, "routing": routing}
            points.append((labels, point_config(alloc, app, iterations, routing)))
    return points


def run_aries_applications(
    out_dir: Union[str, Path] = "out/aries-applications",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the figure; write ``aries_applications.parquet`` and ``aries_applications.png``; return the table."""
    started = provenance.now()
    points = study_points(quick)
    rows, summaries = [], []
    for (labels, summary), (_, cfg) in zip(run_labelled(points, scheduler, workers, progress, cache), points):
        summaries.append(summary)
        rows.append(result_row(labels, cfg, summary))
    normalise(rows)
    shapes = sorted({r["nodes"] for r in rows})
    checks = {**key_figures(rows), "allocation_checked": True,
              "allocations": {f"{n} nodes": allocation_summary(checked_allocation(n)) for n in shapes}}
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(aries_applications=rows)
        plot(rows, out.path / "aries_applications.png", out.provenance)
        return out.table(rows, checks)


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Per case high bias's and app-aware's median over DEFAULT's, the better static mode and app-aware
    over it; whether FFT's better mode flips from high bias (256 nodes) to DEFAULT (64 nodes), and whether
    app-aware stays within ``WITHIN`` of the better static mode in every case."""
    medians: Dict[str, Dict[str, float]] = {}
    share: Dict[str, Optional[float]] = {}
    for r in rows:
        case = f"{r['test']} {r['size']}"
        medians.setdefault(case, {})[r["routing"]] = r["median_us"]
        if r["routing"] == APP_AWARE:
            share[case] = r["default_share"]
    cases = {}
    for case, t in medians.items():
        best = min(STATIC, key=lambda mode: t[mode])
        cases[case] = {"default_median_us": round(t[DEFAULT], 3),
                       "high_bias_over_default": round(t[HIGH_BIAS] / t[DEFAULT], 3),
                       "app_aware_over_default": round(t[APP_AWARE] / t[DEFAULT], 3),
                       "best_static": best, "app_aware_over_best": round(t[APP_AWARE] / t[best], 3),
                       "app_aware_default_share": None if share.get(case) is None else round(share[case], 3)}
    fft256, fft64 = cases.get("FFT 256 nodes"), cases.get("FFT 64 nodes")
    high_bias_256 = None if fft256 is None else fft256["high_bias_over_default"] < 1.0 - TIE
    default_64 = None if fft64 is None else fft64["high_bias_over_default"] > 1.0 + TIE
    worst = max(cases, key=lambda c: cases[c]["app_aware_over_best"])
    return {
        "cases": cases,
        "fft_high_bias_wins_256": high_bias_256,
        "fft_default_wins_64": default_64,
        "fft_best_mode_flips": None if None in (high_bias_256, default_64) else high_bias_256 and default_64,
        "app_aware_follows_fft": all(cases[c]["app_aware_over_best"] <= WITHIN
                                     for c in ("FFT 256 nodes", "FFT 64 nodes") if c in cases),
        "app_aware_worst_ratio": cases[worst]["app_aware_over_best"],
        "app_aware_worst_at": worst,
        "app_aware_within_10_percent": cases[worst]["app_aware_over_best"] <= WITHIN,
        "paper": {"source": "[DeSensi19] Sec. 5.2, Fig. 10 (Piz Daint, 256 nodes; FFT also on 64)",
                  "shape": "the better routing differs by application and allocation: for FFT ADAPTIVE WITH HIGH "
                           "BIAS on 256 nodes, DEFAULT on 64; APPLICATION-AWARE follows the better one in both; "
                           "a good choice cuts the time by up to 60%; the values are in the figure only"},
    }


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Median over DEFAULT's median per case and routing (bars; the mean as a dot), the x-axis as the
    paper's: case, DEFAULT's median and app-aware's share of DEFAULT."""
    cases = list(dict.fromkeys((r["test"], r["size"]) for r in rows))
    at = {(r["test"], r["size"], r["routing"]): r for r in rows}
    fig, ax = plt.subplots(figsize=(max(6.0, 2.0 + 1.1 * len(cases)), 3.8))
    width = 0.8 / len(ROUTINGS)
    for k, routing in enumerate(ROUTINGS):
        xs = [i + (k - 1) * width for i in range(len(cases))]
        ax.bar(xs, [at[c + (routing,)]["norm_median"] for c in cases], width, label=ROUTING_NAMES[routing])
        ax.plot(xs, [at[c + (routing,)]["norm_mean"] for c in cases], "k.", ms=3)
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_ylim(0, 1.3 * max(max(r["norm_median"], r["norm_mean"]) for r in rows))
    labels = []
    for test, size in cases:
        r = at[(test, size, APP_AWARE)]
        median = r["default_median_us"]
        time = f"{median / 1e3:.3g} ms" if median >= 1e3 else f"{median:.3g} us"
        labels.append(f"{test}\n{size}\n{time}\n{100 * (r['default_share'] or 0.0):.0f}%")
    ax.set_xticks(range(len(cases)), labels, fontsize=7)
    ax.set_xlabel("application, nodes, DEFAULT's median, app-aware's messages sent with DEFAULT", fontsize=7)
    ax.set_ylabel("median / DEFAULT median")
    ax.set_title(f"{SYSTEM}: application proxies ([DeSensi19] Fig. 10); dots: mean", fontsize=9)
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
