"""[Roweth] Fig. 2 and Sec. II-F: congestion management keeps trace packets at their quiet latency
beside an incast that back-pressure alone lets them wait behind; one switch forwards 64 B frames at
the 200 Gb/s line rate."""
from __future__ import annotations

import pytest

from slingsim.experiments import packet_latency_background as plb
from slingsim.experiments.output import table_checks


def test_congestion_management_keeps_the_trace_at_its_quiet_latency(tmp_path):
    table = plb.run_packet_latency_background(tmp_path, quick=True, scheduler="sync", progress=False)
    checks = table_checks(table)
    assert checks["shares_checked"] is True
    impact = checks["trace_impact"]
    assert impact["slingshot"]["p99"] < 1.2, impact
    assert impact["none"]["p99"] > 1.3 * impact["slingshot"]["p99"], impact
    assert checks["congestion_management_keeps_latency"] is True
    # 200 Gb/s of 84-byte wire frames is 297.6 M frames per second, the paper's 297,619,047.
    assert checks["rfc2544_line_rate"] is True
    assert 280 <= checks["port_to_port_ns"] <= 330, checks
    rows = table.to_pylist()
    assert {r["test"] for r in rows} == {"trace", "rfc2544"}
    assert all(r["frames_per_s"] for r in rows if r["test"] == "rfc2544")
    assert (tmp_path / "packet_latency_background.png").is_file()


def test_a_trace_that_does_not_meet_the_congestion_is_refused():
    trace, background = plb.node_sets(quick=True)
    assert plb.shares_checked(trace, background)["target_switch"] == 0
    far = [n + 64 for n in trace]  # the trace moved to other switches: its destination leaves the target's switch
    with pytest.raises(RuntimeError, match="meet the congestion"):
        plb.shares_checked(far, background)


def test_the_modes_set_what_they_say():
    assert plb.background_config("none", quick=True)["congestion"]["algorithm"] == "none"
    assert plb.background_config("slingshot", quick=True)["congestion"]["algorithm"] == "slingshot"
    assert [t["name"] for t in plb.background_config("alone", quick=True)["traffic"]] == ["trace"]
    with pytest.raises(ValueError, match="mode"):
        plb.background_config("dcqcn", quick=True)
