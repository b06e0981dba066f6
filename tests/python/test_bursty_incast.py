"""[DeSensi20] Fig. 12 in small: Slingshot keeps a 128 B alltoall near its isolated time
under a bursty incast, where back-pressure alone lets the same bursts slow it many times."""
from __future__ import annotations

import copy

from slingsim.experiments.bursty_incast import base, key_figures, plot, study_points, with_aggressor
from slingsim.experiments.congestion_heatmap import impact_of, planned_nodes, point_shares
from slingsim.sweep import run_summaries


def test_grid_has_a_persistent_row_and_every_burst_and_gap():
    points = study_points(quick=True)
    assert all([j["name"] for j in iso["job"]] == ["victim"] for _, iso, _ in points)
    labels = [p[0] for p in points]
    assert {(l["aggressor_bytes"], l["burst_messages"]) for l in labels if l["burst_gap_ns"] is None} == {
        (1024, 0), (131_072, 0)}
    assert len(labels) == 2 * (1 + 2 * 2)
    for l, _, con in points:
        aggressor = con["job"][1]
        assert aggressor["workload"] == "incast" and aggressor["repeat"]
        assert aggressor["burst_messages"] == l["burst_messages"]


SEEDS = (1, 2, 3)
"""One 20-iteration run's impact moves between 1.15 and 1.32 with the seed alone: the test takes the mean of three."""


def with_seed(cfg, seed):
    cfg = copy.deepcopy(cfg)
    cfg["sim"]["seed"] = seed
    return cfg


def test_bursts_barely_touch_the_victim_with_slingshot_but_not_without(tmp_path):
    iso = base(1024)
    iso["job"][0]["iterations"] = 20
    bursty = with_aggressor(iso, 1024, 100, 1000.0)
    pairs = [(with_seed(iso, seed), with_seed(bursty, seed)) for seed in SEEDS]
    s = run_summaries([cfg for pair in pairs for cfg in pair], scheduler="sync")
    slingshot = sum(impact_of(s[2 * i], s[2 * i + 1])[0] for i in range(len(SEEDS))) / len(SEEDS)
    unprotected_iso = copy.deepcopy(iso)
    unprotected_iso["congestion"]["algorithm"] = "none"
    unprotected = with_aggressor(unprotected_iso, 1024, 100, 1000.0)
    s = run_summaries([unprotected_iso, unprotected], scheduler="sync")
    none, _ = impact_of(s[0], s[1])
    assert slingshot < 1.3
    assert none > 3.0
    rows = [{"aggressor_bytes": 1024, "burst_messages": 100, "burst_gap_ns": 1000.0, "impact": slingshot},
            {"aggressor_bytes": 1024, "burst_messages": 0, "burst_gap_ns": None, "impact": 1.0}]
    assert plot(rows, tmp_path / "bursty.png").is_file()


def test_the_victim_shares_every_switch_with_the_incast():
    for _, _, con in study_points(quick=True):
        shares = point_shares(con, planned_nodes(con))
        assert shares["meets"] and shares["victim_on_target_switch"]
        assert shares["shared_switches"] == shares["victim_switches"] == 31  # interleaved over all of Malbec


def test_key_figures_find_the_largest_impact_and_where():
    def row(nbytes, burst, gap, impact):
        return {"aggressor_bytes": nbytes, "burst_messages": burst, "burst_gap_ns": gap, "impact": impact,
                "censored": False, "isolated_ns": 10.0, "congested_ns": 10.0 * impact}

    rows = [row(8, 0, None, 1.0), row(8, 10, 1000.0, 1.02), row(1024, 0, None, 1.05), row(1024, 100, 1000.0, 1.18),
            row(131_072, 0, None, 1.01), row(131_072, 100, 1000.0, 1.03)]
    checks = key_figures(rows)
    assert checks["max_impact"] == 1.18
    assert checks["max_at"] == {"aggressor_bytes": 1024, "burst_messages": 100, "burst_gap_ns": 1000.0}
    assert checks["persistent_impact"] == 1.05
    assert checks["smallest_and_largest_bytes"] == [8, 131_072]
    assert checks["smallest_and_largest_messages_max_impact"] == 1.03
    assert checks["identical_points"] == 1 and checks["paper"]["max_impact"] == 1.21
