"""The host noise levels of the recipes about OS noise ([DeSensi19] Sec. 3.3: ``aries-time-vs-latency``,
``aries-node-alltoall``) and the check that each run got the noise it asked for.

The papers publish no noise figure for Piz Daint, so the levels are assumed: no detours, 1 us detours on
1% of each CPU, and on 10%. A recipe runs its figure once per level."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

DETOUR_NS = 1_000.0
LIGHT_INTERVAL_NS = 100_000.0
HEAVY_INTERVAL_NS = 10_000.0
NOISE: Dict[str, Optional[Dict[str, Any]]] = {
    "none": None,
    "light": {"interval_ns": LIGHT_INTERVAL_NS, "duration_ns": DETOUR_NS, "process": "poisson"},
    "heavy": {"interval_ns": HEAVY_INTERVAL_NS, "duration_ns": DETOUR_NS, "process": "poisson"},
}
"""The host noise of each run *(assumed: the papers publish none)*: 1 us detours, 1% and 10% of the CPU."""


def held_up_ns(recipe: str, level: str, summary: Dict[str, Any], jobs: Sequence[str], what: str) -> float:
    """The mean time detours held a rank of ``jobs`` up (ns) in the run of noise ``level``; raises
    ``RuntimeError`` naming ``recipe`` if a noisy run's ``what`` (e.g. "ping-pong") was never held up or
    a quiet run's was."""
    held = [summary["jobs"][j].get("host_noise", {}).get("detoured_ns_per_rank", 0.0) for j in jobs]
    if NOISE[level] is None and any(held):
        raise RuntimeError(f"{recipe}: the run without host noise has ranks held up by detours: {held}")
    if NOISE[level] is not None and not all(h > 0 for h in held):
        raise RuntimeError(f"{recipe}: in the {level} noise run some {what} was never held up by a detour "
                           f"({held} ns per rank): the figure's host side was not exercised")
    return sum(held) / len(held)


def level_title(level: str) -> str:
    """A panel title for noise ``level``: its name and its detours."""
    noise = NOISE[level]
    what = "no host noise" if noise is None else (
        f"{noise['duration_ns'] / 1e3:g} us detours every {noise['interval_ns'] / 1e3:g} us")
    return f"{level}: {what}"
