"""[Roweth] Fig. 6: put bandwidth through one Cassini NIC reaches half its peak near 128 B with 16 or
more PEs, and its peak once transfers are a few hundred bytes; both follow the per-put host cost."""
from __future__ import annotations

import pytest

import slingsim
from slingsim.experiments import rma_bandwidth
from slingsim.experiments.output import table_checks
from slingsim.experiments.rma_bandwidth import put_program, row_of, run_rma_bandwidth, study_points


def test_half_peak_near_128_bytes_with_16_or_more_pes(tmp_path):
    table = run_rma_bandwidth(tmp_path, quick=True, scheduler="sync", progress=False)
    checks = table_checks(table)
    assert checks["pes_checked"] is True
    # 200 Gb/s in Slingshot frames: at most 25 GB/s of frames, a little less of payload.
    assert 23.0 < checks["peak_gbytes_per_s"] <= 25.0, checks
    assert checks["half_peak_within_2x_of_128B"], checks
    assert checks["more_pes_more_small_transfer_bandwidth"], checks
    assert checks["asymptote_bytes"]["64"] <= 2048, checks
    assert (tmp_path / "rma_bandwidth.png").is_file()


def _bandwidth(pes: int, nbytes: int, libfabric_ns: float) -> float:
    (cfg,) = [c for labels, c in study_points(quick=False) if labels == {"pes": pes, "bytes": nbytes}]
    cfg["host"]["libfabric_overhead_ns"] = libfabric_ns
    return row_of({"pes": pes, "bytes": nbytes}, slingsim.run_summary(cfg, progress=False, cache=False))["gbytes_per_s"]


def test_small_transfer_bandwidth_follows_the_per_put_cpu_cost():
    """Below the link's limit the rate is PEs / (CPU time per put): more CPU per put, less bandwidth
    in proportion; at 2 KiB the link limits and the CPU cost no longer matters."""
    base = slingsim.resolved_config("slingshot-max")["host"]["libfabric_overhead_ns"]
    slow, fast = _bandwidth(16, 64, base + 200.0), _bandwidth(16, 64, base)
    assert slow < 0.8 * fast, (slow, fast)
    big_slow, big_fast = _bandwidth(16, 2048, base + 200.0), _bandwidth(16, 2048, base)
    assert big_slow == pytest.approx(big_fast, rel=0.03)


def test_a_run_that_did_not_move_its_puts_is_refused():
    job = {"finished": True, "iterations": 2, "messages": 2 * 4 * rma_bandwidth.WINDOW, "collective_messages": 0,
           "timed_ns": {"max": 1000.0}, "timed_window_ns": {"max": 1000.0}}
    summary = {"nodes": 2, "endpoints": 2, "end_reason": "jobs_done", "jobs": {"rma": job}}
    assert row_of({"pes": 4, "bytes": 8}, summary)["gbytes_per_s"] > 0
    with pytest.raises(RuntimeError, match="did not run as built"):
        row_of({"pes": 8, "bytes": 8}, summary)
    with pytest.raises(RuntimeError, match="one NIC per node"):
        row_of({"pes": 4, "bytes": 8}, {**summary, "endpoints": 4})


def test_only_the_first_node_puts():
    prog = put_program(2, 64)
    assert prog["ranks"] == 4
    kinds = [[o["op"] for o in ops] for ops in prog["ops"]]
    assert kinds[0].count("put") == rma_bandwidth.WINDOW and "put" not in kinds[2]
    assert all(o["peer"] == 2 for o in prog["ops"][0] if o["op"] == "put")


def test_the_nic_command_unit_caps_what_many_pes_post():
    """64 PEs post 8 B puts faster than 100 M/s; the command unit (10 ns each) holds them to that,
    and without it (0) the rate grows with the PEs."""
    (cfg,) = [c for labels, c in study_points(quick=False) if labels == {"pes": 64, "bytes": 8}]
    capped = row_of({"pes": 64, "bytes": 8}, slingsim.run_summary(cfg, progress=False, cache=False))
    puts_per_s = capped["gbytes_per_s"] * 1e9 / 8
    assert 90e6 < puts_per_s <= 100e6, puts_per_s
    cfg["host"]["nic_command_ns"] = 0
    free = row_of({"pes": 64, "bytes": 8}, slingsim.run_summary(cfg, progress=False, cache=False))
    assert free["gbytes_per_s"] > 2 * capped["gbytes_per_s"], (free, capped)
