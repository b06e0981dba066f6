"""[Roweth] Fig. 5: two Cassini NICs per node carry twice what one carries for large messages, and
one NIC comes close to its 200 Gb/s link."""
from __future__ import annotations

import pytest

from slingsim.experiments import nic_bandwidth
from slingsim.experiments.nic_bandwidth import fabric, row_of, run_nic_bandwidth
from slingsim.experiments.output import table_checks


def test_two_nics_double_the_bandwidth_of_one(tmp_path):
    table = run_nic_bandwidth(tmp_path, quick=True, scheduler="sync", progress=False)
    checks = table_checks(table)
    assert checks["nics_checked"] is True
    assert checks["two_nics_double"] and 1.8 <= checks["two_over_one"] <= 2.05, checks
    # A 200 Gb/s link carries at most 25 GB/s of frames; 4 KiB packets behind a 40 B header leave
    # 24.76 GB/s of payload.
    assert 22.0 < checks["one_nic_gbytes_per_s"] <= 24.76, checks
    rows = {(r["nics"], r["bytes"]): r["gbytes_per_s"] for r in table.to_pylist()}
    assert rows[(1, 1024)] < rows[(1, 65_536)], "small messages are limited by the per-message costs"
    assert (tmp_path / "nic_bandwidth.png").is_file()


def test_a_run_without_the_asked_nics_is_refused():
    summary = {"nodes": 2, "endpoints": 2, "end_reason": "jobs_done",
               "jobs": {"bw": {"finished": True, "iteration_ns": {"mean": 1000.0}}}}
    assert row_of({"nics": 1, "bytes": 8}, summary)["gbytes_per_s"] > 0
    with pytest.raises(RuntimeError, match="not 2 per node"):
        row_of({"nics": 2, "bytes": 8}, summary)
    unfinished = {**summary, "end_reason": "max_time", "jobs": {"bw": {"finished": False, "iteration_ns": None}}}
    with pytest.raises(RuntimeError, match="did not finish"):
        row_of({"nics": 1, "bytes": 8}, unfinished)


def test_the_fabric_has_the_rails_asked_for():
    assert fabric(2)["topology"]["rails"] == 2
    with pytest.raises(ValueError, match="rails"):
        fabric(3)
    assert nic_bandwidth.PPN == 16
