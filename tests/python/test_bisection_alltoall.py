"""[DeSensi20] Fig. 6 in small: MPI_Alltoall drops where MPICH leaves Bruck's algorithm (above 256 B),
nothing is lost, and no test beats the peak the network or the NICs allow."""
from __future__ import annotations

from slingsim.experiments.bisection_alltoall import (
    bisection_partners,
    injection_tbytes_per_s,
    moved_bytes,
    study_points,
)
from slingsim.sweep import run_summaries


def test_partners_pair_the_halves():
    partner = bisection_partners(256)
    assert sorted(partner) == list(range(256))
    assert all(partner[partner[r]] == r and (r < 128) != (partner[r] < 128) for r in range(256))
    assert bisection_partners(256, seed=1) != partner


def test_alltoall_dips_above_256_bytes_and_nothing_is_lost():
    chosen = [(l, c) for l, c in study_points(quick=True) if l["bytes"] in (256, 512)]
    summaries = run_summaries([c for _, c in chosen], scheduler="sync")
    rate = {}
    for (labels, _), s in zip(chosen, summaries):
        assert s.get("bytes_lost", 0) == 0
        mean_ns = s["jobs"][labels["test"]]["iteration_ns"]["mean"]
        rate[(labels["test"], labels["bytes"])] = moved_bytes(labels["test"], labels["nodes"], labels["bytes"]) / mean_ns / 1e3
    assert rate[("alltoall", 512)] < 0.5 * rate[("alltoall", 256)]
    assert max(rate.values()) < injection_tbytes_per_s(256)
