"""[DeSensi20] Fig. 9 in small: Slingshot keeps a victim at its isolated time where Aries'
back-pressure lets an incast slow it by tens of times."""
from __future__ import annotations

import pytest

from slingsim.experiments.placement import NodeLayout
from slingsim.experiments.congestion_heatmap import (
    aries_incast_max_by_share,
    identical_points,
    impact_grows_with_aggressor_share,
    impact_of,
    impact_row,
    key_figures,
    planned_nodes,
    plot,
    point_shares,
    require_meeting,
    small_message_victims_hurt_most,
    study_points,
    victim_shares,
)
from slingsim.sweep import run_summaries


def test_points_pair_each_victim_with_each_aggressor_on_both_systems():
    points = study_points(quick=True)
    assert {labels["system"] for labels, _, _ in points} == {"Slingshot", "Aries"}
    for labels, iso, con in points:
        assert [j["name"] for j in iso["job"]] == ["victim"]
        assert [j["name"] for j in con["job"]] == ["victim", "aggressor"]
        assert con["job"][0] == iso["job"][0]


def test_slingshot_is_less_affected_than_aries(tmp_path):
    chosen = [p for p in study_points(quick=True)
              if p[0]["victim"] in ("pingpong 8B", "halo3d") and p[0]["aggressor"] == "incast"]
    summaries = run_summaries([c for _, iso, con in chosen for c in (iso, con)], scheduler="sync")
    rows = []
    for i, (labels, _, _) in enumerate(chosen):
        rows.append({**labels, **impact_row(summaries[2 * i], summaries[2 * i + 1])})
    impact = {(r["system"], r["victim"]): r["impact"] for r in rows}
    # Every victim meets the incast: on 96 nodes Slingshot's sat on one switch and its congested
    # times equalled its isolated ones to the last bit.
    assert identical_points(rows) == 0
    # One quick point moves a lot with timing: pingpong 8 B under incast on Aries went 8.8x
    # (before main's host stack and 350 ns hops), 39.8x (after), 8.6x (tiled switch), 2.8x (NIC
    # blocks of 1024 packets, 17,280 B tile buffers). So both victims are asked: neither slows on
    # Slingshot, both slow more on Aries, and one of them by more than 5x.
    for victim in ("pingpong 8B", "halo3d"):
        assert impact[("Slingshot", victim)] < 1.2
        assert impact[("Aries", victim)] > 2.0 * impact[("Slingshot", victim)]
    assert max(impact[("Aries", v)] for v in ("pingpong 8B", "halo3d")) > 5.0
    assert plot(rows, tmp_path / "heatmap.png").is_file()


def row(system, victim, aggressor, impact, censored=False, isolated=1000.0):
    return {"system": system, "victim": victim, "aggressor": aggressor, "victim_share": 0.1, "impact": impact,
            "censored": censored, "isolated_ns": isolated, "congested_ns": isolated * impact}


def test_key_figures_take_maxima_per_system_and_flag_lower_bounds():
    rows = [row("Slingshot", "pingpong 8B", "incast", 1.0), row("Slingshot", "halo3d", "all-to-all", 1.2),
            row("Aries", "pingpong 8B", "incast", 80.0, censored=True), row("Aries", "halo3d", "incast", 40.0),
            row("Aries", "pingpong 8B", "all-to-all", 1.1), row("Aries", "halo3d", "all-to-all", 0.9)]
    checks = key_figures(rows)
    assert checks["slingshot_max_impact"] == 1.2 and not checks["slingshot_max_impact_censored"]
    assert checks["aries_max_impact"] == 80.0 and checks["aries_max_impact_censored"]
    assert checks["aries_incast_max_impact"] == 80.0 and checks["aries_incast_max_impact_censored"]
    assert checks["aries_alltoall_max_impact"] == 1.1 and not checks["aries_alltoall_max_impact_censored"]
    assert checks["incast_hurts_more_than_alltoall"] is True
    assert checks["small_message_victims_hurt_most"] is True  # pingpong 8 B (80x) above halo3d (40x)
    assert checks["identical_points"] == 1  # Slingshot's pingpong: congested time equal to isolated
    assert checks["paper"]["aries_max_impact"] == 93
    rows[2]["impact"] = 20.0
    # A censored 20x is a lower bound: it may lie above halo3d's 40x, so the rows cannot decide.
    assert small_message_victims_hurt_most(rows) is None
    rows[2]["censored"] = False
    assert small_message_victims_hurt_most(rows) is False
    assert small_message_victims_hurt_most([r for r in rows if r["victim"] == "halo3d"]) is None


def test_small_message_lead_needs_the_others_known():
    """A censored impact on a larger-message victim may exceed the small-message lead: no verdict."""
    rows = [row("Aries", "pingpong 8B", "incast", 80.0), row("Aries", "halo3d", "incast", 40.0, censored=True)]
    assert small_message_victims_hurt_most(rows) is None
    rows[1]["censored"] = False
    assert small_message_victims_hurt_most(rows) is True
    # Where the small-message victim leads by a censored lower bound, the lead only grows.
    rows[0]["censored"] = True
    assert small_message_victims_hurt_most(rows) is True


def split_rows(maxima, censored=()):
    """Aries incast rows at the full study's three splits, each split's largest impact as given (its
    other victim at 1.0x), the aggressor's share rising; ``censored``: splits whose maximum is a bound."""
    rows = []
    for i, (share, top) in enumerate(zip((460 / 512, 256 / 512, 53 / 512), maxima)):
        for victim, impact in (("halo3d", top), ("pingpong 8B", 1.0)):
            r = row("Aries", victim, "incast", impact, censored=(i in censored and victim == "halo3d"))
            r["victim_share"] = share
            rows.append(r)
    rows.append(row("Aries", "halo3d", "all-to-all", 500.0))  # another aggressor: not counted
    return rows


def test_impact_growth_with_the_aggressor_share():
    """[DeSensi20] Sec. III-A: the impact grows with the aggressor's share. The full study's figures with the
    preset's NIC blocks (21.9x, 1.3x, 381x) do not grow; with the sliding window (34x, 38x, 620x) they do."""
    blocks = aries_incast_max_by_share(split_rows((21.9, 1.3, 381.0)))
    assert [b["victim_share"] for b in blocks] == [round(460 / 512, 4), 0.5, round(53 / 512, 4)]
    assert [b["max_impact"] for b in blocks] == [21.9, 1.3, 381.0]
    assert impact_grows_with_aggressor_share(blocks) is False
    window = aries_incast_max_by_share(split_rows((34.2, 38.0, 620.0)))
    assert impact_grows_with_aggressor_share(window) is True
    assert key_figures(split_rows((34.2, 38.0, 620.0)))["impact_grows_with_aggressor_share"] is True
    # One split (--quick) decides nothing.
    assert impact_grows_with_aggressor_share(window[:1]) is None
    # A censored smaller-share maximum is a lower bound: the step above it is open.
    assert impact_grows_with_aggressor_share(aries_incast_max_by_share(split_rows((34.2, 38.0, 620.0), {0}))) is None
    # A censored larger-share maximum already above the smaller one only grows.
    assert impact_grows_with_aggressor_share(aries_incast_max_by_share(split_rows((34.2, 38.0, 620.0), {2}))) is True
    # ... but one below it may still lie above: open, unless another step already failed.
    assert impact_grows_with_aggressor_share(aries_incast_max_by_share(split_rows((34.2, 30.0, 620.0), {1}))) is None
    assert impact_grows_with_aggressor_share(aries_incast_max_by_share(split_rows((34.2, 38.0, 20.0), {0}))) is False


MALBEC = {"kind": "dragonfly", "groups": 4, "switches_per_group": 8, "endpoints_per_switch": 16, "nodes": 484}


def test_node_layout_numbers_switches_and_groups_as_the_engine():
    malbec = NodeLayout(MALBEC)
    assert malbec.switches(15) == {0} and malbec.switches(16) == {1} and malbec.group(128) == 1
    shandy = NodeLayout({**MALBEC, "groups": 8, "switches_per_group": 16, "rails": 2, "nodes": 1024})
    assert shandy.switches(0) == {0, 1} and shandy.switches(8) == {1, 2} and shandy.switches(120) == {15, 0}
    assert shandy.group(128) == 1 and shandy.switches(128) == {16, 17}
    crystal = NodeLayout({"kind": "aries", "groups": 2, "rows": 6, "columns": 16, "endpoints_per_switch": 4})
    assert crystal.switches(18) == {4} and crystal.group(383) == 0 and crystal.group(384) == 1


def test_planned_nodes_are_the_nodes_the_engine_places_jobs_on():
    from slingsim.config import load_config
    from slingsim.api import Simulation

    cfg = load_config("slingshot-malbec")
    cfg["traffic"] = []
    job = {"workload": "barrier", "bytes": 0, "iterations": 1}
    cfg["job"] = [{**job, "name": "a", "nodes": {"list": [40, 3]}},
                  {**job, "name": "b", "nodes": {"count": 4}, "placement": "interleaved"},
                  {**job, "name": "c", "nodes": {"fraction": 0.01}},
                  {**job, "name": "d", "nodes": {"count": 6}}]
    planned = planned_nodes(cfg)
    placed = Simulation(cfg).run().summary["jobs"]
    assert planned == {name: placed[name]["node_ids"] for name in "abcd"}
    assert planned["a"] == [40, 3]  # a list keeps its order: its first node holds rank 0


def test_a_victim_on_one_switch_is_refused(monkeypatch):
    # The old quick set-up: 96 nodes, the 10% victim (10 nodes) all on Malbec's switch 0 beside the
    # incast's target (node 10); its isolated and congested times came out bit-identical. Aries' routers
    # hold 4 nodes, so there the same victim spans three of them.
    shares = victim_shares(NodeLayout(MALBEC), list(range(10)), list(range(10, 96)), target=10)
    assert shares["victim_switches"] == 1 and shares["victim_on_target_switch"] and not shares["meets"]
    with pytest.raises(RuntimeError, match="cannot meet the aggressor"):
        require_meeting("congestion-heatmap", {}, shares)
    import slingsim.experiments.congestion_heatmap as heatmap

    monkeypatch.setattr(heatmap, "QUICK_SPLITS", (0.1,))
    refused = [labels["system"] for labels, _, con in heatmap.study_points(quick=True)
               if not point_shares(con, planned_nodes(con))["meets"]]
    assert set(refused) == {"Slingshot"} and len(refused) == 6


def test_quick_victims_meet_the_aggressor():
    for labels, _, con in study_points(quick=True):
        shares = point_shares(con, planned_nodes(con))
        assert shares["meets"], labels
        assert shares["victim_switches"] >= 2 and shares["shared_switches"] >= 1
        if labels["aggressor"] == "incast":
            assert shares["victim_on_target_switch"], labels
    # Two groups of 64 split 50/50 in group order: victim and aggressor share no switch and no group.
    shares = victim_shares(NodeLayout(MALBEC), list(range(64)), list(range(128, 192)), target=128)
    assert shares["victim_switches"] == 4 and not shares["meets"]


def test_heatmap_quick_runs_the_three_splits_and_each_victim_meets_the_aggressor(monkeypatch, tmp_path):
    """Quick mode keeps what Fig. 9's share row is about: three splits (86/10, 48/48, 19/77 of 96 nodes), so
    growth with the aggressor's share is read, not left open; every victim meets its aggressor."""
    import slingsim.experiments.congestion_heatmap as heatmap

    ran = {}

    def fake_run_points(points, *args, **kwargs):
        ran["points"] = points
        raise RuntimeError("stop before simulating")

    monkeypatch.setattr(heatmap, "run_points", fake_run_points)
    with pytest.raises(RuntimeError, match="stop before simulating"):
        heatmap.run_congestion_heatmap(tmp_path, quick=True, progress=False, cache=False)
    points = ran["points"]
    counts = {labels["system"]: set() for labels, _, _ in points}
    for labels, _, con in points:
        counts[labels["system"]].add(con["job"][0]["nodes"]["count"])
        shares = point_shares(con, planned_nodes(con))
        assert shares["meets"], labels
    # The ping-pong runs on an even count of nodes, hence 18 beside 19.
    assert counts == {"Slingshot": {86, 48, 19, 18}, "Aries": {86, 48, 19, 18}}
    assert {round(labels["victim_share"], 2) for labels, _, _ in points} == {0.9, 0.5, 0.2}


def test_the_full_study_splits_512_nodes_of_shandy_and_crystal_as_the_paper():
    points = study_points(victims=("allreduce 8B", "pingpong 8B"))
    assert {labels["system"] for labels, _, _ in points} == {"Slingshot", "Aries"}
    splits = set()
    for labels, iso, con in points:
        assert labels["nodes"] == 512
        nodes = planned_nodes(con)
        victim, aggressor = len(nodes["victim"]), len(nodes["aggressor"])
        if labels["victim"] == "allreduce 8B":
            splits.add((labels["system"], victim, aggressor))
        else:  # a ping-pong pairs its ranks: an odd victim leaves one node out
            assert victim % 2 == 0 and victim + aggressor in (511, 512)
        shares = point_shares(con, nodes)
        assert shares["meets"], labels
        if labels["aggressor"] == "incast":
            assert shares["victim_in_target_group"], labels
    # [DeSensi20] Sec. III-A: 460/52, 256/256, 53/459, on both systems.
    assert splits == {(s, v, 512 - v) for s in ("Slingshot", "Aries") for v in (460, 256, 53)}
    assert NodeLayout(points[0][1]["topology"]).nodes == 1024, "Slingshot is Shandy"
    # The linear split in node order would give 256/256 on Shandy no shared switch or group.
    linear = victim_shares(NodeLayout(points[0][1]["topology"]), list(range(256)), list(range(256, 512)))
    assert not linear["meets"]


def test_incast_target_node_with_and_without_copies():
    from slingsim.experiments.congestion_heatmap import incast_target
    nodes = [10, 11, 12, 13]
    # One pattern over nodes x ppn ranks: rank 30 at ppn 24 is on the job's second node.
    assert incast_target({"workload": "incast", "ppn": 24, "params": {"target": 30}}, nodes) == 11
    # Copies per process: the target is a rank of one copy, which has one process per node.
    assert incast_target({"workload": "incast", "ppn": 24, "ppn_copies": True, "params": {"target": 2}}, nodes) == 12
    assert incast_target({"workload": "incast", "ppn": 24, "ppn_copies": True}, nodes) == 10
    assert incast_target({"workload": "alltoall", "ppn": 24}, nodes) is None


def summary(iterations_done, times_ns, finished, ran_ns, start_ns=1000.0):
    """The victim part of a run summary that ``impact_of`` reads."""
    mean = sum(times_ns) / len(times_ns) if times_ns else None
    return {"sim_time_ns": start_ns + ran_ns,
            "jobs": {"victim": {"iterations": iterations_done, "finished": finished, "start_ns": start_ns,
                                "iteration_ns": {"mean": mean} if mean else None}}}


def test_a_censored_impact_is_a_lower_bound_on_the_whole_mean():
    """Five iterations of 10 us alone. Congested, the first takes 3.5 ms and the run stops at 5 ms: the
    finished iteration's 350x is no bound (the other four may be fast), the 5 ms over five iterations is."""
    iso = summary(5, [10_000.0] * 5, True, 50_000.0)
    impact, censored = impact_of(iso, summary(1, [3.5e6], False, 5e6))
    assert censored and impact == pytest.approx(100.0)
    # However fast the rest is, the second iteration was still running at 5 ms: 1.5 ms at least, so the
    # whole mean is at least 1 ms, 100x.
    done = summary(5, [3.5e6, 1.5e6, 1.0, 1.0, 1.0], True, 5e6 + 3.0)
    assert impact_of(iso, done)[0] >= impact and not impact_of(iso, done)[1]
    # None finished: the time it ran over the five.
    assert impact_of(iso, summary(0, [], False, 5e6)) == (pytest.approx(100.0), True)
    # More iterations finished than the isolated count is impossible; at least one more than finished.
    assert impact_of(summary(1, [10_000.0], True, 10_000.0), summary(2, [1e6, 1e6], False, 3e6))[0] == pytest.approx(100.0)
