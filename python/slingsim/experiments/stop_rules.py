"""The victims' statistical stopping rule of [DeSensi20] Sec. II-B (``slingsim experiment NAME --stop-rule
paper``): each victim runs until at least 200 iterations have passed and its median iteration time's 95%
confidence interval lies within 5% of the median, instead of the recipe's fixed count (the engine's
``job.stop_rule``, docs/workloads.md#stopping-rule).

A victim then runs many more iterations than the recipe's default, so each run's time cap
(``sim.max_time_ns``) grows by the same factor past the victim's start; a victim that reaches the cap before
its rule holds is censored as before, and its row says the rule did not hold."""
from __future__ import annotations

import copy
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..config import Config

STOP_RULES = {"paper": 200}
"""The rules by name, with the fewest iterations each runs (the engine's ``stop_rule = "paper"``)."""
VICTIM = "victim"


def check_stop_rule(rule: Optional[str]) -> None:
    """Raise ValueError naming the valid rules unless ``rule`` is None or one of them."""
    if rule is not None and rule not in STOP_RULES:
        raise ValueError(f"stop_rule: unknown rule {rule!r}; choose one of {sorted(STOP_RULES)} (or none: the "
                         "recipe's fixed iteration counts)")


def with_stop_rule(cfg: Config, rule: str, job: str = VICTIM) -> Config:
    """A copy of ``cfg`` whose job ``job`` runs under stop rule ``rule`` (its ``iterations`` left to the
    engine's cap of 10 x the rule's minimum) and whose time cap past that job's start grows by the factor
    its iterations grow by."""
    check_stop_rule(rule)
    out = copy.deepcopy(cfg)
    victim = next((j for j in out.get("job", []) if j.get("name") == job), None)
    if victim is None:
        raise ValueError(f"stop_rule: the config has no job named {job!r} to stop by rule")
    fewest = STOP_RULES[rule]
    factor = math.ceil(fewest / max(1, victim.get("iterations", 10)))
    victim.pop("iterations", None)
    victim["stop_rule"] = rule
    sim = out.setdefault("sim", {})
    if "max_time_ns" in sim:
        start = float(victim.get("start_ns", 0.0))
        sim["max_time_ns"] = start + (float(sim["max_time_ns"]) - start) * max(1, factor)
    return out


def points_with_stop_rule(points: Sequence[Tuple[Dict[str, Any], Config, Config]], rule: Optional[str]
                          ) -> List[Tuple[Dict[str, Any], Config, Config]]:
    """``points`` (labels, isolated, congested) with their victims under ``rule`` (unchanged if None). An
    isolated config shared by several points stays shared, so it still runs once."""
    if rule is None:
        return list(points)
    check_stop_rule(rule)
    done: Dict[int, Config] = {}

    def ruled(cfg: Config) -> Config:
        if id(cfg) not in done:
            done[id(cfg)] = with_stop_rule(cfg, rule)
        return done[id(cfg)]

    return [(labels, ruled(iso), ruled(con)) for labels, iso, con in points]


def stop_rule_row(isolated: Dict[str, Any], congested: Dict[str, Any]) -> Dict[str, Any]:
    """The columns a point's row gains when its victim ran under a rule (none otherwise): whether the rule
    held alone and beside the aggressor, and the iterations each run took."""
    iso, con = isolated["jobs"][VICTIM], congested["jobs"][VICTIM]
    if "stop_rule" not in iso:
        return {}
    return {"stop_rule_met_isolated": iso["stop_rule"]["met"], "stop_rule_met_congested": con["stop_rule"]["met"],
            "iterations_isolated": iso["iterations"], "iterations_congested": con["iterations"]}


def stop_rule_checks(rows: Sequence[Dict[str, Any]], rule: Optional[str]) -> Dict[str, Any]:
    """The checks a study gains under a rule: which, and on how many points it held in both runs."""
    if rule is None:
        return {}
    held = sum(bool(r.get("stop_rule_met_isolated")) and bool(r.get("stop_rule_met_congested")) for r in rows)
    return {"stop_rule": rule, "stop_rule_points": len(rows), "stop_rule_met_points": held}


def study_params(quick: bool, rule: Optional[str]) -> Dict[str, Any]:
    """A study's parameters for its provenance: ``quick``, and the rule when there is one."""
    return {"quick": quick, **({"stop_rule": rule} if rule else {})}
