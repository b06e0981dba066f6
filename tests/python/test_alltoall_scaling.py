"""[Roweth] Fig. 3 in small: the alltoall's nodes span every Shandy group, its bandwidth grows with the nodes,
and a run that lost bytes or did not finish is refused."""
from __future__ import annotations

import pytest

from slingsim.experiments.alltoall_scaling import (
    key_figures,
    node_list,
    peak_tbytes_per_s,
    plot,
    row_of,
    study_points,
    VARIANTS,
)
from slingsim.experiments.placement import nodes_per_group
from slingsim.sweep import run_summaries


def test_every_count_spans_the_eight_groups():
    for count in (64, 256, 1024):
        nodes = node_list(count)
        assert len(set(nodes)) == count
        assert {n // nodes_per_group("slingshot-shandy") for n in nodes} == set(range(8))
    with pytest.raises(ValueError, match="multiple of 8"):
        node_list(100)


def test_spread_ranks_visit_the_groups_in_turn():
    nodes = node_list(1024, spread=True)
    assert sorted(nodes) == sorted(node_list(1024))
    groups = [n // nodes_per_group("slingshot-shandy") for n in nodes]
    assert groups[:9] == [0, 1, 2, 3, 4, 5, 6, 7, 0]
    # Any 32 consecutive ranks (one block of MPICH's medium algorithm) span every group four times.
    assert all(groups[i:i + 32].count(g) == 4 for i in range(0, 1024, 32) for g in range(8))


def test_variants_lift_one_cause_each_at_the_most_nodes_and_largest_size():
    points = study_points(quick=True)
    variants = [(l, c) for l, c in points if l["variant"] != "node-order"]
    # Quick mode leaves out four processes per node (FULL_ONLY_VARIANTS); full mode runs every variant.
    assert [l["variant"] for l, _ in variants] == ["spread", "spread-verbs", "spread-verbs-unmanaged"]
    assert all(l["nodes"] == 512 and l["bytes"] == 32_768 and l["ppn"] == 1 for l, _ in variants)
    spread, verbs, unmanaged = (c for _, c in variants)
    assert spread["job"][0]["nodes"]["list"] == node_list(512, spread=True)
    full = [(l, c) for l, c in study_points(quick=False) if l["variant"] != "node-order"]
    assert [l["variant"] for l, _ in full] == list(VARIANTS)
    # Four processes per node at 8 KiB per rank pair, on the same spread nodes, over MPI.
    labels, four = full[3]
    assert labels["ppn"] == four["job"][0]["ppn"] == 4 and labels["bytes"] == four["job"][0]["bytes"] == 8192
    assert four["job"][0]["nodes"]["list"] == node_list(1024, spread=True) and "layer" not in four.get("host", {})
    assert "layer" not in spread.get("host", {}) and verbs["host"]["layer"] == "verbs"
    assert verbs["host"]["matching"]["location"] == "software"  # the preset's sections are kept
    assert unmanaged["congestion"]["algorithm"] == "none"


def test_peak_is_injection_then_the_global_links():
    assert peak_tbytes_per_s(64) == pytest.approx(1.6)
    assert peak_tbytes_per_s(1024) == pytest.approx(12.8)


def summary(lost=0, finished=True):
    return {"jobs": {"alltoall": {"finished": finished, "iteration_ns": {"mean": 1e6} if finished else None}},
            "bytes_lost": lost, "end_reason": "all jobs finished" if finished else "time limit"}


def test_rows_refuse_loss_and_unfinished_runs():
    labels = {"nodes": 64, "bytes": 4096}
    assert row_of(labels, summary())["tbytes_per_s"] == pytest.approx(64 * 63 * 4096 / 1e6 / 1e3)
    with pytest.raises(RuntimeError, match="lost"):
        row_of(labels, summary(lost=10))
    with pytest.raises(RuntimeError, match="did not finish"):
        row_of(labels, summary(finished=False))
    # With 4 processes per node every rank pair counts: 4 x 64 ranks.
    four = row_of({"nodes": 64, "bytes": 4096, "ppn": 4, "variant": "spread-4ppn"}, summary())
    assert four["tbytes_per_s"] == pytest.approx(256 * 255 * 4096 / 1e6 / 1e3) and four["ppn"] == 4
    assert 0 < four["fraction_of_schedule_bound"]


def test_key_figures_read_the_largest_size_and_the_drop():
    rows = [{"nodes": n, "bytes": b, "tbytes_per_s": t, "fraction_of_peak": t / peak_tbytes_per_s(n), "bytes_lost": 0,
             "peak_tbytes_per_s": peak_tbytes_per_s(n), "schedule_bound_tbytes_per_s": peak_tbytes_per_s(n),
             "fraction_of_schedule_bound": t / peak_tbytes_per_s(n)}
            for n, b, t in ((64, 256, 0.05), (64, 512, 0.04), (64, 32768, 1.2),
                            (128, 256, 0.1), (128, 512, 0.08), (128, 32768, 2.3))]
    spread = dict(rows[-1], variant="spread", tbytes_per_s=3.0, fraction_of_peak=3.0 / 3.2, rendezvous_request_us=7.0,
                  rendezvous_match_wait_us=12.8, rendezvous_clear_to_send_us=5.6, rendezvous_data_us=33.3)
    k = key_figures(rows + [spread])
    # Where a rendezvous message's time went, per variant (none known for the recipe's rows here).
    assert k["where_time_goes"]["spread"]["rendezvous_us"] == {"request": 7.0, "match_wait": 12.8,
                                                               "clear_to_send": 5.6, "data": 33.3}
    assert k["where_time_goes"]["node-order"]["rendezvous_us"] is None
    # Rows without the CPU's share (none here) report None, not 0.
    assert k["where_time_goes"]["spread"]["mpi_cpu_fraction"] is None
    assert k["where_time_goes"]["spread"]["nonminimal_fraction"] is None
    assert k["where_time_goes"]["spread"]["round_spread_us"] == {"mean": None, "max": None}
    assert k["where_time_goes"]["spread"]["round_spread_first_last_block_us"] == [None, None]
    assert k["largest_bytes"] == 32768 and k["most_nodes"] == 128
    # The variant's row stays out of the recipe's figures and is reported beside them.
    assert k["spread_alltoall_peak_fraction"] == pytest.approx(3.0 / 3.2, abs=1e-4)
    assert set(k["where_time_goes"]) == {"node-order", "spread"}
    assert k["rises_with_nodes"] and k["drop_above_256B"]
    assert k["alltoall_peak_fraction"] == pytest.approx(2.3 / 3.2, abs=1e-4)
    rows[-1]["tbytes_per_s"] = 1.0
    assert not key_figures(rows)["rises_with_nodes"]


def test_more_nodes_move_more_and_lose_nothing():
    points = [(l, c) for l, c in study_points(quick=True) if l["bytes"] == 32_768 and l["nodes"] in (64, 128)]
    rows = [row_of(l, s) for (l, _), s in zip(points, run_summaries([c for _, c in points], scheduler="sync"))]
    assert rows[1]["tbytes_per_s"] > 1.5 * rows[0]["tbytes_per_s"]
    assert all(r["bytes_lost"] == 0 and r["fraction_of_peak"] <= 1.0 for r in rows)
    # 32 KiB goes by rendezvous: every stage of it is timed, the data's the longest on an alltoall's shared NICs.
    assert all(0 < r["rendezvous_request_us"] and 0 < r["rendezvous_clear_to_send_us"] < r["rendezvous_data_us"]
               and r["rendezvous_match_wait_us"] >= 0 for r in rows)
    # No run beats its schedule's bound (schedule_bound.py): the bound is a physical limit.
    assert all(0 < r["fraction_of_schedule_bound"] <= 1.0 for r in rows)
    # A rank's MPI work runs on one CPU, one piece after another: never more than the run's time.
    assert all(0 < r["mpi_cpu_us_max"] <= r["iteration_us"] and r["mpi_cpu_fraction"] <= 1.0 for r in rows)
    assert all(0 <= r["nonminimal_fraction"] < 1 for r in rows)
    # Every rank finishes each block of 32 peers; how far apart is measured, never negative.
    assert all(0 <= r["round_spread_mean_us"] <= r["round_spread_max_us"] < r["iteration_us"] for r in rows)
    # The first and the last block's spreads lie within the spreads of every block.
    assert all(r["round_spread_first_us"] <= r["round_spread_max_us"] and r["round_spread_last_us"] <= r["round_spread_max_us"]
               for r in rows)


def test_the_figure_draws_every_variant_and_where_the_time_goes(tmp_path):
    """Every variant gets a marker (more variants than markers included) and a bar at the most nodes; a run
    without the CPU's share gets no dot. conftest.py checks that no label collides."""
    rows = [{"nodes": n, "bytes": b, "variant": "node-order", "tbytes_per_s": t, "fraction_of_peak": t / 12.8,
             "mpi_cpu_fraction": 0.1} for n, b, t in ((64, 256, 0.05), (64, 32768, 0.8), (128, 256, 0.1), (128, 32768, 1.5))]
    rows += [{"nodes": 128, "bytes": 32768, "variant": f"v{k}", "tbytes_per_s": 1.0 + k, "fraction_of_peak": (1.0 + k) / 12.8,
              "mpi_cpu_fraction": None if k == 2 else 0.1 * k} for k in range(9)]
    import matplotlib.pyplot as plt
    from unittest import mock

    with mock.patch("slingsim.experiments.alltoall_scaling.save_figure") as save:
        plot(rows, tmp_path / "a.png")
        fig = save.call_args[0][0]
    lines, where = fig.axes
    assert len(lines.get_legend().get_texts()) == 2 + 9
    assert [t.get_text() for t in where.get_yticklabels()] == ["node-order"] + [f"v{k}" for k in range(9)]
    dots = where.get_lines()[0].get_xdata()
    assert len(dots) == 9 and 0.1 in list(dots)
    fig.savefig(tmp_path / "a.png")
    plt.close(fig)
