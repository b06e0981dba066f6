"""[DeSensi20] Fig. 10's cases: placements, busier aggressors and a 128-node pool of two groups,
each a full Fig. 9 study; the engine runs of those studies are exercised by test_congestion_heatmap."""
from __future__ import annotations

from slingsim.experiments.congestion_distribution import AGGRESSOR_PPN, cases, summarise
from slingsim.experiments.congestion_heatmap import split_pool
from slingsim.experiments.placement import group_pool


def test_pools_take_64_nodes_from_each_of_two_groups():
    assert group_pool("slingshot-malbec", 2, 64) == list(range(64)) + list(range(128, 192))
    assert group_pool("aries-crystal", 2, 64) == list(range(64)) + list(range(384, 448))


def test_split_pool_places_the_victim_as_fig_7_does():
    pool = list(range(100, 120))
    assert split_pool(pool, 5, "linear") == ([100, 101, 102, 103, 104], list(range(105, 120)))
    victim, rest = split_pool(pool, 5, "interleaved")
    assert victim == [100, 104, 108, 112, 116] and len(rest) == 15
    assert split_pool(pool, 5, "random") == split_pool(pool, 5, "random")
    assert split_pool(pool, 5, "random", seed=1) != split_pool(pool, 5, "random")


def test_cases_cover_the_three_panels():
    all_cases = cases(quick=True)
    panels = [labels["panel"] for labels, _ in all_cases]
    assert panels.count("A: placement") == 3 and panels.count(f"B: aggressor PPN {AGGRESSOR_PPN}") == 3
    for labels, points in all_cases:
        for _, iso, con in points:
            victim, aggressor = con["job"]
            assert victim == iso["job"][0]
            if labels["panel"].startswith("A"):
                assert victim["placement"] == labels["case"] and aggressor["ppn"] == 1
            elif labels["panel"].startswith("B"):
                assert aggressor["ppn"] == AGGRESSOR_PPN
            else:
                used = victim["nodes"]["list"] + aggressor["nodes"]["list"]
                assert len(set(used)) == len(used) >= 127  # a pingpong victim leaves an odd node idle


def test_summary_counts_lower_bounds():
    rows = [{"panel": "A", "case": "linear", "system": "Aries", "impact": v, "censored": c}
            for v, c in ((1.0, False), (3.0, False), (40.0, True))]
    (row,) = summarise(rows)
    assert (row["points"], row["median"], row["max"], row["censored"]) == (3, 3.0, 40.0, 1)
