"""Progress bars (tqdm) appear only where someone can see them, only for long work, and never with --quiet."""
import io
import subprocess
import sys

import pytest

from slingsim.progress import DELAY_ENV, DELAY_S, FORCE_ENV, Progress, delay_setting

from conftest import SMALL


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_hidden_when_not_a_terminal(monkeypatch):
    monkeypatch.delenv(FORCE_ENV, raising=False)
    stream = io.StringIO()
    with Progress(10, "work", stream=stream, delay_s=0) as bar:
        bar.update(5)
    assert stream.getvalue() == ""


def test_drawn_on_a_terminal_with_rate_and_eta(monkeypatch):
    monkeypatch.delenv(FORCE_ENV, raising=False)
    stream = FakeTerminal()
    with Progress(10, "work", unit="run", stream=stream, delay_s=0) as bar:
        bar.update(5)
        bar.note("3 from the store")
        bar.update(10)
    text = stream.getvalue()
    assert "work" in text and "100%" in text and "10/10" in text
    assert "run/s" in text and "<" in text  # rate, and elapsed<remaining
    assert "3 from the store" in text


def test_quick_work_prints_nothing_even_on_a_terminal(monkeypatch):
    monkeypatch.delenv(FORCE_ENV, raising=False)
    stream = FakeTerminal()
    with Progress(10, "work", stream=stream, delay_s=60) as bar:
        bar.update(10)
    assert stream.getvalue() == ""


def test_environment_forces_or_hides_but_never_overrides_a_refusal(monkeypatch):
    monkeypatch.setenv(FORCE_ENV, "1")
    stream = io.StringIO()
    with Progress(4, "forced", stream=stream, delay_s=0) as bar:
        bar.update(2)
    assert "forced" in stream.getvalue()
    stream = io.StringIO()
    with Progress(4, "refused", stream=stream, delay_s=0, enabled=False) as bar:
        bar.update(2)
    assert stream.getvalue() == ""
    monkeypatch.setenv(FORCE_ENV, "0")
    stream = FakeTerminal()
    with Progress(4, "hidden", stream=stream, delay_s=0) as bar:
        bar.update(2)
    assert stream.getvalue() == ""


def _run_cli(args, env_extra):
    import os

    env = {**os.environ, **env_extra}
    return subprocess.run([sys.executable, "-m", "slingsim.cli", *args], capture_output=True, text=True, env=env)


def test_a_run_past_the_delay_shows_a_bar_and_quiet_hides_it(tmp_path):
    """A run longer than the bar's delay draws a bar (forced here, stderr being a pipe; the delay set to 0
    so the test does not depend on how fast this machine simulates); --quiet draws none."""
    args = ["run", SMALL, "--set", "sim.duration_ns=2e6", "--set", "sim.max_time_ns=1e9", "--no-cache", "--json"]
    shown = _run_cli(args, {FORCE_ENV: "1", DELAY_ENV: "0"})
    assert shown.returncode == 0, shown.stderr
    assert "simulating" in shown.stderr and "us/s" in shown.stderr
    hidden = _run_cli([*args, "--quiet"], {FORCE_ENV: "1", DELAY_ENV: "0"})
    assert hidden.returncode == 0 and hidden.stderr == ""


def test_the_delay_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(DELAY_ENV, raising=False)
    assert delay_setting() == DELAY_S
    monkeypatch.setenv(DELAY_ENV, "0.5")
    assert delay_setting() == 0.5
    for bad in ("soon", "-1", "nan", "inf"):
        monkeypatch.setenv(DELAY_ENV, bad)
        with pytest.raises(ValueError, match="SLINGSIM_PROGRESS_DELAY_S.*give 0 or more"):
            delay_setting()


def test_a_notebook_shows_a_bar_though_its_stderr_is_no_terminal(monkeypatch):
    import types

    monkeypatch.delenv(FORCE_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    stream = io.StringIO()
    with Progress(4, "in a notebook", stream=stream, delay_s=0) as bar:
        bar.update(4)
    assert "in a notebook" in stream.getvalue() and "4/4" in stream.getvalue()
