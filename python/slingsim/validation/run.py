"""Running the validation: every recipe the claims need, one after another, into the report's rows.

The recipes run through the same Dask path as a sweep, on one client opened for the whole
validation; a recipe that fails becomes an :class:`~.readers.Outcome` with its error, so the others
still run and the report says which failed.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from ..cluster import SchedulerLike
from ..store import CacheLike
from .claims import CLAIMS, experiments_of
from .readers import Outcome
from .rows import claim_row


def run_recipe(name: str, out_dir: Path, quick: bool, scheduler: Any, workers: Optional[int], progress: bool,
               cache: CacheLike) -> Outcome:
    """Run one recipe into ``out_dir / name``; a failure becomes an outcome with its error."""
    from ..experiments.output import table_checks
    from ..experiments.registry import recipe

    started = time.perf_counter()
    try:
        table = recipe(name)(out_dir / name, quick, scheduler, workers, progress=progress, cache=cache)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # noqa: BLE001 - one failing recipe must not hide the others' results
        return Outcome([], {}, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
    return Outcome(table.to_pylist(), table_checks(table), time.perf_counter() - started)


def run_validation(
    out_dir: Union[str, Path] = "out/validate",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
    only: Optional[Sequence[str]] = None,
    on_recipe: Optional[Callable[[str, Outcome], None]] = None,
) -> List[Dict[str, Any]]:
    """Run every recipe the claims need (``only``: these experiments), each into ``out_dir/NAME``; return the
    report's rows (one per claim). ``on_recipe(name, outcome)`` is called as each recipe ends."""
    from ..cluster import dask_client

    names = experiments_of()
    if only:
        unknown = [n for n in only if n not in names]
        if unknown:
            raise ValueError(f"--only: no claims for {unknown}; the validated experiments are {names}")
        names = [n for n in names if n in only]
    out = Path(out_dir)
    outcomes: Dict[str, Outcome] = {}

    def run_all(sched: Any) -> None:
        for name in names:
            outcomes[name] = run_recipe(name, out, quick, sched, workers, progress, cache)
            if on_recipe is not None:
                on_recipe(name, outcomes[name])

    if scheduler == "sync":
        run_all("sync")
    else:
        with dask_client(scheduler, workers) as client:
            run_all(client)
    return [claim_row(c, outcomes[c.experiment]) for c in CLAIMS if c.experiment in outcomes]
