"""Running fuzz cases with a time bound, and judging how each ended.

A :class:`Worker` is a child process (``fuzz_worker.py``) that runs cases
one after another; when a case does not answer within its time bound the
worker is killed and the case is a hang, and when the worker dies (a Rust
panic that aborts, a failed allocation, a segfault) the case is a crash.
Either way the next case gets a fresh worker. :func:`verdict` says whether
an outcome is what issue 15 allows: a result or a clear error
(``ConfigError``, ``OSError``, or the CLI's ``error:`` line with exit status
2), never a panic, an abort, a hang or a traceback.
"""
from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, Optional

from fuzz_worker import read_frame, write_frame

WORKER = Path(__file__).with_name("fuzz_worker.py")

CASE_SECONDS = 10.0
"""Time bound of one case: issue 15 asks for a result or a clear error within 10 s."""

FUZZ_CASES_VARIABLE = "SLINGSIM_FUZZ_CASES"
"""Environment variable with the total number of cases of the slow fuzz tests."""


def slow_cases(share: int) -> int:
    """Cases of one of ``share`` slow fuzz tests: ``SLINGSIM_FUZZ_CASES`` (default 2,000) split evenly."""
    return max(1, int(os.environ.get(FUZZ_CASES_VARIABLE, "2000")) // share)


class Worker:
    """A child process running fuzz cases; restarted after a crash or a hang."""

    def __init__(self, env: Optional[Dict[str, str]] = None) -> None:
        self.env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join(
            [str(WORKER.parent), os.environ.get("PYTHONPATH", "")])}
        self.process: Optional[subprocess.Popen] = None
        self.stderr = tempfile.TemporaryFile()

    def start(self) -> None:
        self.stderr.seek(0)
        self.stderr.truncate()
        self.process = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.stderr, env=self.env)

    def run(self, case: Dict[str, Any], seconds: float = CASE_SECONDS) -> Dict[str, Any]:
        """The outcome of ``case``: the worker's answer, or ``{"hang": seconds}`` or
        ``{"crash": status, "stderr": ...}``."""
        if self.process is None or self.process.poll() is not None:
            self.start()
        try:
            write_frame(self.process.stdin, case)
        except BrokenPipeError:
            return self._crashed()
        ready, _, _ = select.select([self.process.stdout], [], [], seconds)
        if not ready:
            self.stop()
            return {"hang": seconds}
        answer = read_frame(self.process.stdout)
        return answer if answer is not None else self._crashed()

    def _crashed(self) -> Dict[str, Any]:
        status = self.process.wait()
        self.stderr.seek(0)
        text = self.stderr.read().decode(errors="replace")[-3000:]
        self.process = None
        return {"crash": status, "stderr": text}

    def stop(self) -> None:
        """End the worker (it is killed: a hung engine does not answer to anything gentler)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.stop()
        self.process = None
        self.stderr.close()


def verdict(outcome: Dict[str, Any]) -> Optional[str]:
    """None when ``outcome`` is a result or a clear error, else what went wrong."""
    if "hang" in outcome:
        return f"no answer within {outcome['hang']} s (hang)"
    if "crash" in outcome:
        return f"the process died with status {outcome['crash']} (panic, abort or signal): {outcome['stderr']}"
    if "unexpected" in outcome:
        return f"an exception that is not a clear error:\n{outcome['unexpected']}"
    if "exit" in outcome:
        status, err = outcome["exit"], outcome["stderr"]
        if "Traceback" in err or "panicked" in err:
            return f"exit {status} with a traceback or panic on stderr: {err}"
        if status == 2 and "error:" not in err:
            return f"exit 2 without an error: line: {err!r}"
        if status not in (0, 2, 3):
            return f"exit status {status}: {err}"
        return None
    return None


def check(outcome: Dict[str, Any], case: Dict[str, Any]) -> None:
    """Fail the test with the case and what went wrong unless ``outcome`` is allowed."""
    problem = verdict(outcome)
    assert problem is None, f"{problem}\ncase: {case_text(case)}"


def case_text(case: Dict[str, Any]) -> str:
    """A case as a reproducer: the command line, or the API calls."""
    if case["kind"] == "cli":
        return "slingsim " + " ".join(_quoted(a) for a in case["argv"])
    calls = []
    for name, args, kwargs in case["steps"]:
        parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
        calls.append(f"{name}({', '.join(parts)})")
    return "; ".join(calls)


def _quoted(arg: str) -> str:
    return arg if arg and all(c.isalnum() or c in "-_./=:," for c in arg) else repr(arg)

