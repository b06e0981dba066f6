"""[DeSensi20] Figs. 13 and 14 on tapered Malbec: a class of its own protects a small-message
job from a bulk job; minimum shares of 80% and 10% split the bandwidth ~80/20 instead of 50/50."""
from __future__ import annotations

import pytest

from slingsim.experiments.output import table_checks
from slingsim.experiments.traffic_classes import (
    bandwidth_key_figures,
    bandwidth_phases,
    check_shares,
    cross_group_round,
    job_nodes,
    latency_configs,
    latency_key_figures,
    run_traffic_classes_bandwidth,
    run_traffic_classes_latency,
)


def test_jobs_are_interleaved_over_both_groups():
    first, second = job_nodes()
    assert len(first) == len(second) == 64
    assert not set(first) & set(second)
    for nodes in (first, second):
        assert sum(n < 128 for n in nodes) == 32  # half in group 0, half in group 1
        assert len({n // 16 for n in nodes}) == 16  # every switch of both groups


def test_jobs_share_switches_and_both_cross_groups():
    shares = check_shares("t", *job_nodes())
    assert shares["shared_switches"] == 16 and shares["first_groups"] == shares["second_groups"] == 2
    with pytest.raises(RuntimeError, match="groups"):  # each job in a group of its own
        check_shares("t", list(range(64)), list(range(128, 192)))
    with pytest.raises(RuntimeError, match="share 0 switches"):  # both cross groups, on different switches
        check_shares("t", list(range(8)) + list(range(128, 136)), list(range(16, 24)) + list(range(144, 152)))


def test_the_alltoall_runs_the_rounds_that_cross_the_tapered_links():
    # 64 nodes in node order, 32 per group: with 16 ranks per node the pairwise partner r XOR i is on
    # the rank's own node below round 16 and in its own group below round 512.
    _, alltoall_nodes = job_nodes()
    assert cross_group_round(alltoall_nodes, 16) == 512
    assert cross_group_round(alltoall_nodes, 1) == 32
    with pytest.raises(RuntimeError, match="crosses between groups"):
        cross_group_round(list(range(64)), 16)  # one group: no round crosses
    for case, cfg in latency_configs().items():
        assert all(job["ppn"] == 16 for job in cfg["job"])  # the paper's 16 processes per node
        if case != "isolated":
            assert cfg["job"][1]["params"] == {"first_round": 512}


def test_latency_key_figures():
    rows = [{"case": "isolated", "mean_ns": 10.0, "impact": 1.0},
            {"case": "same class", "mean_ns": 20.0, "impact": 2.0},
            {"case": "separate classes", "mean_ns": 10.0, "impact": 1.0}]
    checks = latency_key_figures(rows)
    assert (checks["same_class_impact"], checks["own_class_impact"], checks["identical_points"]) == (2.0, 1.0, 1)
    assert (checks["paper"]["same_class_impact"], checks["paper"]["own_class_impact"]) == (2.85, 1.15)


def test_bandwidth_key_figures():
    rows = [{"case": "same class", "job1_alone_gbps": 100.0, "job1_both_gbps": 50.0, "job2_both_gbps": 50.0,
             "job2_alone_gbps": 100.0, "job1_share_both": 0.5},
            {"case": "separate classes", "job1_alone_gbps": 100.0, "job1_both_gbps": 80.0, "job2_both_gbps": 20.0,
             "job2_alone_gbps": 90.0, "job1_share_both": 0.8}]
    checks = bandwidth_key_figures(rows)
    assert (checks["one_class_share"], checks["tc1_share"], checks["tc2_share"]) == (0.5, 0.8, 0.2)
    assert checks["alone_fraction"]["separate classes"] == {"job1": 1.0, "job2": 0.9}
    assert checks["identical_points"] == 0


def test_own_class_shields_the_allreduce(tmp_path):
    table = run_traffic_classes_latency(tmp_path, scheduler="sync")
    assert table_checks(table)["shares_checked"]
    rows = {r["case"]: r for r in table.to_pylist()}
    assert rows["isolated"]["impact"] == 1.0
    # Issue 12: each within 1.5x of the paper's excess over 1 (2.85x: 1.85; 1.15x: 0.15). Measured
    # 2026-11-28 with 16 processes per node and the alltoall's cross-group rounds: 3.22x and 1.11x.
    same, own = rows["same class"]["impact"] - 1, rows["separate classes"]["impact"] - 1
    assert 1.85 / 1.5 <= same <= 1.85 * 1.5
    assert 0.15 / 1.5 <= own <= 0.15 * 1.5
    assert (tmp_path / "traffic_classes_latency.png").is_file()


def test_minimum_shares_split_the_bandwidth(tmp_path):
    table = run_traffic_classes_bandwidth(tmp_path, scheduler="sync")
    checks = table_checks(table)
    assert checks["shares_checked"] and checks["tc1_share"] + checks["tc2_share"] == pytest.approx(1.0)
    rows = {r["case"]: r for r in table.to_pylist()}
    # [DeSensi20] Fig. 14: 50/50 in one class (issue: within 5 points), 80/20 for TC1 and TC2 (within 3).
    assert abs(rows["same class"]["job1_share_both"] - 0.5) <= 0.05
    assert abs(checks["tc1_share"] - 0.8) <= 0.03, checks
    separate = rows["separate classes"]
    assert separate["job2_alone_gbps"] > 0.8 * separate["job1_alone_gbps"]
    # Each job alone takes the whole bottleneck: as much as the two move together. It took 0.77 while
    # every flow was held to its minimal path's window (docs/model.md, Slingshot congestion management).
    for case in ("same class", "separate classes"):
        assert checks["alone_fraction"][case]["job1"] > 0.93, checks["alone_fraction"]
    assert all(r["end_reason"] == "flows_done" for r in rows.values())
    assert (tmp_path / "traffic_classes_bandwidth.png").is_file()


def test_phases_come_from_the_timeline_and_flow_ends():
    bin_ns = 50_000.0
    timeline = [{"t_ns": t * bin_ns, "source": "job1", "throughput_gbps": 100.0} for t in range(40)]
    timeline += [{"t_ns": t * bin_ns, "source": "job2", "throughput_gbps": 50.0} for t in range(18, 60)]
    flows = [{"source": "job1", "end_ns": 40 * bin_ns, "completed": True},
             {"source": "job2", "end_ns": 60 * bin_ns, "completed": True}]
    phases = bandwidth_phases(timeline, flows)
    assert phases["job1_alone_gbps"] == 100.0
    assert phases["job1_both_gbps"] == 100.0 and phases["job2_both_gbps"] == 50.0
    assert phases["job2_alone_gbps"] == 50.0
