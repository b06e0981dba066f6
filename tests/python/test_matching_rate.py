"""[Roweth] Fig. 8: the matching-rate recipe keeps Cassini's message rate flat to 64 failed match
attempts per message and lets it fall beyond; software matching falls well before 64."""
from __future__ import annotations

import pytest

from slingsim.experiments.matching_rate import fabric, row_of, run_matching_rate
from slingsim.experiments.output import table_checks


def test_nic_matching_is_flat_to_64_attempts_and_software_matching_is_not(tmp_path):
    table = run_matching_rate(tmp_path, quick=True, scheduler="sync", progress=False, cache=False)
    checks = table_checks(table)
    rows = table.to_pylist()
    assert checks["attempts_checked"] is True
    assert all(r["failed_attempts_per_message"] == r["attempts"] for r in rows)
    assert checks["rate_flat_to_64"] is True, checks
    nic, sw = checks["rate_drop_at_256"]["nic"], checks["rate_drop_at_256"]["software"]
    top = max(nic, key=int)
    # With many pairs the NIC's matching unit is the bottleneck: 256 attempts cost 4x its message time.
    assert nic[top] < 0.8, nic
    for ppn, at64 in checks["rate_at_64_over_0"]["software"].items():
        assert at64 < 0.7, (ppn, at64)  # software matching has already fallen at 64 attempts
        assert sw[ppn] < nic[ppn], (ppn, sw, nic)
    # More pairs, more messages per second (at 0 attempts).
    at0 = {r["ppn"]: r["rate_mmsgs"] for r in rows if r["matching"] == "nic" and r["attempts"] == 0}
    assert at0[max(at0)] > 4 * at0[min(at0)], at0
    assert (tmp_path / "matching_rate.png").is_file() and (tmp_path / "matching_rate.parquet").is_file()


def test_a_run_whose_messages_did_not_fail_the_attempts_is_refused():
    summary = {"jobs": {"mr": {"matching": {"messages": 65, "failed_attempts": 0},
                               "iteration_ns": {"mean": 1000.0}}}}
    with pytest.raises(RuntimeError, match="not exercised"):
        row_of({"matching": "nic", "ppn": 1, "attempts": 64}, summary)


def test_an_unknown_matching_location_is_refused():
    with pytest.raises(ValueError, match="matching must be one of"):
        fabric("cpu")
