"""[Roweth] Fig. 9: the message-rate recipe runs the Sandia test's four patterns as built and the
pair-based pattern reaches the simple micro-benchmark's rate."""
from __future__ import annotations

import pytest

from slingsim.experiments.output import table_checks
from slingsim.experiments.sandia_message_rate import PEERS, TESTS, pattern_ops, peers, row_of, run_message_rate


def test_pair_based_reaches_the_best_case_rate_and_rates_grow_with_processes(tmp_path):
    table = run_message_rate(tmp_path, quick=True, scheduler="sync", progress=False, cache=False)
    checks = table_checks(table)
    assert checks["pair_based_reaches_best_case"] is True, checks
    rows = table.to_pylist()
    for test in TESTS:
        mine = sorted((r for r in rows if r["test"] == test), key=lambda r: r["ppn"])
        assert mine[-1]["rate_mmsgs"] > 4 * mine[0]["rate_mmsgs"], mine  # 16 processes, not 1
    assert (tmp_path / "message_rate.png").is_file() and (tmp_path / "message_rate.parquet").is_file()


def test_peers_pair_up_at_the_same_step():
    ppn = 8
    for rank in range(ppn):
        for step, peer in enumerate(peers(rank, ppn, PEERS)):
            assert peer >= ppn and peers(peer, ppn, PEERS)[step] == rank
    assert peers(0, 1, PEERS) == [1]  # one rank per node: one peer whatever PEERS says


def test_every_request_is_waited_for_and_timed():
    for pattern in TESTS[1:]:
        ops = pattern_ops(pattern, 0, 4)
        posted = {o["req"] for o in ops if o["op"] in ("isend", "irecv")}
        waited = {r for o in ops if o["op"] == "wait" for r in o["reqs"]}
        assert posted == waited, pattern
        assert ops[-2:] == [{"op": "timer_stop"}, {"op": "iteration_end"}]


def test_bad_input_and_a_run_that_sent_too_little_are_refused():
    with pytest.raises(ValueError, match="pattern must be one of"):
        pattern_ops("ring", 0, 2)
    with pytest.raises(ValueError, match="not one of"):
        peers(4, 2, PEERS)
    job = {"messages": 10, "collective_messages": 0, "iterations": 1, "timed_ns": {"mean": 1.0},
           "timed_window_ns": {"mean": 1.0}, "iteration_ns": {"mean": 1.0}}
    with pytest.raises(RuntimeError, match="did not run as built"):
        row_of({"test": "all-start", "ppn": 2}, {"jobs": {"mr": job}})
