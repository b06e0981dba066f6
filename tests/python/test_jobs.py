"""MPI jobs from Python: placement ([DeSensi20] Fig. 7), collective algorithm
switch points seen in message counts, congestion impact, GPCNeT, and trace
replay through configs."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from slingsim import api
from slingsim.gpcnet import gpcnet_configs, run_gpcnet
from slingsim.config import ConfigError
from slingsim.jobs import congestion_impact, isolate

SMALL = {
    "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
    "routing": {"algorithm": "minimal"},
    "sim": {"max_time_ns": 5e7},
}
TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"


def small(*jobs, **sections):
    cfg = json.loads(json.dumps(SMALL))
    cfg.update(sections)
    cfg["job"] = list(jobs)
    return cfg


def node_sets(placement, seed=1):
    cfg = small(
        {"name": "victim", "workload": "barrier", "nodes": {"count": 6}, "placement": placement, "iterations": 1},
        {"name": "aggressor", "workload": "barrier", "iterations": 1},
    )
    s = api.run(cfg, seed=seed).summary
    return s["jobs"]["victim"]["node_ids"], s["jobs"]["aggressor"]["node_ids"]


def test_placements_give_the_node_sets_of_paper_000_fig_7():
    assert node_sets("linear") == ([0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11])
    assert node_sets("interleaved") == ([0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9, 11])
    victim, aggressor = node_sets("random")
    assert sorted(victim + aggressor) == list(range(12))
    assert node_sets("random") == (victim, aggressor)  # reproducible by seed
    assert node_sets("random", seed=2)[0] != victim


def messages_per_iteration(workload, nbytes, ranks=16):
    cfg = small({"name": "j", "workload": workload, "bytes": nbytes, "iterations": 2, "nodes": {"count": 8}, "ppn": ranks // 8})
    j = api.run(cfg).summary["jobs"]["j"]
    assert j["finished"]
    return j["messages"] / 2


def test_alltoall_switches_from_bruck_to_pairwise_above_256_bytes():
    # Bruck: log2(16) = 4 rounds of one message per rank; pairwise: 15.
    assert messages_per_iteration("alltoall", 256) == 16 * 4
    assert messages_per_iteration("alltoall", 257) == 16 * 15


def test_allreduce_switches_to_rabenseifner_for_long_messages():
    # Recursive doubling: 4 exchanges per rank; Rabenseifner: 4 + 4.
    assert messages_per_iteration("allreduce", 2048) == 16 * 4
    assert messages_per_iteration("allreduce", 4096) == 16 * 8


def test_congestion_impact_of_an_incast_on_a_collective():
    cfg = small(
        {"name": "victim", "workload": "allreduce", "bytes": 8, "iterations": 20, "nodes": {"count": 4},
         "placement": "interleaved", "start_ns": 20000},
        {"name": "aggressor", "workload": "incast", "bytes": 131072, "repeat": True, "iterations": 1},
    )
    alone = isolate(cfg, "victim")
    assert [j["name"] for j in alone["job"]] == ["victim"] and "traffic" not in alone
    out = congestion_impact(cfg, "victim", scheduler="sync")
    assert out["impact_mean"] > 1.0
    assert out["isolated_summary"]["end_reason"] == "jobs_done"
    same = congestion_impact(alone, "victim", scheduler="sync")
    assert same["impact_mean"] == 1.0 and same["impact_p99"] == 1.0


def test_gpcnet_without_congestors_has_impact_one_and_the_source_message_counts():
    report = run_gpcnet(SMALL, nodes=12, iterations=3, congestors=[], scheduler="sync")
    names = [t["name"] for t in report["tests"]]
    assert names == ["RR Two-sided Lat (8 B)", "RR Two-sided BW+Sync (131072 B)", "Multiple Allreduce (8 B)"]
    for t in report["tests"]:
        assert t["impact_mean"] == pytest.approx(1.0) and t["impact_p99"] == pytest.approx(1.0)
    victims = round(12 * 0.2)  # 2 ranks at ppn 1
    assert [t["warmup_iterations"] for t in report["tests"]] == [200, 1, 1]  # GPCNeT's untimed iterations
    lat, bw, ar = (t["messages_per_iteration"] for t in report["tests"])
    assert lat == 2 * victims  # one message to each ring neighbour
    assert bw == 2 * 8 * victims + victims  # 8 outstanding each way, plus a 2-rank dissemination barrier
    assert ar == victims  # recursive doubling on 2 ranks: one exchange


def test_gpcnet_rings_are_redrawn_and_the_latency_is_per_send():
    medium = dict(SMALL, topology={"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4, "global_ports_per_switch": 2})
    one = run_gpcnet(medium, nodes=50, iterations=3, congestors=[], scheduler="sync", warmup_iterations=0)
    many = run_gpcnet(medium, nodes=50, iterations=3, congestors=[], scheduler="sync", warmup_iterations=2, rings=3)
    assert many["rings"] == 3 and [t["rings"] for t in many["tests"]] == [3, 3, 1]  # the allreduce has no ring
    # The same messages per iteration, untimed and timed alike, over 3 x (2 + 3) iterations, plus a
    # barrier before each ring but the first (dissemination on 10 ranks: 10 x 4 messages).
    loops = 3 * (2 + 3)
    for a, b in list(zip(one["tests"], many["tests"]))[:2]:
        assert b["messages_per_iteration"] * loops == pytest.approx(a["messages_per_iteration"] * loops + 2 * 40)
    assert many["tests"][2]["messages_per_iteration"] == pytest.approx(one["tests"][2]["messages_per_iteration"])
    # The latency test's figure is an iteration's time over its two sends, as GPCNeT reports it.
    cfg = gpcnet_configs(medium, nodes=50, iterations=3, congestors=[], warmup_iterations=0)[0]["isolated"]
    timed = api.run(cfg).summary["jobs"]["victim"]["timed_ns"]
    assert one["tests"][0]["isolated"]["mean"] == pytest.approx(timed["mean"] / 2e3)
    with pytest.raises(ConfigError, match="--rings 0"):
        gpcnet_configs(medium, nodes=50, rings=0)
    with pytest.raises(ConfigError, match="--warmup-iterations -1"):
        gpcnet_configs(medium, nodes=50, warmup_iterations=-1)
    # What the engine refuses is named by the option that set it, not traced as a default of the config.
    with pytest.raises(ConfigError, match="^gpcnet: --rings: must be between 1 and 100000") as err:
        run_gpcnet(medium, nodes=50, iterations=3, congestors=[], scheduler="sync", rings=1_000_000)
    assert err.value.field == "job[0].params.rings" and err.value.origin == "--rings"


def test_gpcnet_runs_gpcnets_iteration_counts_unless_told():
    medium = dict(SMALL, topology={"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4, "global_ports_per_switch": 2})
    tests = gpcnet_configs(medium, nodes=50, congestors=[])
    jobs = [t["isolated"]["job"][0] for t in tests]
    assert [j["iterations"] for j in jobs] == [200, 8, 200]  # NUM_LAT_ITERS, NUM_BW_ITERS, NUM_ALLREDUCE_ITERS
    assert [j["params"]["warmup_iterations"] for j in jobs] == [200, 1, 1]
    told = gpcnet_configs(medium, nodes=50, congestors=[], iterations=5, warmup_iterations=0)
    assert [t["isolated"]["job"][0]["iterations"] for t in told] == [5, 5, 5]


def test_gpcnet_congestors_slow_the_victims_without_congestion_control():
    medium = dict(SMALL, topology={"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4, "global_ports_per_switch": 2})
    report = run_gpcnet(medium, iterations=3, scheduler="sync")
    # On 80 nodes the congestors' one message per rank at a time queues little: every test's tail
    # grows, the latency test's most (its mean, after GPCNeT's 200 untimed iterations, does not move).
    assert all(t["impact_p99"] > 1.0 for t in report["tests"]), report["tests"]
    lat = report["tests"][0]
    assert lat["congested"]["p99"] > 1.02 * lat["isolated"]["p99"]


@pytest.mark.skipif(not TRACES.is_dir(), reason="sample traces not found beside the repository")
def test_dumpi_and_otf2_copies_replay_alike():
    def replay(trace):
        s = api.run(small({"name": "app", "workload": "trace", "trace": str(TRACES / trace)})).summary
        assert s["end_reason"] == "jobs_done", s["jobs"]
        return s["jobs"]["app"]

    dumpi, otf2 = replay("dumpi-stencil3d-np8"), replay("otf2-stencil3d-np8")
    assert dumpi["ranks"] == otf2["ranks"] == 8
    # Same point-to-point and collective operations; the OTF2 copy has no
    # communicator duplicates, so only user messages are compared.
    assert dumpi["message_latency_ns"]["count"] == otf2["message_latency_ns"]["count"] == 488


def test_trace_paths_are_relative_to_their_config(tmp_path):
    if not TRACES.is_dir():
        pytest.skip("sample traces not found")
    (tmp_path / "t").symlink_to(TRACES / "dumpi-stencil3d-np8")
    (tmp_path / "replay.toml").write_text(
        '[topology]\ngroups = 3\nswitches_per_group = 2\nendpoints_per_switch = 2\nglobal_ports_per_switch = 1\n'
        '[[job]]\nname = "app"\nworkload = "trace"\ntrace = "t"\n'
    )
    s = api.run(tmp_path / "replay.toml").summary
    assert s["jobs"]["app"]["finished"]


def test_results_have_the_iterations_table(tmp_path):
    r = api.run(small({"name": "j", "workload": "barrier", "iterations": 4}))
    assert r.iterations.num_rows == 4 and r.iterations.column_names == ["job", "iteration", "time_ns"]
    r.write(tmp_path)
    assert (tmp_path / "iterations.parquet").is_file()


def test_bad_jobs_name_the_field():
    with pytest.raises(ValueError, match=r"job\[0\].workload"):
        api.run(small({"workload": "nope"}))
    with pytest.raises(ValueError, match=r"job\[0\].ppn"):
        api.run(small({"workload": "barrier", "ppn": 0}))
    with pytest.raises(ValueError, match=r"job\[0\].params.target"):
        api.run(small({"workload": "incast", "params": {"target": 99}}))
    with pytest.raises(ValueError, match=r"mpi.algorithms.alltoall"):
        api.run(small({"workload": "alltoall"}, mpi={"algorithms": {"alltoall": "ring"}}))
    with pytest.raises(ValueError, match=r"job\[0\].program.ops\[0\]\[0\]"):
        program = {"ranks": 2, "comms": [[0, 1]], "ops": [[{"op": "send", "comm": 0, "peer": 5, "tag": 0, "bytes": 8}], []]}
        api.run(small({"workload": "program", "program": program, "nodes": {"count": 2}}))


def test_slingshot_protects_a_victim_job_that_back_pressure_alone_does_not():
    """[DeSensi20] Sec. III: a 128 B alltoall victim beside a persistent 128 KiB incast on Malbec keeps
    within 1.5x of its isolated time with Slingshot congestion control; with back-pressure only
    (as on Aries) it slows by two orders of magnitude."""
    slingshot = congestion_impact("examples/victim-aggressor", "victim", scheduler="sync")
    none = congestion_impact("examples/victim-aggressor", "victim", ["congestion.algorithm=none"],
                             scheduler="sync")
    assert slingshot["impact_mean"] < 1.5
    assert none["impact_mean"] > 30.0


def test_the_job_table_shows_how_busy_mpi_kept_the_busiest_cpu():
    # An 8 B allreduce spends its run on MPI (nothing to compute); with 20 us of compute per
    # iteration the CPU's MPI share falls. A repeating job never finishes, so it has none.
    from slingsim.report import jobs_text

    def share(compute_ns):
        job = {"name": "ar", "workload": "allreduce", "bytes": 8, "iterations": 4}
        if compute_ns:
            job["compute_ns"] = compute_ns
        j = api.run_summary(small(job), cache=False)["jobs"]["ar"]
        assert 0 < j["mpi_cpu_ns"]["mean"] <= j["mpi_cpu_ns"]["max"] <= j["runtime_ns"]
        return j["mpi_cpu_fraction"], jobs_text({"ar": j})

    busy, text = share(0)
    idle, _ = share(20_000)
    assert idle < busy <= 1.0
    assert "busiest MPI CPU" in text and f"{100 * busy:.0f}%" in text.splitlines()[-1]
    repeating = api.run_summary(small({"name": "bg", "workload": "allreduce", "bytes": 8, "iterations": 1,
                                       "repeat": True}, sim={"max_time_ns": 2e5}), cache=False)["jobs"]["bg"]
    assert repeating["mpi_cpu_fraction"] is None
    assert jobs_text({"bg": repeating}).splitlines()[-1].split()[-2] == "-"
