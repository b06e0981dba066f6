"""The shape most recipes share: run every labelled point, turn each summary into one row (checking
that the point exercised what the figure needs), then write the rows, one figure and the checks."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from .. import provenance
from ..cluster import SchedulerLike
from ..config import Config
from ..store import CacheLike
from ..sweep import run_labelled
from .output import study_output

Row = Dict[str, Any]


def run_point_study(
    name: str,
    points: Sequence[Tuple[Dict[str, Any], Config]],
    row_of: Callable[[Dict[str, Any], Dict[str, Any]], Row],
    key_figures: Callable[[List[Row]], Dict[str, Any]],
    plot: Callable[[List[Row], Path, Optional[Dict[str, Any]]], Path],
    out_dir: Union[str, Path],
    quick: bool,
    scheduler: SchedulerLike,
    workers: Optional[int],
    progress: bool,
    cache: CacheLike,
) -> Any:
    """Run ``points``; write ``<name>.parquet`` (one row per point, from ``row_of(labels, summary)``,
    which raises if the point did not exercise its mechanism) and ``<name>.png`` (from ``plot``);
    return the rows as a table with ``key_figures(rows)`` as its checks."""
    started = provenance.now()
    rows, summaries = [], []
    for labels, summary in run_labelled(points, scheduler, workers, progress, cache):
        summaries.append(summary)
        rows.append(row_of(labels, summary))
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(**{name: rows})
        plot(rows, out.path / f"{name}.png", out.provenance)
        return out.table(rows, key_figures(rows))
