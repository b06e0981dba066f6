"""Load-curve plots: packet latency and accepted load against offered load.

Takes a load sweep table (see :func:`slingsim.sweep.sweep_load`) and draws
one colour per label; with a ``facet`` column (e.g. the traffic pattern)
each facet value gets its own row of panels. Latency shows the mean (solid)
and the 99th percentile (dashed); a point whose accepted load falls short
of its offered load by more than :data:`SATURATION_SHORTFALL` is marked
with a red ring on both panels (the network is saturated there, and its
latency counts only the packets that got through). Uses the
non-interactive Agg backend so it works on headless machines.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be chosen first)
import pyarrow as pa  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from .figures import plain_log_labels, save_figure  # noqa: E402

SATURATION_SHORTFALL = 0.05
"""A point is saturated when accepted load < (1 - this) x offered load."""

LOAD_UNIT = "fraction of injection bandwidth"
"""What offered and accepted load are measured in (docs/results.md)."""


def _distinct(values: List) -> List:
    """Values in first-seen order, without repeats."""
    return list(dict.fromkeys(values))


def _microseconds(ns: Optional[float]) -> float:
    """ns to us; a missing latency (nothing delivered) becomes NaN, a gap in the line."""
    return float("nan") if ns is None else ns / 1000


def saturated(row: Dict[str, Any]) -> bool:
    """Whether a sweep point's accepted load falls short of its offered load (see the module docstring)."""
    offered, accepted = row.get("offered_load"), row.get("accepted_load")
    return bool(offered) and accepted is not None and accepted < (1 - SATURATION_SHORTFALL) * offered


def plot_load_curves(
    table: pa.Table,
    path: Union[str, Path],
    label_column: Optional[str] = "label",
    facet_column: Optional[str] = None,
    title: Optional[str] = None,
    provenance: Optional[Dict[str, Any]] = None,
) -> Path:
    """Save a PNG with latency vs offered load (left) and accepted vs offered load (right).

    ``label_column`` picks the column whose values become the lines (one
    line for the whole table if the column is absent); ``facet_column``
    splits the table into rows of panels; ``provenance`` is written as the
    figure's caption and metadata (:func:`slingsim.figures.save_figure`).
    """
    rows = table.to_pylist()
    if not rows:
        raise ValueError("plot: the sweep table is empty; run at least one load")
    has_labels = label_column is not None and label_column in table.column_names
    has_p99 = "latency_p99_ns" in table.column_names
    facets = _distinct([row[facet_column] for row in rows]) if facet_column else [None]
    fig, axes = plt.subplots(len(facets), 2, figsize=(11, 4.2 * len(facets)), squeeze=False)
    labels_seen: List[Any] = []
    any_saturated = False
    for (latency_ax, accepted_ax), facet in zip(axes, facets):
        facet_rows = [r for r in rows if facet is None or r[facet_column] == facet]
        labels = _distinct([r[label_column] for r in facet_rows]) if has_labels else [None]
        for label in labels:
            color = f"C{_index(labels_seen, label)}"
            line = sorted(
                (r for r in facet_rows if label is None or r[label_column] == label),
                key=lambda r: r["offered_load"],
            )
            offered = [r["offered_load"] for r in line]
            latency_ax.plot(offered, [_microseconds(r["latency_mean_ns"]) for r in line], marker="o", ms=4,
                            color=color)
            if has_p99:
                latency_ax.plot(offered, [_microseconds(r["latency_p99_ns"]) for r in line], marker="^", ms=3,
                                ls="--", color=color)
            accepted_ax.plot(offered, [r["accepted_load"] for r in line], marker="o", ms=4, color=color)
            full = [r for r in line if saturated(r)]
            if full:
                any_saturated = True
                ring = dict(marker="o", ms=11, mfc="none", mec="red", mew=1.3, ls="none", zorder=5)
                latency_ax.plot([r["offered_load"] for r in full], [_microseconds(r["latency_mean_ns"]) for r in full],
                                **ring)
                accepted_ax.plot([r["offered_load"] for r in full], [r["accepted_load"] for r in full], **ring)
        top = max(r["offered_load"] for r in facet_rows)
        accepted_ax.plot([0, top], [0, top], color="grey", linestyle=":")
        suffix = f" ({facet})" if facet is not None else ""
        latency_ax.set(xlabel=f"offered load ({LOAD_UNIT})", ylabel="packet latency (us)", yscale="log",
                       title=f"latency vs offered load{suffix}")
        accepted_ax.set(xlabel=f"offered load ({LOAD_UNIT})", ylabel=f"accepted load ({LOAD_UNIT})",
                        title=f"accepted vs offered load{suffix}")
        plain_log_labels(latency_ax)
        for ax in (latency_ax, accepted_ax):
            ax.grid(True, alpha=0.3)
    _legend(fig, axes[0][1], labels_seen if has_labels else [], has_p99, any_saturated)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return save_figure(fig, path, provenance)


def _index(seen: List[Any], label: Any) -> int:
    """Colour index of ``label``: the same label keeps its colour across facets."""
    if label not in seen:
        seen.append(label)
    return seen.index(label)


def _legend(fig: Any, ax: Any, labels: List[Any], has_p99: bool, any_saturated: bool) -> None:
    """One legend for the figure, in the accepted-load panel: labels by colour, then what the styles mean."""
    handles = [Line2D([], [], color=f"C{i}", marker="o", ms=4, label=str(label)) for i, label in enumerate(labels)]
    handles.append(Line2D([], [], color="k", marker="o", ms=4, label="mean latency"))
    if has_p99:
        handles.append(Line2D([], [], color="k", marker="^", ms=3, ls="--", label="p99 latency"))
    handles.append(Line2D([], [], color="grey", ls=":", label="accepted = offered"))
    if any_saturated:
        handles.append(Line2D([], [], marker="o", ms=11, mfc="none", mec="red", mew=1.3, ls="none",
                              label=f"saturated (accepted < {1 - SATURATION_SHORTFALL:.0%} of offered)"))
    ax.legend(handles=handles, fontsize=8, loc="upper left")
