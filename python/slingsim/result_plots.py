"""Figures of one run's result folder (``slingsim plot RESULT_DIR``).

- ``link_utilization.png``: the utilisation of every link direction by
  kind (terminal, local, global) as box plots, mean marked, link counts in
  the labels;
- ``global_links.png`` (networks with global links): one cell per global
  link direction, switches down (grouped by dragonfly group) and each
  switch's global ports across, and beside it the busiest link between
  each ordered pair of groups;
- ``timeline.png``: delivered throughput and mean packet latency of each
  traffic source or job against time, the warmup shaded.

Each figure carries the run's provenance (caption and PNG metadata).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .figures import save_figure  # noqa: E402
from .result import Result  # noqa: E402

KINDS = ("terminal", "local", "global")
"""Link kinds in the order they are drawn."""


def plot_result(result_dir: Union[str, Path], out_dir: Optional[Union[str, Path]] = None) -> List[Path]:
    """Draw every figure of the run in ``result_dir`` into ``out_dir`` (default: the same folder); return the paths."""
    folder = Path(result_dir)
    if not (folder / "summary.json").is_file():
        raise FileNotFoundError(
            2, f"{folder}: no summary.json; give the folder of a run written by `slingsim run --out DIR`", str(folder)
        )
    result = Result.read(folder)
    out = Path(out_dir) if out_dir is not None else folder
    prov = result.summary.get("provenance")
    written = [plot_link_utilization(result, out / "link_utilization.png", prov)]
    heatmap = plot_global_links(result, out / "global_links.png", prov)
    if heatmap is not None:
        written.append(heatmap)
    written.append(plot_timeline(result, out / "timeline.png", prov))
    return written


def plot_link_utilization(result: Result, path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Box plots of per-direction link utilisation by kind, mean marked with a diamond."""
    links = result.links.to_pylist()
    kinds = [k for k in KINDS if any(r["kind"] == k for r in links)]
    data = [[r["utilization"] for r in links if r["kind"] == k] for k in kinds]
    fig, ax = plt.subplots(figsize=(6, 3.8))
    if kinds:
        ax.boxplot(data, showfliers=True, flierprops={"markersize": 2})
        ax.plot(range(1, len(kinds) + 1), [sum(d) / len(d) for d in data], "D", color="C3", ms=5, label="mean")
        ax.set_xticks(range(1, len(kinds) + 1), [f"{k}\n({len(d) // 2} links)" for k, d in zip(kinds, data)])
        ax.legend(fontsize=8, loc="upper left")
    ax.set_ylabel("utilisation (busy time / measured window)")
    ax.set_ylim(bottom=0)
    ax.set_title("link utilisation by kind, each direction of each link", fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return save_figure(fig, path, provenance)


def switches_per_group(config: Dict[str, Any]) -> Optional[int]:
    """Switches of one group for the families numbered group by group (dragonfly, Aries), else None."""
    topo = config.get("topology", {})
    if topo.get("kind") == "dragonfly":
        return topo.get("switches_per_group")
    if topo.get("kind") == "aries" and topo.get("rows") and topo.get("columns"):
        return topo["rows"] * topo["columns"]
    return None


def global_link_grid(links: List[Dict[str, Any]]) -> Tuple[List[int], List[List[float]]]:
    """Switches with global links and, per switch, the utilisation of its global ports in port order (NaN pads)."""
    ports: Dict[int, Dict[int, float]] = {}
    for r in links:
        if r["kind"] == "global":
            ports.setdefault(r["src_switch"], {})[r["src_port"]] = r["utilization"]
    switches = sorted(ports)
    width = max((len(p) for p in ports.values()), default=0)
    grid = []
    for s in switches:
        values = [ports[s][p] for p in sorted(ports[s])]
        grid.append(values + [math.nan] * (width - len(values)))
    return switches, grid


def plot_global_links(result: Result, path: Path, provenance: Optional[Dict[str, Any]] = None) -> Optional[Path]:
    """The per-link heatmap of global links (and the group-pair maximum for dragonflies); None without global links."""
    links = result.links.to_pylist()
    switches, grid = global_link_grid(links)
    if not switches:
        return None
    per_group = switches_per_group(result.config)
    pairs = group_pair_max(links, per_group) if per_group else None
    fig, axes = plt.subplots(1, 2 if pairs else 1, figsize=(10 if pairs else 5.5, 1.5 + 0.12 * len(switches)),
                             squeeze=False, gridspec_kw={"width_ratios": [1, 1]} if pairs else None)
    ax = axes[0][0]
    top = max(max(v for row in grid for v in row if v == v), 1e-9)
    image = ax.imshow(grid, cmap="viridis", vmin=0.0, vmax=top, aspect="auto", interpolation="nearest")
    ax.set_xlabel("global port of the switch (in port order)")
    ax.set_xticks(range(len(grid[0])))
    if per_group:
        groups = sorted({s // per_group for s in switches})
        for g in groups[1:]:
            ax.axhline(switches.index(next(s for s in switches if s // per_group == g)) - 0.5, color="w", lw=0.8)
        centres = [sum(i for i, s in enumerate(switches) if s // per_group == g) /
                   sum(1 for s in switches if s // per_group == g) for g in groups]
        ax.set_yticks(centres, [f"group {g}" for g in groups], fontsize=7)
        ax.set_ylabel("source switch, by group")
    else:
        ax.set_ylabel("source switch")
    ax.set_title("utilisation of each global link direction", fontsize=9)
    fig.colorbar(image, ax=ax, label="utilisation")
    if pairs:
        pax = axes[0][1]
        groups, matrix = pairs
        pimage = pax.imshow(matrix, cmap="viridis", vmin=0.0, vmax=top, interpolation="nearest")
        ticks = range(len(groups))
        pax.set_xticks(ticks, [str(g) for g in groups], fontsize=7)
        pax.set_yticks(ticks, [str(g) for g in groups], fontsize=7)
        pax.set_xlabel("destination group")
        pax.set_ylabel("source group")
        pax.set_title("busiest link of each group pair", fontsize=9)
        if len(groups) <= 12:
            for i, row in enumerate(matrix):
                for j, v in enumerate(row):
                    if v == v:
                        pax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7,
                                 color="k" if v > 0.6 * top else "w")
        fig.colorbar(pimage, ax=pax, label="utilisation")
    fig.tight_layout()
    return save_figure(fig, path, provenance)


def group_pair_max(links: List[Dict[str, Any]], per_group: int) -> Tuple[List[int], List[List[float]]]:
    """Groups, and the maximum utilisation over the global link directions from each group to each other (NaN: none)."""
    best: Dict[Tuple[int, int], float] = {}
    for r in links:
        if r["kind"] == "global":
            key = (r["src_switch"] // per_group, r["dst_switch"] // per_group)
            best[key] = max(best.get(key, 0.0), r["utilization"])
    groups = sorted({g for pair in best for g in pair})
    return groups, [[best.get((a, b), math.nan) for b in groups] for a in groups]


def plot_timeline(result: Result, path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Delivered Gb/s (top) and mean packet latency (bottom) per source against time, the warmup shaded."""
    rows = result.timeline.to_pylist()
    sources = list(dict.fromkeys(r["source"] for r in rows))
    fig, (rate, latency) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    for k, source in enumerate(sources):
        mine = sorted((r for r in rows if r["source"] == source), key=lambda r: r["t_ns"])
        t_us = [r["t_ns"] / 1e3 for r in mine]
        rate.step(t_us, [r["throughput_gbps"] for r in mine], where="post", color=f"C{k}", label=source)
        latency.plot(t_us, [r["mean_latency_ns"] / 1e3 for r in mine], color=f"C{k}", lw=1)
    warmup_us = result.summary.get("warmup_ns", 0.0) / 1e3
    for ax in (rate, latency):
        if warmup_us > 0:
            ax.axvspan(0, warmup_us, color="0.9", zorder=0)
        ax.grid(True, alpha=0.3)
    rate.set_ylabel("delivered (Gb/s, all nodes)")
    latency.set_ylabel("mean packet latency (us)")
    latency.set_xlabel("simulated time (us); shaded: warmup, not measured")
    bin_ns = result.config.get("sim", {}).get("timeline_bin_ns")
    rate.set_title(f"delivery timeline per source ({bin_ns:g} ns bins)" if bin_ns else "delivery timeline per source",
                   fontsize=10)
    if sources:  # beside the panel, clear of the lines
        rate.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    else:
        rate.text(0.5, 0.5, "no packet was delivered", transform=rate.transAxes, ha="center")
    fig.tight_layout()
    return save_figure(fig, path, provenance)
