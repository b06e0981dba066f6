"""The amg and multigrid workloads ([McGlohon19] Sec. 6.1.1-6.1.2): their calibration against the
traces' published runtime and communication fraction, and their DUMPI write read back."""
from __future__ import annotations

import json

import pytest

import slingsim
from slingsim import trace
from slingsim.config import ConfigError, load_config

CALIBRATION = {
    # workload: (ranks, nodes, runtime s, MPI fraction) of [McGlohon19] Sec. 6.1.1-6.1.2.
    "amg": (1728, 72, 2.2, 0.52),
    "multigrid": (1000, 40, 1.4, 0.037),
}


def calibration_run(workload: str) -> dict:
    """The traced layout on an idle network: 24 (AMG) or 25 (MG) ranks per host, 10 iterations."""
    ranks, nodes, _, _ = CALIBRATION[workload]
    cfg = load_config("slimfly-3k")
    cfg["traffic"] = []
    cfg["sim"] = {"warmup_ns": 0, "duration_ns": 1e10, "max_time_ns": 1e10}
    cfg["job"] = [{"name": "app", "workload": workload, "iterations": 10, "nodes": {"count": nodes},
                   "ppn": ranks // nodes, "placement": "linear"}]
    return slingsim.run(cfg).summary["jobs"]["app"]


@pytest.mark.slow
@pytest.mark.parametrize("workload", ["amg", "multigrid"])
def test_calibrated_to_the_traces_runtime_and_mpi_fraction(workload):
    _, _, runtime_s, fraction = CALIBRATION[workload]
    job = calibration_run(workload)
    assert job["finished"]
    assert job["runtime_ns"] / 1e9 == pytest.approx(runtime_s, rel=0.10)
    assert job["mpi_time_fraction"] == pytest.approx(fraction, rel=0.10)


def test_amg_neighbours_and_sizes_change_per_level_and_mg_halves_its_boxes():
    amg = trace.workload_program("amg", 64, iterations=1, params={"n": 20})
    peers = {op["peer"] for op in amg["ops"][21] if op["op"] == "isend"}
    sizes = {op["bytes"] for op in amg["ops"][21] if op["op"] == "isend"}
    assert len(peers) > 6 and len(sizes) > 5  # faces on the fine level, up to 26 and more above
    assert any(op["op"] == "coll" and op["kind"] == "allreduce" for op in amg["ops"][0])
    mg = trace.workload_program("multigrid", 27, iterations=1, params={"box": 16})
    faces = sorted({op["bytes"] for op in mg["ops"][13] if op["op"] == "isend"}, reverse=True)
    assert faces == [2048, 512, 128, 32]  # 16^2, 8^2, 4^2, 2^2 doubles


@pytest.mark.parametrize("workload,ranks,params", [("amg", 27, {"n": 8}), ("multigrid", 8, {"box": 8})])
def test_dumpi_write_reads_back_the_same_operations(tmp_path, workload, ranks, params):
    program = trace.workload_program(workload, ranks, iterations=2, params=params)
    written = trace.write_dumpi(program, tmp_path, workload)
    back = trace.load(tmp_path)
    marks = sum(op["op"] == "iteration_end" for ops in program["ops"] for op in ops)
    assert written["left_out"] == {"iteration_end": marks}
    assert back["ranks"] == ranks and back["warnings"] == []
    for mine, read in zip(program["ops"], back["ops"]):
        assert [op for op in mine if op["op"] != "iteration_end"] == read
    info = trace.info(tmp_path)
    assert info["unmatched_messages"] == 0 and info["calls"]["MPI_Init"] == ranks


def test_a_written_trace_replays_like_the_workload(tmp_path):
    program = trace.workload_program("multigrid", 8, iterations=1, params={"box": 8})
    trace.write_dumpi(program, tmp_path, "mg")
    base = load_config("examples/small-dragonfly")
    base["traffic"] = []
    base["sim"] = {"max_time_ns": 1e9}
    runs = {}
    for name, job in (("generated", {"workload": "multigrid", "iterations": 1, "params": {"box": 8}, "nodes": {"count": 8}}),
                      ("trace", {"workload": "trace", "trace": str(tmp_path)})):
        cfg = dict(base, job=[{"name": "app", **job}])
        runs[name] = slingsim.run(cfg).summary["jobs"]["app"]
    assert runs["trace"]["messages"] == runs["generated"]["messages"]
    assert runs["trace"]["runtime_ns"] == pytest.approx(runs["generated"]["runtime_ns"])


def test_cli_trace_write(tmp_path, capsys):
    from slingsim.cli import main

    assert main(["trace", "write", "amg", str(tmp_path / "amg"), "--ranks", "8", "--iterations", "1",
                 "--param", "n=6", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ranks"] == 8 and report["left_out"] == {"iteration_end": 8}
    assert report["meta"].endswith("amg.meta") and report["calls"]["MPI_Waitall"] > 0
    assert main(["trace", "write", "multigrid", str(tmp_path / "mg"), "--ranks", "8", "--param", "box=8"]) == 0
    assert "left out: 80 iteration_end" in capsys.readouterr().out


def test_bad_workload_settings_name_the_field():
    with pytest.raises(ConfigError, match="params.coarsening"):
        trace.workload_program("amg", 8, params={"coarsening": 2.0})
    with pytest.raises(ConfigError, match="not a parameter of this workload"):
        trace.workload_program("multigrid", 8, params={"boxes": 8})
    with pytest.raises(ConfigError, match="job.workload"):
        trace.workload_program("trace", 8)
