"""[DeSensi19] Fig. 4 on Piz Daint: each size's alltoall runs 8 ranks on one node of its own, no packet of
it enters the network, the noisy runs' ranks were held up by detours and the quiet run's were not, and the
time varies with host noise only."""
from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from slingsim.experiments import aries_node_alltoall as fig4
from slingsim.experiments.output import table_checks
from slingsim.validation import CLAIMS, Outcome, claim_row


def test_the_run_config_puts_each_sizes_eight_ranks_on_a_node_of_its_own():
    cfg = fig4.run_config((8, 4096), fig4.NOISE["heavy"], 10)
    jobs = {j["name"]: j for j in cfg["job"]}
    assert set(jobs) == {"a2a8", "a2a4096"}
    assert all(j["ppn"] == 8 and len(j["nodes"]["list"]) == 1 for j in jobs.values())
    assert jobs["a2a8"]["nodes"] != jobs["a2a4096"]["nodes"]
    assert jobs["a2a8"]["iterations"] == 11, "one call more than timed: the first is left out"
    assert cfg["traffic"] == [] and cfg["host"]["noise"] == fig4.NOISE["heavy"]
    assert "noise" not in fig4.run_config((8,), None, 10).get("host", {})
    with pytest.raises(ValueError, match="quartiles need at least 4"):
        fig4.run_config((8,), None, 3)


def test_the_checks_refuse_a_job_on_two_nodes_or_with_packets_in_the_network():
    summary = {"jobs": {"a2a8": {"ranks": 8, "node_ids": [0, 1]}}, "traffic": {"a2a8": {"packets_delivered": 3}}}
    with pytest.raises(RuntimeError, match="one node"):
        fig4.check_one_node(summary, (8,))
    with pytest.raises(RuntimeError, match="3 packets"):
        fig4.check_network_unused(summary, (8,))
    summary["traffic"]["a2a8"] = {"packets_delivered": 0, "undelivered_packets": 0}
    fig4.check_network_unused(summary, (8,))


def test_quick_run_varies_with_host_noise_only_and_the_claim_reads_it(tmp_path):
    table = fig4.run_aries_node_alltoall(tmp_path / "fig4", quick=True, workers=1, progress=False, cache=False)
    rows = table.to_pylist()
    assert {r["noise"] for r in rows} == set(fig4.NOISE)
    assert len(rows) == len(fig4.NOISE) * len(fig4.QUICK_SIZES)
    quiet = [r for r in rows if r["noise"] == "none"]
    heavy = [r for r in rows if r["noise"] == "heavy"]
    assert all(r["min_us"] == r["max_us"] and r["detoured_ns_per_rank"] == 0 for r in quiet), "nothing else varies"
    assert all(r["max_us"] > r["min_us"] and r["detoured_ns_per_rank"] > 0 for r in heavy)
    assert heavy[0]["qcd"] > 0.02, "detours on 10% of the CPU spread the 8 B calls"
    assert all(h["median_us"] >= q["median_us"] for h, q in zip(heavy, quiet)), "a detour only delays"
    assert pq.read_table(tmp_path / "fig4" / "aries_node_alltoall.parquet").num_rows == len(rows)
    assert (tmp_path / "fig4" / "aries_node_alltoall.png").exists()
    claim = next(c for c in CLAIMS if c.experiment == fig4.NAME)
    row = claim_row(claim, Outcome(rows=rows, checks=table_checks(table)))
    assert row["ordering_holds"] is True and row["shares"] == "checked"
    assert row["ours"] == pytest.approx(heavy[0]["qcd"], abs=1e-4)
