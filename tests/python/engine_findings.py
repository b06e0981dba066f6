"""Engine bugs the fuzz tests know of, until the engine fixes them (issue 15).

Each finding is a region of configs where the engine panics, aborts, hangs
or reports a wrong success, with the name of the ``xfail(strict=True)``
regression test in ``test_engine_findings.py`` that shows it. The fuzz
tests skip these regions (``hypothesis.assume``) so they keep looking for
new findings instead of finding the same one again; when the engine fixes
one, its regression test passes, strict xfail fails the run, and the
marker and the region here are removed together.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional


@dataclass(frozen=True)
class Finding:
    """A known engine bug: what happens, the configs that show it, and its regression test."""

    what: str
    hit: Callable[[Dict[str, Any]], bool]
    test: str


def _number(cfg: Dict[str, Any], *path: Any) -> Optional[float]:
    """The number at ``path`` in ``cfg``, None if absent or not a number."""
    node: Any = cfg
    for part in path:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return None
    return float(node) if isinstance(node, (int, float)) and not isinstance(node, bool) else None


def _any(values: Iterable[Optional[float]], test: Callable[[float], bool]) -> bool:
    return any(v is not None and v == v and test(v) for v in values)


def _jobs(cfg: Dict[str, Any]) -> List[Dict[str, Any]]:
    jobs = cfg.get("job")
    return [j for j in jobs if isinstance(j, dict)] if isinstance(jobs, list) else []


FINDINGS: List[Finding] = []


def known_finding(cfg: Optional[Dict[str, Any]]) -> Optional[Finding]:
    """The known engine finding ``cfg`` falls in, if any (None for a config that cannot be resolved)."""
    if not isinstance(cfg, dict):
        return None
    for finding in FINDINGS:
        if finding.hit(cfg):
            return finding
    return None
