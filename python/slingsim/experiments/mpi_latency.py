"""[Roweth] Fig. 7: MPI latency against message size through one switch with Cassini NICs.

An OSU-style ping-pong between two nodes on one switch (a NIC-switch-NIC path: two NIC crossings,
FEC on both links, one switch crossing), the full host stack, and Cassini's host interface as the
``slingshot-max`` preset sets it: a command with up to ``host.inline_bytes`` (96) of payload is written
to the NIC whole; above that the NIC reads the payload by DMA, which adds the CPU's DMA read latency
(``host.dma_read_ns``). The paper: latency is the same from 0 to 96 bytes and rises by the DMA read
latency above. Its figure's values are not in its text, and it shows two CPUs (Xeon, Rome) whose DMA
read latencies it does not give: we run one, the preset's assumed 250 ns.

The network is the small Cassini fabric of ``cassini_host`` (the two nodes share its first switch):
the latency of one switch crossing does not depend on the system's size.
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

NODES = (0, 1)
"""Two nodes on the first switch."""
SIZES = (8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096)
QUICK_SIZES = (8, 64, 96, 128, 1024)
ITERATIONS = 10
FLAT_TOLERANCE = 0.02
"""Up to 96 B the latency may grow by the serialization of the extra bytes only (a few ns)."""
STEP_TOLERANCE = 0.2
"""The step at 96 B must be the DMA read latency within 20% (serialization of 32 more bytes aside)."""


def cassini_pair() -> Config:
    """The small Cassini fabric of ``cassini_host``, idle."""
    return cassini_fabric()


def one_switch(cfg: Config, nodes: Tuple[int, int]) -> bool:
    """True if both nodes hang off one switch (single-rail dragonfly: node // endpoints per switch)."""
    topo = cfg["topology"]
    if topo.get("kind", "dragonfly") != "dragonfly" or topo.get("rails", 1) != 1:
        return False
    per_switch = topo["endpoints_per_switch"]
    return nodes[0] // per_switch == nodes[1] // per_switch and nodes[0] != nodes[1]


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): one ping-pong per size."""
    points = []
    for nbytes in QUICK_SIZES if quick else SIZES:
        cfg = cassini_pair()
        cfg["job"] = [{"name": "pair", "workload": "pingpong", "bytes": nbytes, "iterations": ITERATIONS,
                       "nodes": {"list": list(NODES)}}]
        points.append(({"bytes": nbytes}, cfg))
    return points


def key_figures(rows: List[Dict[str, Any]], inline_bytes: int, dma_read_ns: float) -> Dict[str, Any]:
    """Latency up to the inline limit (flat?) and the step just above it (the DMA read?)."""
    lat = {r["bytes"]: r["latency_ns"] for r in rows}
    inline = [v for b, v in lat.items() if b <= inline_bytes]
    above = min((b for b in lat if b > inline_bytes), default=None)
    at_limit = lat.get(inline_bytes)
    flat = max(inline) / min(inline) - 1
    step = lat[above] - at_limit if above is not None and at_limit is not None else None
    return {
        "latency_8B_ns": round(lat[min(lat)], 1),
        "latency_96B_ns": round(at_limit, 1) if at_limit is not None else None,
        "flat_to_96B": round(flat, 4),
        "flat_to_96B_ok": flat <= FLAT_TOLERANCE,
        "step_at_96B_ns": round(step, 1) if step is not None else None,
        "dma_read_ns": dma_read_ns,
        "step_is_dma_read": step is not None and abs(step - dma_read_ns) <= STEP_TOLERANCE * dma_read_ns,
        "one_switch_checked": True,
        "paper": {"source": "[Roweth] Fig. 7",
                  "flat": "latency the same for 0 to 96 bytes (written to the NIC with the command)",
                  "step": "above 96 bytes latency rises by the CPU's DMA read latency",
                  "values": "not in the paper's text"},
    }


def run_mpi_latency(
    out_dir: Union[str, Path] = "out/mpi-latency",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``mpi_latency.parquet`` and ``mpi_latency.png``; return one row per size with
    the latency (RTT/2, ns), the inline flag and the checks in the table's metadata."""
    base = cassini_pair()
    if not one_switch(base, NODES):
        raise ValueError(f"mpi-latency: nodes {NODES} are not on one switch of this network, so the run would "
                         "not measure a NIC-switch-NIC path; refusing to report")
    inline_bytes, dma_read_ns = int(base["host"]["inline_bytes"]), float(base["host"]["dma_read_ns"])

    def row_of(labels: Dict[str, Any], summary: Dict[str, Any]) -> Dict[str, Any]:
        return {**labels, "latency_ns": summary["jobs"]["pair"]["iteration_ns"]["mean"] / 2,
                "inline": labels["bytes"] <= inline_bytes}

    return run_point_study("mpi_latency", study_points(quick), row_of,
                           lambda rows: key_figures(rows, inline_bytes, dma_read_ns),
                           lambda rows, path, prov: plot(rows, inline_bytes, path, prov),
                           out_dir, quick, scheduler, workers, progress, cache)


def plot(rows: List[Dict[str, Any]], inline_bytes: int, path: Path,
         provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Latency against message size, the inline limit marked."""
    rows = sorted(rows, key=lambda r: r["bytes"])
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ax.plot([r["bytes"] for r in rows], [r["latency_ns"] / 1e3 for r in rows], marker="o", ms=3)
    ax.axvline(inline_bytes, color="grey", ls=":", lw=1, label=f"inline limit ({inline_bytes} B)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("MPI latency, RTT/2 (us)")
    ax.legend(fontsize=8)
    fig.suptitle("Cassini NICs, one switch: MPI latency", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
