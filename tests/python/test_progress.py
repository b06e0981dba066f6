"""The stderr progress bar draws only on a terminal (or when forced) and only for long work."""
import io

from slingsim.progress import FORCE_ENV, ProgressBar


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_hidden_when_not_a_terminal(monkeypatch):
    monkeypatch.delenv(FORCE_ENV, raising=False)
    stream = io.StringIO()
    with ProgressBar(10, "work", stream=stream, delay_s=0) as bar:
        bar.update(5)
    assert stream.getvalue() == ""


def test_drawn_on_a_terminal_after_the_delay(monkeypatch):
    monkeypatch.delenv(FORCE_ENV, raising=False)
    stream = FakeTerminal()
    with ProgressBar(10, "work", stream=stream, delay_s=0) as bar:
        bar.update(5)
        bar.update(10)
    text = stream.getvalue()
    assert "work [" in text and "100%" in text and text.endswith("\n")


def test_quick_work_prints_nothing_even_on_a_terminal(monkeypatch):
    monkeypatch.delenv(FORCE_ENV, raising=False)
    stream = FakeTerminal()
    with ProgressBar(10, "work", stream=stream, delay_s=60) as bar:
        bar.update(10)
    assert stream.getvalue() == ""


def test_environment_forces_or_hides(monkeypatch):
    monkeypatch.setenv(FORCE_ENV, "1")
    stream = io.StringIO()
    with ProgressBar(4, "forced", stream=stream, delay_s=0, enabled=False) as bar:
        bar.update(2)
    assert "forced" in stream.getvalue()
    monkeypatch.setenv(FORCE_ENV, "0")
    stream = FakeTerminal()
    with ProgressBar(4, "hidden", stream=stream, delay_s=0) as bar:
        bar.update(2)
    assert stream.getvalue() == ""
