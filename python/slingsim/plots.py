"""Load-curve plots: packet latency and accepted load against offered load.

Takes a load sweep table (see :func:`slingsim.sweep.sweep_load`) and draws
one line per label; with a ``facet`` column (e.g. the traffic pattern) each
facet value gets its own row of panels. Uses the non-interactive Agg backend
so it works on headless machines.
"""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be chosen first)
import pyarrow as pa  # noqa: E402


def _distinct(values: List) -> List:
    """Values in first-seen order, without repeats."""
    return list(dict.fromkeys(values))


def _microseconds(ns: Optional[float]) -> float:
    """ns to us; a missing latency (nothing delivered) becomes NaN, a gap in the line."""
    return float("nan") if ns is None else ns / 1000


def plot_load_curves(
    table: pa.Table,
    path: Union[str, Path],
    label_column: Optional[str] = "label",
    facet_column: Optional[str] = None,
    title: Optional[str] = None,
) -> Path:
    """Save a PNG with latency vs offered load (left) and accepted vs offered load (right).

    ``label_column`` picks the column whose values become the lines (one
    line for the whole table if the column is absent); ``facet_column``
    splits the table into rows of panels.
    """
    rows = table.to_pylist()
    if not rows:
        raise ValueError("plot: the sweep table is empty; run at least one load")
    has_labels = label_column is not None and label_column in table.column_names
    facets = _distinct([row[facet_column] for row in rows]) if facet_column else [None]
    fig, axes = plt.subplots(len(facets), 2, figsize=(11, 4 * len(facets)), squeeze=False)
    for (latency_ax, accepted_ax), facet in zip(axes, facets):
        facet_rows = [r for r in rows if facet is None or r[facet_column] == facet]
        labels = _distinct([r[label_column] for r in facet_rows]) if has_labels else [None]
        for label in labels:
            line = sorted(
                (r for r in facet_rows if label is None or r[label_column] == label),
                key=lambda r: r["offered_load"],
            )
            offered = [r["offered_load"] for r in line]
            latency_us = [_microseconds(r["latency_mean_ns"]) for r in line]
            accepted = [r["accepted_load"] for r in line]
            latency_ax.plot(offered, latency_us, marker="o", label=label)
            accepted_ax.plot(offered, accepted, marker="o", label=label)
        top = max(r["offered_load"] for r in facet_rows)
        accepted_ax.plot([0, top], [0, top], color="grey", linestyle=":", label="accepted = offered")
        suffix = f" ({facet})" if facet is not None else ""
        latency_ax.set(xlabel="offered load", ylabel="mean packet latency (us)", yscale="log",
                       title=f"latency vs offered load{suffix}")
        accepted_ax.set(xlabel="offered load", ylabel="accepted load",
                        title=f"accepted vs offered load{suffix}")
        for ax in (latency_ax, accepted_ax):
            ax.grid(True, alpha=0.3)
            if has_labels or ax is accepted_ax:
                ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out
