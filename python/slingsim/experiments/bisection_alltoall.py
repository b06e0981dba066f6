"""[DeSensi20] Fig. 6: bisection and MPI_Alltoall bandwidth on all 1024 nodes of Shandy.

Shandy's 8 groups have 56 cabled global links each, 8 to every other
group: 128 links cross any cut into two halves of 4 groups, a 6.4 TB/s
bisection peak (both directions), and an all-to-all, which sends 7/8 of its
bytes over global links, peaks at 8/7 x 224 links x 2 x 25 GB/s = 12.8 TB/s
([DeSensi20] Sec. II-G, [Roweth] Sec. II-F). The paper's answers: MPI_Alltoall
reaches more than 90% of its peak with no packet lost, and dips at messages
just above 256 B, where MPICH leaves Bruck's algorithm for sending to every
peer directly.

Bisection: each node of the first 512 (groups 0-3) is paired at random
(seeded) with one of the other 512; the two exchange ``WINDOW`` nonblocking
messages each way per iteration; bandwidth is all
bytes moved over the iteration time; full mode adds the largest size with 16
processes per node, each rank paired across the cut (``BISECTION_PPN``), and
the key figures take, at the largest size, the processes per node that moved
the most. The peak a row is compared with is the
network's or, when lower, what the nodes can inject. Alltoall: one MPI_Alltoall of the size
per pair over 1024 ranks per iteration. One process per node, where the
paper runs several: an alltoall's point-to-point messages grow with the
square of the ranks, so more would not be simulable at 1024 nodes. That
choice bounds the alltoall here, not the network: one process's CPU posts
and completes every message and every rendezvous step of its node
(docs/experiments.md measures it). MPICH's algorithms by size: Bruck up to
256 B, 32 peers at a time up to 32 KiB (the largest size here), one peer at
a time above.
"""
from __future__ import annotations

import random
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
from .placement import group_pool, nodes_per_group  # noqa: E402
from .schedule_bound import alltoall_bound_tbytes_per_s  # noqa: E402
from .time_columns import time_columns  # noqa: E402

SYSTEM = "slingshot-shandy"
NODES = 1024
BISECTION_PEAK_TBPS = 6.4
ALLTOALL_PEAK_TBPS = 12.8
"""TB/s ([DeSensi20] Sec. II-G)."""
SIZES = (64, 256, 512, 4096, 32_768, 1_048_576)
QUICK_SIZES = (256, 512, 32_768, 1_048_576)
ALLTOALL_MAX_BYTES = 32_768
"""Larger alltoalls are left out: above 32 KiB MPICH exchanges with one peer at a time, which with one process
per node measures the rendezvous handshake, not the network (docs/experiments.md); and 1024 ranks x 1023 peers
x 1 MiB is a terabyte, 270 M packets to simulate."""
QUICK_NODES = 512
"""Quick: 64 nodes of every group. Their injection (12.8 TB/s) matches the all-to-all peak, and, as on
all 1024 nodes, MPICH's alltoall rounds in node order are group-adversarial and its bandwidth drops
above 256 B; on 256 nodes neither holds (the NICs bound every round, and 512 B outpaces Bruck's 256 B)."""
WINDOW = 8
ITERATIONS = 2
BISECTION_PPN = 16
"""Full mode also runs the bisection at its largest size with this many processes per node, each rank paired
across the cut and keeping its own window ([DeSensi20] Fig. 6 plots several PPN; its values are not in the text).
One point: 16,384 ranks moving 137 GB take about 10 minutes on one core."""


def bisection_partners(ranks: int, seed: int = 0) -> List[int]:
    """A random pairing of the first half of the ranks with the second (seeded): every pair crosses the cut,
    spread over every pair of groups across it as the paper's test spreads them."""
    half = ranks // 2
    second = list(range(half, ranks))
    random.Random(seed).shuffle(second)
    partner = [0] * ranks
    for rank, peer in zip(range(half), second):
        partner[rank], partner[peer] = peer, rank
    return partner


def bisection_program(ranks: int, nbytes: int) -> Dict[str, Any]:
    """Each rank and its partner across the cut exchange ``WINDOW`` messages each way, then wait for all."""
    partner = bisection_partners(ranks)
    ops = []
    for rank in range(ranks):
        peer = partner[rank]
        mine = [{"op": "irecv", "comm": 0, "peer": peer, "tag": 0, "bytes": nbytes, "req": i} for i in range(WINDOW)]
        mine += [{"op": "isend", "comm": 0, "peer": peer, "tag": 0, "bytes": nbytes, "req": WINDOW + i}
                 for i in range(WINDOW)]
        ops.append(mine + [{"op": "wait", "reqs": list(range(2 * WINDOW))}, {"op": "iteration_end"}])
    return {"ranks": ranks, "comms": [list(range(ranks))], "ops": ops}


def node_list(quick: bool) -> List[int]:
    """All nodes, or for ``quick`` the first 64 of every group."""
    if not quick:
        return list(range(NODES))
    return group_pool(SYSTEM, 8, QUICK_NODES // 8)


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): each test and size."""
    nodes = node_list(quick)
    sizes = QUICK_SIZES if quick else SIZES
    points = []
    for nbytes in sizes:
        tests = [("bisection", 1)] + ([("alltoall", 1)] if nbytes <= ALLTOALL_MAX_BYTES else [])
        if not quick and nbytes == max(sizes):
            tests.append(("bisection", BISECTION_PPN))
        for test, ppn in tests:
            cfg = load_config(SYSTEM)
            cfg["traffic"] = []
            cfg["sim"]["max_time_ns"] = 1e9
            job: Dict[str, Any] = {"name": test, "nodes": {"list": nodes}, "iterations": ITERATIONS}
            if ppn > 1:
                job["ppn"] = ppn
            if test == "bisection":
                job.update(workload="program", program=bisection_program(len(nodes) * ppn, nbytes))
            else:
                job.update(workload="alltoall", bytes=nbytes)
            cfg["job"] = [job]
            points.append(({"test": test, "bytes": nbytes, "nodes": len(nodes), "ppn": ppn}, cfg))
    return points


def injection_tbytes_per_s(nodes: int) -> float:
    """What ``nodes`` Shandy nodes can inject together, TB/s (every rail at the NIC's rate)."""
    cfg = load_config(SYSTEM)
    return nodes * cfg["topology"]["rails"] * cfg["nic"]["bandwidth_bps"] / 8 / 1e12


def moved_bytes(test: str, ranks: int, nbytes: int) -> int:
    """Bytes one iteration moves between nodes."""
    if test == "bisection":
        return ranks * WINDOW * nbytes
    return ranks * (ranks - 1) * nbytes


def run_bisection_alltoall(
    out_dir: Union[str, Path] = "out/bisection-alltoall",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``bisection_alltoall.parquet`` and ``bisection_alltoall.png``; return one row per
    test and size with TB/s and the fraction of the peak."""
    started = provenance.now()
    rows, summaries = [], []
    for labels, summary in run_labelled(study_points(quick), scheduler, workers, progress, cache):
        summaries.append(summary)
        rows.append(row_of(labels, summary, quick))
    checks = key_figures(rows, cut_crossed(node_list(quick)))
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(bisection_alltoall=rows)
        plot(rows, out.path / "bisection_alltoall.png", out.provenance)
        return out.table(rows, checks)


def row_of(labels: Dict[str, Any], summary: Dict[str, Any], quick: bool) -> Dict[str, Any]:
    """One point's row: TB/s against the peak (and, for the alltoall, against what its rounds allow),
    and where the time went (``time_columns``: rendezvous stages, the busiest CPU's MPI share, the
    rounds' spread, non-minimal packets)."""
    job = summary["jobs"][labels["test"]]
    mean_ns = job["iteration_ns"]["mean"] if job["iteration_ns"] else None
    ranks = labels["nodes"] * labels["ppn"]
    tbps = moved_bytes(labels["test"], ranks, labels["bytes"]) / mean_ns / 1e3 if mean_ns else None
    peak = min(BISECTION_PEAK_TBPS if labels["test"] == "bisection" else ALLTOALL_PEAK_TBPS,
               injection_tbytes_per_s(len(node_list(quick))))
    bound = (alltoall_bound_tbytes_per_s(SYSTEM, tuple(node_list(quick)), labels["bytes"])
             if labels["test"] == "alltoall" else None)
    return {**labels, "iteration_us": mean_ns / 1e3 if mean_ns else None, "tbytes_per_s": tbps,
            "peak_tbytes_per_s": peak, "fraction_of_peak": tbps / peak if tbps else None,
            "schedule_bound_tbytes_per_s": bound,
            "fraction_of_schedule_bound": tbps / bound if tbps and bound else None,
            **time_columns(summary, labels["test"]), "bytes_lost": summary.get("bytes_lost", 0)}


def cut_crossed(nodes: List[int]) -> bool:
    """Whether every bisection pair has one node in groups 0-3 and the other in groups 4-7."""
    per_group = nodes_per_group(SYSTEM)
    partner = bisection_partners(len(nodes))
    return all((nodes[r] // per_group < 4) != (nodes[partner[r]] // per_group < 4) for r in range(len(nodes)))


def key_figures(rows: List[Dict[str, Any]], crossed: bool) -> Dict[str, Any]:
    """Each test's bandwidth and peak fraction at its largest size, the alltoall's change above 256 B,
    bytes lost; ``cut_checked``: every bisection pair crosses the cut between groups 0-3 and 4-7."""
    out: Dict[str, Any] = {}
    for test in ("alltoall", "bisection"):
        mine: Dict[int, Dict[str, Any]] = {}
        for r in rows:
            if r["test"] == test and r["tbytes_per_s"]:
                # At each size the processes per node that moved the most (Fig. 6 plots several).
                if r["bytes"] not in mine or r["tbytes_per_s"] > mine[r["bytes"]]["tbytes_per_s"]:
                    mine[r["bytes"]] = r
        if not mine:
            continue
        top = mine[max(mine)]
        if test == "bisection":
            out["bisection_ppn"] = top.get("ppn", 1)
            out["bisection_peak_fraction_by_ppn"] = {
                str(r.get("ppn", 1)): round(r["fraction_of_peak"], 4)
                for r in rows if r["test"] == test and r["tbytes_per_s"] and r["bytes"] == top["bytes"]}
        out[f"{test}_largest_bytes"] = top["bytes"]
        out[f"{test}_tbytes_per_s"] = round(top["tbytes_per_s"], 4)
        out[f"{test}_peak_fraction"] = round(top["fraction_of_peak"], 4)
        if test == "alltoall":
            out["alltoall_schedule_bound_fraction"] = round(top["schedule_bound_tbytes_per_s"] / top["peak_tbytes_per_s"], 4)
            out["alltoall_of_schedule_bound"] = round(top["fraction_of_schedule_bound"], 4)
    a2a = {r["bytes"]: r["tbytes_per_s"] for r in rows if r["test"] == "alltoall" and r["tbytes_per_s"] and r.get("ppn", 1) == 1}
    out["drop_above_256B"] = a2a[512] < a2a[256] if 256 in a2a and 512 in a2a else None
    out["bytes_lost"] = sum(r["bytes_lost"] or 0 for r in rows)
    out["cut_checked"] = crossed
    out["paper"] = {"source": "[DeSensi20] Fig. 6 and Sec. II-G; [Roweth] Sec. II-F",
                    "alltoall_peak_fraction": "more than 0.90 ([DeSensi20]); 11.4 of 12.8 TB/s, 0.89 ([Roweth])",
                    "bisection": "peak 6.4 TB/s; the measured value is not in the text",
                    "drop_above_256B": "a drop above 256 B, where MPICH leaves Bruck's algorithm",
                    "bytes_lost": 0}
    return out


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """TB/s against message size for both tests, each with its peak dashed."""
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for k, test in enumerate(dict.fromkeys(r["test"] for r in rows)):
        for ppn in sorted({r.get("ppn", 1) for r in rows if r["test"] == test}):
            mine = sorted((r for r in rows if r["test"] == test and r.get("ppn", 1) == ppn and r["tbytes_per_s"]),
                          key=lambda r: r["bytes"])
            ax.plot([r["bytes"] for r in mine], [r["tbytes_per_s"] for r in mine], marker="o" if ppn == 1 else "s",
                    ms=3 if ppn == 1 else 5, color=f"C{k}", label=f"{test}, {ppn} PPN")
            if mine and ppn == 1:
                ax.axhline(mine[0]["peak_tbytes_per_s"], color=f"C{k}", ls="--", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("TB/s")
    ax.set_title(f"Shandy, {rows[0]['nodes']} nodes: bisection and MPI_Alltoall (peaks dashed)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
