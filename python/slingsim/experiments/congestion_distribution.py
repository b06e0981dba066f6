"""[DeSensi20] Fig. 10: the distribution of congestion impacts over victim/aggressor combinations,
for each placement, with busier aggressors, and on fewer nodes; Slingshot against Aries.

Each violin summarises one Fig. 9 heatmap (every victim, both aggressors,
every victim share; see ``congestion_heatmap``) by the distribution of its
impacts, with its maximum written on top:
(A) placements linear, interleaved and random, one aggressor process per
node; (B) the same with ``AGGRESSOR_PPN`` aggressor processes per node;
(C) 128 nodes, 64 in each of two groups, Malbec against Crystal, linear.
(A) and (B) run on the heatmap's systems: Shandy against Crystal, 512
nodes (``--quick``: Malbec against Crystal, 96 nodes).
The paper's answers: on Aries interleaved and random placements are worse
than linear (impacts up to ~150), busier aggressors worse still, fewer
nodes milder (max 154 -> 40); Slingshot stays below ~2 everywhere and its
distributions are narrow.

``--quick`` starts victims beside a one-process-per-node all-to-all at 0.2 ms
(``congestion_heatmap.QUICK_ALLTOALL_START_NS``) and runs one point beside (B)'s all-to-all
(``QUICK_PPN_ALLTOALL_POINTS``), so it takes under 5 minutes on one core.

(B) runs the paper's 24 aggressor processes per node as the paper does:
each process slot runs its own copy of the pattern over one process per
node (``ppn_copies``; [DeSensi20] Sec. III: "the congestion pattern is
concurrently executed PPN times"), so an incast has 24 targets on one
node and an alltoall 24 concurrent alltoalls of one process per node.
Before 2026-11-27 it ran 4 processes per node and one pattern over all
of them.

Every point must pass ``congestion_heatmap``'s check that the victim meets
its aggressor (``victim_shares``), or the recipe refuses to report. So
(C)'s pool (``small_pool``) takes the first 8 nodes of each switch (on
Crystal, whose routers hold 4, the first 64 nodes of each group as
before), and lists them switch by switch, alternating between the two
groups, before the victim takes the first of them: with the first 64 nodes
of each group in group order a 10% victim (13 nodes) sat on one Malbec
switch, and a 50% victim filled group 0 while the aggressor filled group 1;
neither victim ever met its aggressor's traffic.
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
from .congestion_heatmap import (  # noqa: E402
    QUICK_SYSTEMS,
    identical_points,
    max_impact,
    run_points,
    study_points,
    summarise_shares,
)
from .output import study_output  # noqa: E402
from .placement import switch_order_pool  # noqa: E402
from .stop_rules import check_stop_rule, stop_rule_checks, study_params

SMALL_SYSTEMS = QUICK_SYSTEMS
"""Fig. 10 (C): Malbec against Crystal, to factor out the systems' sizes ([DeSensi20] Sec. III-B)."""
PLACEMENTS = ("linear", "interleaved", "random")
AGGRESSOR_PPN = 24
SMALL_GROUP_NODES = 64
"""Fig. 10 (C): nodes taken from each of two groups."""
SMALL_GROUP_PER_SWITCH = 8
"""Fig. 10 (C): at most this many of a group's nodes from each switch, so a 10% victim spans switches."""
QUICK_PPN_ALLTOALL_POINTS = (("random", "pingpong 8B"),)
"""``--quick``, panel (B): the (placement, victim) pairs run beside the 24-copy all-to-all; every victim
runs beside the incast. Those copies start in step and are not steady before the victim's 1 ms start,
and each such point costs about 30 s on one core (Crystal's 64 B packets), so quick keeps one: the
small-message victim the paper finds most hurt, with the random placement where the paper finds 24
aggressor processes hurt most. Full mode runs every victim with every placement."""


def small_pool(preset: str, groups: int = 2, per_group: int = SMALL_GROUP_NODES) -> List[int]:
    """Fig. 10 (C)'s pool: ``per_group`` nodes of each of the first ``groups`` groups, at most
    ``SMALL_GROUP_PER_SWITCH`` of each switch, switch by switch with the groups in turn
    (:func:`switch_order_pool`), so a victim taking the first of them spans both groups."""
    return switch_order_pool(preset, groups, per_group, SMALL_GROUP_PER_SWITCH)


def cases(quick: bool = False) -> List[Tuple[Dict[str, Any], List[Tuple[Dict[str, Any], Any, Any]]]]:
    """Every (panel labels, heatmap points) of the figure."""
    out = []
    for placement in PLACEMENTS:
        out.append(({"panel": "A: placement", "case": placement},
                    study_points(quick, placement=placement)))
    for placement in PLACEMENTS:
        points = study_points(quick, placement=placement, aggressor_ppn=AGGRESSOR_PPN)
        if quick:
            points = [p for p in points
                      if p[0]["aggressor"] == "incast" or (placement, p[0]["victim"]) in QUICK_PPN_ALLTOALL_POINTS]
        out.append(({"panel": f"B: aggressor PPN {AGGRESSOR_PPN}", "case": placement}, points))
    pools = {system: small_pool(preset) for system, preset in SMALL_SYSTEMS.items()}
    out.append(({"panel": f"C: {2 * SMALL_GROUP_NODES} nodes", "case": "linear"},
                study_points(quick, systems=SMALL_SYSTEMS, pools=pools)))
    return out


def run_congestion_distribution(
    out_dir: Union[str, Path] = "out/congestion-distribution",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
    stop_rule: Optional[str] = None,
) -> pa.Table:
    """Run the figure; write ``congestion_distribution.parquet`` (every impact), ``congestion_distribution.png``;
    return a table with one row per panel, case and system (count, median, max of the impacts)."""
    all_cases = cases(quick)
    points = [p for _, ps in all_cases for p in ps]
    check_stop_rule(stop_rule)
    started = provenance.now()
    rows, summaries, shares = run_points(points, scheduler, workers, progress, cache, name="congestion-distribution",
                                         stop_rule=stop_rule)
    labelled, shared, at = [], {}, 0
    for labels, ps in all_cases:
        labelled += [{**labels, **row} for row in rows[at:at + len(ps)]]
        shared[f"{labels['panel']}: {labels['case']}"] = summarise_shares(ps, shares[at:at + len(ps)])
        at += len(ps)
    summary = summarise(labelled)
    checks = {**key_figures(labelled), "shares_checked": True, "shares": shared,
              **stop_rule_checks(labelled, stop_rule)}
    with study_output(out_dir, summaries, started, study_params(quick, stop_rule)) as out:
        out.write(congestion_distribution=labelled)
        plot(labelled, out.path / "congestion_distribution.png", out.provenance)
        return out.table(summary, checks)


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Each violin's maximum, per system: by placement (A), by placement with busier aggressors (B), on
    128 nodes (C); each with whether it is a lower bound (a censored point in its violin)."""
    out: Dict[str, Any] = {}
    for system in ("Slingshot", "Aries"):
        mine = [r for r in rows if r["system"] == system]
        prefix = system.lower()
        for key, panel in (("max_impact", "A"), ("max_impact_by_ppn", "B"), ("max_impact_128_nodes", "C")):
            cases = {r["case"]: max_impact([m for m in mine if m["panel"] == r["panel"] and m["case"] == r["case"]])
                     for r in mine if r["panel"].startswith(panel)}
            if key == "max_impact_128_nodes":  # one case: linear
                out[f"{prefix}_{key}"], out[f"{prefix}_{key}_censored"] = cases.get("linear", (None, False))
            else:
                out[f"{prefix}_{key}"] = {case: v for case, (v, _) in cases.items()}
                out[f"{prefix}_{key}_censored"] = {case: c for case, (_, c) in cases.items()}
    out["aggressor_ppn"] = AGGRESSOR_PPN
    out["identical_points"] = identical_points(rows)
    out["paper"] = {"source": "[DeSensi20] Sec. III-A, Fig. 10",
                    "aries_max_impact": {"linear": "at most 100", "interleaved": "up to 150", "random": "up to 150"},
                    "slingshot_max_impact": "below 2 in all but one case",
                    "by_ppn": "24 aggressor processes per node: Aries worse, especially random; Slingshot's maximum "
                              "about 200 times lower than Aries'",
                    "max_impact_128_nodes": {"aries": [154, 40], "slingshot": [2.3, 1.5],
                                             "note": "maximum on 512 nodes, then on 128 nodes"}}
    return out


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
