"""slingsim.trace and ``slingsim trace info`` on the sample traces of shared/traces (see its README.md)."""
import json
import shutil
import sys
from pathlib import Path

import pytest

from slingsim import _core, trace
from slingsim.cli import main

TRACES = Path(__file__).resolve().parents[2].parent / "shared" / "traces"
INFO_KEYS = ["ranks", "calls", "bytes", "matched_messages", "unmatched_messages", "warnings"]

needs_traces = pytest.mark.skipif(not TRACES.is_dir(), reason=f"sample traces not found at {TRACES}")


def writable_copy(name, tmp_path):
    """A copy of a sample trace that the test may damage."""
    copy = Path(shutil.copytree(TRACES / name, tmp_path / name))
    for path in copy.iterdir():
        path.chmod(0o644)
    return copy


@needs_traces
def test_stencil_np8_matches_488_messages_on_12_communicators():
    summary = trace.info(TRACES / "dumpi-stencil3d-np8")
    assert (summary["matched_messages"], summary["unmatched_messages"]) == (488, 0)
    assert (summary["calls"]["MPI_Isend"], summary["calls"]["MPI_Send"]) == (480, 8)
    program = trace.load(TRACES / "dumpi-stencil3d-np8")
    assert program["ranks"] == 8 and len(program["ops"]) == 8
    assert len(program["comms"]) == 12  # world, 8 x MPI_COMM_SELF, the grid, 2 z-planes
    assert program["warnings"] == []


@needs_traces
def test_stencil_np16_matches_4816_messages_on_20_communicators():
    meta = next((TRACES / "dumpi-stencil3d-np16").glob("*.meta"))
    summary = trace.info(meta)
    assert (summary["matched_messages"], summary["unmatched_messages"]) == (4816, 0)
    assert len(trace.load(meta)["comms"]) == 20


@needs_traces
def test_blue_gene_trace_reads_and_converts():
    program = trace.load(TRACES / "dumpi-bgp-np7")
    assert program["ranks"] == 7
    assert program["comms"][-1] == list(range(7))  # its MPI_Comm_create of the whole world
    kinds = {op["op"] for ops in program["ops"] for op in ops}
    assert {"isend", "irecv", "wait", "coll", "compute"} <= kinds
    summary = trace.info(TRACES / "dumpi-bgp-np7")
    assert (summary["matched_messages"], summary["unmatched_messages"]) == (588, 0)


@needs_traces
def test_unrecorded_nonblocking_collectives_are_a_warning_not_a_crash():
    summary = trace.info(TRACES / "dumpi-nbc-np4")
    assert len(summary["warnings"]) == 1
    assert summary["warnings"][0].startswith("8 completions of requests no recorded call opened")
    assert "nonblocking collectives" in summary["warnings"][0]
    assert summary["calls"]["MPI_Wait"] == 8


@needs_traces
def test_truncated_rank_file_is_a_value_error_naming_it(tmp_path):
    copy = writable_copy("dumpi-sstdumpi-testtrace", tmp_path)
    rank0 = copy / "testtrace-0000.bin"
    rank0.write_bytes(rank0.read_bytes()[:1000])
    with pytest.raises(ValueError, match=r"testtrace-0000\.bin: byte offset 1000: .*truncated"):
        trace.load(copy)


@needs_traces
def test_flipped_byte_is_a_value_error_naming_file_and_offset(tmp_path):
    copy = writable_copy("dumpi-sstdumpi-testtrace", tmp_path)
    rank2 = copy / "testtrace-0002.bin"
    data = bytearray(rank2.read_bytes())
    data[16] ^= 0xFF  # the first record's call id
    rank2.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"testtrace-0002\.bin: byte offset 16: unknown call id"):
        trace.info(copy / "testtrace.meta")


def test_a_missing_path_is_file_not_found_and_other_non_traces_value_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        trace.load(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="no such file"):
        _core.read_dumpi(str(tmp_path / "missing.meta"))
    with pytest.raises(ValueError, match="no DUMPI .meta file and no OTF2"):
        trace.load(tmp_path)
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ValueError, match="not a trace"):
        trace.info(tmp_path / "notes.txt")


@needs_traces
def test_otf2_reader_that_cannot_be_imported_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "slingsim.trace.otf2", None)
    with pytest.raises(ImportError, match="reading OTF2 traces needs"):
        trace.load(TRACES / "otf2-stencil3d-np8")


@needs_traces
def test_otf2_traces_go_through_the_otf2_reader():
    pytest.importorskip("otf2", reason="the otf2 package is not installed")
    summary = trace.info(TRACES / "otf2-stencil3d-np8" / "traces.otf2")
    assert list(summary) == INFO_KEYS
    assert summary["ranks"] == 8 and summary["calls"]["MPI_Isend"] == 480
    assert summary["matched_messages"] == 488


def test_program_info_counts_operations_without_call_counts():
    program = {"ranks": 2, "comms": [[0, 1]], "warnings": [], "ops": [
        [{"op": "send", "comm": 0, "peer": 1, "tag": 0, "bytes": 64}],
        [{"op": "recv", "comm": 0, "peer": 0, "tag": 0, "bytes": 64},
         {"op": "coll", "kind": "barrier", "comm": 0}]]}
    summary = json.loads(_core.program_info(json.dumps(program)))
    assert summary["calls"] == {"barrier": 1, "recv": 1, "send": 1}
    assert (summary["bytes"], summary["matched_messages"], summary["unmatched_messages"]) == (64, 1, 0)
    with pytest.raises(ValueError, match="program"):
        _core.program_info("{}")


@needs_traces
def test_cli_trace_info_json_has_exactly_the_summary_keys(capsys):
    assert main(["trace", "info", str(TRACES / "dumpi-stencil3d-np8"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert list(summary) == INFO_KEYS
    assert (summary["ranks"], summary["matched_messages"], summary["unmatched_messages"]) == (8, 488, 0)


@needs_traces
def test_cli_trace_info_prints_a_table_and_the_warnings(capsys):
    assert main(["trace", "info", str(TRACES / "dumpi-nbc-np4")]) == 0
    text = capsys.readouterr().out
    assert "matched messages" in text and "MPI_Wait" in text
    assert "nonblocking collectives" in text
    assert main(["trace", "info", str(TRACES / "nowhere")]) == 2
    assert "error:" in capsys.readouterr().err
