"""[DeSensi20] Fig. 10's cases: placements, busier aggressors and a 128-node pool of two groups,
each a full Fig. 9 study; the engine runs of those studies are exercised by test_congestion_heatmap."""
from __future__ import annotations

import json

from slingsim import _core, api
from slingsim.experiments.congestion_distribution import (AGGRESSOR_PPN, QUICK_PPN_ALLTOALL_POINTS, cases,
                                                          key_figures, small_pool, summarise)
from slingsim.experiments.congestion_heatmap import (QUICK_ALLTOALL_START_NS, QUICK_SYSTEMS, QUICK_VICTIMS,
                                                     START_NS, planned_nodes, point_shares, split_pool,
                                                     study_points)
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
                # The paper's 24 processes per node, each running its own copy of the pattern.
                assert aggressor["ppn"] == AGGRESSOR_PPN == 24 and aggressor["ppn_copies"] is True
            else:
                used = victim["nodes"]["list"] + aggressor["nodes"]["list"]
                assert len(set(used)) == len(used) >= 127  # a pingpong victim leaves an odd node idle


def test_quick_starts_early_only_beside_a_steady_all_to_all():
    for labels, points in cases(quick=True):
        victims = {(p[0]["victim"], p[0]["aggressor"]) for p in points if p[0]["system"] == "Aries"}
        for lab, iso, con in points:
            start = con["job"][0]["start_ns"]
            assert iso["job"][0]["start_ns"] == start
            if lab["aggressor"] == "incast":
                assert start >= START_NS
            elif labels["panel"].startswith("B"):
                assert start == START_NS  # 24 copies in step: not steady before 1 ms
            else:
                assert start == QUICK_ALLTOALL_START_NS
        if labels["panel"].startswith("B"):
            assert victims == {(v, "incast") for v in QUICK_VICTIMS} | {
                (v, "all-to-all") for placement, v in QUICK_PPN_ALLTOALL_POINTS if placement == labels["case"]}
        else:
            assert victims == {(v, a) for v in QUICK_VICTIMS for a in ("incast", "all-to-all")}
    for labels, points in cases(quick=False)[:4]:
        assert all(con["job"][0]["start_ns"] >= START_NS for _, _, con in points)
        assert len(points) == 2 * 2 * 3 * 12  # full mode keeps every victim beside both aggressors


def delivered_rates(cfg, windows_ns):
    """Bytes per ns the network delivers in each window (a list of end times)."""
    sim = _core.Simulation(json.dumps(api.resolved_config(cfg)))
    rates, last_t, last_b = [], 0.0, 0
    for t in windows_ns:
        sim.run_until(t)
        got = json.loads(sim.summary_json())["bytes_delivered"]
        rates.append((got - last_b) / (t - last_t))
        last_t, last_b = t, got
    return rates


def test_quick_alltoall_aggressor_is_steady_when_the_victim_starts():
    # The quick victims start at 0.2 ms beside a one-process all-to-all: by then the aggressor
    # delivers what it delivers later on, on 96 nodes (panel A) and on panel C's 128.
    # Crystal's 64 B packets make it the costly system.
    a_linear, c_linear = [ps for labels, ps in cases(quick=True)
                          if labels["case"] == "linear" and labels["panel"][0] in "AC"]
    chosen = [(a_linear, system) for system in QUICK_SYSTEMS] + [(c_linear, "Aries")]
    for points, system in chosen:
        (_, _, con), = [p for p in points if p[0]["system"] == system and p[0]["aggressor"] == "all-to-all"
                        and p[0]["victim"] == "pingpong 8B"]
        con["job"] = con["job"][1:]  # the aggressor alone
        # Rates over the 0.1 ms before the victims start and the 0.2 ms after.
        start = QUICK_ALLTOALL_START_NS
        _, before, after = delivered_rates(con, [start - 100_000.0, start, start + 200_000.0])
        assert abs(before / after - 1) < 0.12, (system, len(points), before, after)


def test_other_systems_keep_the_one_millisecond_start_in_quick_mode():
    # shandy-applications --quick runs Shandy, where the all-to-all's steady state was not measured.
    points = study_points(True, systems={"Slingshot": "slingshot-shandy"}, nodes=256, splits=(0.25,),
                          victims=("pingpong 8B",))
    starts = {lab["aggressor"]: con["job"][0]["start_ns"] for lab, _, con in points}
    assert starts["all-to-all"] == START_NS


def test_summary_counts_lower_bounds():
    rows = [{"panel": "A", "case": "linear", "system": "Aries", "impact": v, "censored": c}
            for v, c in ((1.0, False), (3.0, False), (40.0, True))]
    (row,) = summarise(rows)
    assert (row["points"], row["median"], row["max"], row["censored"]) == (3, 3.0, 40.0, 1)


def test_small_pool_spreads_each_group_over_its_switches_and_alternates_groups():
    malbec = small_pool("slingshot-malbec")
    assert malbec[:16] == list(range(8)) + list(range(128, 136))
    assert sorted(malbec) == [s * 16 + k for s in list(range(8)) + list(range(8, 16)) for k in range(8)]
    assert sorted(small_pool("aries-crystal")) == group_pool("aries-crystal", 2, 64)  # routers of 4: unchanged


def test_panel_c_victims_meet_their_aggressor_where_group_order_did_not():
    def refused(pools):
        return {(labels["system"], labels["victim_share"])
                for labels, _, con in study_points(systems=QUICK_SYSTEMS, pools=pools, splits=(0.9, 0.5, 0.1), victims=("halo3d",))
                if not point_shares(con, planned_nodes(con))["meets"]}

    old = {system: group_pool(preset, 2, 64) for system, preset in QUICK_SYSTEMS.items()}
    # 10%: 13 nodes on one Malbec switch; 50%: the victim fills group 0, the aggressor group 1.
    assert refused(old) == {("Slingshot", 0.1), ("Slingshot", 0.5), ("Aries", 0.5)}
    assert refused({system: small_pool(preset) for system, preset in QUICK_SYSTEMS.items()}) == set()


def test_quick_cases_meet_where_the_configs_fix_the_nodes():
    known = 0
    for labels, points in cases(quick=True):
        for _, _, con in points:
            shares = point_shares(con, planned_nodes(con))
            if labels["case"] == "random":
                assert shares is None  # the engine draws the nodes: checked on the run's nodes
            else:
                known += 1
                assert shares["meets"], labels
    # A and C: 12 points each; B: 3 victims beside the incast and the quick few beside the all-to-all.
    assert known == 3 * 12 + 2 * 2 * 3 + 2 * sum(p != "random" for p, _ in QUICK_PPN_ALLTOALL_POINTS)


def test_key_figures_give_each_violins_maximum():
    rows = []
    for system, scale in (("Slingshot", 1.0), ("Aries", 10.0)):
        for panel, factor in (("A: placement", 1.0), (f"B: aggressor PPN {AGGRESSOR_PPN}", 2.0)):
            for case, base in (("linear", 1.0), ("interleaved", 2.0), ("random", 3.0)):
                rows += [{"panel": panel, "case": case, "system": system, "impact": v * base * factor * scale,
                          "censored": False, "isolated_ns": 1.0, "congested_ns": 2.0} for v in (1.0, 1.5)]
        rows.append({"panel": "C: 128 nodes", "case": "linear", "system": system, "impact": 4.0 * scale,
                     "censored": system == "Aries", "isolated_ns": 1.0, "congested_ns": 1.0})
    checks = key_figures(rows)
    assert checks["aries_max_impact"] == {"linear": 15.0, "interleaved": 30.0, "random": 45.0}
    assert checks["slingshot_max_impact_by_ppn"] == {"linear": 3.0, "interleaved": 6.0, "random": 9.0}
    assert checks["aries_max_impact_128_nodes"] == 40.0 and checks["aries_max_impact_128_nodes_censored"]
    assert checks["slingshot_max_impact_128_nodes"] == 4.0 and not checks["slingshot_max_impact_128_nodes_censored"]
    assert checks["aries_max_impact_censored"] == {"linear": False, "interleaved": False, "random": False}
    assert checks["identical_points"] == 2
