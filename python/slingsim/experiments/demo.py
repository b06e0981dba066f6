"""The demo study: latency against offered load on Malbec for three routings and two patterns.

Malbec (``slingshot-malbec``, 484 nodes) runs uniform random traffic and
group-adversarial traffic (group i to group i+1) under minimal, Valiant and
UGAL routing. Minimal routing saturates on adversarial traffic at the
16 links between two groups (about a quarter of injection bandwidth), Valiant
spreads it over all groups at the cost of a second global hop, and UGAL
should follow minimal on uniform traffic and Valiant on adversarial traffic.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

import pyarrow as pa

from .. import provenance
from ..cluster import SchedulerLike
from ..config import Config, load_config
from ..plots import plot_load_curves
from ..store import CacheLike
from ..sweep import configs_at_loads, load_curve_row, run_labelled
from .output import study_output

PRESET = "slingshot-malbec"
ROUTINGS = ("minimal", "valiant", "ugal")
LOADS: Dict[str, Tuple[float, ...]] = {
    "uniform": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    "group_adversarial": (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6),
}
"""Offered loads per pattern: adversarial saturates far earlier, so it is sampled more finely."""

QUICK_LOADS: Dict[str, Tuple[float, ...]] = {
    "uniform": (0.2, 0.5, 0.8),
    "group_adversarial": (0.1, 0.3, 0.5),
}
WINDOW_NS = {"warmup_ns": 20000, "duration_ns": 80000}
"""20 us to fill the buffers, 80 us measured: thousands of packets per point, tens of seconds in all."""
QUICK_WINDOW_NS = {"warmup_ns": 10000, "duration_ns": 20000}


def demo_points(quick: bool = False) -> List[Tuple[Dict[str, object], Config]]:
    """Every (labels, config) of the study: labels hold pattern, routing and load."""
    base = load_config(PRESET)
    base["sim"].update(QUICK_WINDOW_NS if quick else WINDOW_NS)
    # A routing study: the routing alone makes the difference, so congestion
    # control is off and frames are RoCE ([DeSensi20] ran Malbec with ConnectX-5).
    base["congestion"] = {"algorithm": "none"}
    base["nic"]["frame"] = "roce"
    points = []
    for pattern, loads in (QUICK_LOADS if quick else LOADS).items():
        for routing in ROUTINGS:
            cfg = copy.deepcopy(base)
            cfg["traffic"][0]["pattern"] = pattern
            cfg.setdefault("routing", {})["algorithm"] = routing
            for load, point in zip(loads, configs_at_loads(cfg, loads)):
                points.append(({"pattern": pattern, "routing": routing, "load": load}, point))
    return points


def run_demo(
    out_dir: Union[str, Path] = "out/demo",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study, write ``demo.parquet`` and ``latency_vs_load.png`` into ``out_dir``, return the table."""
    started = provenance.now()
    rows, summaries = [], []
    for labels, summary in run_labelled(demo_points(quick), scheduler, workers, progress, cache):
        row = {"pattern": labels["pattern"], "routing": labels["routing"]}
        row.update(load_curve_row(labels["load"], summary))
        rows.append(row)
        summaries.append(summary)
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        table = out.table(rows)
        out.write(demo=rows)
        plot_load_curves(
            table, out.path / "latency_vs_load.png", label_column="routing", facet_column="pattern",
            title="Malbec (484 nodes): minimal, Valiant and UGAL routing", provenance=out.provenance,
        )
    return table
