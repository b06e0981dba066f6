"""The OTF2 reader against the sample traces of shared/traces (see its README.md)."""
import shutil
from collections import Counter
from pathlib import Path

import pytest

from slingsim.trace.otf2 import _collective_bytes, read_otf2

TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"
STENCIL3D = TRACES / "otf2-stencil3d-np8"
STENCIL4D = TRACES / "otf2-stencil4d-np32"
COLLECTIVE_CALLS = ("MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Alltoall")
CREATING_CALLS = ("MPI_Cart_create", "MPI_Comm_split")

needs_traces = pytest.mark.skipif(not TRACES.is_dir(), reason=f"sample traces not found at {TRACES}")


@pytest.fixture(scope="module")
def stencil3d():
    return read_otf2(STENCIL3D)


def ops_of(program, kind):
    return [op for ops in program["ops"] for op in ops if op["op"] == kind]


def message_counts(program):
    """Sends and receives keyed by (communicator members, source, destination, tag, bytes)."""
    sends, recvs = Counter(), Counter()
    for rank, ops in enumerate(program["ops"]):
        for op in ops:
            if op["op"] not in ("send", "isend", "recv", "irecv"):
                continue
            members = program["comms"][op["comm"]]
            me, peer = members.index(rank), op["peer"]
            if op["op"] in ("send", "isend"):
                sends[(tuple(members), me, peer, op["tag"], op["bytes"])] += 1
            else:
                recvs[(tuple(members), peer, me, op["tag"], op["bytes"])] += 1
    return sends, recvs


@needs_traces
def test_stencil3d_calls_are_those_of_the_run(stencil3d):
    program, calls = stencil3d
    assert program["ranks"] == 8
    assert (calls["MPI_Isend"], calls["MPI_Irecv"]) == (480, 480)
    assert (calls["MPI_Send"], calls["MPI_Recv"]) == (8, 8)
    assert sum(calls[name] for name in COLLECTIVE_CALLS) == 120
    assert [len(ops_of(program, k)) for k in ("isend", "irecv", "send", "recv")] == [480, 480, 8, 8]
    creations = sum(calls[name] for name in CREATING_CALLS)
    assert len(ops_of(program, "coll")) == 120 + creations
    assert program["warnings"] == ["16 communicator creations with no parent in the trace "
                                   "represented on MPI_COMM_WORLD"]


@needs_traces
def test_stencil3d_messages_all_match(stencil3d):
    program, _ = stencil3d
    sends, recvs = message_counts(program)
    assert sum(sends.values()) == 488
    assert sends == recvs
    assert {key[4] for key in sends} == {2048, 4}  # faces of 16x16 doubles; the int token


@needs_traces
def test_stencil3d_communicators_and_collective_sequences(stencil3d):
    program, _ = stencil3d
    comms = program["comms"]
    assert comms[0] == list(range(8))
    assert sorted(map(sorted, comms[1:])) == [[0, 2, 4, 6], [1, 3, 5, 7]]  # one per z-plane
    for cid, members in enumerate(comms):
        sequences = {tuple((op["kind"], op["bytes"], op["root"]) for op in program["ops"][r]
                           if op["op"] == "coll" and op["comm"] == cid) for r in members}
        assert len(sequences) == 1, f"communicator {cid} has ranks disagreeing on its collectives"
    assert {(op["kind"], op["bytes"]) for op in ops_of(program, "coll")} == {
        ("bcast", 8), ("barrier", 0), ("allreduce", 8), ("alltoall", 256), ("reduce", 8),
        ("allgather", 8)}


@needs_traces
def test_stencil3d_requests_are_opened_then_waited_once(stencil3d):
    program, _ = stencil3d
    for ops in program["ops"]:
        held = set()
        for op in ops:
            if op["op"] in ("isend", "irecv"):
                assert op["req"] == min(set(range(len(held) + 1)) - held), "lowest free id"
                held.add(op["req"])
            elif op["op"] == "wait":
                assert op["reqs"] and set(op["reqs"]) <= held
                held -= set(op["reqs"])
        assert not held
        assert all(op["ns"] > 0 for op in ops if op["op"] == "compute")


@needs_traces
def test_stencil4d_unbalanced_regions_warn_instead_of_failing():
    program, calls = read_otf2(STENCIL4D / "traces.otf2")
    assert program["ranks"] == 32 and program["comms"] == [list(range(32))]
    assert calls["MPI_Irecv"] == calls["MPI_Send"] == 512
    assert (calls["MPI_Waitall"], calls["MPI_Barrier"]) == (64, 96)
    assert "2 Enter events without a matching Leave" in program["warnings"]
    sends, recvs = message_counts(program)
    assert sum(sends.values()) == 512 and sends == recvs
    assert len(ops_of(program, "wait")) == 64


def test_missing_trace_is_a_value_error_naming_it(tmp_path):
    missing = tmp_path / "nowhere" / "traces.otf2"
    with pytest.raises(ValueError, match="nowhere"):
        read_otf2(missing)
    with pytest.raises(ValueError, match="anchor"):
        read_otf2(tmp_path)


def test_corrupt_anchor_is_a_value_error_naming_it(tmp_path):
    anchor = tmp_path / "traces.otf2"
    anchor.write_bytes(b"not an OTF2 archive" * 10)
    with pytest.raises(ValueError, match="traces.otf2"):
        read_otf2(tmp_path)


@needs_traces
def test_truncated_events_are_a_value_error(tmp_path):
    copy = Path(shutil.copytree(STENCIL3D, tmp_path / "copy"))
    for path in copy.rglob("*"):
        path.chmod(0o644 if path.is_file() else 0o755)
    events = copy / "traces" / "3.evt"
    events.write_bytes(events.read_bytes()[:500])
    with pytest.raises(ValueError, match=r"copy/traces/3\.evt: truncated"):
        read_otf2(copy)


def test_scorep_collective_sizes_become_per_rank_bytes():
    # Score-P counts an 8-byte allreduce on 8 ranks as 64 sent and 64 received.
    assert _collective_bytes("ALLREDUCE", 64, 64, 8, 3, scorep=True) == 8
    # Its bcast root sends the buffer to every rank; the others receive it once.
    assert _collective_bytes("BCAST", 32, 4, 8, 0, scorep=True) == 4
    assert _collective_bytes("BCAST", 0, 4, 8, 5, scorep=True) == 4
    assert _collective_bytes("ALLTOALL", 2048, 2048, 8, 1, scorep=True) == 256
    assert _collective_bytes("REDUCE_SCATTER", 400, 160, 4, 0, scorep=True) == 40
    # A scan's rank 2 of 4 sends the buffer to ranks 2 and 3 and receives 3 of them.
    assert _collective_bytes("SCAN", 2 * 100, 3 * 100, 4, 2, scorep=True) == 100
    assert _collective_bytes("EXSCAN", 0, 3 * 100, 4, 3, scorep=True) == 100


def test_other_writers_collective_sizes_are_the_call_arguments():
    assert _collective_bytes("ALLREDUCE", 8, 8, 8, 0, scorep=False) == 8
    assert _collective_bytes("ALLTOALL", 256, 256, 8, 0, scorep=False) == 256
    assert _collective_bytes("SCATTER", 0, 16, 8, 2, scorep=False) == 16


def normalized(program):
    """Each rank's operations without compute, communicators as their member lists."""
    out = []
    for ops in program["ops"]:
        kept = []
        for op in ops:
            if op["op"] == "compute":
                continue
            op = dict(op)
            if "comm" in op:
                op["comm"] = program["comms"][op["comm"]]
            kept.append(op)
        out.append(kept)
    return out


@needs_traces
def test_same_operations_as_the_dumpi_copy_of_the_run(stencil3d):
    trace = pytest.importorskip("slingsim.trace", reason="the DUMPI reader is not installed")
    if not hasattr(trace, "load"):
        pytest.skip("slingsim.trace has no load() yet")
    dumpi = trace.load(TRACES / "dumpi-stencil3d-np8")
    dumpi = dumpi[0] if isinstance(dumpi, tuple) else dumpi
    otf2_ops, dumpi_ops = normalized(stencil3d[0]), normalized(dumpi)
    assert len(otf2_ops) == len(dumpi_ops) == 8
    for rank, (ours, theirs) in enumerate(zip(otf2_ops, dumpi_ops)):
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert a == b, f"rank {rank} op {i}: OTF2 {a} != DUMPI {b}"
        assert len(ours) == len(theirs), f"rank {rank}: {len(ours)} OTF2 ops, {len(theirs)} DUMPI"
