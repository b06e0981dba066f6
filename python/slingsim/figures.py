"""Saving figures that say what produced them.

:func:`save_figure` writes a matplotlib figure as PNG (atomically) with a
caption line under everything else in it (version, commit, seed, start time
and command) and the provenance, without the configs, in the PNG's text
chunks under ``slingsim.provenance``. The caption is placed below the
figure's tight bounding box, so it never overlaps a label.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Optional, Union

from . import atomic
from .provenance import METADATA_KEY, VERSION, caption

CAPTION_GAP_IN = 0.08
"""Space between the lowest text of a figure and its caption, inches."""


def plain_log_labels(ax: Any) -> None:
    """Label a log-scale y axis with plain numbers (3000, not 3x10^3), with as many minor
    ticks labelled as there is room for: all of them within a decade, 2 and 5 within
    three decades, none beyond; an axis narrower than half a decade gets evenly spaced
    ticks (1, 1.01, 1.02) instead. Call it after the axis limits are final."""
    import math

    from matplotlib.ticker import FormatStrFormatter, FuncFormatter

    from matplotlib.ticker import MaxNLocator, NullLocator

    low, high = ax.get_ylim()
    decades = math.log10(high / low) if low > 0 and high > low else math.inf
    if decades < 0.5:  # too narrow for decade ticks: evenly spaced plain numbers
        ax.yaxis.set_major_locator(MaxNLocator(nbins=4))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        return
    labelled = range(1, 10) if decades < 1 else (2, 5) if decades < 3 else ()
    if labelled and not _labels_fit(ax, low, high, labelled):
        # A short axis (a colour bar beside a one-row heatmap) has no room for
        # every minor label near the top of a decade: fall back to fewer.
        labelled = (2, 5) if _labels_fit(ax, low, high, (2, 5)) else ()

    def minor(value: float, _position: object) -> str:
        if value <= 0:
            return ""
        mantissa = value / 10 ** math.floor(math.log10(value) + 1e-9)
        return f"{value:g}" if any(abs(mantissa - m) < 1e-6 for m in labelled) else ""

    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(FuncFormatter(minor))
    ax.tick_params(axis="y", which="minor", labelsize=7)


def _labels_fit(ax: Any, low: float, high: float, mantissas: Any, label_pt: float = 7.0) -> bool:
    """True if labels at ``mantissas`` x 10^k (and the decades) inside [low, high] sit at least
    1.5 label heights apart along the y axis of ``ax`` at its current size."""
    import math

    values = sorted({m * 10.0 ** e for e in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
                     for m in set(mantissas) | {1} if low <= m * 10.0 ** e <= high})
    if len(values) < 2:
        return True
    inches = ax.get_position().height * ax.figure.get_figheight()
    per_decade = inches / math.log10(high / low)
    gap = min(math.log10(b / a) for a, b in zip(values, values[1:])) * per_decade
    return gap >= 1.5 * label_pt / 72.0


def figure_provenance(provenance: Dict[str, Any]) -> Dict[str, Any]:
    """Provenance for an image: everything but the configs (they live in the tables and ``summary.json``)."""
    light = {k: v for k, v in provenance.items() if k not in ("config", "runs")}
    if "runs" in provenance:
        light["runs"] = [{k: v for k, v in run.items() if k != "config"} for run in provenance["runs"]]
    return light


def save_figure(fig: Any, path: Union[str, Path], provenance: Optional[Dict[str, Any]] = None, dpi: int = 120) -> Path:
    """Save ``fig`` as a PNG at ``path`` with a provenance caption and metadata, then close it."""
    import matplotlib.pyplot as plt

    metadata = {"Software": f"slingsim {VERSION}"}
    if provenance is not None:
        renderer = fig.canvas.get_renderer()
        box = fig.get_tightbbox(renderer)
        fig.text(box.x0 / fig.get_figwidth(), (box.y0 - CAPTION_GAP_IN) / fig.get_figheight(), caption(provenance),
                 ha="left", va="top", fontsize=6.5, color="0.35")
        metadata[METADATA_KEY] = json.dumps(figure_provenance(provenance), separators=(",", ":"))
    try:
        return atomic.write_with(path, lambda tmp: fig.savefig(tmp, dpi=dpi, bbox_inches="tight", metadata=metadata,
                                                               format="png"))
    finally:
        plt.close(fig)


def read_figure_provenance(path: Union[str, Path]) -> Optional[Dict[str, Any]]:
    """The provenance stored in a PNG written by :func:`save_figure`, or None."""
    from PIL import Image

    with Image.open(path) as image:
        text = image.text.get(METADATA_KEY)  # type: ignore[attr-defined]
    return json.loads(text) if text else None
