"""The ``slingsim`` command line: JSON output keys, files, help texts and error handling."""
import json
import subprocess
import sys

import pytest

from slingsim.cli import build_parser, main

from conftest import SHORT_WINDOW, SMALL

SETS = [arg for item in SHORT_WINDOW for arg in ("--set", item)]

RUN_KEYS = ("sim_time_ns", "wall_s", "events", "packet_hops", "packets_delivered", "bytes_delivered",
            "offered_load", "accepted_load", "latency_ns", "hops_mean", "nonminimal_fraction", "traffic")
SOURCE_KEYS = ("offered_load", "accepted_load", "latency_ns", "hops_mean", "nonminimal_fraction")
TOPO_KEYS = ("endpoints", "switches", "links", "diameter", "avg_min_hops", "global_bw_Bps",
             "bisection_bw_Bps", "alltoall_peak_Bps")


def test_run_json_prints_one_object_with_the_issue_keys(capsys):
    assert main(["run", "examples/incast-mix", *SETS, "--seed", "3", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    for key in RUN_KEYS:
        assert key in summary, key
    assert set(summary["latency_ns"]) >= {"mean", "p50", "p99", "p999"}
    assert set(summary["traffic"]) == {"victim", "aggressor"}
    for figures in summary["traffic"].values():
        for key in SOURCE_KEYS:
            assert key in figures, key


def test_run_without_drops_a_source_and_out_writes_files(tmp_path, capsys):
    out = tmp_path / "baseline"
    assert main(["run", "examples/incast-mix", *SETS, "--without", "aggressor", "--out", str(out), "--json"]) == 0
    assert list(json.loads(capsys.readouterr().out)["traffic"]) == ["victim"]
    for name in ("summary.json", "config.json", "packets.parquet", "links.parquet", "flows.parquet"):
        assert (out / name).is_file()


def test_run_prints_a_readable_table(capsys):
    assert main(["run", SMALL, *SETS]) == 0
    text = capsys.readouterr().out
    assert "(all)" in text and "uniform" in text and "p99 ns" in text


def test_topo_json_keys(capsys):
    assert main(["topo", SMALL, "--json"]) == 0
    topo = json.loads(capsys.readouterr().out)
    for key in TOPO_KEYS:
        assert key in topo, key
    assert set(topo["links"]) >= {"terminal", "local", "global"}
    assert main(["topo", SMALL, "--set", "topology.groups=5"]) == 0
    assert "endpoints" in capsys.readouterr().out


def test_sweep_load_writes_table_and_plot(tmp_path, capsys):
    out = tmp_path / "sweep"
    code = main(["sweep-load", SMALL, "--loads", "0.1,0.3", *SETS, "--scheduler", "sync", "--out", str(out), "--json"])
    assert code == 0
    points = json.loads(capsys.readouterr().out)["points"]
    assert [p["load"] for p in points] == [0.1, 0.3]
    assert (out / "sweep.parquet").is_file() and (out / "latency_vs_load.png").is_file()


@pytest.mark.parametrize("loads", ["0.1,abc", "-0.2", "0.1,-0.2"])
def test_sweep_load_rejects_bad_loads(loads, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["sweep-load", SMALL, f"--loads={loads}", "--scheduler", "sync"])
    assert exit_info.value.code == 2
    assert "--loads" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, field",
    [
        (["run", "slingshot-nope"], "slingshot-malbec"),
        (["run", SMALL, "--set", "routing.algorithm=zigzag"], "routing.algorithm"),
        (["run", SMALL, "--set", "traffic.uniform.load=-0.5"], "load"),
        (["run", SMALL, "--without", "nobody"], "uniform"),
        (["topo", SMALL, "--set", "topology.global_ports_per_switch=70"], "topology"),
    ],
)
def test_errors_print_one_line_and_exit_2(args, field, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and field in err
    assert "Traceback" not in err


def test_installed_command_reports_errors_without_traceback():
    done = subprocess.run([sys.executable, "-m", "slingsim.cli", "run", SMALL, "--set", "topology.groups=0"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "topology.groups" in done.stderr
    assert "Traceback" not in done.stderr


def test_help_describes_every_option():
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    assert set(subparsers) == {"run", "topo", "sweep-load", "demo", "bench", "experiment", "validate", "gpcnet", "trace",
                               "plot", "cache"}
    nested = [(f"{parent} {k}", v) for parent, dest in (("trace", "trace_command"), ("cache", "cache_command"))
              for k, v in next(a for a in subparsers[parent]._actions if a.dest == dest).choices.items()]
    for name, sub in [*subparsers.items(), *nested]:
        for action in sub._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help"
        assert sub.format_help()


def test_deadlock_lists_the_stuck_buffers_and_exits_3(monkeypatch, small_config, capsys):
    """The CLI's handling of a deadlocked run (the engine's watchdog is tested in Rust)."""
    import slingsim.api

    real = slingsim.api.run_summary(small_config)
    real.update(end_reason="deadlock", deadlock={"stuck_buffers": ["switch 3 port 7 vc 1: 5 packets"]})
    monkeypatch.setattr(slingsim.api, "run_summary", lambda *args, **kwargs: real)
    assert main(["run", SMALL, "--json"]) == 3
    captured = capsys.readouterr()
    assert json.loads(captured.out)["end_reason"] == "deadlock"
    assert "switch 3 port 7 vc 1" in captured.err


def test_run_of_flows_prints_completion_times(capsys):
    assert main(["run", "examples/permutation-flows"]) == 0
    text = capsys.readouterr().out
    assert "flows_done" in text and "fct p99 ns" in text and "permutation" in text


def test_a_run_printing_its_summary_imports_no_heavy_module():
    """Start-up is most of a small run's wall time: `slingsim run --json` (into a pipe,
    so no progress bar) needs neither pyarrow nor Dask nor matplotlib nor tqdm, so it
    must not import them, result store or not."""
    code = (
        "import sys; from slingsim.cli import main; "
        f"main(['run', 'examples/incast-mix', {', '.join(repr(a) for a in SETS)}, '--json']); "
        "heavy = sorted(m for m in ('pyarrow', 'dask', 'distributed', 'matplotlib', 'tqdm', 'pandas') "
        "if m in sys.modules); "
        "print(heavy, file=sys.stderr); sys.exit(1 if heavy else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
