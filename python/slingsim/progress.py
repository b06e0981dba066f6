"""A minimal progress bar on stderr for long simulations and sweeps.

The bar appears only when it is useful: stderr is a terminal (or the
environment variable ``SLINGSIM_PROGRESS=1`` forces it) and the work has
already taken longer than ``delay_s``, so quick runs print nothing.
"""
from __future__ import annotations

import os
import sys
import time
from typing import Optional, TextIO

FORCE_ENV = "SLINGSIM_PROGRESS"
"""Set to ``1`` to show progress bars even when stderr is not a terminal (``0`` hides them)."""


def progress_wanted(requested: bool, stream: TextIO) -> bool:
    """Whether to draw: requested by the caller, and stderr is a TTY unless the environment forces a choice."""
    forced = os.environ.get(FORCE_ENV)
    if forced is not None:
        return forced not in ("", "0")
    return requested and hasattr(stream, "isatty") and stream.isatty()


class ProgressBar:
    """A one-line bar ``label [#####.....] 42% 3.1s`` redrawn in place, at most ten times a second."""

    def __init__(
        self,
        total: float,
        label: str,
        enabled: bool = True,
        stream: Optional[TextIO] = None,
        delay_s: float = 2.0,
        width: int = 30,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = max(float(total), 1e-12)
        self.label = label
        self.enabled = progress_wanted(enabled, self.stream)
        self.delay_s = delay_s
        self.width = width
        self.started = time.monotonic()
        self._last_draw = 0.0
        self._drawn = False
        self._done = 0.0

    def update(self, done: float) -> None:
        """Record that ``done`` out of ``total`` units are complete and redraw if due."""
        self._done = min(float(done), self.total)
        now = time.monotonic()
        if not self.enabled or now - self.started < self.delay_s:
            return
        if self._drawn and now - self._last_draw < 0.1 and self._done < self.total:
            return
        self._draw(now)

    def _draw(self, now: float) -> None:
        fraction = self._done / self.total
        filled = int(round(fraction * self.width))
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {fraction:4.0%} {now - self.started:6.1f}s")
        self.stream.flush()
        self._drawn = True
        self._last_draw = now

    def close(self) -> None:
        """Draw the final state and end the line (only if the bar was ever shown)."""
        if self._drawn:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
