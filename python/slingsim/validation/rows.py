"""A claim's row of the report: ours beside the paper's, and the verdicts.

:func:`claim_row` reads a claim from its recipe's outcome into one row (the rows are what
``validation.parquet`` and ``slingsim validate --json`` hold): our number, whether the paper's
ordering holds, whether our number is within :data:`MAGNITUDE_FACTOR` of the paper's, whether the
recipe checked its set-up, and the known cause of a difference. The rest count and pick rows.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

from .causes import FULL_MODE_READS, KNOWN_CAUSES
from .claims import Claim
from .readers import Outcome

MAGNITUDE_FACTOR = 2.0
"""Ours counts as within the paper's magnitude if the ratio of the two is at most this either way."""


def within_factor(ours: Optional[float], paper: Optional[float], factor: float = MAGNITUDE_FACTOR) -> Optional[bool]:
    """Whether ``ours`` is within ``factor`` of ``paper`` either way (None if either is missing or not positive)."""
    if ours is None or paper is None or ours <= 0 or paper <= 0:
        return None
    return 1 / factor <= ours / paper <= factor


def shares_status(checks: Dict[str, Any]) -> str:
    """``checked`` if the recipe verified what its figure needs shared or set up, ``FAILED`` if it found it not,
    ``not checked`` if it says nothing."""
    flags = [v for k, v in checks.items() if k.endswith("_checked") and isinstance(v, bool)]
    if not flags:
        return "not checked"
    return "checked" if all(flags) else "FAILED"


def _safe(read: Callable[[Outcome], Any], outcome: Outcome) -> Any:
    try:
        return read(outcome)
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError):
        return None


def claim_row(claim: Claim, outcome: Outcome) -> Dict[str, Any]:
    """One row of the report."""
    ours = None if outcome.error else _safe(claim.ours, outcome)
    if isinstance(ours, bool) or not isinstance(ours, (int, float)):
        ours = None
    holds = None if outcome.error else _safe(claim.holds, outcome)
    undecided = None
    if holds is None and not outcome.error and claim.undecided is not None:
        undecided = _safe(claim.undecided, outcome)
    return {
        "experiment": claim.experiment,
        "figure": claim.figure,
        "quantity": claim.quantity,
        "paper": claim.paper,
        "paper_value": claim.paper_value,
        "ours": None if ours is None else float(ours),
        "ordering": claim.ordering,
        "ordering_holds": None if holds is None else bool(holds),
        "ordering_undecided": undecided if isinstance(undecided, str) and undecided else None,
        "within_2x": within_factor(ours, claim.paper_value),
        "shares": "recipe failed" if outcome.error else shares_status(outcome.checks),
        "error": outcome.error,
        "recipe_s": round(outcome.seconds, 1),
        "known_cause": KNOWN_CAUSES.get((claim.experiment, claim.quantity)),
        "full_mode_reads": FULL_MODE_READS.get((claim.experiment, claim.quantity)),
    }


def undecided_rows(rows: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The rows whose recipe ran but whose measurement cannot decide the ordering (:func:`claim_row` gives a row
    a reason only then)."""
    return [r for r in rows if r["ordering_undecided"]]


def differs(row: Dict[str, Any]) -> bool:
    """Whether a row departs from the paper: its ordering fails or its number is outside 2x."""
    return row["ordering_holds"] is False or row["within_2x"] is False


def differing(rows: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The rows of recipes that ran and depart from the paper."""
    return [r for r in rows if not r["error"] and differs(r)]


def summary_counts(rows: Sequence[Dict[str, Any]]) -> Dict[str, int]:
    """How many claims hold, fail, are left undecided by their measurement, or could not be read, and how many
    recipes failed."""
    return {
        "claims": len(rows),
        "ordering_holds": sum(r["ordering_holds"] is True for r in rows),
        "ordering_fails": sum(r["ordering_holds"] is False for r in rows),
        "ordering_undecided": sum(bool(r["ordering_undecided"]) for r in rows),
        "ordering_unread": sum(r["ordering_holds"] is None and not r["ordering_undecided"] for r in rows),
        "within_2x": sum(r["within_2x"] is True for r in rows),
        "outside_2x": sum(r["within_2x"] is False for r in rows),
        "recipes_failed": len({r["experiment"] for r in rows if r["error"]}),
    }
