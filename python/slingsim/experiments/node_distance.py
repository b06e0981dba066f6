"""[DeSensi20] Fig. 4: latency and bandwidth between two nodes at different distances on an idle Malbec.

Two nodes on the same switch (1 switch), on two switches of one group
(2 switches) or in two groups (3 switches on the minimal path), for message
sizes from 8 B to 4 MiB. Latency is half the round trip of an MPI ping-pong;
bandwidth is a window of ``WINDOW`` nonblocking messages from one node to the
other, closed by an 8 B acknowledgement (as OSU's bandwidth test does),
bytes over time. The paper's answers: the distance changes 8 B latency by at
most 40% and latency from 16 KiB on by under 10%; bandwidth by under 15% at
any size, sometimes higher across groups where more paths connect the nodes.
The network is idle and the simulation deterministic, so every iteration
takes the same time: one value per point, where the paper shows boxes.
Frames are RoCE, as the paper's ConnectX-5 NICs sent them. Each extra
switch adds a hop of 350 ns on average (fall-through, FEC, cable: [DeSensi20]
Fig. 2) to every crossing; how large that is against the whole latency
depends on the host stack (``[host]``), calibrated so the one-switch 8 B
latency lies in [Roweth] Sec. II-F's 1.5-1.8 us. The recipe's checks give
``spread_8B`` and ``spread_16KiB`` (slowest over fastest distance, minus 1;
the paper: at most 0.40 and under 0.10) and ``one_switch_rtt2_ns``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from ..config import Config  # noqa: E402
from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_labelled  # noqa: E402
from .output import study_output  # noqa: E402
from .placement import nodes_per_group, nodes_per_switch  # noqa: E402
from .roce_host import SYSTEM, idle_malbec  # noqa: E402

DISTANCES = {"same switch": (0, 1), "same group": (0, 16), "different groups": (0, 144)}
"""Distance -> the two nodes (Malbec: 16 nodes per switch, 128 per group). Node 144 is on the second
switch of group 1, three switches from node 0 (node 128's switch holds the global link to node 0's)."""
SIZES = tuple(sorted({8 * 4 ** k for k in range(10)} | {16_384}))
"""8 B to 2 MiB, with 16 KiB, from where [DeSensi20] Fig. 4 finds distances within 10%."""
QUICK_SIZES = (8, 512, 16_384, 1_048_576)
WINDOW = 16
ITERATIONS = 5


def window(nbytes: int) -> Dict[str, Any]:
    """Rank 0 sends ``WINDOW`` messages of ``nbytes`` at once; rank 1 acknowledges them with 8 B."""
    sends = [{"op": "isend", "comm": 0, "peer": 1, "tag": 0, "bytes": nbytes, "req": i} for i in range(WINDOW)]
    recvs = [{"op": "irecv", "comm": 0, "peer": 0, "tag": 0, "bytes": nbytes, "req": i} for i in range(WINDOW)]
    reqs = list(range(WINDOW))
    return {"ranks": 2, "comms": [[0, 1]], "ops": [
        sends + [{"op": "wait", "reqs": reqs}, {"op": "recv", "comm": 0, "peer": 1, "tag": 1, "bytes": 8},
                 {"op": "iteration_end"}],
        recvs + [{"op": "wait", "reqs": reqs}, {"op": "send", "comm": 0, "peer": 0, "tag": 1, "bytes": 8},
                 {"op": "iteration_end"}],
    ]}


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): each distance, size and test."""
    points = []
    for distance, nodes in DISTANCES.items():
        for nbytes in QUICK_SIZES if quick else SIZES:
            # The ping-pong workload of two ranks; the window as an inline program.
            tests = (("latency", {"workload": "pingpong", "bytes": nbytes}),
                     ("bandwidth", {"workload": "program", "program": window(nbytes)}))
            for test, workload in tests:
                cfg = idle_malbec()
                cfg["job"] = [{"name": "pair", **workload, "iterations": ITERATIONS, "nodes": {"list": list(nodes)}}]
                points.append(({"distance": distance, "bytes": nbytes, "test": test}, cfg))
    return points


def run_node_distance(
    out_dir: Union[str, Path] = "out/node-distance",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``node_distance.parquet`` and ``node_distance.png``; return one row per distance and
    size with the half round trip (us) and bandwidth (Gb/s)."""
    started = provenance.now()
    merged: Dict[Tuple[str, int], Dict[str, Any]] = {}
    summaries = []
    for labels, summary in run_labelled(study_points(quick), scheduler, workers, progress, cache):
        summaries.append(summary)
        mean_ns = summary["jobs"]["pair"]["iteration_ns"]["mean"]
        row = merged.setdefault((labels["distance"], labels["bytes"]),
                                {"distance": labels["distance"], "bytes": labels["bytes"]})
        if labels["test"] == "latency":
            row["half_rtt_us"] = mean_ns / 2e3
        else:
            row["bandwidth_gbps"] = WINDOW * labels["bytes"] * 8 / mean_ns
    rows = list(merged.values())
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(node_distance=rows)
        plot(rows, out.path / "node_distance.png", out.provenance)
        return out.table(rows, key_figures(rows))


def spread(rows: List[Dict[str, Any]], nbytes: int) -> float:
    """Slowest over fastest RTT/2 across the distances at ``nbytes``, minus 1."""
    half = [r["half_rtt_us"] for r in rows if r["bytes"] == nbytes]
    return max(half) / min(half) - 1


def distances_hold(pairs: Dict[str, Tuple[int, int]] = DISTANCES) -> bool:
    """Whether each pair sits where its name says on Malbec: one switch; two switches of one group; two groups."""
    per_switch, per_group = nodes_per_switch(SYSTEM), nodes_per_group(SYSTEM)
    where = {name: (a // per_switch == b // per_switch, a // per_group == b // per_group)
             for name, (a, b) in pairs.items()}
    return (where["same switch"] == (True, True) and where["same group"] == (False, True)
            and where["different groups"] == (False, False))


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """What Fig. 4 and [Roweth] Sec. II-F state, ours beside the papers'; ``distances_checked``: each pair of
    nodes sits at the distance its row names."""
    one_switch = next(r["half_rtt_us"] for r in rows if r["distance"] == "same switch" and r["bytes"] == 8)
    return {
        "distances_checked": distances_hold(),
        "spread_8B": round(spread(rows, 8), 4),
        "spread_16KiB": round(spread(rows, 16_384), 4),
        "max_spread_from_16KiB": round(max(spread(rows, b) for b in {r["bytes"] for r in rows} if b >= 16_384), 4),
        "one_switch_rtt2_ns": round(one_switch * 1e3, 1),
        "paper": {"spread_8B": "at most 0.40 ([DeSensi20] Fig. 4)", "spread_16KiB": "under 0.10 ([DeSensi20] Fig. 4)",
                  "max_spread_from_16KiB": "under 0.10 ([DeSensi20] Fig. 4)",
                  "one_switch_rtt2_ns": "1500-1800 ([Roweth] Sec. II-F, quiet MPI latency)"},
    }


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Half round trip and bandwidth against message size, one line per distance."""
    fig, (lat, bw) = plt.subplots(1, 2, figsize=(9, 3.4))
    for distance in dict.fromkeys(r["distance"] for r in rows):
        mine = sorted((r for r in rows if r["distance"] == distance), key=lambda r: r["bytes"])
        sizes = [r["bytes"] for r in mine]
        lat.plot(sizes, [r["half_rtt_us"] for r in mine], marker="o", ms=3, label=distance)
        bw.plot(sizes, [r["bandwidth_gbps"] for r in mine], marker="o", ms=3, label=distance)
    for ax, label in ((lat, "RTT/2 (us)"), (bw, "bandwidth (Gb/s)")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel(label)
    lat.set_yscale("log")
    lat.legend(fontsize=8)
    fig.suptitle("Malbec, idle: two nodes at three distances", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
