"""[DeSensi19] Fig. 5 on Piz Daint: each size's pair crosses two groups on routers of its own, the
background sits in those groups, the noisy runs' ranks were held up by detours and the quiet run's were
not, and host noise spreads a ping-pong's time but not its messages' latency."""
from __future__ import annotations

import pytest

import slingsim
from slingsim.config import load_config
from slingsim.experiments import aries_time_vs_latency as fig5

SMALL = {"topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
         "routing": {"algorithm": "minimal"}, "sim": {"max_time_ns": 1e9, "warmup_ns": 0, "duration_ns": 1e9}}


def test_every_pair_crosses_two_groups_on_routers_of_its_own():
    cfg = load_config(fig5.SYSTEM)
    placed = fig5.check_pairs(cfg, {size: fig5.pair_of(k) for k, size in enumerate(fig5.SIZES)})
    routers = [r for p in placed.values() for r in p["routers"]]
    assert len(routers) == len(set(routers)) == 2 * len(fig5.SIZES)
    assert all(p["groups"] == [0, 1] for p in placed.values())
    with pytest.raises(ValueError, match="sits in one group"):
        fig5.check_pairs(cfg, {8: (0, 8)})
    with pytest.raises(ValueError, match="share router"):
        fig5.check_pairs(cfg, {8: fig5.pair_of(0), 16: (fig5.pair_of(0)[0] + 1, fig5.pair_of(1)[1])})


def test_the_run_config_holds_a_timed_pingpong_per_size_beside_the_background_and_the_noise():
    cfg, placed, background = fig5.run_config((8, 4096), fig5.NOISE["heavy"], 10, 0.1)
    jobs = {j["name"]: j for j in cfg["job"]}
    assert {"pp8", "pp4096"} <= set(jobs)
    ops = jobs["pp8"]["program"]["ops"][0]
    assert [o["op"] for o in ops[:5]] == ["compute", "iteration_end", "send", "recv", "iteration_end"]
    assert cfg["host"]["noise"] == fig5.NOISE["heavy"]
    assert background["jobs"] > 0 and set(background["nodes_per_group"]) == {"0", "1"}
    quiet, _, _ = fig5.run_config((8,), None, 10, 0.1)
    assert "noise" not in quiet.get("host", {})
    assert cfg["sim"]["warmup_ns"] == 0 and cfg["sim"]["duration_ns"] == cfg["sim"]["max_time_ns"], "every packet measured"


def test_detours_spread_the_time_and_leave_the_latency():
    def run(noise):
        cfg = dict(SMALL, job=[{"name": "pp8", "workload": "program", "nodes": {"list": [0, 11]},
                                "program": fig5.timed_pingpong(8, [20_000] * 200)}],
                   traffic=[{"name": "noise", "pattern": "uniform", "load": 0.3, "process": "poisson",
                             "message_bytes": 256, "nodes": {"list": list(range(1, 11))}}])
        if noise:
            cfg["host"] = {"noise": noise}
        return slingsim.run(cfg).summary
    quiet, noisy = run(None), run(fig5.NOISE["heavy"])
    assert fig5.check_noise("none", quiet, (8,)) == 0.0
    assert fig5.check_noise("heavy", noisy, (8,)) > 0.0
    with pytest.raises(RuntimeError, match="never held up"):
        fig5.check_noise("heavy", quiet, (8,))
    with pytest.raises(RuntimeError, match="without host noise"):
        fig5.check_noise("none", noisy, (8,))
    q, n = fig5.row_of("none", 8, quiet, 200), fig5.row_of("heavy", 8, noisy, 200)
    assert n["time_qcd"] > q["time_qcd"] and n["time_over_latency_qcd"] > q["time_over_latency_qcd"]
    assert n["time_qcd"] > n["latency_qcd"], "with detours on 10% of the CPU the time spreads more"
    assert n["latency_median_ns"] < n["time_median_us"] * 1e3 / 2, "a packet's latency is under half a round trip"
    assert n["detoured_ns_per_rank"] > 0 and q["detoured_ns_per_rank"] == 0
    with pytest.raises(RuntimeError, match="completed 200 of its 201 round trips"):
        fig5.row_of("none", 8, quiet, 201)


def test_key_figures_read_the_papers_ordering_per_noise_level():
    rows = [{"noise": "heavy", "bytes": b, "time_qcd": t, "latency_qcd": m, "time_over_latency_qcd": t / m}
            for b, t, m in ((8, 0.14, 0.02), (4096, 0.13, 0.01), (65536, 0.05, 0.01))]
    rows += [{"noise": "none", "bytes": 8, "time_qcd": 0.01, "latency_qcd": 0.02, "time_over_latency_qcd": 0.5}]
    k = fig5.key_figures(rows, {}, {}, {"none": 0.0, "heavy": 10.0})
    assert k["heavy_time_qcd_above_latency_qcd"] is True
    assert k["heavy_gap_larger_for_small_than_large"] is True, "7x at 8 B above 5x at 64 KiB (13x at 4 KiB between)"
    assert k["none_time_qcd_above_latency_qcd"] is False
    assert k["heavy"]["8"]["time_qcd"] == 0.14 and k["noise_checked"] is True
