"""[DeSensi19] Fig. 4: the time of an MPI_Alltoall run by 8 processes on one node of Piz Daint, by message
size.

The paper runs the collective where the network is not used at all and still finds its time varies a
great deal; so the variability of a communication routine's time is no measure of network noise by itself
(Sec. 3.3: OS noise, synchronisation, contention for shared resources). Here each size runs as its own
8-rank job on one ``aries-daint`` node of its own (:func:`check_one_node` reads the job's node list from the
summary), and :func:`check_network_unused` refuses a run in which any packet of those jobs entered the
network. The calls repeat back to back; the first is left out (it also holds the ranks' start), and the
job's iteration times give every other call's time, from the last rank to finish the call before to the
last rank to finish it.

The host side is ``[host.noise]``, as in ``aries-time-vs-latency`` and with its levels
(:data:`slingsim.experiments.host_noise_levels.NOISE`): no
detours, 1 us detours on 1% and on 10% of each CPU *(assumed: the papers publish no noise figure)*. A
detour stops whatever the rank's CPU is doing (the MPI layer's per-message work of each round, receive
completions); messages between ranks of one node move by memory without the CPU, so a detour does not
touch the copy itself (docs/model.md, "Host noise"). Contention for the node's memory, the paper's third
cause, is not modelled: each message between ranks of a node takes its copy time alone.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_summaries  # noqa: E402
from .aries_time_vs_latency import quartile_dispersion  # noqa: E402
from .host_noise_levels import NOISE, held_up_ns, level_title  # noqa: E402
from .output import rounded, study_output  # noqa: E402

NAME = "aries-node-alltoall"
SYSTEM = "aries-daint"
PPN = 8
"""Processes on the node ([DeSensi19] Sec. 3.3: "8 processes running on the same node")."""
SIZES = (8, 256, 4096, 65_536, 1_048_576)
QUICK_SIZES = (8, 4096, 65_536)
"""Bytes per rank pair *(assumed: the paper's sizes are in its figure only; these are Fig. 5's)*."""
CALLS, QUICK_CALLS = 1000, 200
"""Calls timed per size (one more runs first and is left out)."""
NODE_STRIDE = 4
"""Each size's job takes node ``NODE_STRIDE * k``: a router of its own (Daint has 4 nodes per router)."""


def job_name(size: int) -> str:
    return f"a2a{size}"


def run_config(sizes: Sequence[int], noise: Optional[Dict[str, Any]], calls: int, seed: int = 1) -> Config:
    """One run: an alltoall job of ``calls + 1`` calls per size, 8 ranks on one node of its own, under host
    noise ``noise`` (None: none)."""
    if calls < 4:
        raise ValueError(f"{NAME}: calls = {calls}; quartiles need at least 4")
    cfg = load_config(SYSTEM)
    cfg["traffic"] = []
    cfg["job"] = [{"name": job_name(size), "workload": "alltoall", "bytes": size, "iterations": calls + 1,
                   "ppn": PPN, "nodes": {"list": [NODE_STRIDE * k]}}
                  for k, size in enumerate(sizes)]
    cfg["sim"]["seed"] = seed
    cfg["sim"]["max_time_ns"] = 1e10
    if noise is not None:
        cfg.setdefault("host", {})["noise"] = dict(noise)
    return cfg


def check_one_node(summary: Dict[str, Any], sizes: Sequence[int]) -> Dict[str, Any]:
    """The node each size's job ran on; raises ``RuntimeError`` unless each ran 8 ranks on one node."""
    nodes = {}
    for size in sizes:
        job = summary["jobs"][job_name(size)]
        if len(job["node_ids"]) != 1 or job["ranks"] != PPN:
            raise RuntimeError(f"{NAME}: the {size} B alltoall ran {job['ranks']} ranks on nodes {job['node_ids']}; "
                               f"Fig. 4 runs {PPN} processes on one node")
        nodes[str(size)] = job["node_ids"][0]
    return nodes


def check_network_unused(summary: Dict[str, Any], sizes: Sequence[int]) -> None:
    """Raises ``RuntimeError`` if a packet of any size's job entered the network (Fig. 4's point is that
    none does)."""
    for size in sizes:
        traffic = summary["traffic"].get(job_name(size), {})
        sent = traffic.get("packets_delivered", 0) + traffic.get("undelivered_packets", 0)
        if sent:
            raise RuntimeError(f"{NAME}: {sent} packets of the {size} B alltoall entered the network; Fig. 4's "
                               "collective runs on one node and uses none")


def call_times_ns(summary: Dict[str, Any], size: int, calls: int, level: str) -> List[float]:
    """Every call's time but the first; raises ``RuntimeError`` unless the job completed them all."""
    times = summary["jobs"][job_name(size)]["iteration_times_ns"]
    if len(times) != calls + 1:
        raise RuntimeError(f"{NAME}: the {size} B alltoall ({level} noise) completed {len(times)} of its "
                           f"{calls + 1} calls")
    return [float(t) for t in times[1:]]


def row_of(level: str, size: int, summary: Dict[str, Any], calls: int) -> Dict[str, Any]:
    """One size under one noise level: the distribution of its calls' times."""
    t = np.asarray(call_times_ns(summary, size, calls, level))
    q1, median, q3, p99 = np.percentile(t, [25, 50, 75, 99])
    return {"noise": level, "bytes": size, "calls": len(t), "median_us": median / 1e3, "mean_us": t.mean() / 1e3,
            "q1_us": q1 / 1e3, "q3_us": q3 / 1e3, "p99_us": p99 / 1e3, "min_us": t.min() / 1e3,
            "max_us": t.max() / 1e3, "qcd": quartile_dispersion(list(t)), "max_over_median": t.max() / median,
            "detoured_ns_per_rank": summary["jobs"][job_name(size)].get("host_noise", {})
            .get("detoured_ns_per_rank", 0.0)}


def key_figures(rows: List[Dict[str, Any]], nodes: Dict[str, Any], held: Dict[str, float]) -> Dict[str, Any]:
    """Per noise level and size the calls' QCD and worst over median; whether the quiet run repeats itself
    and whether each noisy run's time varies at every size."""
    out: Dict[str, Any] = {}
    for level in NOISE:
        mine = sorted((r for r in rows if r["noise"] == level), key=lambda r: r["bytes"])
        if not mine:
            continue
        out[level] = {str(r["bytes"]): {"qcd": rounded(r["qcd"]), "max_over_median": rounded(r["max_over_median"]),
                                        "median_us": rounded(r["median_us"])} for r in mine}
        varies = all(r["max_us"] > r["min_us"] for r in mine)
        if NOISE[level] is None:
            out["quiet_time_constant"] = not any(r["max_us"] > r["min_us"] for r in mine)
        else:
            out[f"{level}_time_varies_at_every_size"] = varies
            out[f"{level}_smallest_qcd"] = rounded(mine[0]["qcd"])
            out[f"{level}_smallest_max_over_median"] = rounded(mine[0]["max_over_median"])
    out["network_unused_checked"] = True
    out["one_node_checked"] = True
    out["nodes"] = nodes
    out["noise_checked"] = True
    out["detoured_ns_per_rank"] = {k: round(v, 1) for k, v in held.items()}
    out["noise"] = NOISE
    out["paper"] = {"source": "[DeSensi19] Sec. 3.3, Fig. 4 (Piz Daint, 8 processes on one node)",
                    "finding": "the alltoall's time varies a great deal though the network is not used at all: "
                               "a communication routine's time is no measure of network noise by itself"}
    return out


def run_aries_node_alltoall(
    out_dir: Union[str, Path] = "out/aries-node-alltoall",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the figure; write ``aries_node_alltoall.parquet`` (one row per noise level and size) and
    ``aries_node_alltoall.png``; return the rows with the findings in the table's metadata."""
    started = provenance.now()
    sizes = QUICK_SIZES if quick else SIZES
    calls = QUICK_CALLS if quick else CALLS
    built = {level: run_config(sizes, noise, calls) for level, noise in NOISE.items()}
    summaries = dict(zip(built, run_summaries([copy.deepcopy(cfg) for cfg in built.values()], scheduler, workers,
                                              progress, cache)))
    rows, held, nodes = [], {}, {}
    for level, summary in summaries.items():
        if summary["end_reason"] != "jobs_done":
            raise RuntimeError(f"{NAME}: the {level} noise run ended with {summary['end_reason']!r}, not with the "
                               "alltoalls done")
        nodes = check_one_node(summary, sizes)
        check_network_unused(summary, sizes)
        held[level] = held_up_ns(NAME, level, summary, [job_name(s) for s in sizes], "alltoall")
        rows += [row_of(level, size, summary, calls) for size in sizes]
    checks = key_figures(rows, nodes, held)
    with study_output(out_dir, summaries.values(), started, {"quick": quick}) as out:
        out.write(aries_node_alltoall=rows)
        plot(rows, out.path / "aries_node_alltoall.png", out.provenance)
        return out.table(rows, checks)


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Fig. 4: the calls' times by size, one box per size (whiskers at the minimum and maximum), one panel
    per noise level, each size's times over its median so that the sizes share an axis."""
    levels = [lv for lv in NOISE if any(r["noise"] == lv for r in rows)]
    fig, axes = plt.subplots(1, len(levels), figsize=(3.2 * len(levels), 3.0), sharey=True, squeeze=False)
    for ax, level in zip(axes[0], levels):
        mine = sorted((r for r in rows if r["noise"] == level), key=lambda r: r["bytes"])
        stats = [{"med": 1.0, "q1": r["q1_us"] / r["median_us"], "q3": r["q3_us"] / r["median_us"],
                  "whislo": r["min_us"] / r["median_us"], "whishi": r["max_us"] / r["median_us"],
                  "label": _size_label(r["bytes"])} for r in mine]
        ax.bxp(stats, showfliers=False)
        ax.set_title(level_title(level), fontsize=8)
        ax.set_xlabel("bytes per rank pair", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel("call time over its median", fontsize=8)
    fig.suptitle("Aries (Piz Daint), MPI_Alltoall of 8 processes on one node: time distribution "
                 "([DeSensi19] Fig. 4)", fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path, provenance)


def _size_label(nbytes: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale} {unit}"
    return f"{nbytes} B"
