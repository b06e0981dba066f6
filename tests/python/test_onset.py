"""The victim-start rule beside an incast (experiments/onset.py) and the recipes that use it."""
import pytest

from slingsim.config import load_config
from slingsim.experiments import bursty_incast, congestion_heatmap, shandy_applications, tailbench
from slingsim.experiments.onset import MIN_START_NS, incast_drained_ns, victim_start_ns


def test_drain_time_is_one_message_per_sender_at_the_nic_rate():
    # 458 senders x 128 KiB through a 100 Gb/s NIC: 4.80 ms
    assert incast_drained_ns(458, 131_072, 100e9) == pytest.approx(4.8026e6, rel=1e-4)
    assert incast_drained_ns(0, 131_072, 100e9) == 0
    # two rails: one message per sender on each, one rail at a time
    assert incast_drained_ns(458, 131_072, 100e9, rails=2) == pytest.approx(9.6052e6, rel=1e-4)
    with pytest.raises(ValueError, match="nic.bandwidth_bps"):
        incast_drained_ns(10, 8, 0.0)
    with pytest.raises(ValueError, match="topology.rails"):
        incast_drained_ns(10, 8, 100e9, rails=0)


def test_start_is_at_least_a_millisecond_and_a_whole_microsecond():
    shandy = load_config("slingshot-shandy")  # two rails per node
    assert victim_start_ns(shandy, 10, 131_072) == MIN_START_NS
    assert victim_start_ns(shandy, 458, 131_072) == 9_605_000.0
    malbec = load_config("slingshot-malbec")  # one rail
    assert victim_start_ns(malbec, 458, 131_072) == 4_803_000.0
    # a slower NIC drains later
    assert victim_start_ns(load_config("aries-crystal"), 458, 131_072) > 4_803_000.0


def test_full_heatmap_victims_start_after_the_incast_onset_and_run_to_the_cap():
    for labels, iso, con in congestion_heatmap.study_points(False):
        start = con["job"][0]["start_ns"]
        assert iso["job"][0]["start_ns"] == start
        # 100 ms: the 53/459 Aries incast slows victims to 5-15 ms per iteration (a 5 ms cap censored 14 of 36).
        assert con["sim"]["max_time_ns"] == iso["sim"]["max_time_ns"] == start + 100e6
        aggressor = next(j for j in con["job"] if j["name"] == "aggressor")
        senders = len(aggressor["nodes"]["list"]) - 1
        if labels["aggressor"] == "incast":
            assert start >= incast_drained_ns(senders, congestion_heatmap.AGGRESSOR_BYTES,
                                               con["nic"]["bandwidth_bps"], con["topology"].get("rails") or 1)
        else:
            assert start == MIN_START_NS
    starts = {(l["system"], l["aggressor"], l["victim_share"]): c["job"][0]["start_ns"]
              for l, _, c in congestion_heatmap.study_points(False)}
    assert starts[("Slingshot", "incast", 53 / 512)] == 9_605_000.0  # 458 senders, two rails
    assert starts[("Aries", "incast", 460 / 512)] == MIN_START_NS  # 51 senders drain in 0.66 ms


def test_other_incast_recipes_use_the_rule():
    full = {l["victim_share"]: c["job"][0]["start_ns"] for l, _, c in shandy_applications.points(False)
            if l["aggressor"] == "incast"}
    assert full[0.25] == 16_086_000.0  # 767 senders, two rails
    for labels, cfg in tailbench.study_points(False):
        assert cfg["job"][0]["start_ns"] > 4e6  # 403 senders
    sizes = {l["aggressor_bytes"]: c["job"][0]["start_ns"] for l, _, c in bursty_incast.study_points(False)}
    assert sizes[8] == MIN_START_NS and sizes[131_072] == 2_528_000.0
