"""[DeSensi19] Fig. 7 on Aries (Crystal): a 4 MiB ping-pong inside one group is faster with ADAPTIVE,
across groups with ADAPTIVE WITH HIGH BIAS, each for the paper's reason (stalls s inside the group,
latency L across), and Eq. 2 estimates each time from the NIC counters within 20%."""
from __future__ import annotations

import json

import pytest

from slingsim.cli import main
from slingsim.config import load_config
from slingsim.experiments import aries_pingpong_routing as fig7


def test_pairs_are_placed_from_the_topology():
    cfg = load_config(fig7.SYSTEM)
    placed = fig7.check_pairs(cfg)
    assert placed["intra_group"]["groups"] == [0, 0] and placed["intra_group"]["same_chassis"]
    assert placed["inter_group"]["groups"] == [0, 1]
    assert placed["intra_group_two_paths"]["groups"] == [0, 0] and not placed["intra_group_two_paths"]["same_chassis"]
    # Router 25 of a 6 x 16 group: second chassis (row 1), blade 9.
    assert fig7.router_place(cfg, 100) == {"router": 25, "group": 0, "row": 1, "column": 9}


@pytest.mark.parametrize("pairs, says", [
    ({"intra_group": (0, 500)}, "one group"),
    ({"intra_group": (0, 1)}, "two routers"),
    ({"inter_group": (0, 100)}, "span two groups"),
    ({"inter_group": (0, 10_000)}, "not one of the 698 nodes"),
])
def test_misplaced_pairs_are_refused(pairs, says):
    with pytest.raises(ValueError, match=says):
        fig7.check_pairs(load_config(fig7.SYSTEM), pairs)


def test_eq2_by_hand():
    cfg = {"nic": {"flit_bytes": 16, "bandwidth_bps": 128e9, "mtu_payload": 64}}  # one flit per ns
    m = fig7.eq2_model(cfg, latency_ns=2000.0, stall_ratio=0.5)
    assert m["packets"] == 65_536 and m["flits"] == 5 * 65_536
    # (p + 512) / 1024 x L = 64.5 x 2 us, f x (s + 1) = 327,680 x 1.5 ns.
    assert m["window_term_us"] == pytest.approx(129.0)
    assert m["flit_term_us"] == pytest.approx(491.52)
    assert m["model_us"] == pytest.approx(620.52)


def test_fig7_directions_reasons_and_model(tmp_path):
    rows = fig7.run_aries_pingpong_routing(tmp_path, quick=True, scheduler="sync").to_pylist()
    at = {(r["case"], r["mode"]): r for r in rows}
    intra_ad, intra_hb = at[("intra_group", "adaptive")], at[("intra_group", "high_bias")]
    inter_ad, inter_hb = at[("inter_group", "adaptive")], at[("inter_group", "high_bias")]
    # Inside one chassis high bias keeps to the one minimal path, a 42 Gb/s row link against an
    # 81.6 Gb/s NIC: its flits stall at the NIC, at a latency close to adaptive's.
    assert intra_ad["time_us"] < 0.8 * intra_hb["time_us"]
    assert intra_hb["stall_ratio_s"] > 0.2 and intra_ad["stall_ratio_s"] < 0.01
    assert abs(intra_hb["latency_L_ns"] / intra_ad["latency_L_ns"] - 1) < 0.25
    # Across groups neither stalls; high bias wins by its shorter paths' lower latency.
    assert inter_hb["time_us"] < 0.95 * inter_ad["time_us"]
    assert inter_hb["latency_L_ns"] < 0.85 * inter_ad["latency_L_ns"]
    assert max(inter_hb["stall_ratio_s"], inter_ad["stall_ratio_s"]) < 0.01
    for case in ("intra_group", "inter_group"):
        for mode in ("adaptive", "high_bias"):
            assert abs(at[(case, mode)]["model_error"]) <= 0.20, at[(case, mode)]
    assert (tmp_path / "aries_pingpong_routing.png").is_file()
    assert (tmp_path / "aries_pingpong_routing.parquet").is_file()


def test_json_keys(tmp_path, capsys):
    assert main(["experiment", "aries-pingpong-routing", "--quick", "--json", "--scheduler", "sync",
                 "--out", str(tmp_path / "out")]) == 0
    d = json.loads(capsys.readouterr().out)
    for case in ("intra_group", "inter_group"):
        for mode in ("adaptive", "high_bias"):
            assert set(d[case][mode]) >= {"time_us", "latency_L_ns", "stall_ratio_s", "model_us", "model_error"}
    assert d["inter_high_bias_faster"] is True
    assert d["intra_adaptive_faster"] is True
    assert d["model_within_20pct"] is True
    assert d["pairs_checked"] is True
