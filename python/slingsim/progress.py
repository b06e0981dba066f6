"""Progress bars for long simulations and sweeps, drawn by tqdm.

A bar shows done/total, rate and ETA. It appears only where someone can see
it (stderr is a terminal, or a Jupyter notebook, where tqdm draws a widget
when ``ipywidgets`` is installed: ``pip install 'slingsim[notebook]'``) and
only once the work has taken ``DELAY_S`` seconds (``SLINGSIM_PROGRESS_DELAY_S``
sets another), so quick runs print nothing. ``SLINGSIM_PROGRESS=1`` draws bars even where stderr is not a terminal
(e.g. into a log file), ``SLINGSIM_PROGRESS=0`` hides them; the command
line's ``--quiet`` and the API's ``progress=False`` turn them off whatever
the environment says. tqdm is imported only when a bar is
made.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Optional, TextIO

FORCE_ENV = "SLINGSIM_PROGRESS"
"""Set to ``1`` to show progress bars even when stderr is not a terminal (``0`` hides them)."""

DELAY_S = 2.0
"""Seconds of work before a bar appears, unless ``SLINGSIM_PROGRESS_DELAY_S`` says otherwise."""

DELAY_ENV = "SLINGSIM_PROGRESS_DELAY_S"
"""Seconds of work before a bar appears (0: at once), for logs that should show every run's bar."""


def delay_setting() -> float:
    """``SLINGSIM_PROGRESS_DELAY_S`` if set, else ``DELAY_S``; a value that is not a number of seconds (0 or
    more) is an error naming the variable."""
    text = os.environ.get(DELAY_ENV)
    if text is None or text == "":
        return DELAY_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0.0 or value == float("inf"):
        raise ValueError(f"{DELAY_ENV}={text!r} is not a number of seconds; give 0 or more (default {DELAY_S:g})")
    return value


def bar_setting(requested: bool) -> Optional[bool]:
    """tqdm's ``disable`` for a bar that was ``requested`` or not: True (hidden),
    False (forced on) or None (tqdm decides: shown on a terminal or in a notebook)."""
    if not requested:
        return True
    forced = os.environ.get(FORCE_ENV)
    if forced is not None:
        return forced in ("", "0")
    return None


def _visible(stream: Optional[TextIO]) -> bool:
    """Whether a bar on ``stream`` (default stderr) can be seen: a terminal, or a Jupyter kernel."""
    target = stream if stream is not None else sys.stderr
    return "ipykernel" in sys.modules or bool(getattr(target, "isatty", lambda: False)())


class Progress:
    """A bar counting ``total`` units of work, updated with the amount done so far.

    ``label`` names the work, ``unit`` its units; ``stream`` defaults to
    stderr. Use as a context manager so the bar is closed.
    """

    def __init__(
        self,
        total: float,
        label: str,
        unit: str = "it",
        enabled: bool = True,
        stream: Optional[TextIO] = None,
        delay_s: Optional[float] = None,
    ) -> None:
        self.total = total
        self._done: float = 0
        self._bar: Any = None
        disable = bar_setting(enabled)
        if disable is True or (disable is None and not _visible(stream)):
            return  # nobody would see it: no bar, and tqdm is not even imported
        if disable is None and "ipykernel" in sys.modules:
            disable = False  # a notebook's stderr is no terminal, yet someone watches it
        from tqdm.auto import tqdm

        delay = delay_setting() if delay_s is None else delay_s
        self._bar = tqdm(total=total, desc=label, unit=unit, disable=disable, file=stream, delay=delay,
                         dynamic_ncols=True, leave=True)

    @property
    def shown(self) -> bool:
        """Whether a bar may be drawn (not disabled)."""
        return self._bar is not None and not self._bar.disable

    def update(self, done: float) -> None:
        """Record that ``done`` of ``total`` units are complete."""
        done = min(done, self.total)
        if self._bar is not None and done > self._done:
            self._bar.update(done - self._done)
        self._done = max(done, self._done)

    def note(self, text: str) -> None:
        """Show ``text`` after the bar (e.g. how many runs came from the store)."""
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=False)

    def close(self) -> None:
        """Finish the bar (a bar that never appeared prints nothing)."""
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


ProgressBar = Progress
"""Earlier name of :class:`Progress` (same arguments, by keyword), kept for existing callers."""
