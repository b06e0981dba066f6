"""What a recipe produced (:class:`Outcome`) and the readers a :class:`~.claims.Claim` takes of it.

A reader is a function of an outcome that gives one of our numbers or a verdict (None where the
recipe did not report what it needs). The first half are the building blocks most claims are made
of: ``check("key", ...)`` reads one of the recipe's checks, ``_lt``/``_le``/``_ge`` and ``_all_true``
combine readers into a verdict. The second half read one figure's outcome each, where a claim needs
more than a check: a ratio, a maximum over cases, or the rows themselves.

The underscored names are the validation package's own: ``claims.py`` builds ``CLAIMS`` from them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Union


@dataclass
class Outcome:
    """What one recipe produced: its rows and its checks (empty if it failed: ``error`` says why)."""

    rows: List[Dict[str, Any]]
    checks: Dict[str, Any]
    seconds: float = 0.0
    error: Optional[str] = None


def _get(data: Any, *path: Any) -> Any:
    """``data[path[0]][path[1]]...``, or None where a step is missing."""
    for step in path:
        if isinstance(data, dict) and step in data:
            data = data[step]
        elif isinstance(data, list) and isinstance(step, int) and -len(data) <= step < len(data):
            data = data[step]
        else:
            return None
    return data


def check(*path: Any) -> Callable[[Outcome], Any]:
    """A reader of ``checks[path...]``."""
    return lambda o: _get(o.checks, *path)


def _max_of(values: Iterable[Any]) -> Optional[float]:
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return max(numbers) if numbers else None


def _all_true(*readers: Callable[[Outcome], Any]) -> Callable[[Outcome], Optional[bool]]:
    """False if any reader gives a false value, else None if any gives None (missing, or a finding the
    recipe's measurement left undecided), else True: one failed part fails the whole."""
    def read(o: Outcome) -> Optional[bool]:
        values = [r(o) for r in readers]
        if any(v is not None and not v for v in values):
            return False
        if any(v is None for v in values):
            return None
        return True
    return read


def _reasons(*path: Any) -> Callable[[Outcome], Optional[str]]:
    """A reader of ``checks[path...]`` as a list of reasons a recipe gives for findings its measurement
    left undecided, joined with "; " (None if there are none)."""
    def read(o: Outcome) -> Optional[str]:
        value = _get(o.checks, *path)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return "; ".join(value)
        return None
    return read


def _all_values(*path: Any) -> Callable[[Outcome], Optional[bool]]:
    """True if ``checks[path...]`` is a non-empty dict (or nested dicts) whose every leaf is True."""
    def leaves(v: Any) -> List[Any]:
        return [x for w in v.values() for x in leaves(w)] if isinstance(v, dict) else [v]

    def read(o: Outcome) -> Optional[bool]:
        v = _get(o.checks, *path)
        if not isinstance(v, dict) or not v:
            return None
        return all(x is True for x in leaves(v))
    return read


def _compare(a: Callable[[Outcome], Any], op: Callable[[float, float], bool],
             b: Union[float, Callable[[Outcome], Any]]) -> Callable[[Outcome], Optional[bool]]:
    def read(o: Outcome) -> Optional[bool]:
        x, y = a(o), b(o) if callable(b) else b
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            return None
        return bool(op(x, y))
    return read


def _lt(a: Callable[[Outcome], Any], b: Union[float, Callable[[Outcome], Any]]) -> Callable[[Outcome], Optional[bool]]:
    return _compare(a, lambda x, y: x < y, b)


def _le(a: Callable[[Outcome], Any], b: Union[float, Callable[[Outcome], Any]]) -> Callable[[Outcome], Optional[bool]]:
    return _compare(a, lambda x, y: x <= y, b)


def _ge(a: Callable[[Outcome], Any], b: Union[float, Callable[[Outcome], Any]]) -> Callable[[Outcome], Optional[bool]]:
    return _compare(a, lambda x, y: x >= y, b)


# Readers of one figure's outcome, each for the claim that names the figure.
def _share_growth(o: "Outcome") -> Optional[float]:
    """Aries' largest incast impact at the largest aggressor share over the one at the smallest (None with
    one split or an unknown maximum)."""
    by = _get(o.checks, "aries_incast_max_by_share")
    if not isinstance(by, list) or len(by) < 2 or any(not b.get("max_impact") for b in (by[0], by[-1])):
        return None
    return by[-1]["max_impact"] / by[0]["max_impact"]


def _at_most_pairs(by_ppn: Optional[Dict[str, Any]]) -> Optional[float]:
    """The value of the largest pair count of a ``{ppn: value}`` map (keys are numbers as strings)."""
    if not by_ppn:
        return None
    return by_ppn[max(by_ppn, key=int)]


ALONE_FRACTION = 0.93
"""[DeSensi20] Fig. 14: a job alone takes the whole bottleneck; ours counts if it moves at least this fraction of
what the two jobs move together (the bound ``tests/python/test_traffic_classes.py`` holds the recipe to)."""


def _tc1_share_and_alone(o: Outcome) -> Optional[bool]:
    """Fig. 14: TC1 within 3 points of 80% while both jobs run, and each job that ran alone for a measurable
    time took at least ``ALONE_FRACTION`` of what the two move together; the first job, which runs alone
    before the second starts, must have been measured in every case."""
    tc1, alone = _get(o.checks, "tc1_share"), _get(o.checks, "alone_fraction")
    if tc1 is None or not alone:
        return None
    if any(not isinstance(case.get("job1"), (int, float)) for case in alone.values()):
        return None
    measured = [v for case in alone.values() for v in case.values() if isinstance(v, (int, float))]
    return abs(tc1 - 0.80) <= 0.03 and all(v >= ALONE_FRACTION for v in measured)


TABLE_2_NETWORKS = frozenset({"slimfly", "fitfly", "dragonfly", "megafly"})


def _times_at_top_background(o: Outcome) -> Optional[Dict[str, Dict[str, float]]]:
    """Per workload, each Table 2 network's maximum communication time at the highest background (a capped
    run as infinity: slower than any finished one); None unless every network has a row for every workload."""
    rows = [r for r in o.rows if r.get("comparison") == "table-2"]
    if not rows:
        return None
    top = max(r["background"] for r in rows)
    times: Dict[str, Dict[str, float]] = {}
    for r in rows:
        if r["background"] == top:
            t = r["max_comm_time_ns"]
            times.setdefault(r["workload"], {})[r["network"]] = math.inf if t is None else t
    return times if all(TABLE_2_NETWORKS <= set(t) for t in times.values()) else None


def _fitfly_lowest_at_top_background(o: Outcome) -> Optional[bool]:
    """At the highest background, Fit Fly (EDR) has the lowest maximum communication time for both workloads
    among the four Table 2 networks."""
    times = _times_at_top_background(o)
    return None if times is None else all(t["fitfly"] <= min(t.values()) for t in times.values())


def _slimfly_beats_dragonflies_and_fewer_hops(o: Outcome) -> Optional[bool]:
    """[McGlohon19] Sec. 6-7: at the highest background Slim Fly's maximum communication time is below
    Dragonfly's and Megafly's for both workloads, and Slim Fly and Fit Fly take fewer hops on average over
    their points than Dragonfly and Megafly."""
    times = _times_at_top_background(o)
    if times is None:
        return None
    if not all(t["slimfly"] < min(t["dragonfly"], t["megafly"]) for t in times.values()):
        return False
    hops = {n: [r["mean_hops"] for r in o.rows if r.get("comparison") == "table-2" and r["network"] == n
                and r.get("mean_hops") is not None] for n in TABLE_2_NETWORKS}
    if any(not v for v in hops.values()):
        return None
    mean = {n: sum(v) / len(v) for n, v in hops.items()}
    return max(mean["slimfly"], mean["fitfly"]) < min(mean["dragonfly"], mean["megafly"])


def _fitfly_time_at_top_background(o: Outcome) -> Optional[float]:
    rows = [r for r in o.rows if r.get("network") == "fitfly" and r.get("comparison") == "table-2"
            and r.get("workload") == "amg"]
    if not rows:
        return None
    top = max(rows, key=lambda r: r["background"])
    t = top.get("max_comm_time_ns")
    return None if t is None else t / 1e6
