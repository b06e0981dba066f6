"""[DeSensi20] Fig. 10: the distribution of congestion impacts over victim/aggressor combinations,
for each placement, with busier aggressors, and on fewer nodes; Slingshot against Aries.

Each violin summarises one Fig. 9 heatmap (every victim, both aggressors,
every victim share; see ``congestion_heatmap``) by the distribution of its
impacts, with its maximum written on top:
(A) placements linear, interleaved and random, one aggressor process per
node; (B) the same with ``AGGRESSOR_PPN`` aggressor processes per node;
(C) 128 nodes, 64 in each of two groups, Malbec against Crystal, linear.
The paper's answers: on Aries interleaved and random placements are worse
than linear (impacts up to ~150), busier aggressors worse still, fewer
nodes milder (max 154 -> 40); Slingshot stays below ~2 everywhere and its
distributions are narrow.

Deviation: the paper's aggressors in (B) run 24 processes per node; here
``AGGRESSOR_PPN`` = 4, because an MPI alltoall of 24 x 400 ranks expands
into tens of millions of point-to-point operations.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..figures import plain_log_labels, save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from .congestion_heatmap import SYSTEMS, run_points, study_points  # noqa: E402
from .output import study_output  # noqa: E402
from .placement import group_pool  # noqa: E402

PLACEMENTS = ("linear", "interleaved", "random")
AGGRESSOR_PPN = 4
SMALL_GROUP_NODES = 64
"""Fig. 10 (C): nodes taken from each of two groups."""


def cases(quick: bool = False) -> List[Tuple[Dict[str, Any], List[Tuple[Dict[str, Any], Any, Any]]]]:
    """Every (panel labels, heatmap points) of the figure."""
    out = []
    for placement in PLACEMENTS:
        out.append(({"panel": "A: placement", "case": placement},
                    study_points(quick, placement=placement)))
    for placement in PLACEMENTS:
        out.append(({"panel": f"B: aggressor PPN {AGGRESSOR_PPN}", "case": placement},
                    study_points(quick, placement=placement, aggressor_ppn=AGGRESSOR_PPN)))
    pools = {system: group_pool(preset, 2, SMALL_GROUP_NODES) for system, preset in SYSTEMS.items()}
    out.append(({"panel": f"C: {2 * SMALL_GROUP_NODES} nodes", "case": "linear"},
                study_points(quick, pools=pools)))
    return out


def run_congestion_distribution(
    out_dir: Union[str, Path] = "out/congestion-distribution",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the figure; write ``congestion_distribution.parquet`` (every impact), ``congestion_distribution.png``;
    return a table with one row per panel, case and system (count, median, max of the impacts)."""
    all_cases = cases(quick)
    points = [p for _, ps in all_cases for p in ps]
    started = provenance.now()
    rows, summaries = run_points(points, scheduler, workers, progress, cache)
    labelled, at = [], 0
    for labels, ps in all_cases:
        labelled += [{**labels, **row} for row in rows[at:at + len(ps)]]
        at += len(ps)
    summary = summarise(labelled)
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(congestion_distribution=labelled)
        plot(labelled, out.path / "congestion_distribution.png", out.provenance)
        return out.table(summary)


def summarise(rows: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Count, median and maximum impact (and how many are lower bounds) per panel, case and system."""
    groups: Dict[Tuple[str, str, str], List[Dict[str, Any]]] = {}
    for r in rows:
        if r["impact"] is not None:
            groups.setdefault((r["panel"], r["case"], r["system"]), []).append(r)
    out = []
    for (panel, case, system), members in groups.items():
        impacts = sorted(m["impact"] for m in members)
        out.append({"panel": panel, "case": case, "system": system, "points": len(impacts),
                    "median": impacts[len(impacts) // 2], "max": impacts[-1],
                    "censored": sum(bool(m["censored"]) for m in members)})
    return out


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """A row of panels per system; in each panel one violin of impacts per case, its maximum on top."""
    systems = list(dict.fromkeys(r["system"] for r in rows))
    panels = list(dict.fromkeys(r["panel"] for r in rows))
    fig, axes = plt.subplots(len(systems), len(panels), figsize=(3.2 * len(panels), 2.6 * len(systems)),
                             squeeze=False)
    for i, system in enumerate(systems):
        for j, panel in enumerate(panels):
            ax = axes[i][j]
            names = list(dict.fromkeys(r["case"] for r in rows if r["panel"] == panel))
            data = [[r["impact"] for r in rows if r["panel"] == panel and r["case"] == c and r["system"] == system
                     and r["impact"] is not None] for c in names]
            shown = [(k, d) for k, d in enumerate(data) if d]
            if len(shown) and all(len(d) > 1 for _, d in shown):
                ax.violinplot([d for _, d in shown], positions=[k for k, _ in shown], showextrema=False)
            for k, d in shown:
                ax.plot([k] * len(d), d, ".", color="k", ms=2)
                ax.annotate(f"{max(d):.3g}", (k, max(d)), textcoords="offset points", xytext=(0, 4),
                            ha="center", fontsize=7)
            ax.set_yscale("log")
            values = [v for _, d in shown for v in d]
            if values:  # headroom above the highest point for its label, in proportion to the decades shown
                span = math.log10(max(values) / min(values))
                ax.set_ylim(min(values) / 10 ** max(0.05 * span, 0.005), max(values) * 10 ** max(0.15 * span, 0.01))
            plain_log_labels(ax)
            ax.set_xlim(-0.6, len(names) - 0.4)
            ax.set_xticks(range(len(names)), names, fontsize=8)
            ax.set_title(f"{system}: {panel}", fontsize=9)
            if j == 0:
                ax.set_ylabel("congestion impact")
    fig.tight_layout()
    return save_figure(fig, path, provenance)
