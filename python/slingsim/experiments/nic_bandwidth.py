"""[Roweth] Sec. V, Fig. 5: MPI point-to-point bandwidth with one Cassini NIC per node or two.

The paper ran the OSU bandwidth test with 16 processes per node on Shadow, whose nodes have one or two
NICs; with two, MPI divides the ranks over the NICs. The figure's values are not in its text: what it
shows is that two NICs carry about twice what one carries once messages are large.

Here 16 pairs of ranks on two nodes (rank i on the first node, its partner on the second) each stream
windows of ``WINDOW`` messages (the ``message-rate`` workload: a window of nonblocking sends, then a
4-byte reply), on the small Cassini fabric of ``cassini_host``, with ``topology.rails`` = 1 or 2.
Messages leave on the node's rails in turn (``nic.rail_selection = "round-robin"``): over 16 ranks
that spreads the load as evenly as binding each rank to a NIC. A point is reported only if the run's
nodes have the requested number of NICs. Bandwidth is payload bytes per second in one direction.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from .cassini_host import cassini_fabric  # noqa: E402
from .point_study import run_point_study  # noqa: E402

RAILS = (1, 2)
PPN = 16
"""[Roweth] Sec. V: the OSU test used 16 processes per node."""
WINDOW = 16
SIZES = (256, 1024, 4096, 16_384, 65_536, 262_144)
QUICK_SIZES = (1024, 16_384, 65_536)
ITERATIONS = 3
QUICK_ITERATIONS = 2
NODES = [0, 1]
DOUBLING = 1.8
"""Two NICs must carry at least this much more than one at the largest size to count as doubling."""
MAX_TIME_NS = 50e6
"""Room for the largest windows (16 ranks x 16 x 256 KiB through one NIC take about 3 ms each)."""


def fabric(rails: int) -> Config:
    """The small Cassini fabric with ``rails`` NICs per node, messages over them in turn."""
    if rails not in RAILS:
        raise ValueError(f"rails must be one of {RAILS}, got {rails!r}")
    cfg = cassini_fabric(rails)
    cfg["nic"]["rail_selection"] = "round-robin"
    return cfg


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): each NIC count and message size."""
    points = []
    for rails in RAILS:
        for nbytes in QUICK_SIZES if quick else SIZES:
            cfg = fabric(rails)
            cfg["sim"]["max_time_ns"] = MAX_TIME_NS
            cfg["job"] = [{"name": "bw", "workload": "message-rate", "bytes": nbytes, "ppn": PPN,
                           "iterations": QUICK_ITERATIONS if quick else ITERATIONS, "nodes": {"list": NODES},
                           "params": {"window": WINDOW}}]
            points.append(({"nics": rails, "bytes": nbytes}, cfg))
    return points


def row_of(labels: Dict[str, Any], summary: Dict[str, Any]) -> Dict[str, Any]:
    """One point's row; refuses a run whose nodes do not have the NICs asked for."""
    nodes, endpoints = summary["nodes"], summary["endpoints"]
    if endpoints != nodes * labels["nics"]:
        raise RuntimeError(f"nic-bandwidth: {labels}: {endpoints} NICs on {nodes} nodes, not {labels['nics']} "
                           "per node; the NIC count this figure is about was not set up")
    job = summary["jobs"]["bw"]
    if not job["finished"] or job["iteration_ns"] is None:
        raise RuntimeError(f"nic-bandwidth: {labels}: the job did not finish ({summary['end_reason']}); no "
                           "bandwidth to report")
    iteration_s = job["iteration_ns"]["mean"] * 1e-9
    return {**labels, "gbytes_per_s": PPN * WINDOW * labels["bytes"] / iteration_s / 1e9}


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Bandwidth at the largest size with one and two NICs, and their ratio."""
    largest = max(r["bytes"] for r in rows)
    bw = {r["nics"]: r["gbytes_per_s"] for r in rows if r["bytes"] == largest}
    ratio = bw[2] / bw[1]
    return {
        "largest_bytes": largest,
        "one_nic_gbytes_per_s": round(bw[1], 3),
        "two_nics_gbytes_per_s": round(bw[2], 3),
        "two_over_one": round(ratio, 3),
        "two_nics_double": ratio >= DOUBLING,
        "nics_checked": True,
        "paper": {"source": "[Roweth] Sec. V, Fig. 5",
                  "shape": "OSU point-to-point bandwidth, 16 processes per node, one NIC or two; the values "
                           "are not in the paper's text"},
    }


def run_nic_bandwidth(
    out_dir: Union[str, Path] = "out/nic-bandwidth",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``nic_bandwidth.parquet`` and ``nic_bandwidth.png``; return one row per NIC
    count and size with the bandwidth (GB/s of payload, one direction)."""
    return run_point_study("nic_bandwidth", study_points(quick), row_of, key_figures, plot, out_dir, quick, scheduler,
                           workers, progress, cache)


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Bandwidth against message size, one line per NIC count."""
    fig, ax = plt.subplots(figsize=(5, 3.4))
    for nics in RAILS:
        mine = sorted((r for r in rows if r["nics"] == nics), key=lambda r: r["bytes"])
        ax.plot([r["bytes"] for r in mine], [r["gbytes_per_s"] for r in mine], marker="o", ms=3,
                label=f"{nics} NIC{'s' if nics > 1 else ''}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("bandwidth (GB/s, one direction)")
    ax.legend(fontsize=8)
    fig.suptitle("MPI point-to-point bandwidth, 16 PPN, Cassini", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
