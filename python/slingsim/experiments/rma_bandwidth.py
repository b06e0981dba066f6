"""[Roweth] Sec. V, Fig. 6: RMA bandwidth against transfer size for 1-64 processes on one Cassini NIC.

The paper ran a SHMEM put bandwidth test on one NIC of Shadow: "Half peak bandwidth of 12.5 GB/s is
achieved for transfer sizes of approximately 128 bytes using 16 or more PEs per NIC. Asymptotic
bandwidth is achieved on transfer sizes of between 1K and 2K depending on the number of active PEs."

Here ``pes`` ranks on the first node of the small Cassini fabric (``cassini_host``) each put
``WINDOW`` transfers of one size to a partner rank on the second node, then wait for all of them
(transmit completion, as ``shmem_quiet`` after a loop of ``shmem_putmem``). The partners take no part
(one-sided). Bandwidth is payload bytes per second through the first node's NIC, over the longest
timed window (from the first PE's start after a barrier to the last PE's last completion). A point is reported only if its
run moved exactly the puts it built, over one NIC per node.

What sets the curve in the model: each put costs its rank the host stack's CPU time per message, so
``pes`` ranks post ``pes`` times as many puts per second until the NIC's link, at 200 Gb/s with
Slingshot framing, is the limit; a transfer above ``host.inline_bytes`` (96 B) also waits for the
NIC's DMA read of its payload, which delays it but does not occupy the rank.
"""
from __future__ import annotations

import math
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

PES = (1, 2, 4, 8, 16, 32, 64)
"""[Roweth] Sec. V: up to 64 ranks per NIC."""
QUICK_PES = (1, 16, 64)
SIZES = tuple(2 ** k for k in range(3, 14))  # 8 B to 8 KiB
QUICK_SIZES = (8, 64, 128, 256, 512, 2048, 8192)
WINDOW = 256
"""Puts each PE issues before it waits for their completion."""
ITERATIONS = 2
QUICK_ITERATIONS = 2
PAPER_PEAK_GBYTES = 25.0
"""Twice the half peak the paper gives (12.5 GB/s)."""
PAPER_HALF_PEAK_BYTES = 128
PAPER_ASYMPTOTE_BYTES = (1024, 2048)
NODES = [0, 1]
MAX_TIME_NS = 100e6


def put_program(pes: int, nbytes: int) -> Dict[str, Any]:
    """One iteration for ``2 * pes`` ranks: ranks below ``pes`` (first node) put ``WINDOW`` transfers of
    ``nbytes`` to rank ``pes + i`` (second node) and wait for them; the others only mark the timer."""
    ops = []
    for rank in range(2 * pes):
        mine: List[Dict[str, Any]] = [{"op": "coll", "kind": "barrier", "comm": 0}]
        if rank < pes:
            puts = [{"op": "put", "comm": 0, "peer": pes + rank, "bytes": nbytes, "req": i, "completion": "transmit"}
                    for i in range(WINDOW)]
            mine += [{"op": "timer_start"}, *puts, {"op": "wait", "reqs": list(range(WINDOW))}, {"op": "timer_stop"}]
        mine.append({"op": "iteration_end"})
        ops.append(mine)
    return {"ranks": 2 * pes, "comms": [list(range(2 * pes))], "ops": ops}


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): each PE count and transfer size."""
    points = []
    for pes in QUICK_PES if quick else PES:
        for nbytes in QUICK_SIZES if quick else SIZES:
            cfg = cassini_fabric(1)
            cfg["sim"]["max_time_ns"] = MAX_TIME_NS
            cfg["job"] = [{"name": "rma", "workload": "program", "ppn": pes, "nodes": {"list": NODES},
                           "iterations": QUICK_ITERATIONS if quick else ITERATIONS,
                           "program": put_program(pes, nbytes)}]
            points.append(({"pes": pes, "bytes": nbytes}, cfg))
    return points


def row_of(labels: Dict[str, Any], summary: Dict[str, Any]) -> Dict[str, Any]:
    """One point's row; refuses a run that did not finish or did not move the puts it was built with."""
    if summary["endpoints"] != summary["nodes"]:
        raise RuntimeError(f"rma-bandwidth: {labels}: {summary['endpoints']} NICs on {summary['nodes']} nodes; "
                           "the figure is about one NIC per node")
    job = summary["jobs"]["rma"]
    if not job["finished"] or not job.get("timed_ns"):
        raise RuntimeError(f"rma-bandwidth: {labels}: the job did not finish ({summary['end_reason']})")
    want = job["iterations"] * labels["pes"] * WINDOW
    puts = job["messages"] - job.get("collective_messages", 0)
    if puts != want:
        raise RuntimeError(f"rma-bandwidth: {labels}: {puts} puts moved, not {want}; the test did not run as built")
    # The PEs leave the barrier at different times, so one PE's span can miss part of the others':
    # the test's span is the job's timed window, the first PE's start to the last PE's end (the
    # longest over iterations).
    span_s = job["timed_window_ns"]["max"] * 1e-9
    return {**labels, "span_us": span_s * 1e6,
            "gbytes_per_s": labels["pes"] * WINDOW * labels["bytes"] / span_s / 1e9}


def _size_reaching(rows: List[Dict[str, Any]], pes: int, level: float) -> Optional[float]:
    """The transfer size at which ``pes`` PEs reach ``level`` GB/s, interpolated between the measured
    sizes on log-log axes (None if they never do)."""
    mine = sorted((r for r in rows if r["pes"] == pes), key=lambda r: r["bytes"])
    for lo, hi in zip([None, *mine], mine):
        if hi["gbytes_per_s"] < level:
            continue
        if lo is None:
            return float(hi["bytes"])
        f = (math.log(level) - math.log(lo["gbytes_per_s"])) / (math.log(hi["gbytes_per_s"]) - math.log(lo["gbytes_per_s"]))
        return round(math.exp(math.log(lo["bytes"]) + f * (math.log(hi["bytes"]) - math.log(lo["bytes"]))), 1)
    return None


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Peak bandwidth, and per PE count the transfer size reaching half of it and 90% of it."""
    peak = max(r["gbytes_per_s"] for r in rows)
    pes = sorted({r["pes"] for r in rows})
    half = {p: _size_reaching(rows, p, peak / 2) for p in pes}
    asym = {p: _size_reaching(rows, p, 0.9 * peak) for p in pes}
    many = [p for p in pes if p >= 16]
    half_many = [half[p] for p in many if half[p] is not None]
    smallest = min(r["bytes"] for r in rows)
    at_small = {p: next(r["gbytes_per_s"] for r in rows if r["pes"] == p and r["bytes"] == smallest) for p in pes}
    return {
        "peak_gbytes_per_s": round(peak, 3),
        "half_peak_bytes": {str(p): b for p, b in half.items()},
        "asymptote_bytes": {str(p): b for p, b in asym.items()},
        "half_peak_bytes_16_or_more_pes": max(half_many) if half_many else None,
        "half_peak_within_2x_of_128B": bool(half_many) and all(64 <= b <= 256 for b in half_many),
        "more_pes_more_small_transfer_bandwidth": all(at_small[a] < at_small[b] for a, b in zip(pes, pes[1:])),
        "pes_checked": True,
        "paper": {"source": "[Roweth] Sec. V, Fig. 6", "half_peak_gbytes_per_s": PAPER_PEAK_GBYTES / 2,
                  "half_peak_bytes": PAPER_HALF_PEAK_BYTES, "asymptote_bytes": list(PAPER_ASYMPTOTE_BYTES)},
    }


def run_rma_bandwidth(
    out_dir: Union[str, Path] = "out/rma-bandwidth",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``rma_bandwidth.parquet`` and ``rma_bandwidth.png``; return one row per PE
    count and size with the put bandwidth (GB/s of payload through one NIC)."""
    return run_point_study("rma_bandwidth", study_points(quick), row_of, key_figures, plot, out_dir, quick, scheduler,
                           workers, progress, cache)


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Bandwidth against transfer size, one line per PE count, the paper's half peak marked."""
    fig, ax = plt.subplots(figsize=(5.4, 3.6))
    for pes in sorted({r["pes"] for r in rows}):
        mine = sorted((r for r in rows if r["pes"] == pes), key=lambda r: r["bytes"])
        ax.plot([r["bytes"] for r in mine], [r["gbytes_per_s"] for r in mine], marker="o", ms=3, label=f"{pes} PE")
    ax.axhline(PAPER_PEAK_GBYTES / 2, color="grey", lw=0.8, ls=":")
    ax.axvline(PAPER_HALF_PEAK_BYTES, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("transfer size (bytes)")
    ax.set_ylabel("put bandwidth (GB/s, one NIC)")
    ax.legend(fontsize=7, ncol=2)
    fig.suptitle("RMA put bandwidth, Cassini (dotted: the paper's half peak at 128 B)", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
