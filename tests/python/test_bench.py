"""Benchmark scenarios resolve to valid configs; unknown names are explained."""
import pytest

import slingsim
from slingsim.bench import SCENARIOS, scenario_config


def test_scenarios_are_the_documented_ones():
    assert list(SCENARIOS) == ["shandy-uniform-50", "shandy-uniform-50-tiled", "max-build", "malbec-adversarial-ugal",
                               "dragonfly-1056-64B", "fattree-permutation-128", "fattree-permutation-1024",
                               "incast-none", "incast-dcqcn", "incast-slingshot", "incast-slingshot-endpoint"] + [
        f"{p}-uniform-30" for p in ("dragonfly-3k", "megafly-3k", "slimfly-3k", "fitfly-3k", "fattree-3k", "aries-crystal")
    ] + ["gpcnet-shandy-latency", "impact-pair-shandy"]


def test_impact_pair_is_the_victim_alone_then_with_its_aggressor():
    alone, both = scenario_config("impact-pair-shandy")
    assert [j["name"] for j in alone["job"]] == ["victim"]
    assert [j["name"] for j in both["job"]] == ["victim", "aggressor"]


def test_every_family_scenario_builds_within_a_second():
    """Issue 3: each ~3,000-node family builds in under a second."""
    import slingsim

    for name in SCENARIOS:
        if name.endswith("-uniform-30"):
            cfg = scenario_config(name)
            assert slingsim.topology(cfg)["build_s"] < 1.0, name


def test_scenario_configs_say_what_they_measure():
    shandy = scenario_config("shandy-uniform-50")
    assert shandy["traffic"][0]["load"] == 0.5 and shandy["topology"]["rails"] == 2
    big = scenario_config("max-build")
    assert big["sim"]["warmup_ns"] == 0 and big["sim"]["duration_ns"] == 10000
    malbec = scenario_config("malbec-adversarial-ugal")
    assert malbec["routing"]["algorithm"] == "ugal"
    assert malbec["traffic"][0]["pattern"] == "group_adversarial"


def test_small_scenarios_build_in_the_engine():
    for name in ("shandy-uniform-50", "malbec-adversarial-ugal"):
        sim = slingsim.Simulation(scenario_config(name))
        assert sim.end_ns > 0


def test_unknown_scenario_lists_the_names():
    with pytest.raises(ValueError, match="shandy-uniform-50"):
        scenario_config("nope")


@pytest.mark.slow
def test_bench_worker_measures_one_scenario_in_a_subprocess():
    from slingsim.bench import measure_in_subprocess

    figures = measure_in_subprocess("malbec-adversarial-ugal")
    for key in ("name", "events_per_s", "packet_hops_per_s", "sim_ns_per_wall_s", "peak_rss_bytes", "wall_s"):
        assert key in figures
    assert figures["peak_rss_bytes"] > 10 * 2**20


def test_incast_scenarios_differ_only_in_congestion_control():
    configs = {cc: scenario_config(f"incast-{cc}") for cc in ("none", "dcqcn", "slingshot")}
    for cc, cfg in configs.items():
        assert cfg["congestion"]["algorithm"] == cc
        assert [t["name"] for t in cfg["traffic"]] == ["victim", "aggressor"]
    strip = [{k: v for k, v in cfg.items() if k != "congestion"} for cfg in configs.values()]
    assert strip[0] == strip[1] == strip[2]


def test_bench_reports_events_per_hop_and_bytes_per_packet():
    """Issue 10: the figures that explain a scenario's speed, for a run to completion."""
    from slingsim import _core
    from slingsim.bench import measure_in_subprocess

    figures = measure_in_subprocess("fattree-permutation-128")
    assert figures["end_reason"] == "flows_done"
    # Every hop is at least its arrival event; a NIC or switch attempt is the rest.
    assert 1.0 <= figures["events_per_hop"] < 3.0
    assert figures["bytes_per_packet"] == _core.packet_record_bytes() <= 128
    # The engine's run and the tables handed over after it are timed apart.
    assert figures["wall_s"] > 0 and figures["tables_s"] >= 0
    # Issue 10's memory target is per endpoint: the fat tree has 128.
    assert figures["endpoints"] == 128
    assert figures["peak_rss_bytes_per_endpoint"] == figures["peak_rss_bytes"] / 128


def test_the_base_scenario_keeps_the_per_output_switch_and_the_tiled_one_differs_only_there():
    base, tiled = scenario_config("shandy-uniform-50"), scenario_config("shandy-uniform-50-tiled")
    assert (base["switch"]["model"], base["switch"]["speedup"]) == ("per-output", 2)
    assert (tiled["switch"]["model"], tiled["switch"]["speedup"]) == ("tiled", 4)
    assert {k: v for k, v in tiled.items() if k != "switch"} == {k: v for k, v in base.items() if k != "switch"}
