"""[DeSensi20] Fig. 2: the latency of a Rosetta switch, as the difference between 2-hop and 1-hop latency.

The paper sends RoCE traffic between nodes on one switch (1 hop) and on two switches of one group
(2 hops) and reports the difference: mean and median 350 ns, all of the distribution between 300 and
400 ns but for a few outliers. Here each sampled node of an idle Malbec runs an 8 B MPI ping-pong
with a partner on its own switch and with one on another switch of its group; the difference of the
two RTT/2 is one sample. It is the fall-through of one more switch, its FEC and its cable, plus the
difference between the first switch's outputs towards the two partners: each output of each switch has
its own fall-through (``switch.latency_spread_fraction``), so the samples spread. The host stack and
the NIC links are the same on both paths and cancel.
"""
from __future__ import annotations

import random
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
from .output import study_output  # noqa: E402
from .roce_host import SYSTEM, idle_malbec  # noqa: E402

SAMPLES = 96
QUICK_SAMPLES = 24
ITERATIONS = 3
SEED = 2


def node_pairs(cfg: Config, samples: int, seed: int = SEED) -> List[Tuple[int, int, int]]:
    """``(node, partner on its switch, partner on another switch of its group)`` for ``samples``
    distinct nodes, drawn with ``seed`` among the nodes of the system."""
    topo = cfg["topology"]
    per_switch, per_group = topo["endpoints_per_switch"], topo["switches_per_group"]
    nodes = topo.get("nodes", topo["groups"] * per_group * per_switch)
    rng = random.Random(seed)
    out = []
    for node in rng.sample(range(nodes), samples):
        switch = node // per_switch
        group_first = switch - switch % per_group
        mates = [n for n in range(switch * per_switch, (switch + 1) * per_switch) if n != node and n < nodes]
        others = [s for s in range(group_first, group_first + per_group) if s != switch]
        far = [n for s in others for n in range(s * per_switch, (s + 1) * per_switch) if n < nodes]
        out.append((node, rng.choice(mates), rng.choice(far)))
    return out


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): each sampled node's 1-hop and 2-hop ping-pong."""
    base = load_config(SYSTEM)
    points = []
    for sample, (node, near, far) in enumerate(node_pairs(base, QUICK_SAMPLES if quick else SAMPLES)):
        for hops, partner in ((1, near), (2, far)):
            cfg = idle_malbec()  # Fig. 2 is RoCE traffic from ConnectX-5 NICs
            cfg["job"] = [{"name": "pair", "workload": "pingpong", "bytes": 8, "iterations": ITERATIONS,
                           "nodes": {"list": [node, partner]}}]
            points.append(({"sample": sample, "node": node, "partner": partner, "hops": hops}, cfg))
    return points


def percentile(values: List[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``, linear between ranks."""
    v = sorted(values)
    at = (len(v) - 1) * q / 100
    lo = int(at)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (at - lo)


def key_figures(diffs: List[float]) -> Dict[str, Any]:
    """Mean, median, 1st and 99th percentiles of the samples, and the paper's values."""
    return {
        "mean_ns": round(sum(diffs) / len(diffs), 2),
        "median_ns": round(percentile(diffs, 50), 2),
        "p1_ns": round(percentile(diffs, 1), 2),
        "p99_ns": round(percentile(diffs, 99), 2),
        "min_ns": round(min(diffs), 2),
        "max_ns": round(max(diffs), 2),
        "samples": len(diffs),
        "paper": {"mean_ns": 350, "median_ns": 350, "range_ns": [300, 400], "source": "[DeSensi20] Fig. 2"},
    }


def run_switch_latency(
    out_dir: Union[str, Path] = "out/switch-latency",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``switch_latency.parquet`` and ``switch_latency.png``; return one row per
    sampled node with its 1-hop and 2-hop RTT/2 and their difference (ns)."""
    started = provenance.now()
    merged: Dict[int, Dict[str, Any]] = {}
    summaries = []
    crossings = []
    for labels, summary in run_labelled(study_points(quick), scheduler, workers, progress, cache):
        summaries.append(summary)
        # Switch-to-switch links crossed: 0 for a 1-hop pair, 1 for a 2-hop pair, or the sample
        # is not the difference of one switch.
        crossings.append(summary["traffic"]["pair"]["hops_mean"] == labels["hops"] - 1)
        row = merged.setdefault(labels["sample"], {"node": labels["node"]})
        half = summary["jobs"]["pair"]["iteration_ns"]["mean"] / 2
        key = "one_hop" if labels["hops"] == 1 else "two_hop"
        row[f"{key}_partner"] = labels["partner"]
        row[f"{key}_rtt2_ns"] = half
    rows = list(merged.values())
    for r in rows:
        r["switch_ns"] = r["two_hop_rtt2_ns"] - r["one_hop_rtt2_ns"]
    if not all(crossings):
        raise RuntimeError("switch-latency: a sampled pair did not take a path through exactly one or two switches; "
                           "its difference would not be one switch's latency")
    checks = {**key_figures([r["switch_ns"] for r in rows]), "paths_checked": True}
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(switch_latency=rows)
        plot(rows, checks, out.path / "switch_latency.png", out.provenance)
        return out.table(rows, checks)


def plot(rows: List[Dict[str, Any]], checks: Dict[str, Any], path: Path,
         provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Histogram of the 2-hop minus 1-hop samples, with the paper's 300-400 ns band and 350 ns mean."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.axvspan(300, 400, color="0.9", label="paper: 300-400 ns")
    ax.axvline(350, color="0.4", ls="--", lw=1, label="paper: mean 350 ns")
    ax.hist([r["switch_ns"] for r in rows], bins=20, color="C0", label=f"ours: mean {checks['mean_ns']:.0f} ns")
    ax.set_xlabel("2-hop minus 1-hop RTT/2 (ns)")
    ax.set_ylabel("node pairs")
    ax.set_xlim(250, 450)
    ax.legend(fontsize=7)
    fig.suptitle("Rosetta switch latency, RoCE traffic (Malbec, idle)", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
