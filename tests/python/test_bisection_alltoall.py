"""[DeSensi20] Fig. 6 in small: MPICH's alltoall algorithms by size, nothing lost, no test beating the peak the
network or the NICs allow, and every bisection pair crossing the cut."""
from __future__ import annotations

import copy

import pytest

from slingsim.experiments.bisection_alltoall import (
    bisection_partners,
    cut_crossed,
    QUICK_NODES,
    injection_tbytes_per_s,
    key_figures,
    moved_bytes,
    node_list,
    row_of,
    study_points,
)
from slingsim.sweep import run_summaries


def test_partners_pair_the_halves():
    partner = bisection_partners(256)
    assert sorted(partner) == list(range(256))
    assert all(partner[partner[r]] == r and (r < 128) != (partner[r] < 128) for r in range(256))
    assert bisection_partners(256, seed=1) != partner


def test_alltoall_algorithms_by_size_lose_nothing_and_stay_under_injection():
    """256 B runs Bruck, 512 B MPICH's scattered exchange (32 peers at a time), which moves less; forced to
    pairwise exchange, one peer at a time, 512 B takes far longer: the algorithm and the ranks' CPUs, not the
    network, set the small-message rate."""
    chosen = [(l, c) for l, c in study_points(quick=True) if l["bytes"] in (256, 512) and l["test"] == "alltoall"]
    pairwise = copy.deepcopy(next(c for l, c in chosen if l["bytes"] == 512))
    pairwise.setdefault("mpi", {}).setdefault("algorithms", {})["alltoall"] = "pairwise"
    configs = [c for _, c in chosen] + [pairwise]
    summaries = run_summaries(configs, scheduler="sync")
    ns = [s["jobs"]["alltoall"]["iteration_ns"]["mean"] for s in summaries]
    assert all(s.get("bytes_lost", 0) == 0 for s in summaries)
    rate = [moved_bytes("alltoall", QUICK_NODES, b) / t / 1e3 for b, t in zip((256, 512, 512), ns)]
    assert max(rate) < injection_tbytes_per_s(QUICK_NODES)
    assert rate[2] < 0.5 * rate[1], "pairwise exchange should be far slower than the scattered exchange at 512 B"
    # [DeSensi20] Fig. 6's drop above 256 B: one message per peer costs each rank's CPU 511 sends and 511
    # receives, where Bruck's rounds aggregate the blocks into 9 messages.
    assert rate[1] < rate[0], "512 B should move less than 256 B on 512 nodes"
    # And the CPU is why: at 512 B the busiest rank's CPU works on MPI for the whole run, at 256 B hardly.
    rows = [row_of(l, s, quick=True) for (l, _), s in zip(chosen, summaries)]
    assert rows[1]["mpi_cpu_fraction"] > 0.95 > 0.2 > rows[0]["mpi_cpu_fraction"]
    assert all(0 <= r["nonminimal_fraction"] < 1 for r in rows)


def test_key_figures_and_the_cut():
    rows = [{"test": t, "bytes": b, "tbytes_per_s": v, "fraction_of_peak": v / 6.4, "bytes_lost": 0,
             "peak_tbytes_per_s": 6.4, "schedule_bound_tbytes_per_s": 6.4, "fraction_of_schedule_bound": v / 6.4}
            for t, b, v in (("alltoall", 256, 0.5), ("alltoall", 512, 0.3), ("alltoall", 32768, 3.0),
                            ("bisection", 1 << 20, 2.0))]
    k = key_figures(rows, cut_crossed(node_list(True)))
    assert k["alltoall_largest_bytes"] == 32768 and k["alltoall_peak_fraction"] == pytest.approx(3.0 / 6.4, abs=1e-4)
    assert k["bisection_tbytes_per_s"] == 2.0 and k["drop_above_256B"] and k["cut_checked"]
    assert k["alltoall_schedule_bound_fraction"] == 1.0 and k["alltoall_of_schedule_bound"] == pytest.approx(3.0 / 6.4, abs=1e-4)
    assert not cut_crossed(list(range(256)))  # the first 256 nodes are two groups, both in the first half


def test_full_mode_adds_the_largest_bisection_at_16_processes_per_node():
    """[DeSensi20] Fig. 6 plots several PPN: full mode runs the 1 MiB bisection also with 16 processes per node,
    every rank paired across the cut; quick mode keeps one process per node."""
    from slingsim.api import validate
    full = [(l, c) for l, c in study_points(quick=False) if l["ppn"] > 1]
    assert [(l["test"], l["bytes"], l["ppn"]) for l, _ in full] == [("bisection", 1 << 20, 16)]
    labels, cfg = full[0]
    job = cfg["job"][0]
    assert job["ppn"] == 16 and job["program"]["ranks"] == 1024 * 16
    validate(cfg)  # the engine accepts it as built
    assert all(l["ppn"] == 1 for l, _ in study_points(quick=True))
    partner = bisection_partners(1024 * 16)
    assert all((r // 16 < 512) != (partner[r] // 16 < 512) for r in range(1024 * 16))


def test_key_figures_take_the_processes_per_node_that_moved_most():
    rows = [{"test": "bisection", "bytes": 1 << 20, "ppn": p, "tbytes_per_s": v, "fraction_of_peak": v / 6.4,
             "bytes_lost": 0, "peak_tbytes_per_s": 6.4} for p, v in ((1, 5.1), (16, 5.45))]
    k = key_figures(rows, True)
    assert k["bisection_ppn"] == 16 and k["bisection_tbytes_per_s"] == 5.45
    assert k["bisection_peak_fraction_by_ppn"] == {"1": round(5.1 / 6.4, 4), "16": round(5.45 / 6.4, 4)}
