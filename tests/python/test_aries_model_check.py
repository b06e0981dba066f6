"""[DeSensi19] Sec. 2.4 on Piz Daint: the allocations have the shapes asked for, Eq. 2 is the paper's at
any size, and the correlation and error are computed as the paper states them."""
from __future__ import annotations

import json

import pytest

from slingsim.api import resolved_config
from slingsim.cli import main
from slingsim.config import load_config
from slingsim.experiments import allocation
from slingsim.experiments import aries_model_check as check
from slingsim.experiments import aries_pingpong_routing as fig7
from slingsim.experiments.placement import NodeLayout


def test_allocations_cycle_through_the_shapes_and_are_seeded():
    allocs = check.allocations(9)
    layout = NodeLayout(load_config(check.SYSTEM)["topology"])
    for i, a in enumerate(allocs):
        routers, groups = check.SHAPES[i % 3]
        assert allocation.shape(layout, a["nodes"]) == allocation.Shape(2, routers, groups)
        assert a["seed"] == check.SEED + i and len(a["groups"]) == groups
        assert (a["distance"] == "inter_nodes") == (routers == 1)
        assert (a["distance"] == "inter_groups") == (groups == 2)
    assert check.allocations(9) == allocs
    assert check.allocations(9, seed=1) != allocs
    # Spread over the machine: ten allocations land in more than a few groups.
    assert len({g for a in check.allocations(10) for g in a["groups"]}) >= 6


@pytest.mark.parametrize("nodes, routers, groups, says", [
    ((0, 1), 2, 1, "spans 1 router"),
    ((0, 4), 1, 1, "spans 2 router"),
    ((0, 400), 2, 1, "in 2 group"),
    ((0, 0), 1, 1, "two different nodes"),
    ((0, 9999), 2, 2, "two different nodes of the 7680"),
])
def test_a_misshapen_allocation_is_refused(nodes, routers, groups, says):
    with pytest.raises(ValueError, match=says):
        check.check_allocation(load_config(check.SYSTEM), nodes, routers, groups)


def test_too_few_allocations_are_refused():
    with pytest.raises(ValueError, match="allocations = 2; a correlation needs at least 3"):
        check.allocations(2)


def test_eq2_is_the_papers_at_any_size():
    cfg = resolved_config(load_config(check.SYSTEM))  # nic.flit_bytes is a default: resolved, as a run's config
    # At 4 MiB it is aries-pingpong-routing's Eq. 2.
    ours, theirs = fig7.eq2_model(cfg, 3000.0, 0.4, fig7.MESSAGE_BYTES), fig7.eq2_model(cfg, 3000.0, 0.4)
    assert ours == pytest.approx(theirs)
    # 128 B by hand, one flit a ns: 2 packets of 5 flits; (2 + 512) / 1024 x 2 us + 10 x 1.5 ns.
    m = fig7.eq2_model({"nic": {"flit_bytes": 16, "bandwidth_bps": 128e9, "mtu_payload": 64}}, 2000.0, 0.5, 128)
    assert m["packets"] == 2 and m["flits"] == 10
    assert m["window_term_us"] == pytest.approx(514 / 1024 * 2.0)
    assert m["flit_term_us"] == pytest.approx(0.015)
    with pytest.raises(ValueError, match="message bytes = 0"):
        fig7.eq2_model(cfg, 1.0, 0.0, 0)


def test_pearson_on_synthetic_series():
    assert check.pearson([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert check.pearson([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert check.pearson([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert check.pearson([1, 2, 3], [5, 5, 5]) is None  # a constant series has no correlation
    assert check.pearson([1, 2], [1, 2]) is None  # too few allocations
    with pytest.raises(ValueError, match="give as many of each"):
        check.pearson([1, 2, 3], [1, 2])


def synthetic_rows():
    rows = []
    for i, (distance, t128, m128, t2k, m2k) in enumerate([
            ("inter_nodes", 2.0, 1.0, 4.0, 3.0), ("inter_blades", 3.0, 2.0, 6.0, 5.0),
            ("inter_chassis", 3.5, 2.2, 6.0, 4.0), ("inter_groups", 4.0, 2.6, 8.0, 6.0)]):
        rows.append({"allocation": i, "distance": distance, "bytes": 128, "time_us": t128, "model_us": m128,
                     "model_error": m128 / t128 - 1})
        rows.append({"allocation": i, "distance": distance, "bytes": 2048, "time_us": t2k, "model_us": m2k,
                     "model_error": m2k / t2k - 1})
    return rows


def test_key_figures_from_synthetic_runs():
    rows = synthetic_rows()
    allocs = [{"distance": r["distance"]} for r in rows if r["bytes"] == 128]
    k = check.key_figures(rows, allocs)
    r128 = check.pearson([1.0, 2.0, 2.2, 2.6], [2.0, 3.0, 3.5, 4.0])
    r2k = check.pearson([3.0, 5.0, 4.0, 6.0], [4.0, 6.0, 6.0, 8.0])
    assert k["correlation_per_size"] == {"128": round(r128, 4), "2048": round(r2k, 4)}
    assert k["mean_correlation"] == pytest.approx((round(r128, 4) + round(r2k, 4)) / 2, abs=1e-4)
    # Without the one-router pair: three allocations left.
    assert k["correlation_per_size_two_routers"]["128"] == round(check.pearson([2.0, 2.2, 2.6], [3.0, 3.5, 4.0]), 4)
    errors = [abs(r["model_error"]) for r in rows]
    assert k["mean_abs_error"] == pytest.approx(sum(errors) / len(errors), abs=1e-4)
    assert k["error_per_size"]["128"] < 0
    assert k["allocations"] == 4 and k["pairs_checked"] is True
    assert k["allocations_by_distance"] == {"inter_nodes": 1, "inter_blades": 1, "inter_chassis": 1, "inter_groups": 1}
    assert k["paper"]["mean_correlation"] == 0.79


def test_study_points_hold_the_pair_and_its_background():
    points = check.study_points(quick=True)
    assert len(points) == check.QUICK_ALLOCATIONS * len(check.QUICK_SIZES)
    layout = NodeLayout(load_config(check.SYSTEM)["topology"])
    for labels, cfg in points:
        ping, *bg = cfg["job"]
        assert ping["nodes"]["list"] == labels["nodes"]
        assert ping["program"]["ops"][0][2]["bytes"] == labels["bytes"]
        assert len(labels["pauses_ns"]) == check.round_trips_for(labels["bytes"])
        bg_nodes = [n for j in bg for n in j["nodes"]["list"]]
        assert bg_nodes and not set(bg_nodes) & set(labels["nodes"])
        assert {layout.group(n) for n in bg_nodes} == set(labels["groups"])
        assert len(bg_nodes) == labels["background_nodes"]
    assert max(labels["bytes"] for labels, _ in points) <= 1 << 20
    assert check.SIZES[0] == 128 and check.SIZES[-1] == 16 << 20


@pytest.mark.slow
def test_model_check_quick(tmp_path):
    table = check.run_aries_model_check(tmp_path, quick=True, scheduler="sync")
    rows = table.to_pylist()
    assert len(rows) == check.QUICK_ALLOCATIONS * len(check.QUICK_SIZES)
    from slingsim.experiments.output import table_checks
    k = table_checks(table)
    # The allocations' distances set the time apart, and Eq. 2 sees them through L.
    assert all(v is not None and v > 0.8 for v in k["correlation_per_size"].values()), k["correlation_per_size"]
    # Eq. 2 leaves out MPI and the host: below the time, more so for small messages.
    err = k["error_per_size"]
    assert err["128"] < err["1048576"] < 0 and abs(err["1048576"]) < 0.15
    # A one-router pair is faster than any pair of two routers at every size.
    for nbytes in check.QUICK_SIZES:
        mine = [r for r in rows if r["bytes"] == nbytes]
        one = max(r["time_us"] for r in mine if r["distance"] == "inter_nodes")
        assert one < min(r["time_us"] for r in mine if r["distance"] != "inter_nodes")
    assert (tmp_path / "aries_model_check.png").is_file()


@pytest.mark.slow
def test_json_keys(tmp_path, capsys):
    assert main(["experiment", "aries-model-check", "--quick", "--json", "--scheduler", "sync",
                 "--out", str(tmp_path / "out")]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["allocations"] == check.QUICK_ALLOCATIONS
    assert set(d["correlation_per_size"]) == {str(s) for s in check.QUICK_SIZES}
    assert 0 < d["mean_correlation"] <= 1 and d["mean_abs_error"] > 0
    assert d["pairs_checked"] is True and d["paper"]["mean_correlation"] == 0.79
