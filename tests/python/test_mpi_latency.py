"""[Roweth] Fig. 7: MPI latency through one switch with Cassini NICs is flat up to the 96 B inline
limit and rises by the DMA read latency above it."""
from __future__ import annotations

import pytest

from slingsim.experiments import mpi_latency
from slingsim.experiments.mpi_latency import cassini_pair, one_switch, run_mpi_latency
from slingsim.experiments.output import table_checks


def test_latency_is_flat_to_96_bytes_and_steps_by_the_dma_read(tmp_path):
    table = run_mpi_latency(tmp_path, quick=True, scheduler="sync", progress=False)
    checks = table_checks(table)
    assert checks["one_switch_checked"] is True
    assert checks["flat_to_96B_ok"] and checks["flat_to_96B"] < 0.02, checks
    assert checks["step_is_dma_read"], checks
    assert abs(checks["step_at_96B_ns"] - checks["dma_read_ns"]) < 0.2 * checks["dma_read_ns"], checks
    # [Roweth] Sec. II-F: quiet MPI latency 1.5-1.8 us through one switch.
    assert 1500 <= checks["latency_8B_ns"] <= 1800, checks
    assert (tmp_path / "mpi_latency.png").is_file()


def test_the_step_follows_the_inline_limit(tmp_path, monkeypatch):
    """With a 1 KiB inline limit, 128 B is still written to the NIC whole and the step at 96 B is gone:
    it comes from the inline/DMA mechanism, not from the message size."""
    base = mpi_latency.cassini_pair

    def larger_inline():
        cfg = base()
        cfg["host"]["inline_bytes"] = 1024
        return cfg

    monkeypatch.setattr(mpi_latency, "cassini_pair", larger_inline)
    rows = {r["bytes"]: r["latency_ns"] for r in run_mpi_latency(tmp_path, quick=True, scheduler="sync",
                                                                   progress=False).to_pylist()}
    assert rows[128] - rows[96] < 20, rows


def test_the_pair_shares_one_switch_or_is_refused():
    cfg = cassini_pair()
    assert one_switch(cfg, (0, 1))
    assert not one_switch(cfg, (0, cfg["topology"]["endpoints_per_switch"]))
    with pytest.raises(ValueError, match="not on one switch"):
        cfg["topology"]["endpoints_per_switch"] = 1
        old = mpi_latency.cassini_pair
        mpi_latency.cassini_pair = lambda: cfg
        try:
            run_mpi_latency("/tmp/never-written", quick=True, scheduler="sync", progress=False)
        finally:
            mpi_latency.cassini_pair = old
