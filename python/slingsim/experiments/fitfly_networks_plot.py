"""Figures of the ``fitfly-networks`` recipe: [McGlohon19] Figs. 4-9.

Each figure has a row per workload (AMG, MultiGrid) and three panels as the
paper's: maximum communication time, mean packet latency and mean hops
against the background intensity. A run stopped at the 1 s cap (or
projected past it) is drawn at the top of its panel with an open marker
and the label "> 1 s". A point whose network did not keep up with its
background (``background_saturated``) is ringed.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..figures import save_figure  # noqa: E402

WORKLOAD_TITLES = {"amg": "AMG", "mg": "MultiGrid"}
NETWORK_TITLES = {"slimfly": "Slim Fly", "fitfly": "Fit Fly", "dragonfly": "Dragonfly", "megafly": "Megafly"}
COLOURS = {"slimfly": "tab:blue", "fitfly": "tab:green", "dragonfly": "tab:red", "megafly": "tab:purple"}
FIGURES = {
    # file: (comparison of the rows drawn, with which EDR rows, title)
    "networks.png": ("table-2", None, "[McGlohon19] Figs. 4-5: Table 2 networks at 12.5 GiB/s"),
    "fitfly_fdr.png": ("fig-6-7", ("slimfly", 12.5), "[McGlohon19] Figs. 6-7: Fit Fly at 7 GiB/s (FDR), Slim Fly at 12.5 GiB/s"),
    "slimfly_hdr.png": ("fig-8-9", ("fitfly", 12.5), "[McGlohon19] Figs. 8-9: Slim Fly at 25 GiB/s (HDR), Fit Fly at 12.5 GiB/s"),
}
METRICS = (
    ("max_comm_time_ns", 1e-6, "max. communication time (ms)"),
    ("mean_latency_ns", 1e-3, "mean packet latency (us)"),
    ("mean_hops", 1.0, "mean hops (switch to switch)"),
)


def series_label(row: Dict[str, Any]) -> str:
    return f"{NETWORK_TITLES[row['network']]} {row['link_gibps']:g} GiB/s"


def plot_comparison(rows: Sequence[Dict[str, Any]], out: Path, quick: bool, provenance: Optional[Dict[str, Any]] = None) -> List[Path]:
    """Write the figures whose rows the study has; return their paths."""
    paths = []
    for name, (comparison, partner, title) in FIGURES.items():
        chosen = [r for r in rows if r["comparison"] == comparison
                  or (partner and r["comparison"] == "table-2" and (r["network"], r["link_gibps"]) == partner)]
        if not any(r["comparison"] == comparison for r in chosen):
            continue
        paths.append(plot_rows(chosen, out / name, title + (" (quick: ~200 nodes)" if quick else ""), provenance))
    return paths


def plot_rows(rows: Sequence[Dict[str, Any]], path: Path, title: str, provenance: Optional[Dict[str, Any]]) -> Path:
    workloads = [w for w in WORKLOAD_TITLES if any(r["workload"] == w for r in rows)]
    fig, axes = plt.subplots(len(workloads), 3, figsize=(13, 3.6 * len(workloads)), squeeze=False)
    for i, workload in enumerate(workloads):
        mine = [r for r in rows if r["workload"] == workload]
        series = list(dict.fromkeys(series_label(r) for r in mine))
        for j, (key, scale, ylabel) in enumerate(METRICS):
            ax = axes[i][j]
            top = max([r[key] * scale for r in mine if r[key] is not None] or [1.0])
            for label in series:
                line = sorted((r for r in mine if series_label(r) == label), key=lambda r: r["background"])
                colour = COLOURS[line[0]["network"]]
                style = "-" if line[0]["link_gibps"] == 12.5 else "--"
                done = [(100 * r["background"], r[key] * scale) for r in line if r[key] is not None]
                ax.plot([x for x, _ in done], [y for _, y in done], style, marker="o", color=colour, label=label)
                ringed = [(100 * r["background"], r[key] * scale) for r in line
                          if r[key] is not None and r.get("background_saturated")]
                if ringed:
                    ax.plot([x for x, _ in ringed], [y for _, y in ringed], linestyle="none", marker="o",
                            markersize=12, mfc="none", color=colour)
                if key == "max_comm_time_ns":
                    capped = [100 * r["background"] for r in line if r["capped"]]
                    if capped:
                        ax.plot(capped, [1.15 * top] * len(capped), linestyle="none", marker="^", mfc="none",
                                color=colour)
                        for x in capped:
                            ax.annotate("> 1 s", (x, 1.15 * top), textcoords="offset points", xytext=(0, 5),
                                        ha="center", fontsize=7, color=colour)
            if key == "max_comm_time_ns" and any(r["capped"] for r in mine):
                ax.set_ylim(top=1.35 * top)
            ax.set_xlabel("background (% of 12.5 GiB/s)")
            ax.set_ylabel(ylabel)
            ax.set_title(f"{WORKLOAD_TITLES[workload]}: {ylabel.split(' (')[0]}", fontsize=10)
            ax.grid(alpha=0.3)
        if any(r.get("background_saturated") for r in mine):
            axes[i][0].plot([], [], linestyle="none", marker="o", markersize=12, mfc="none", color="grey",
                            label="ringed: network saturated by the background")
        axes[i][0].legend(fontsize=7, loc="upper left")
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
