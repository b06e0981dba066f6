"""Shared fixtures: short runs of the small example dragonfly keep every test fast."""
import os

import pytest

SMALL = "examples/small-dragonfly"
"""9 groups x 4 switches x 4 endpoints: 144 endpoints, one global link per group pair."""

SHORT_WINDOW = ["sim.warmup_ns=2000", "sim.duration_ns=5000"]
"""Overrides for runs that check plumbing, not physics."""


@pytest.fixture
def small_config():
    """The resolved small-dragonfly config with a short window."""
    from slingsim.config import apply_overrides, load_config

    return apply_overrides(load_config(SMALL), SHORT_WINDOW)


@pytest.fixture(autouse=True, scope="session")
def session_store(tmp_path_factory):
    """Every test (and every command it starts) uses a result store of its own
    session, never the user's ~/.cache/slingsim."""
    folder = tmp_path_factory.mktemp("result-store")
    previous = os.environ.get("SLINGSIM_CACHE")
    os.environ["SLINGSIM_CACHE"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("SLINGSIM_CACHE", None)
    else:
        os.environ["SLINGSIM_CACHE"] = previous


@pytest.fixture(autouse=True)
def figures_without_overlapping_text(monkeypatch):
    """Every figure a test saves is checked first: no text may overlap other text or another panel."""
    from matplotlib.figure import Figure

    from figure_layout import layout_problems

    real = Figure.savefig

    def checked_savefig(self, *args, **kwargs):
        problems = layout_problems(self)
        assert not problems, "; ".join(problems)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", checked_savefig)


def default_sigint() -> None:
    """``preexec_fn`` for a child a test interrupts with SIGINT. A background job of a script (``cmd &``
    without job control) starts with SIGINT ignored, and a Python started so installs no
    KeyboardInterrupt handler: the test would measure how it was launched, not slingsim."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
