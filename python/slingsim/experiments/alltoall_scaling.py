"""[Roweth] Fig. 3: MPI_Alltoall bandwidth on Shandy against message size, for 64 to 1024 nodes.

The paper: bandwidth "scales well with the number of nodes"; it changes at 256-512 B, where MPICH
leaves Bruck's algorithm [Bruck et al. 1997] for sending to every peer directly; the highest
bandwidth measured, 11.4 TB/s on 1024 nodes, is 89% of the 12.8 TB/s all-to-all peak (224 global
links, 7/8 of the traffic crossing them), with no packet dropped.

Here one MPI_Alltoall per iteration over ``n`` nodes, one process per node, ``n / 8`` nodes in each
of Shandy's 8 groups (the first of each group), so every node count spans every group and sends
7/8 of its bytes over global links as the full machine does. MPICH's algorithms by size
(mpi/collectives.rs): Bruck up to 256 B, above that nonblocking sends to and receives from 32 peers
at a time (MPICH's medium-message algorithm) up to 32 KiB, pairwise exchange beyond. The sizes stop
at 32 KiB: above it, pairwise exchange with one process per node keeps one message in flight behind
a rendezvous handshake (17.7% of the injection bound at 64 KiB, measured in docs/experiments.md,
``bisection-alltoall``), and more processes per node, which the paper ran, would multiply the
messages by the square of the processes per node.

A row's peak is the lower of what the nodes inject (both 100 Gb/s rails of every node) and the
network's all-to-all bound (the 11.2 TB/s of global links over the 7/8 of the bytes that cross
them). A row also gives what the rank order lets MPICH's rounds move at best (``schedule_bound.py``):
in node order consecutive ranks share a group, so each round is group-adversarial and on 1024 nodes
no network carries more than 0.61 of the peak that way. A point is refused unless every byte was
delivered and its nodes span all 8 groups.

Where the time goes, by one command: at the most nodes and the largest size the recipe also runs the
same alltoall with one cause lifted at a time (``VARIANTS``): the ranks spread over the groups (rank i
in group i mod 8, which lets MPICH's rounds move 0.999 of the peak), then also on bare verbs (no
rendezvous, no eager copies, less CPU per message), then also without congestion management; and,
over MPI on the spread nodes, four processes per node at 8 KiB per rank pair (``VARIANT_SHAPES``:
eager messages, four CPUs sharing a node's per-message costs). Each is a row with its ``variant``;
the figure's lines and the paper's checks read only the recipe's own rows (``node-order``). Each row
also has the mean time its rendezvous messages spent in each stage (``rendezvous_*_us``), and how
long the busiest rank's CPU worked on MPI (``mpi_cpu_us_max``; ``mpi_cpu_fraction`` of the run: near 1
the host, not the network, sets the pace), and the share of its packets adaptive routing sent on
non-minimal paths (``nonminimal_fraction``; the paper's counters showed "high numbers of reroutes"), and how far
apart its ranks finished each block of peers (``round_spread_mean_us``, ``round_spread_max_us``: whether they go
through MPICH's rounds together, as the rounds' bound assumes).
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config, apply_overrides, load_config  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from .bisection_alltoall import ALLTOALL_PEAK_TBPS, SYSTEM, injection_tbytes_per_s, moved_bytes  # noqa: E402
from .placement import group_pool, nodes_per_group  # noqa: E402
from .point_study import run_point_study  # noqa: E402
from .schedule_bound import alltoall_bound_tbytes_per_s  # noqa: E402
from .output import rounded  # noqa: E402
from .time_columns import RENDEZVOUS_STAGES, SPREAD_STATS, time_columns  # noqa: E402

GROUPS = 8
NODE_COUNTS = (64, 128, 256, 512, 1024)
QUICK_NODE_COUNTS = (64, 128, 256, 512)
SIZES = (8, 64, 256, 512, 4096, 32_768)
QUICK_SIZES = (256, 512, 32_768)
PAPER_BEST_TBPS = 11.4
"""[Roweth] Sec. II-F: the highest all-to-all bandwidth measured on Shandy's 1024 nodes."""
RISE_TOLERANCE = 0.95
"""Bandwidth at the largest size counts as rising with the nodes if each count reaches at least this
fraction of the next smaller count's (a flat curve at a shared bound still counts)."""


RECIPE = "node-order"
RECIPE_WHAT = "the recipe: ranks in node order, MPI"
VARIANTS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "spread": ("ranks spread over the groups (rank i in group i mod 8)", ()),
    "spread-verbs": ("spread, on bare verbs: no rendezvous, no eager copies, less CPU per message",
                     ("host.layer=verbs",)),
    "spread-verbs-unmanaged": ("spread, on bare verbs, without congestion management",
                               ("host.layer=verbs", "congestion.algorithm=none")),
    "spread-4ppn": ("spread, MPI, 4 processes per node at 8 KiB per rank pair (eager; four CPUs per node)", ()),
}
"""The runs beside the recipe's at the most nodes and the largest size, each lifting one more cause
of the gap to the peak: what it is, and the overrides it applies."""
FULL_ONLY_VARIANTS = ("spread-4ppn",)
"""Variants ``--quick`` leaves out: on its 512 nodes four processes per node send 4.2 million messages
(3 minutes of one core's time, over half the quick recipe's), and the host alone allows them at most
0.61 of the peak there (docs/experiments.md), so the run says little of what it says on 1024 nodes."""
VARIANT_SHAPES: Dict[str, Tuple[int, int]] = {"spread-4ppn": (4, 8_192)}
"""Variants that change the processes per node, and the bytes per rank pair they send instead of the
largest size: four processes per node at 8 KiB move 4 x 4 x 8 KiB = 128 KiB per node pair, and 8 KiB
goes eagerly (no rendezvous)."""


def node_list(count: int, spread: bool = False) -> List[int]:
    """The first ``count / 8`` nodes of each of Shandy's groups: group by group (node order), or with
    ``spread`` rank i on node i div 8 of group i mod 8."""
    if count % GROUPS or not 0 < count <= GROUPS * nodes_per_group(SYSTEM):
        raise ValueError(f"node count must be a multiple of {GROUPS} up to {GROUPS * nodes_per_group(SYSTEM)}, "
                         f"got {count!r}")
    nodes = group_pool(SYSTEM, GROUPS, count // GROUPS)
    if not spread:
        return nodes
    per = count // GROUPS
    return [nodes[(i % GROUPS) * per + i // GROUPS] for i in range(count)]


def shape_of(variant: str, nbytes: int) -> Tuple[int, int]:
    """The processes per node and bytes per rank pair of ``variant`` at size ``nbytes``."""
    return VARIANT_SHAPES.get(variant, (1, nbytes))


def _config(count: int, nbytes: int, variant: str) -> Config:
    cfg = load_config(SYSTEM)
    cfg["traffic"] = []
    cfg["sim"]["max_time_ns"] = 1e9
    ppn, nbytes = shape_of(variant, nbytes)
    cfg["job"] = [{"name": "alltoall", "workload": "alltoall", "bytes": nbytes, "iterations": 1, "ppn": ppn,
                   "nodes": {"list": node_list(count, spread=variant != RECIPE)}}]
    return cfg if variant == RECIPE else apply_overrides(cfg, VARIANTS[variant][1])


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): each node count and size in node order, then the variants at the most
    nodes and the largest size (with ``quick``, all but ``FULL_ONLY_VARIANTS``)."""
    counts, sizes = (QUICK_NODE_COUNTS, QUICK_SIZES) if quick else (NODE_COUNTS, SIZES)
    points = [({"nodes": count, "bytes": nbytes, "variant": RECIPE}, _config(count, nbytes, RECIPE))
              for count in counts for nbytes in sizes]
    for v in VARIANTS:
        if quick and v in FULL_ONLY_VARIANTS:
            continue
        ppn, nbytes = shape_of(v, sizes[-1])
        points.append(({"nodes": counts[-1], "bytes": nbytes, "ppn": ppn, "variant": v},
                       _config(counts[-1], sizes[-1], v)))
    return points


def peak_tbytes_per_s(nodes: int) -> float:
    """The lower of the nodes' injection and the network's all-to-all bound, TB/s."""
    return min(injection_tbytes_per_s(nodes), ALLTOALL_PEAK_TBPS)


def row_of(labels: Dict[str, Any], summary: Dict[str, Any]) -> Dict[str, Any]:
    """One point's row; refuses a run that lost bytes, did not finish or does not span every group."""
    where = f"alltoall-scaling: {labels['nodes']} nodes, {labels['bytes']} B"
    job = summary["jobs"]["alltoall"]
    if not job["finished"] or job["iteration_ns"] is None:
        raise RuntimeError(f"{where}: the alltoall did not finish ({summary['end_reason']}); no bandwidth to report")
    if summary.get("bytes_lost", 0):
        raise RuntimeError(f"{where}: {summary['bytes_lost']} bytes were lost; the paper's run lost none")
    variant = labels.get("variant", RECIPE)
    nodes = node_list(labels["nodes"], spread=variant != RECIPE)
    groups = {n // nodes_per_group(SYSTEM) for n in nodes}
    if len(groups) != GROUPS:
        raise RuntimeError(f"{where}: the nodes span {len(groups)} groups, not {GROUPS}")
    mean_ns = job["iteration_ns"]["mean"]
    ppn = labels.get("ppn", 1)
    tbps = moved_bytes("alltoall", labels["nodes"] * ppn, labels["bytes"]) / mean_ns / 1e3
    peak = peak_tbytes_per_s(labels["nodes"])
    bound = alltoall_bound_tbytes_per_s(SYSTEM, tuple(nodes), labels["bytes"], ppn)
    return {**labels, "variant": variant, "ppn": ppn, "iteration_us": mean_ns / 1e3, "tbytes_per_s": tbps,
            **time_columns(summary, "alltoall"), "peak_tbytes_per_s": peak,
            "fraction_of_peak": tbps / peak, "schedule_bound_tbytes_per_s": bound,
            "fraction_of_schedule_bound": tbps / bound, "bytes_lost": summary.get("bytes_lost", 0)}


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """At the largest size: bandwidth and peak fraction per node count, whether it rises with the nodes;
    the change above 256 B on the most nodes; and the variants' fractions of the peak beside the recipe's
    (``where_time_goes``)."""
    variants = [r for r in rows if r.get("variant", RECIPE) != RECIPE]
    rows = [r for r in rows if r.get("variant", RECIPE) == RECIPE]
    largest = max(r["bytes"] for r in rows)
    top = {r["nodes"]: r for r in rows if r["bytes"] == largest}
    counts = sorted(top)
    most = counts[-1]
    by_size = {r["bytes"]: r["tbytes_per_s"] for r in rows if r["nodes"] == most}
    steps = {RECIPE: top[most]}
    steps.update({r["variant"]: r for r in variants if r["nodes"] == most})
    spread = steps.get("spread")
    return {
        "largest_bytes": largest,
        "tbytes_per_s": {str(n): round(top[n]["tbytes_per_s"], 4) for n in counts},
        "peak_fraction": {str(n): round(top[n]["fraction_of_peak"], 4) for n in counts},
        "alltoall_peak_fraction": round(top[most]["fraction_of_peak"], 4),
        "schedule_bound_peak_fraction": {str(n): round(top[n]["schedule_bound_tbytes_per_s"] / top[n]["peak_tbytes_per_s"], 4)
                                         for n in counts},
        "alltoall_schedule_bound_fraction": round(top[most]["schedule_bound_tbytes_per_s"] / top[most]["peak_tbytes_per_s"], 4),
        "alltoall_of_schedule_bound": round(top[most]["fraction_of_schedule_bound"], 4),
        "most_nodes": most,
        "rises_with_nodes": all(top[b]["tbytes_per_s"] >= RISE_TOLERANCE * top[a]["tbytes_per_s"]
                                for a, b in zip(counts, counts[1:])),
        "drop_above_256B": (by_size[512] < by_size[256]) if 256 in by_size and 512 in by_size else None,
        "bytes_lost": sum(r["bytes_lost"] for r in rows),
        "groups_checked": True,
        "where_time_goes": {v: {"peak_fraction": round(r["fraction_of_peak"], 4),
                                "of_schedule_bound": round(r["fraction_of_schedule_bound"], 4),
                                "what": RECIPE_WHAT if v == RECIPE else VARIANTS[v][0],
                                "ppn": r.get("ppn", 1), "bytes": r["bytes"],
                                "rendezvous_us": _rendezvous_stages(r),
                                "mpi_cpu_fraction": rounded(r.get("mpi_cpu_fraction"), 4),
                                "nonminimal_fraction": rounded(r.get("nonminimal_fraction"), 4),
                                "round_spread_us": {k: rounded(r.get(f"round_spread_{k}_us"), 2) for k in SPREAD_STATS},
                                "round_spread_first_last_block_us": [rounded(r.get("round_spread_first_us"), 2),
                                                                     rounded(r.get("round_spread_last_us"), 2)]}
                            for v, r in steps.items()},
        "spread_alltoall_peak_fraction": None if spread is None else round(spread["fraction_of_peak"], 4),
        "paper": {"source": "[Roweth] Sec. II-F, Fig. 3", "best_tbytes_per_s": PAPER_BEST_TBPS,
                  "alltoall_peak_fraction": round(PAPER_BEST_TBPS / ALLTOALL_PEAK_TBPS, 3),
                  "shape": "scales well with the nodes; changes at 256-512 B (Bruck to a permutation); "
                           "no packet dropped"},
    }


def _rendezvous_stages(row: Dict[str, Any]) -> Optional[Dict[str, float]]:
    """A row's mean time per rendezvous message in each stage (us), or None if none went by rendezvous."""
    stages = {k: row.get(f"rendezvous_{k}_us") for k in RENDEZVOUS_STAGES}
    return None if None in stages.values() else {k: round(v, 2) for k, v in stages.items()}


def run_alltoall_scaling(
    out_dir: Union[str, Path] = "out/alltoall-scaling",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``alltoall_scaling.parquet`` and ``alltoall_scaling.png``; return one row per node
    count and size with TB/s and the fraction of the peak."""
    return run_point_study("alltoall_scaling", study_points(quick), row_of, key_figures, plot, out_dir, quick,
                           scheduler, workers, progress, cache)


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Left: TB/s against message size, one line per node count, the variants as open markers at the largest
    size, the full machine's peak dashed. Right, where the time goes at the most nodes: each run's fraction of
    the peak as a bar, and the busiest rank's share of the run its CPU spent on MPI as a dot."""
    fig, (ax, where) = plt.subplots(1, 2, figsize=(10, 3.8), gridspec_kw={"width_ratios": [1.3, 1]})
    recipe = [r for r in rows if r.get("variant", RECIPE) == RECIPE]
    for k, count in enumerate(sorted({r["nodes"] for r in recipe})):
        mine = sorted((r for r in recipe if r["nodes"] == count), key=lambda r: r["bytes"])
        ax.plot([r["bytes"] for r in mine], [r["tbytes_per_s"] for r in mine], marker="o", ms=3, color=f"C{k}",
                label=f"{count} nodes")
    variants = [r for r in rows if r.get("variant", RECIPE) != RECIPE]
    for k, (r, marker) in enumerate(zip(variants, itertools.cycle("^sDvP<>"))):
        # Set a little apart to the right of their size, so markers of equal height stay visible.
        ax.plot([r["bytes"] * 1.15 ** (k + 1)], [r["tbytes_per_s"]], marker=marker, ls="none", color="k",
                mfc="none", label=f"{r['nodes']} nodes, {r['variant']}")
    ax.axhline(ALLTOALL_PEAK_TBPS, color="k", ls="--", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size per pair (bytes)")
    ax.set_ylabel("TB/s")
    ax.legend(fontsize=7)
    _plot_where_time_goes(where, recipe, variants)
    fig.suptitle("MPI_Alltoall on Shandy, lines with 1 process per node (12.8 TB/s peak dashed)", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path, provenance)


def _plot_where_time_goes(ax: Any, recipe: List[Dict[str, Any]], variants: List[Dict[str, Any]]) -> None:
    """The recipe's run at the most nodes and largest size and each variant: fraction of the peak (bar) and
    the busiest rank's MPI CPU share of the run (dot; none where the summary had none)."""
    most = max(r["nodes"] for r in recipe)
    top = max((r for r in recipe if r["nodes"] == most), key=lambda r: r["bytes"])
    runs = [top] + [r for r in variants if r["nodes"] == most]
    names = [r.get("variant", RECIPE) for r in runs]
    y = list(range(len(runs)))
    ax.barh(y, [r["fraction_of_peak"] for r in runs], color="0.7", label="fraction of the peak")
    cpu = [(i, r.get("mpi_cpu_fraction")) for i, r in zip(y, runs) if r.get("mpi_cpu_fraction") is not None]
    if cpu:
        ax.plot([c for _, c in cpu], [i for i, _ in cpu], "o", color="C3", label="busiest CPU on MPI")
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("share")
    ax.set_title(f"{most} nodes, where the time goes", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
