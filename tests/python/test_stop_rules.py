"""The victims' statistical stopping rule: configs under the rule, a real run reporting it, and the CLI's
refusal for recipes without a repeating victim."""
import pytest

import slingsim
from slingsim.cli import main
from slingsim.experiments.registry import with_victims
from slingsim.experiments.stop_rules import (points_with_stop_rule, stop_rule_checks, stop_rule_row,
                                             with_stop_rule)

TINY = {"topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "routing": {"algorithm": "minimal"}, "sim": {"max_time_ns": 1e6},
        "job": [{"name": "victim", "workload": "allreduce", "bytes": 8, "nodes": {"count": 8}, "start_ns": 1000.0,
                 "iterations": 10}]}


def test_a_ruled_victim_leaves_its_cap_to_the_engine_and_gets_the_time_it_needs():
    cfg = with_stop_rule(TINY, "paper")
    victim = cfg["job"][0]
    assert victim["stop_rule"] == "paper" and "iterations" not in victim
    # 200 / 10 = 20 times the window past the victim's start.
    assert cfg["sim"]["max_time_ns"] == pytest.approx(1000.0 + 20 * (1e6 - 1000.0))
    assert TINY["job"][0]["iterations"] == 10, "the config given is not changed"
    with pytest.raises(ValueError, match="choose one of"):
        with_stop_rule(TINY, "always")
    with pytest.raises(ValueError, match="no job named 'victim'"):
        with_stop_rule({**TINY, "job": [{**TINY["job"][0], "name": "other"}]}, "paper")


def test_shared_isolated_configs_stay_shared():
    con_a, con_b = ({**TINY, "job": TINY["job"] + [{"name": "aggressor", "workload": "incast", "repeat": True}]}
                    for _ in range(2))
    points = points_with_stop_rule([({"a": 1}, TINY, con_a), ({"a": 2}, TINY, con_b)], "paper")
    assert points[0][1] is points[1][1]
    assert all(con["job"][0]["stop_rule"] == "paper" and con["job"][1].get("repeat") for _, _, con in points)
    assert points_with_stop_rule(points, None) == points


def test_a_run_under_the_rule_reports_it_in_the_row_and_checks():
    summary = slingsim.run(with_stop_rule(TINY, "paper")).summary
    row = stop_rule_row(summary, summary)
    assert row["stop_rule_met_isolated"] is True
    # An idle network repeats itself: the rule holds at 200, the ranks finish the iteration under way.
    assert 201 <= row["iterations_isolated"] <= 203
    checks = stop_rule_checks([row], "paper")
    assert checks == {"stop_rule": "paper", "stop_rule_points": 1, "stop_rule_met_points": 1}
    assert stop_rule_row(slingsim.run(TINY).summary, summary) == {}, "no rule, no columns"


def test_the_cli_takes_the_rule_only_where_a_victim_repeats(capsys):
    assert with_victims() == ["bursty-incast", "congestion-distribution", "congestion-heatmap",
                              "shandy-applications"]
    assert main(["experiment", "tailbench", "--stop-rule", "paper"]) == 2
    err = capsys.readouterr().err
    assert "--stop-rule" in err and "congestion-heatmap" in err
