"""[DeSensi19]'s application-aware routing on Aries: per message it finds the better of ADAPTIVE and
ADAPTIVE WITH HIGH BIAS, which differ by message size, from the NIC counters alone."""
from __future__ import annotations

from slingsim.experiments.app_aware_routing import key_figures, run_app_aware_routing, study_points
from slingsim.experiments.output import table_checks


def test_every_run_has_the_collectives_on_both_groups_quick_or_not():
    # Quick runs the whole study: with the ping-pongs alone it read app-aware as within 10% everywhere,
    # where the alltoall puts it 25% behind.
    points = study_points()
    assert {l["routing"] for l, _ in points} == {"adaptive-0", "adaptive-3", "app-aware"}
    assert len(points) == 3 * (6 + 3)
    assert {"allreduce 8 B", "alltoall 16 KiB", "halo3d 64 KiB"} <= {l["workload"] for l, _ in points}
    for labels, cfg in points:
        assert cfg["job"][0]["routing"] == labels["routing"]


def test_app_aware_follows_the_better_static_mode_on_ping_pong(tmp_path, monkeypatch):
    from slingsim.experiments import app_aware_routing as a

    monkeypatch.setattr(a, "COLLECTIVES", {})  # the ping-pongs only, to keep this test short
    table = run_app_aware_routing(tmp_path, quick=True, scheduler="sync")
    rows = table.to_pylist()
    assert table_checks(table)["app_aware_within_10_percent"]
    at = {(r["workload"], r["routing"]): r for r in rows}
    # The choice matters, both ways: high bias for small messages; for long ones adaptive inside
    # a chassis, whose one minimal path high bias crowds, and high bias across groups, where more
    # and shorter minimal paths join the nodes ([DeSensi19] Fig. 7).
    assert at[("ping-pong two groups 1 KiB", "adaptive-3")]["speedup"] > 1.1
    assert at[("ping-pong one group 1024 KiB", "adaptive-3")]["speedup"] < 0.95
    assert at[("ping-pong two groups 1024 KiB", "adaptive-3")]["speedup"] > 1.05
    for r in rows:
        if r["routing"] == "app-aware":
            assert r["over_best_static"] < 1.05, r
            assert 0.0 < r["high_bias_share"] < 1.0
    assert (tmp_path / "app_aware_routing.png").is_file()


def test_key_figures_compare_app_aware_with_the_better_static_mode():
    times = {"small": {"adaptive-0": 10.0, "adaptive-3": 8.0, "app-aware": 8.4},
             "large": {"adaptive-0": 10.0, "adaptive-3": 12.0, "app-aware": 11.5}}
    rows = [{"workload": w, "routing": r, "iteration_us": t} for w, by in times.items() for r, t in by.items()]
    checks = key_figures(rows)
    assert checks["tests"]["small"] == {"best_static": "adaptive-3", "app_aware_over_best": 1.05}
    assert checks["tests"]["large"] == {"best_static": "adaptive-0", "app_aware_over_best": 1.15}
    assert checks["app_aware_worst_ratio"] == 1.15 and not checks["app_aware_within_10_percent"]
    rows[-1]["iteration_us"] = 10.5
    assert key_figures(rows)["app_aware_within_10_percent"]


def test_pairs_and_spread_nodes_sit_in_their_groups(monkeypatch):
    from slingsim.experiments import app_aware_routing as a

    assert a.placement_holds()
    monkeypatch.setitem(a.PAIRS, "two groups", [0, 100])
    assert not a.placement_holds()


def _pingpong_one_group(counters, iterations=6):
    from slingsim.api import run_summary

    labels_cfg = [c for l, c in study_points()
                  if l["workload"] == "ping-pong one group 1024 KiB" and l["routing"] == "app-aware"]
    cfg = labels_cfg[0]
    cfg["job"][0]["iterations"] = iterations
    cfg["mpi"] = {**cfg.get("mpi", {}), "app_aware": {"counters": counters}}
    return run_summary(cfg)["jobs"]["app"]


def test_one_message_at_a_time_the_whole_nic_reads_as_the_message_did():
    # With the NIC's counters read before each decision ([DeSensi19] Algorithm 1) a sample is what the
    # NIC did since the rank's last read. In a ping-pong each decision comes after the rank's previous
    # message is done, so the NIC's read adds to that message's packets only the rendezvous control
    # messages sent since (high bias, undecided), and both readings decide alike: the 1 MiB messages
    # inside a chassis settle on adaptive, whose non-minimal paths carry what the one minimal row link
    # cannot.
    by = {c: _pingpong_one_group(c) for c in ("message", "nic")}
    assert by["nic"]["app_aware_messages"] == by["message"]["app_aware_messages"]
    assert abs(by["nic"]["iteration_ns"]["mean"] / by["message"]["iteration_ns"]["mean"] - 1) < 0.01
    decisions = by["nic"]["app_aware_decisions"]
    assert decisions["decisions"] == 12 and decisions["switches"] <= 4, decisions


def test_an_unknown_counter_reading_is_refused_by_name():
    import pytest

    from slingsim.config import ConfigError

    with pytest.raises(ConfigError, match=r"mpi\.app_aware\.counters.*`message` or `nic`"):
        _pingpong_one_group("nix", iterations=1)
