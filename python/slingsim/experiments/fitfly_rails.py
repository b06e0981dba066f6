"""[McGlohon19] Fig. 3: offered against accepted load of Slim Fly and Fit Fly with 2, 4 and 8 rails.

Fit Fly ([McGlohon19] Sec. 4.2.2) stacks P independent Slim Fly planes and
gives every node one rail per plane. Its Fig. 3 offers uniform random
traffic to Slim Fly and to dual-, quad- and octo-rail Fit Fly (planes equal
rails) and shows that the accepted load grows in proportion to the number of
rails. Loads here are, as in the paper, percentages of one link's bandwidth
(12.5 GiB/s) per node: a node with R rails can inject up to R x 100%.

The full study uses the paper's q = 13 Slim Fly (338 routers and 3,042
nodes per plane); ``quick`` uses q = 5 (50 routers, 200 nodes per plane).

The checks give each network's saturation, the most load it accepted at any offered load, and
whether it grows with the rails; the paper's values are not in its text.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from ..config import Config, load_config  # noqa: E402
from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_labelled  # noqa: E402
from .output import study_output  # noqa: E402

RAILS = (1, 2, 4, 8)
"""1 = Slim Fly; 2, 4, 8 = Fit Fly with as many planes as rails."""
OFFERED_PERCENT = (25, 50, 100, 200, 300, 400, 600, 800)
"""Offered load per node, % of one link's bandwidth; beyond R x 100% a network with R rails is over-driven."""
QUICK_OFFERED_PERCENT = (50, 100, 200, 400, 800)


def network(rails: int, quick: bool) -> Config:
    """The Slim Fly (rails = 1) or Fit Fly (rails = planes) config of the study."""
    cfg = load_config("slimfly-3k" if rails == 1 else "fitfly-3k")
    topo = cfg["topology"]
    if rails > 1:
        topo["planes"] = rails
        topo["rails"] = rails
    if quick:
        topo["q"] = 5
        topo["endpoints_per_switch"] = 4
    cfg["nic"]["rail_selection"] = "congestion"  # [McGlohon19] Table 2: planar selection CONGESTION
    cfg["sim"].update({"warmup_ns": 5000, "duration_ns": 10000 if quick else 20000})
    cfg["traffic"] = [{"name": "uniform", "pattern": "uniform", "load": 0.5}]
    return cfg


def study_points(quick: bool = False) -> List[Tuple[Dict[str, object], Config]]:
    """Every (labels, config) of the study; offered loads a network cannot inject are skipped."""
    points = []
    for rails in RAILS:
        base = network(rails, quick)
        for percent in QUICK_OFFERED_PERCENT if quick else OFFERED_PERCENT:
            load = percent / 100.0 / rails  # engine loads are fractions of the node's R-rail injection bandwidth
            if load > 1.0:
                continue
            cfg = copy.deepcopy(base)
            cfg["traffic"][0]["load"] = load
            points.append(({"network": "Slim Fly" if rails == 1 else f"Fit Fly {rails} rails", "rails": rails, "offered_percent": percent}, cfg))
    return points


def run_fitfly_rails(
    out_dir: Union[str, Path] = "out/fitfly-rails",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``fitfly_rails.parquet`` and ``accepted_vs_offered.png``; return the table."""
    started = provenance.now()
    rows, summaries = [], []
    for labels, s in run_labelled(study_points(quick), scheduler, workers, progress, cache):
        summaries.append(s)
        rails = labels["rails"]
        if s["endpoints"] != s["nodes"] * rails:
            raise RuntimeError(f"fitfly-rails: {labels}: {s['endpoints']} NICs on {s['nodes']} nodes, not {rails} "
                               "per node; the rails this figure is about were not set up")
        rows.append({
            **labels,
            "offered_percent_measured": 100.0 * s["offered_load"] * rails,
            "accepted_percent": 100.0 * s["accepted_load"] * rails,
            "latency_mean_ns": s["latency_ns"]["mean"],
            "hops_mean": s["hops_mean"],
        })
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(fitfly_rails=rows)
        plot(rows, out.path / "accepted_vs_offered.png", quick, out.provenance)
        return out.table(rows, {**key_figures(rows), "rails_checked": True})  # every run's rails checked above


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Saturation (the most accepted load, % of one link per node) per network, its ratio to Slim Fly's,
    8 rails' over 2 rails' (4 if it grows in proportion), and whether it grows with every added rail."""
    saturation: Dict[int, float] = {}
    names: Dict[int, str] = {}
    for r in rows:
        saturation[r["rails"]] = max(saturation.get(r["rails"], 0.0), r["accepted_percent"])
        names[r["rails"]] = r["network"]
    rails = sorted(saturation)
    return {
        "saturation_percent": {names[k]: round(saturation[k], 1) for k in rails},
        "saturation_over_slim_fly": ({names[k]: round(saturation[k] / saturation[1], 3) for k in rails}
                                     if 1 in saturation else None),
        "fitfly_8_over_2": round(saturation[8] / saturation[2], 3) if {2, 8} <= set(saturation) else None,
        "accepted_grows_with_rails": all(saturation[a] < saturation[b] for a, b in zip(rails, rails[1:])),
        "paper": {"source": "[McGlohon19] Sec. 5, Fig. 3",
                  "shape": "accepted load grows in proportion to the number of rails (= planes); the values are "
                           "not in the paper's text"},
    }


def plot(rows: List[Dict[str, object]], path: Path, quick: bool, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Accepted against offered load, one line per network ([McGlohon19] Fig. 3)."""
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for name in dict.fromkeys(r["network"] for r in rows):
        line = sorted((r for r in rows if r["network"] == name), key=lambda r: r["offered_percent"])
        ax.plot([r["offered_percent"] for r in line], [r["accepted_percent"] for r in line], marker="o", label=name)
    ax.set_xlabel("offered load per node (% of link bandwidth)")
    ax.set_ylabel("accepted load per node (% of link bandwidth)")
    ax.set_title(f"Slim Fly and Fit Fly, uniform traffic (q = {5 if quick else 13})")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return save_figure(fig, path, provenance)
