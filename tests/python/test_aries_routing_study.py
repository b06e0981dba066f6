"""[DeSensi19] Figs. 8-9 on fragmented Aries allocations beside other jobs: high bias for tests that move
little data, DEFAULT for heavy ones, application-aware routing following the better of the two."""
from __future__ import annotations

import dataclasses

import pytest

from slingsim.experiments import allocation
from slingsim.experiments import aries_routing_study as study
from slingsim.experiments.output import table_checks


@pytest.mark.parametrize("system", sorted(study.SYSTEMS))
def test_each_job_has_the_papers_shape_and_a_background_in_its_groups(system):
    alloc = study.checked_allocation(system)
    want = study.SYSTEMS[system]
    assert allocation.shape(alloc.layout, alloc.nodes) == allocation.Shape(want.nodes, want.routers, want.groups)
    background = [n for job in alloc.background for n in job["nodes"]["list"]]
    assert background and not set(background) & set(alloc.nodes)
    assert {alloc.layout.group(n) for n in background} == set(alloc.groups)
    a, b = alloc.pingpong_pair()
    assert {a, b} <= set(alloc.nodes) and alloc.layout.group(a) != alloc.layout.group(b)


def test_a_wrong_shape_or_a_stray_background_is_refused():
    alloc = study.job_allocation("aries-cori")
    assert study.allocation_problems(alloc) == []
    short = dataclasses.replace(alloc, nodes=alloc.nodes[:-1])
    assert "63 nodes" in study.allocation_problems(short)[0]
    # One background job moved to a group the job does not use.
    stray_group = next(g for g in range(alloc.layout.nodes // alloc.layout.per_group) if g not in alloc.groups)
    moved = dict(alloc.background[0], nodes={"list": [stray_group * alloc.layout.per_group]})
    stray = dataclasses.replace(alloc, background=(moved,) + alloc.background[1:])
    assert any("outside the job's groups" in p for p in study.allocation_problems(stray))
    on_job = dict(alloc.background[0], nodes={"list": [alloc.nodes[0]]})
    assert any("of the job's nodes" in p
               for p in study.allocation_problems(dataclasses.replace(alloc, background=(on_job,))))
    with pytest.raises(ValueError, match="system 'aries-crystal'"):
        study.job_allocation("aries-crystal")


def test_the_three_routings_of_a_test_differ_only_in_the_routing():
    points = study.study_points()
    by_case = {}
    for labels, cfg in points:
        assert cfg["job"][0]["routing"] == labels["routing"]
        assert cfg["traffic"] == []
        job = dict(cfg["job"][0], routing=None)
        case = (labels["system"], labels["test"], labels["size"])
        by_case.setdefault(case, []).append({**cfg, "job": [job] + cfg["job"][1:]})
    assert len(points) == 3 * len(by_case)
    for case, configs in by_case.items():
        assert configs[0] == configs[1] == configs[2], case
    # Every test of a system runs beside the same background.
    for system in study.SYSTEMS:
        backgrounds = [cfg["job"][1:] for labels, cfg in points if labels["system"] == system]
        assert all(b == backgrounds[0] for b in backgrounds) and backgrounds[0]


def test_quick_runs_the_cori_job_on_fewer_points_and_daints_8_byte_alltoall():
    quick, full = study.study_points(quick=True), study.study_points()
    assert {l["system"] for l, _ in full} == set(study.SYSTEMS)
    cori = [(l, c) for l, c in quick if l["system"] == "aries-cori"]
    assert len(cori) < len([1 for l, _ in full if l["system"] == "aries-cori"])
    tests = {(l["test"], l["size"]) for l, _ in cori}
    assert {("alltoall", "large"), ("halo3d", "large")} <= tests
    for labels, cfg in cori:
        nodes = cfg["job"][0]["nodes"]["list"]
        assert len(nodes) == (2 if labels["test"] == "ping-pong" else 64)
    # Daint: only the small test on which full mode finds DEFAULT ahead, exactly as full mode runs it.
    daint = [(l, c) for l, c in quick if l["system"] == "aries-daint"]
    assert {(l["test"], l["size"], l["bytes"]) for l, _ in daint} == {("alltoall", "small", 8)}
    full_daint = {l["routing"]: c for l, c in full if l["system"] == "aries-daint" and l["test"] == "alltoall"
                  and l["size"] == "small"}
    assert len(daint) == len(study.ROUTINGS) == len(full_daint)
    for labels, cfg in daint:
        assert cfg == full_daint[labels["routing"]]
        assert len(cfg["job"][0]["nodes"]["list"]) == 1024


def rows_from(medians, means=None):
    rows = []
    for (system, test, size), by in medians.items():
        for routing, median in by.items():
            rows.append({"system": system, "test": test, "size": size, "bytes": 8, "routing": routing,
                         "median_us": median, "mean_us": (means or {}).get((system, test, size, routing), median),
                         "default_share": 0.25 if routing == study.APP_AWARE else None})
    study.normalise(rows)
    return rows


def test_key_figures_name_the_winner_of_each_test():
    d, h, a = study.DEFAULT, study.HIGH_BIAS, study.APP_AWARE
    medians = {("aries-cori", "barrier", "small"): {d: 10.0, h: 8.0, a: 8.4},
               ("aries-cori", "alltoall", "small"): {d: 10.0, h: 9.0, a: 9.0},
               ("aries-cori", "alltoall", "large"): {d: 100.0, h: 130.0, a: 104.0},
               ("aries-cori", "halo3d", "large"): {d: 50.0, h: 60.0, a: 56.0}}
    rows = rows_from(medians, {("aries-cori", "barrier", "small", d): 15.0})
    checks = study.key_figures(rows)
    cori = checks["tests"]["aries-cori"]
    assert cori["barrier small"]["best_static"] == h and cori["barrier small"]["app_aware_over_best"] == 1.05
    assert cori["alltoall large"]["high_bias_over_default"] == 1.3
    assert cori["halo3d large"]["app_aware_over_best"] == 1.12
    assert checks["high_bias_wins_small"] == {"aries-cori": True}
    assert checks["default_wins_large"] == {"aries-cori": {"alltoall": True, "halo3d": True}}
    assert checks["app_aware_worst_ratio"] == 1.12 and not checks["app_aware_within_10_percent"]
    # Normalised to DEFAULT's median, the mean beside it.
    barrier = {r["routing"]: r for r in rows if r["test"] == "barrier"}
    assert barrier[d]["norm_median"] == 1.0 and barrier[d]["norm_mean"] == 1.5 and barrier[h]["norm_median"] == 0.8
    # High bias slower on one small test, DEFAULT slower on large halo3d: both checks turn.
    medians[("aries-cori", "alltoall", "small")][h] = 10.5
    medians[("aries-cori", "halo3d", "large")] = {d: 60.0, h: 50.0, a: 52.0}
    checks = study.key_figures(rows_from(medians))
    assert checks["high_bias_wins_small"] == {"aries-cori": False}
    assert checks["default_wins_large"]["aries-cori"] == {"alltoall": True, "halo3d": False}
    assert checks["app_aware_worst_ratio"] == 1.05 and checks["app_aware_within_10_percent"]
    assert checks["app_aware_misses"] == [] and checks["app_aware_worst_at"] == "aries-cori barrier small"


def test_a_tie_on_a_small_test_is_listed_but_high_bias_must_win_most():
    d, h, a = study.DEFAULT, study.HIGH_BIAS, study.APP_AWARE
    medians = {("aries-daint", "barrier", "small"): {d: 10.0, h: 8.0, a: 8.0},
               ("aries-daint", "alltoall", "small"): {d: 10.0, h: 10.1, a: 10.1},
               ("aries-daint", "alltoall", "large"): {d: 100.0, h: 101.0, a: 125.0}}
    checks = study.key_figures(rows_from(medians))
    assert checks["high_bias_wins_small"] == {"aries-daint": True}
    assert checks["high_bias_small_ties"] == {"aries-daint": ["alltoall small"]}
    assert checks["default_wins_large"] == {"aries-daint": {"alltoall": False}}  # 1% is a tie, not a win
    assert checks["app_aware_misses"] == ["aries-daint alltoall large"]
    medians[("aries-daint", "barrier", "small")][h] = 9.9  # every small test a tie: no win
    assert study.key_figures(rows_from(medians))["high_bias_wins_small"] == {"aries-daint": False}


def test_a_job_that_did_not_finish_or_ran_elsewhere_is_refused():
    labels = {"system": "aries-cori", "test": "barrier", "size": "small", "routing": study.DEFAULT}
    cfg = study.point_config(study.job_allocation("aries-cori"), "barrier", study.Size(0, 4), study.DEFAULT)
    nodes = cfg["job"][0]["nodes"]["list"]
    job = {"node_ids": nodes, "iterations": 4, "iteration_ns": {"mean": 2e4, "p50": 1e4}, "app_aware_messages": None}
    row = study.result_row(labels, cfg, {"jobs": {"app": job}})
    assert row["median_us"] == 10.0 and row["mean_us"] == 20.0 and row["default_share"] is None
    with pytest.raises(RuntimeError, match="3 of 4 iterations"):
        study.result_row(labels, cfg, {"jobs": {"app": {**job, "iterations": 3}}})
    with pytest.raises(RuntimeError, match="other nodes"):
        study.result_row(labels, cfg, {"jobs": {"app": {**job, "node_ids": sorted(nodes)[::-1]}}})
    with pytest.raises(ValueError, match="routing 'minimal'"):
        study.point_config(study.job_allocation("aries-cori"), "barrier", study.Size(0, 4), "minimal")


@pytest.mark.slow
def test_quick_study_high_bias_for_little_data_default_for_heavy_exchanges(tmp_path):
    table = study.run_aries_routing_study(tmp_path, quick=True, scheduler="sync")
    checks = table_checks(table)
    assert checks["allocation_checked"]
    assert checks["allocations"]["aries-cori"]["routers"] == 33
    cori = checks["tests"]["aries-cori"]
    # Little data: high bias's lower latency wins ([DeSensi19] Sec. 5.1: ping-pong, barrier), and app-aware,
    # which sends what comes before its 4 KiB threshold with high bias, follows it.
    for name in ("ping-pong small", "barrier small", "allreduce small", "bcast small", "halo3d small"):
        assert cori[name]["high_bias_over_default"] < 0.95, (name, cori[name])
        # halo3d 1 KiB: 1.071 on 2026-11-29 with 3.3% of its messages on DEFAULT (why so few cost that much
        # is not established); the others follow high bias within 2%.
        assert cori[name]["app_aware_over_best"] <= (study.WITHIN if name == "halo3d small" else 1.02), (name, cori[name])
        assert cori[name]["app_aware_default_share"] < 0.1, (name, cori[name])
    # Daint's 8 B alltoall over 1024 ranks: Bruck's rounds send 4 KiB per rank, and DEFAULT wins (1.17x on
    # 2026-12-01), as in full mode.
    assert checks["high_bias_wins_small"] == {"aries-cori": True, "aries-daint": False}
    assert checks["tests"]["aries-daint"]["alltoall small"]["high_bias_over_default"] > 1.1
    # Heavy exchanges: DEFAULT's non-minimal paths win, and app-aware moves part of the traffic to DEFAULT
    # and beats high bias.
    assert checks["default_wins_large"] == {"aries-cori": {"alltoall": True, "halo3d": True}, "aries-daint": {}}
    for name in ("alltoall large", "halo3d large"):
        assert cori[name]["high_bias_over_default"] > 1.1, (name, cori[name])
        assert 0.1 < cori[name]["app_aware_default_share"] < 0.9, (name, cori[name])
        assert cori[name]["app_aware_over_default"] < cori[name]["high_bias_over_default"], (name, cori[name])
    rows = table.to_pylist()
    assert all(r["norm_median"] == 1.0 for r in rows if r["routing"] == study.DEFAULT)
    assert (tmp_path / "aries_routing_study.png").is_file()


def test_scaling_factors_derived_as_the_paper_does():
    """[DeSensi19] Sec. 4.2: high bias's L and s over ADAPTIVE's, per test, the median over the tests; a test
    whose ADAPTIVE run never stalled gives no stall ratio."""
    def run(test, routing, latency, stall):
        return {"system": "aries-cori", "test": test, "size": "large", "routing": routing,
                "nic_latency_ns": latency, "nic_stall_ns_per_flit": stall}
    rows = [run("a", "adaptive-0", 1000.0, 0.1), run("a", "adaptive-3", 1200.0, 1.0),
            run("b", "adaptive-0", 1000.0, 0.0), run("b", "adaptive-3", 700.0, 0.0),
            run("c", "adaptive-0", 2000.0, 0.2), run("c", "adaptive-3", 1800.0, 6.0),
            run("c", "app-aware", 1.0, 1.0)]
    got = study.derived_scales(rows)
    assert got == {"latency_scale": 0.9, "stall_scale": 20.0, "tests": 3, "tests_with_stalls": 2}
