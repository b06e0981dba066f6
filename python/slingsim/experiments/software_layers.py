"""[DeSensi20] Fig. 5: half round trip (RTT/2) by message size through each software layer.

Two nodes on one switch of an idle Malbec, RoCE frames as the paper's ConnectX-5 NICs sent them,
ping-pong through bare verbs, through libfabric (verbs;ofi_rxm) and through MPI over libfabric
(``host.layer``). Each layer adds its CPU time per message on both sides ([host] in docs/config.md);
libfabric also copies eager and SAR messages through bounce buffers and switches to a rendezvous
handshake above 128 KiB, verbs do neither. The paper's figure gives the shape, not its numbers in its
text: for small messages MPI adds only a marginal overhead to libfabric. The checks give, per layer,
RTT/2 at 8 B and what MPI adds to libfabric there (``mpi_over_libfabric_8B``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_labelled  # noqa: E402
from .output import study_output  # noqa: E402
from .placement import nodes_per_switch  # noqa: E402
from .roce_host import SYSTEM, idle_malbec  # noqa: E402

LAYERS = ("verbs", "libfabric", "mpi")
NODES = (0, 1)
"""Two nodes on Malbec's first switch."""
SIZES = tuple(8 * 4 ** k for k in range(10))
"""8 B to 2 MiB."""
QUICK_SIZES = (8, 4096, 1_048_576)
ITERATIONS = 5


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): each layer and size."""
    points = []
    for layer in LAYERS:
        for nbytes in QUICK_SIZES if quick else SIZES:
            cfg = idle_malbec()
            cfg.setdefault("host", {})["layer"] = layer
            cfg["job"] = [{"name": "pair", "workload": "pingpong", "bytes": nbytes, "iterations": ITERATIONS,
                           "nodes": {"list": list(NODES)}}]
            points.append(({"layer": layer, "bytes": nbytes}, cfg))
    return points


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """RTT/2 at 8 B per layer and MPI's share over libfabric there; ``one_switch_checked``: the two nodes
    share a switch, as the paper's did."""
    at8 = {r["layer"]: r["half_rtt_us"] * 1e3 for r in rows if r["bytes"] == 8}
    per_switch = nodes_per_switch(SYSTEM)
    return {
        "one_switch_checked": len({n // per_switch for n in NODES}) == 1,
        "rtt2_8B_ns": {k: round(v, 1) for k, v in at8.items()},
        "mpi_over_libfabric_8B": round(at8["mpi"] / at8["libfabric"] - 1, 4),
        "paper": {"mpi_over_libfabric_8B": "marginal ([DeSensi20] Fig. 5: MPI adds only a marginal overhead "
                                           "to libfabric for small messages)"},
    }


def run_software_layers(
    out_dir: Union[str, Path] = "out/software-layers",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``software_layers.parquet`` and ``software_layers.png``; return one row per
    layer and size with RTT/2 (us)."""
    started = provenance.now()
    rows, summaries = [], []
    for labels, summary in run_labelled(study_points(quick), scheduler, workers, progress, cache):
        summaries.append(summary)
        rows.append({**labels, "half_rtt_us": summary["jobs"]["pair"]["iteration_ns"]["mean"] / 2e3})
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(software_layers=rows)
        plot(rows, out.path / "software_layers.png", out.provenance)
        return out.table(rows, key_figures(rows))


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """RTT/2 against message size, one line per layer."""
    fig, ax = plt.subplots(figsize=(5, 3.4))
    for layer in LAYERS:
        mine = sorted((r for r in rows if r["layer"] == layer), key=lambda r: r["bytes"])
        ax.plot([r["bytes"] for r in mine], [r["half_rtt_us"] for r in mine], marker="o", ms=3, label=layer)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("RTT/2 (us)")
    ax.legend(fontsize=8)
    fig.suptitle("Malbec, one switch, RoCE: RTT/2 by software layer", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
