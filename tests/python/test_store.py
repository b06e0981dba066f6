"""The result store: a repeated sweep is read, a SIGKILLed sweep resumes with only its missing
points, and a run killed while writing --out leaves the old or the new complete result."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import slingsim
from slingsim.cli import main
from slingsim.store import ResultStore, run_key

from conftest import SHORT_WINDOW, SMALL

SETS = [arg for item in SHORT_WINDOW for arg in ("--set", item)]


def _points(capsys):
    return json.loads(capsys.readouterr().out)["points"]


def test_a_repeated_sweep_reads_every_point_from_the_store_and_says_so(tmp_path, capsys):
    store = tmp_path / "store"
    args = ["sweep-load", SMALL, "--loads", "0.1,0.25,0.4", *SETS, "--scheduler", "sync", "--cache", str(store),
            "--out", str(tmp_path / "out"), "--json"]
    assert main(args) == 0
    first = capsys.readouterr()
    assert [p["cached"] for p in json.loads(first.out)["points"]] == [False, False, False]
    assert "0 of 3 runs read from the result store" in first.err
    assert main(args) == 0
    second = capsys.readouterr()
    points = json.loads(second.out)["points"]
    assert [p["cached"] for p in points] == [True, True, True]
    assert "3 of 3 runs read from the result store" in second.err and "0 simulated" in second.err
    assert [p["accepted_load"] for p in points] == [p["accepted_load"] for p in json.loads(first.out)["points"]]
    assert main([a for a in args if a not in ("--cache", str(store))] + ["--no-cache"]) == 0
    assert [p["cached"] for p in _points(capsys)] == [False, False, False]


def test_a_sweep_killed_halfway_resumes_with_only_the_missing_points(tmp_path):
    store = tmp_path / "store"
    loads = [round(0.05 * k, 2) for k in range(1, 9)]
    args = [sys.executable, "-m", "slingsim.cli", "sweep-load", SMALL, "--loads", ",".join(map(str, loads)),
            "--set", "sim.duration_ns=3e6", "--set", "sim.max_time_ns=1e9", "--scheduler", "sync",
            "--cache", str(store), "--out", str(tmp_path / "out"), "--json", "--quiet"]
    sweep = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while len(list(ResultStore(store).entries())) < 3 and time.monotonic() < deadline and sweep.poll() is None:
        time.sleep(0.05)
    os.kill(sweep.pid, signal.SIGKILL)
    sweep.wait()
    assert sweep.returncode == -signal.SIGKILL, "the sweep ended before it could be killed halfway"
    kept = len(list(ResultStore(store).entries()))
    assert 3 <= kept < len(loads)
    assert not (tmp_path / "out").exists(), "a killed sweep must not leave a partial output folder"
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    cached = [p["cached"] for p in json.loads(done.stdout)["points"]]
    assert sum(cached) == kept and cached[:kept] == [True] * kept  # serial: the first points finished first
    assert len(list(ResultStore(store).entries())) == len(loads)


KILL_AFTER_TWO_TABLES = textwrap.dedent("""
    import os, signal, sys
    import pyarrow.parquet as pq
    from slingsim.cli import main
    written = []
    real = pq.write_table
    def write_then_die(*args, **kwargs):
        real(*args, **kwargs)
        written.append(1)
        if len(written) == 2:
            os.kill(os.getpid(), signal.SIGKILL)
    pq.write_table = write_then_die
    sys.exit(main(sys.argv[1:]))
""")


def _complete_result(folder):
    """The seed of the complete result in ``folder``; fails if any file is missing or from another run."""
    from slingsim.result import TABLE_NAMES
    from slingsim.tables import read_provenance

    summary = json.loads((folder / "summary.json").read_text())
    config = json.loads((folder / "config.json").read_text())
    assert json.loads((folder / "provenance.json").read_text()) == summary["provenance"]
    assert config == summary["provenance"]["config"]
    for name in TABLE_NAMES:
        assert read_provenance(folder / f"{name}.parquet") == summary["provenance"], name
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["summary.json", "config.json", "provenance.json", *(f"{n}.parquet" for n in TABLE_NAMES)])
    return summary["seed"]


def test_a_run_killed_while_writing_out_leaves_the_previous_complete_result(tmp_path):
    out = tmp_path / "run"
    base = ["run", SMALL, *SETS, "--out", str(out), "--quiet", "--no-cache"]
    assert main([*base, "--seed", "1"]) == 0
    assert _complete_result(out) == 1
    killed = subprocess.run([sys.executable, "-c", KILL_AFTER_TWO_TABLES, *base, "--seed", "2"],
                            capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert _complete_result(out) == 1  # the old result, whole
    leftovers = [p.name for p in out.parent.iterdir() if p.name.startswith(".slingsim-staging-")]
    assert leftovers, "the killed writer's staging folder is what it left"
    assert main([*base, "--seed", "2"]) == 0
    assert _complete_result(out) == 2  # the new result, whole
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".slingsim-staging-")], "stale staging swept"


def test_out_refuses_a_folder_of_someone_elses_files_before_simulating(tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    assert main(["run", SMALL, *SETS, "--out", str(mine), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --out") and "provenance.json" in err
    assert (mine / "notes.txt").read_text() == "keep me"


def test_a_failed_write_keeps_the_old_folder(tmp_path):
    from slingsim.atomic import MARKER, staged_folder

    out = tmp_path / "out"
    with staged_folder(out) as staging:
        (staging / MARKER).write_text("{}")
        (staging / "a.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with staged_folder(out) as staging:
            (staging / "a.txt").write_text("new")
            raise RuntimeError("boom")
    assert (out / "a.txt").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_the_api_reads_a_stored_run_with_its_tables(tmp_path, small_config):
    store = ResultStore(tmp_path / "store")
    first = slingsim.run(small_config, cache=store, progress=False)
    again = slingsim.run(small_config, cache=store, progress=False)
    assert (first.summary["cached"], again.summary["cached"]) == (False, True)
    assert again.summary["key"] == run_key(slingsim.resolved_config(small_config)) == first.summary["key"]
    assert again.packets.equals(first.packets) and again.links.equals(first.links)
    assert again.config == first.config
    changed = slingsim.run(small_config, seed=9, cache=store, progress=False)
    assert changed.summary["cached"] is False and changed.summary["key"] != first.summary["key"]


def test_a_summary_only_entry_is_completed_when_tables_are_needed(tmp_path, small_config):
    store = ResultStore(tmp_path / "store")
    summary = slingsim.run_summary(small_config, cache=store, progress=False)
    assert not store.has_tables(summary["key"])
    result = slingsim.run(small_config, cache=store, progress=False)
    assert result.summary["cached"] is False and store.has_tables(summary["key"])


def test_identical_configs_in_one_study_run_once(tmp_path, small_config):
    from slingsim.sweep import run_summaries

    summaries = run_summaries([small_config, small_config], scheduler="sync", cache=tmp_path / "s", progress=False)
    assert summaries[0]["key"] == summaries[1]["key"]
    assert len(list(ResultStore(tmp_path / "s").entries())) == 1


def test_cache_info_and_clear(tmp_path, small_config, capsys):
    store = tmp_path / "store"
    slingsim.run_summary(small_config, cache=store, progress=False)
    assert main(["cache", "info", "--cache", str(store), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["runs"] == 1 and info["engines"] == {info["current_engine"]: 1} and info["bytes"] > 0
    assert main(["cache", "clear", "--cache", str(store)]) == 0
    assert "removed 1 runs" in capsys.readouterr().out
    assert main(["cache", "info", "--cache", str(store)]) == 0
    assert ": 0 runs" in capsys.readouterr().out


def test_bad_cache_arguments_are_explained(small_config, capsys):
    with pytest.raises(TypeError, match="cache"):
        slingsim.run(small_config, cache=3, progress=False)
    assert main(["run", SMALL, "--cache", "x", "--no-cache"]) == 2
    assert "--cache and --no-cache" in capsys.readouterr().err
