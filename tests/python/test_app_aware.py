"""Paper 004's application-aware routing on Aries: per message it finds the better of ADAPTIVE and
ADAPTIVE WITH HIGH BIAS, which differ by message size, from the NIC counters alone."""
from __future__ import annotations

import pytest

from slingsim.api import Simulation
from slingsim.config import load_config
from slingsim.experiments.node_distance import pingpong

ITERATIONS = 10


def pingpong_time(nbytes, routing):
    cfg = load_config("aries-crystal")
    cfg["traffic"] = []
    cfg["job"] = [{"name": "pp", "workload": "program", "program": pingpong(nbytes), "iterations": ITERATIONS,
                   "nodes": {"list": [0, 500]}, "routing": routing}]  # two groups
    job = Simulation(cfg).run().summary["jobs"]["pp"]
    return job["iteration_ns"]["mean"], job["app_aware_messages"]


@pytest.mark.parametrize("nbytes", [1024, 1_048_576])
def test_app_aware_matches_the_better_static_mode(nbytes):
    adaptive, _ = pingpong_time(nbytes, "adaptive-0")
    high_bias, _ = pingpong_time(nbytes, "adaptive-3")
    aware, modes = pingpong_time(nbytes, "app-aware")
    assert abs(adaptive - high_bias) > 0.1 * min(adaptive, high_bias), "the choice matters at this size"
    assert aware < 1.05 * min(adaptive, high_bias)
    assert modes["adaptive-0"] > 0 and modes["adaptive-3"] > 0
