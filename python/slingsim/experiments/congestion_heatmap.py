"""[DeSensi20] Fig. 9: congestion impact of an incast and an all-to-all aggressor on victim jobs,
Slingshot against Aries.

The paper splits 512 nodes between a victim and an aggressor (90/10, 50/50
and 10/90, linear allocation), runs each victim alone and beside each
aggressor (128 KiB messages: MPI_Put incast, MPI_Sendrecv all-to-all) and
reports the mean congestion impact C = T_congested / T_isolated (its Eq. 1)
as a heatmap per system. Here Slingshot is the ``slingshot-malbec`` preset
(Slingshot routing and congestion control) and Aries the ``aries-crystal``
preset (ADAPTIVE_0 routing, back-pressure only, 64 B packets); both give
the study the same number of nodes. What to look for: Slingshot's impacts
stay within a few x, Aries' reach tens to ~100x under incast; all-to-all
hurts little on either (adaptive routing spreads it); impacts grow with the
aggressor's share and are larger for small-message victims.

A congested run stops 5 ms after the victim starts (``MAX_TIME_NS``). A victim
that has not finished by then is flagged ``censored``: its impact is the
mean of the iterations it completed over T_isolated, or (time it ran) /
T_isolated if it completed none; either is a lower bound. (Aries' worst
cases would otherwise run for many simulated milliseconds each.)
"""
from __future__ import annotations

import copy
import math
import random
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from ..figures import plain_log_labels, save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_summaries  # noqa: E402
from .output import study_output  # noqa: E402

SYSTEMS = {"Slingshot": "slingshot-malbec", "Aries": "aries-crystal"}
VICTIMS = {
    # label: (workload, bytes, iterations, compute_ns)
    "allreduce 8B": ("allreduce", 8, 10, 0.0),
    "alltoall 128B": ("alltoall", 128, 5, 0.0),
    "barrier": ("barrier", 0, 10, 0.0),
    "bcast 8B": ("bcast", 8, 10, 0.0),
    "pingpong 8B": ("pingpong", 8, 10, 0.0),
    "halo3d": ("halo3d", 8192, 5, 10_000.0),
    "sweep3d": ("sweep3d", 1024, 2, 10_000.0),
    "incast (ember)": ("incast", 1024, 5, 0.0),
    "MILC": ("milc", 16_384, 5, 20_000.0),
    "HPCG": ("hpcg", 8192, 5, 20_000.0),
    "LAMMPS": ("lammps", 8192, 5, 20_000.0),
    "FFT": ("fft", 4096, 3, 20_000.0),
}
QUICK_VICTIMS = ("alltoall 128B", "pingpong 8B", "halo3d")
AGGRESSORS = {"incast": "incast", "all-to-all": "alltoall-aggressor"}
SPLITS = (0.9, 0.5, 0.1)
"""Victim share of the nodes ([DeSensi20]: 460/52, 256/256, 53/459 of 512)."""
NODES, QUICK_NODES = 448, 96
AGGRESSOR_BYTES = 131_072
START_NS = 1_000_000.0
"""Victims start after the aggressor has run this long: the onset burst of a few hundred senders takes
about a millisecond to drain, and the paper measures the steady state."""
MAX_TIME_NS = START_NS + 5e6


def base(preset: str) -> Config:
    """A system preset with its synthetic traffic removed."""
    cfg = load_config(preset)
    cfg["traffic"] = []
    return cfg


def victim_job(label: str, count: int, placement: str = "linear", start_ns: float = START_NS) -> Dict[str, Any]:
    workload, nbytes, iterations, compute = VICTIMS[label]
    if workload == "pingpong" and count % 2:
        count -= 1
    return {"name": "victim", "workload": workload, "bytes": nbytes, "iterations": iterations,
            "compute_ns": compute, "nodes": {"count": count}, "placement": placement, "start_ns": start_ns}


def split_pool(pool: List[int], count: int, placement: str, seed: int = 0) -> Tuple[List[int], List[int]]:
    """The victim's ``count`` nodes of ``pool`` and the rest, by placement ([DeSensi20] Fig. 7) within the pool."""
    if placement == "linear":
        chosen = pool[:count]
    elif placement == "interleaved":
        step = len(pool) / count
        chosen = [pool[int(i * step)] for i in range(count)]
    elif placement == "random":
        chosen = random.Random(seed).sample(pool, count)
    else:
        raise ValueError(f"placement: unknown {placement!r}; choose linear, interleaved or random")
    taken = set(chosen)
    return sorted(chosen), [n for n in pool if n not in taken]


def study_points(
    quick: bool = False,
    placement: str = "linear",
    aggressor_ppn: int = 1,
    systems: Optional[Dict[str, str]] = None,
    nodes: Optional[int] = None,
    pools: Optional[Dict[str, List[int]]] = None,
    splits: Optional[Tuple[float, ...]] = None,
    victims: Optional[Tuple[str, ...]] = None,
    start_ns: float = START_NS,
) -> List[Tuple[Dict[str, Any], Config, Config]]:
    """Every (labels, isolated config, congested config) of the study.

    By default Fig. 9's: linear placement, one aggressor process per node,
    both systems on ``NODES`` (``QUICK_NODES``) nodes. ``pools`` gives each
    system an explicit node list to split instead (Fig. 10 (C)); ``splits``
    (victim shares) and ``victims`` (keys of ``VICTIMS``) replace Fig. 9's;
    ``start_ns`` is when the victim starts (congested runs stop 5 ms later).
    """
    systems = systems or SYSTEMS
    nodes = nodes or (QUICK_NODES if quick else NODES)
    victims = victims or (QUICK_VICTIMS if quick else tuple(VICTIMS))
    splits = splits or ((0.1,) if quick else SPLITS)
    points = []
    for system, preset in systems.items():
        pool = (pools or {}).get(system)
        total = len(pool) if pool else nodes
        for split in splits:
            count = max(2, round(total * split))
            for victim in victims:
                iso = base(preset)
                iso["sim"]["max_time_ns"] = start_ns + MAX_TIME_NS - START_NS
                job = victim_job(victim, count, placement=placement, start_ns=start_ns)
                aggressor_nodes: Dict[str, Any] = {"count": total - count}
                if pool:
                    victim_nodes, rest = split_pool(pool, job["nodes"]["count"], placement)
                    job["nodes"], aggressor_nodes = {"list": victim_nodes}, {"list": rest[:total - count]}
                iso["job"] = [job]
                for aggressor, workload in AGGRESSORS.items():
                    con = copy.deepcopy(iso)
                    con["job"].append({"name": "aggressor", "workload": workload, "bytes": AGGRESSOR_BYTES,
                                       "iterations": 1, "repeat": True, "nodes": aggressor_nodes,
                                       "ppn": aggressor_ppn, "placement": "linear"})
                    labels = {"system": system, "victim": victim, "aggressor": aggressor,
                              "victim_share": split, "nodes": total}
                    points.append((labels, iso, con))
    return points


def impact_of(iso: Dict[str, Any], con: Dict[str, Any]) -> Tuple[Optional[float], bool]:
    """Mean congestion impact and whether it is a lower bound (no congested iteration finished)."""
    ti = (iso["jobs"]["victim"]["iteration_ns"] or {}).get("mean")
    if not ti:
        return None, False
    jc = con["jobs"]["victim"]
    if jc["iteration_ns"]:
        return jc["iteration_ns"]["mean"] / ti, not jc["finished"]
    ran = con["sim_time_ns"] - jc["start_ns"]
    return ran / ti, True


def impact_row(iso: Dict[str, Any], con: Dict[str, Any]) -> Dict[str, Any]:
    """The victim's impact, whether it is a lower bound, and its mean iteration time alone and congested."""
    impact, censored = impact_of(iso, con)
    return {"impact": impact, "censored": censored,
            "isolated_ns": (iso["jobs"]["victim"]["iteration_ns"] or {}).get("mean"),
            "congested_ns": (con["jobs"]["victim"]["iteration_ns"] or {}).get("mean")}


def run_points(
    points: List[Tuple[Dict[str, Any], Config, Config]],
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    """Run every point (identical isolated configs once); return a row of labels and impact per point,
    and the summaries of every run (isolated then congested, for the study's provenance)."""
    configs = [iso for _, iso, _ in points] + [con for _, _, con in points]
    summaries = run_summaries(configs, scheduler, workers, progress, cache)
    isolated, congested = summaries[: len(points)], summaries[len(points):]
    rows = [{**labels, **impact_row(iso_s, con_s)} for (labels, _, _), iso_s, con_s in zip(points, isolated, congested)]
    return rows, summaries


def run_congestion_heatmap(
    out_dir: Union[str, Path] = "out/congestion-heatmap",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``congestion_heatmap.parquet`` and ``congestion_heatmap.png``; return the table."""
    started = provenance.now()
    rows, summaries = run_points(study_points(quick), scheduler, workers, progress, cache)
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(congestion_heatmap=rows)
        plot(rows, out.path / "congestion_heatmap.png", out.provenance)
        return out.table(rows)


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """One heatmap per system: victims down (named once, on the left), aggressor x victim share across,
    log colour scale from 1x; ">" marks a censored (lower-bound) impact."""
    systems = list(dict.fromkeys(r["system"] for r in rows))
    victims = list(dict.fromkeys(r["victim"] for r in rows))
    columns = list(dict.fromkeys((r["aggressor"], r["victim_share"]) for r in rows))
    fig, axes = plt.subplots(1, len(systems), figsize=(3.0 + 1.25 * len(columns) * len(systems), 1.6 + 0.42 * len(victims)),
                             squeeze=False, sharey=True, layout="constrained")
    top = max([r["impact"] or 1.0 for r in rows] + [2.0])
    norm = LogNorm(vmin=1.0, vmax=top)
    for k, (ax, system) in enumerate(zip(axes[0], systems)):
        grid = [[math.nan] * len(columns) for _ in victims]
        censored = [[False] * len(columns) for _ in victims]
        for r in rows:
            if r["system"] == system and r["impact"] is not None:
                i, j = victims.index(r["victim"]), columns.index((r["aggressor"], r["victim_share"]))
                grid[i][j], censored[i][j] = r["impact"], bool(r.get("censored"))
        image = ax.imshow([[max(v, 1.0) if v == v else math.nan for v in row] for row in grid],
                          cmap="Reds", norm=norm, aspect="auto")
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                if v == v:
                    dark = norm(max(v, 1.0)) > 0.6
                    ax.text(j, i, (">" if censored[i][j] else "") + f"{v:.1f}", ha="center", va="center", fontsize=8,
                            color="w" if dark else "k")
        ax.set_xticks(range(len(columns)), [f"{a}\n{round(100 * s)}/{round(100 - 100 * s)}" for a, s in columns],
                      fontsize=8)
        if k == 0:  # the y axis is shared: later panels show no labels of their own
            ax.set_yticks(range(len(victims)), victims, fontsize=8)
        ax.set_title(system, fontsize=10)
    bar = fig.colorbar(image, ax=list(axes[0]), label="congestion impact (log scale)")
    plain_log_labels(bar.ax)
    fig.supxlabel("aggressor, victim/aggressor % of nodes", fontsize=8)
    return save_figure(fig, path, provenance)
