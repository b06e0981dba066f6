"""Engine reproducers of issue 15 and engine bugs the fuzz tests found, as regression tests.

Each test runs one reproducer in a child process with a time bound and
expects what issue 15 asks for: a clear error naming the field (exit status
2 and ``error: ...FIELD``) or a correct result, within seconds. A test the
engine does not pass yet is ``xfail(strict=True)``: a fix makes it pass,
strict xfail fails the run, and whoever fixed it removes the marker (and the
finding's region in ``engine_findings.py``, which the fuzz tests skip
meanwhile).
"""
from __future__ import annotations

import json
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import default_sigint
from fuzz_strategies import TRACE

SMALL = "examples/small-dragonfly"
SECONDS = 5.0
"""Time bound of one reproducer: a tiny run answers in well under a second."""


def slingsim(*argv: str, seconds: float = SECONDS):
    """Run ``slingsim ARGV`` in a child process; its exit status and stderr, or a failure on timeout."""
    code = "import sys; from slingsim.cli import main; sys.exit(main(sys.argv[1:]))"
    try:
        done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"slingsim {' '.join(argv)}: no answer within {seconds} s")
    assert "Traceback" not in done.stderr and "panicked" not in done.stderr, done.stderr
    assert done.returncode >= 0, f"killed by signal {-done.returncode}: {done.stderr[-2000:]}"
    return done.returncode, done.stderr, done.stdout


def refused(field: str, *argv: str) -> None:
    """The command exits with status 2 and an error naming ``field``."""
    status, err, _ = slingsim(*argv, "--no-cache", "--quiet")
    assert status == 2 and err.startswith("error: ") and field in err, (status, err)


def ended(*argv: str) -> dict:
    """The command ends (a result, or a clear error) within the time bound; the summary if it ran."""
    status, err, out = slingsim(*argv, "--no-cache", "--quiet", "--json")
    assert status in (0, 2, 3), (status, err)
    return json.loads(out) if status == 0 else {}


def engine_bug(reason: str):
    return pytest.mark.xfail(strict=True, reason=f"engine, issue 15: {reason}")


def test_a_link_of_one_bit_per_second_is_refused_not_an_abort():
    refused("links.bandwidth_bps", "run", SMALL, "--set", "links.bandwidth_bps=1", "--set", "sim.duration_ns=2000")


def test_a_nic_of_1e18_bits_per_second_is_refused_not_a_hang():
    refused("nic.bandwidth_bps", "run", SMALL, "--set", "nic.bandwidth_bps=1e18", "--set", "sim.duration_ns=2000")


def test_a_bit_error_rate_near_the_limit_ends_not_replays_forever():
    ended("run", SMALL, "--set", "links.bit_error_rate=9.9e-4", "--set", "sim.duration_ns=2000")


def test_a_watchdog_below_one_picosecond_is_refused_not_a_spin():
    refused("sim.watchdog_ns", "run", SMALL, "--set", "sim.watchdog_ns=5e-295", "--set", "sim.duration_ns=500")


def test_a_short_watchdog_reports_no_false_deadlock():
    status, err, out = slingsim("run", SMALL, "--set", "sim.watchdog_ns=5", "--set", "sim.duration_ns=2000",
                                "--no-cache", "--quiet", "--json")
    assert status == 2 and "sim.watchdog_ns" in err or status == 0 and json.loads(out)["end_reason"] != "deadlock"


def test_a_huge_ppn_is_refused_quickly():
    ended("run", SMALL, "--set", "traffic=[]", "--set", 'job=[{workload = "barrier", nodes = { count = 2 }, '
          'ppn = 100000}]')


def test_a_job_of_many_iterations_is_not_unrolled_into_memory():
    def at_most_1536_mb():
        resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))

    code = "import sys; from slingsim.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", code, "run", SMALL, "--no-cache", "--quiet", "--json", "--set",
                           "traffic=[]", "--set", "sim.max_time_ns=50000", "--set",
                           'job=[{workload = "barrier", nodes = { count = 4 }, iterations = 20000000}]'],
                          capture_output=True, text=True, timeout=SECONDS, preexec_fn=at_most_1536_mb)
    assert done.returncode == 0 or done.returncode == 2 and "iterations" in done.stderr, done.stderr[-500:]


@pytest.mark.parametrize("override, field", [
    ("sim.duration_ns=1e300", "sim.duration_ns"),
    ("sim.duration_ns=1e-300", "sim.duration_ns"),
    ("sim.warmup_ns=1e300", "sim.warmup_ns"),
    ("traffic.0.start_ns=1e300", "traffic[0].start_ns"),
])
def test_times_past_picosecond_range_are_refused_by_name(override, field):
    refused(field, "run", SMALL, "--set", override)


def test_a_negative_burst_gap_is_refused():
    refused("burst_gap_ns", "run", SMALL, "--set", "traffic=[]", "--set",
            'job=[{workload = "incast", nodes = { count = 4 }, burst_messages = 2, burst_gap_ns = -5}]')


def test_the_load_of_a_flow_source_is_checked():
    refused("traffic[0].load", "run", SMALL, "--set", "traffic.0.flow_bytes=4096", "--set", "traffic.0.load=7")


def test_a_meta_file_with_fewer_ranks_than_files_is_refused_or_warned(tmp_path):
    copy = tmp_path / "trace"
    shutil.copytree(TRACE, copy)
    meta = next(copy.glob("*.meta"))
    meta.write_text("".join(f"{line}\n" if not line.startswith("numprocs=") else "numprocs=4\n"
                            for line in meta.read_text().splitlines()))
    status, err, out = slingsim("trace", "info", str(copy), "--json")
    assert status == 2 and "numprocs" in err or status == 0 and any("numprocs" in w for w in json.loads(out)["warnings"])


def test_sigint_stops_a_long_run_within_a_second():
    code = "import sys; from slingsim.cli import main; sys.exit(main(sys.argv[1:]))"
    run = subprocess.Popen([sys.executable, "-c", code, "run", SMALL, "--set", "sim.duration_ns=1e9", "--no-cache",
                            "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           preexec_fn=default_sigint)
    time.sleep(2.0)  # past start-up, into the simulation
    run.send_signal(signal.SIGINT)
    try:
        _, err = run.communicate(timeout=1.0)
    except subprocess.TimeoutExpired:
        run.kill()
        run.communicate()
        pytest.fail("still running 1 s after SIGINT")
    assert run.returncode == 130 and "Traceback" not in err, err


def test_the_reproducers_use_the_checked_in_trace():
    assert (TRACE / "dumpi-2026.11.22.02.43.02.meta").is_file(), Path(TRACE)
