"""The schedule bound of an alltoall (schedule_bound.py): the fastest the global links and NICs allow if the
ranks go through MPICH's rounds together. Checked against cases worked by hand and the all-to-all peak."""
from __future__ import annotations

import pytest

from slingsim.config import load_config
from slingsim.experiments.alltoall_scaling import node_list
from slingsim.experiments.schedule_bound import alltoall_bound_tbytes_per_s, collective_bound, network_rates, round_time_s
from slingsim.study_overrides import study_overrides

SHANDY = "slingshot-shandy"


def rates():
    return network_rates(load_config(SHANDY))


def test_shandy_rates_from_its_topology():
    r = rates()
    assert r["groups"] == 8 and r["nodes"] == 1024
    assert r["pair_Bps"] == pytest.approx(8 * 25e9)  # 8 links of 200 Gb/s between two groups
    assert r["global_Bps"] == pytest.approx(448 * 25e9)
    assert r["group_out_Bps"] == pytest.approx(56 * 25e9)
    assert r["node_Bps"] == pytest.approx(25e9)  # two 100 Gb/s rails


def test_one_group_pair_needs_detours_over_two_links():
    """Bytes T from group 0 to group 1 only: the direct links carry c t, the rest crosses two global links,
    so T + (T - c t) = C t, t = 2 T / (C + c); the group's 56 links out are not what limits it."""
    r = rates()
    t = [[0.0] * 8 for _ in range(8)]
    t[0][1] = 1e9
    got = round_time_s(t, 0.0, 0.0, r)
    assert got["limit"] == "group's global links out"
    assert got["seconds"] == pytest.approx(1e9 / r["group_out_Bps"])
    # With every group sending to the next the links out are shared by no one: detours set it.
    for g in range(8):
        t[g][(g + 1) % 8] = 1e9
    got = round_time_s(t, 0.0, 0.0, r)
    assert got["limit"] == "global links (detours cross two)"
    assert got["seconds"] == pytest.approx(2 * 8e9 / (r["global_Bps"] + 8 * r["pair_Bps"]), rel=1e-9)


def test_node_order_caps_the_1024_node_alltoall_far_below_the_paper():
    """In node order 32 consecutive ranks share a group, so each of MPICH's rounds sends a group's bytes to one
    or two groups: no routing carries that at the peak. Shuffled over the groups the bound nears the peak."""
    cfg = load_config(SHANDY)
    nodes = node_list(1024)
    in_order = collective_bound(cfg, nodes, 32_768)
    assert in_order["algorithm"] == "Scattered" and in_order["rounds"] == 32
    assert in_order["moved_bytes"] == 1024 * 1023 * 32_768
    fraction = in_order["moved_bytes"] / in_order["seconds"] / 12.8e12
    assert 0.55 < fraction < 0.65, fraction
    assert in_order["limits"]["global links (detours cross two)"] >= 28
    spread = [(r % 8) * 128 + r // 8 for r in range(1024)]  # consecutive ranks in consecutive groups
    b = collective_bound(cfg, spread, 32_768)
    assert 0.98 < b["moved_bytes"] / b["seconds"] / 12.8e12 <= 1.0


def test_the_throttle_sets_the_rounds_and_lifts_node_orders_cap():
    """MPICH's throttle cuts the scattered alltoall into blocks of that many peers; with 0 every peer is in one
    block, whose bytes cross between every pair of groups alike, so node order is no longer capped."""
    nodes = node_list(1024)
    for throttle, rounds in ((128, 8), (0, 1)):
        cfg = load_config(SHANDY)
        cfg.setdefault("mpi", {})["alltoall_throttle"] = throttle
        b = collective_bound(cfg, nodes, 32_768)
        assert b["rounds"] == rounds and b["moved_bytes"] == 1024 * 1023 * 32_768
    assert b["moved_bytes"] / b["seconds"] / 12.8e12 == pytest.approx(1.0, rel=0.01)
    cfg["mpi"]["alltoall_throttle"] = -3
    with pytest.raises(ValueError, match="throttle"):
        collective_bound(cfg, nodes, 32_768)


def test_a_studys_overrides_reach_the_cached_bound():
    """The recipes' bound is cached; a study's --set in the same process must still change it."""
    nodes = tuple(node_list(1024))
    default = alltoall_bound_tbytes_per_s(SHANDY, nodes, 32_768)
    with study_overrides(["mpi.alltoall_throttle=0"]):
        unthrottled = alltoall_bound_tbytes_per_s(SHANDY, nodes, 32_768)
    with study_overrides(["links.bandwidth_bps=100e9"]):
        slower = alltoall_bound_tbytes_per_s(SHANDY, nodes, 32_768)
    assert default / 12.8 == pytest.approx(0.611, abs=0.01)
    assert unthrottled / 12.8 == pytest.approx(1.0, abs=0.01)
    assert slower < default
    assert alltoall_bound_tbytes_per_s(SHANDY, nodes, 32_768) == default


def test_few_nodes_are_bound_by_their_nics():
    b = collective_bound(load_config(SHANDY), node_list(256), 32_768)
    assert b["limits"] == {"node injection": 8}
    assert b["moved_bytes"] / b["seconds"] == pytest.approx(256 * 25e9)


def test_ranks_of_one_node_move_nothing_over_the_network():
    b = collective_bound(load_config(SHANDY), [0, 200], 4096, ppn=4)
    assert b["moved_bytes"] == 2 * 4 * 4 * 4096  # each rank sends to the 4 ranks of the other node


def test_refuses_what_it_cannot_bound():
    with pytest.raises(ValueError, match="dragonfly"):
        network_rates(load_config("aries-crystal"))
    with pytest.raises(ValueError, match="nodes must lie"):
        collective_bound(load_config(SHANDY), [0, 5000], 4096)
