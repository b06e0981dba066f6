"""[DeSensi20] Fig. 4 against the model's own arithmetic: each extra switch on the path adds its
fall-through, the link's FEC and propagation to the one-way latency; large messages reach the NIC's rate."""
from __future__ import annotations

from slingsim.config import load_config
from slingsim.experiments.node_distance import run_node_distance


def test_latency_steps_by_the_extra_hops_and_bandwidth_reaches_line_rate(tmp_path):
    rows = run_node_distance(tmp_path, quick=True, scheduler="sync").to_pylist()
    at = {(r["distance"], r["bytes"]): r for r in rows}
    cfg = load_config("slingshot-malbec")
    # The preset's values, else the engine's documented defaults (docs/config.md).
    switch = cfg.get("switch", {}).get("latency_ns", 300.0)
    links = {"fec_latency_ns": 100.0, "local_latency_ns": 10.0, "global_latency_ns": 100.0, **cfg["links"]}
    local_hop = switch + links["fec_latency_ns"] + links["local_latency_ns"]
    global_hop = switch + links["fec_latency_ns"] + links["global_latency_ns"]
    for nbytes in (8, 512, 16_384):
        one, two, three = (at[(d, nbytes)]["half_rtt_us"] * 1e3 for d in ("same switch", "same group", "different groups"))
        assert abs((two - one) - local_hop) < 1.0
        assert abs((three - two) - global_hop) < 1.0
    for distance in ("same switch", "same group", "different groups"):
        assert at[(distance, 1_048_576)]["bandwidth_gbps"] > 0.9 * cfg["nic"]["bandwidth_bps"] / 1e9
    assert (tmp_path / "node_distance.png").is_file()
