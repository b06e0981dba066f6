"""The Python API: run, step-by-step Simulation, topology analytics."""
import pytest

import slingsim

from conftest import SHORT_WINDOW, SMALL


def test_run_summary_has_the_documented_keys(small_config):
    summary = slingsim.run(small_config).summary
    for key in ("sim_time_ns", "wall_s", "events", "packet_hops", "packets_delivered", "bytes_delivered",
                "offered_load", "accepted_load", "latency_ns", "hops_mean", "nonminimal_fraction",
                "end_reason", "bytes_conserved", "traffic", "links"):
        assert key in summary, key
    assert set(summary["latency_ns"]) >= {"mean", "p50", "p99", "p999"}
    assert summary["wall_s"] > 0
    assert summary["end_reason"] == "time_limit"


def test_simulation_steps_until_its_end(small_config):
    sim = slingsim.Simulation(small_config)
    # Window of 2 + 5 us, then at most 5 us (the duration) to drain measured packets.
    assert sim.end_ns == 12000
    assert sim.run_until(3000) is False
    assert sim.now_ns == pytest.approx(3000)
    assert not sim.finished
    assert sim.run_until(sim.end_ns) is True
    assert sim.finished
    result = sim.result()
    assert 7000 <= result.summary["sim_time_ns"] < 12000, "a light load drains before the drain limit"
    assert result.summary["measured_ns"] == pytest.approx(5000)
    assert result.summary["end_reason"] == "time_limit"


def test_run_applies_overrides_without_and_seed():
    result = slingsim.run("examples/incast-mix", overrides=SHORT_WINDOW + ["traffic.victim.load=0.1"],
                          without=["aggressor"], seed=11)
    assert result.config["sim"]["seed"] == 11
    assert list(result.summary["traffic"]) == ["victim"]
    assert result.summary["traffic"]["victim"]["offered_load"] == pytest.approx(0.1, rel=0.3)


def test_topology_of_the_small_dragonfly():
    topo = slingsim.topology(SMALL)
    assert topo["endpoints"] == 144
    assert topo["switches"] == 36
    assert topo["links"]["global"] == 36  # one per pair of the 9 groups
    assert topo["diameter"] == 3


def test_engine_version_is_reported():
    assert slingsim.engine_version()


def test_stepping_with_a_progress_bar_gives_the_same_run(monkeypatch, small_config):
    """The progress bar advances the engine in slices; the physics must not notice."""
    monkeypatch.setenv("SLINGSIM_PROGRESS", "1")
    stepped = slingsim.run(small_config, progress=True, cache=False).summary
    whole = slingsim.run(small_config, progress=False, cache=False).summary
    timing = ("wall_s", "cpu_s", "build_s", "engine_wall_s", "provenance")
    assert {k: v for k, v in stepped.items() if k not in timing} == {k: v for k, v in whole.items() if k not in timing}
