"""Cassini's NIC features from Python ([Roweth] Sec. IV-B, IV-C, Fig. 8): the
slingshot-max preset's host matches in the NIC, the TOML tables
[host.matching] and [host.reliability] and the fetch_add/fence operations
reach the engine, and a bad value is refused naming its field."""
from __future__ import annotations

import copy

import pytest

from slingsim import ConfigError, api
from slingsim.config import load_config

SMALL = {
    "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
    "nic": {"frame": "slingshot", "bandwidth_bps": 200e9},
    "routing": {"algorithm": "minimal"},
    "sim": {"max_time_ns": 5e7},
}


def small(host, *jobs):
    cfg = copy.deepcopy(SMALL)
    cfg["host"] = host
    cfg["job"] = list(jobs)
    return cfg


def message_rate(host, unmatched):
    """Messages per second of 16 pairs across two nodes, each message passing `unmatched` posted receives."""
    job = {"name": "mr", "workload": "message-rate", "bytes": 8, "iterations": 3, "ppn": 16,
           "nodes": {"list": [0, 4]}, "params": {"window": 64, "unmatched": unmatched}}
    s = api.run_summary(small(host, job), progress=False, cache=False)
    j = s["jobs"]["mr"]
    assert j["matching"]["failed_attempts_per_message"] == pytest.approx(unmatched * 64 / 65)  # the reply finds none
    return 16 * 64 / (j["iteration_ns"]["mean"] * 1e-9)


def test_the_cassini_preset_hides_64_match_attempts_per_message_but_not_256():
    host = load_config("slingshot-max")["host"]
    assert host["matching"]["location"] == "nic"
    r0, r64, r256 = (message_rate(host, u) for u in (0, 64, 256))
    assert abs(r64 / r0 - 1) < 0.03, (r0, r64)
    assert r256 < 0.8 * r0, (r0, r256)
    software = {"matching": {"software_attempt_ns": 10}}
    assert message_rate(software, 64) < 0.7 * message_rate(software, 0)


def test_toml_tables_and_one_sided_operations_reach_the_engine(tmp_path):
    path = tmp_path / "amo.toml"
    path.write_text("""
[topology]
groups = 3
switches_per_group = 2
endpoints_per_switch = 2
global_ports_per_switch = 1

[host]
delivery_complete_ns = 400

[host.reliability]
amo = "restricted"

[[job]]
name = "amo"
workload = "program"
nodes = { list = [0, 4] }
program = { ranks = 2, comms = [[0, 1]], ops = [[
  { op = "fetch_add", comm = 0, peer = 1, req = 0 },
  { op = "put", comm = 0, peer = 1, bytes = 8, req = 1, completion = "delivery" },
  { op = "fence" },
  { op = "put", comm = 0, peer = 1, bytes = 8, req = 2, completion = "transmit" },
  { op = "wait", reqs = [0, 1, 2] },
], []] }
""")
    s = api.run_summary(str(path), progress=False, cache=False)
    assert s["jobs"]["amo"]["finished"]
    r = s["reliability"]
    assert r["models"] == {"put": "restricted", "get": "restricted", "amo": "restricted"}
    assert (r["amo_ops"], r["amo_runs"], r["correctness_violations"]) == (1, 1, 0)
    assert r["restricted_runs"] == 3  # the AMO and two puts


def test_nic_matching_without_a_message_time_is_refused_naming_the_field():
    job = {"name": "mr", "workload": "message-rate", "nodes": {"list": [0, 4]}}
    with pytest.raises(ConfigError, match=r"host\.matching\.nic_message_ns"):
        api.run_summary(small({"matching": {"location": "nic"}}, job), progress=False, cache=False)
    with pytest.raises(ConfigError, match=r"host\.reliability\.amo"):
        api.run_summary(small({"reliability": {"amo": "sometimes"}}, job), progress=False, cache=False)
