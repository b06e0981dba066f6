"""Ctrl-C stops any run promptly and leaves no partial output (issue 15)."""
import signal
import subprocess
import sys
import time

from conftest import default_sigint


def test_sigint_stops_a_long_run_within_a_second(tmp_path):
    out = tmp_path / "result"
    cmd = [sys.executable, "-m", "slingsim.cli", "run", "examples/small-dragonfly", "--no-cache",
           "--set", "sim.duration_ns=1e9", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    time.sleep(3.0)  # well into the simulation (its build takes milliseconds)
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=5)
    finally:
        proc.kill()
    took = time.monotonic() - sent
    assert took < 1.0, f"took {took:.2f} s to stop"
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert not out.exists(), "an interrupted run wrote its output folder"


def test_a_wall_time_limit_ends_a_run_and_says_so():
    import slingsim

    started = time.monotonic()
    result = slingsim.run("examples/small-dragonfly", overrides=["sim.duration_ns=1e9", "sim.wall_limit_s=0.3"], cache=False)
    assert time.monotonic() - started < 5
    assert result.summary["end_reason"] == "wall_limit"
