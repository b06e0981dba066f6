"""A child process that runs fuzz cases for :mod:`fuzz_harness`, one after another.

Cases arrive on stdin as length-prefixed pickles and each outcome goes back
the same way on stdout, so the interpreter and slingsim are imported once
for hundreds of cases while a panic, an abort or a hang still takes down
only this process (the harness then starts a new one). A case is a dict:

- ``{"kind": "cli", "argv": [...]}``: ``slingsim.cli.main(argv)`` with its
  output captured; the outcome has ``exit``, ``stderr`` and ``stdout``;
- ``{"kind": "api", "steps": [(name, args, kwargs), ...]}``: calls in order,
  ``"Simulation"`` building the simulation later steps call methods of (any
  other name is a function of ``slingsim``); the outcome has ``steps`` done
  and ``error`` (the exception's type and message) if one was raised;
- ``{"kind": "probe", "do": "abort" | "sleep" | "raise"}``: misbehaves on
  purpose, so the harness's own tests see it catch each failure.

Any exception is caught and returned with its traceback (``unexpected``),
so the harness can tell a clear error from a traceback.
"""
from __future__ import annotations

import contextlib
import io
import os
import pickle
import struct
import sys
import traceback


def read_frame(stream):
    """One length-prefixed pickle from ``stream``, or None at its end."""
    head = stream.read(8)
    if len(head) < 8:
        return None
    (size,) = struct.unpack("<Q", head)
    return pickle.loads(stream.read(size))


def write_frame(stream, obj) -> None:
    """Write ``obj`` as a length-prefixed pickle and flush."""
    data = pickle.dumps(obj)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def run_cli(argv):
    from slingsim.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as done:  # argparse's own errors and --help
            status = done.code if isinstance(done.code, int) else 2
    return {"exit": status, "stdout": out.getvalue()[-2000:], "stderr": err.getvalue()[-4000:]}


def run_api(steps):
    import slingsim

    sim = None
    done = 0
    try:
        for name, args, kwargs in steps:
            if name == "Simulation":
                sim = slingsim.Simulation(*args, **kwargs)
            elif sim is not None and hasattr(slingsim.Simulation, name):
                getattr(sim, name)(*args, **kwargs)
            else:
                getattr(slingsim, name)(*args, **kwargs)
            done += 1
    except (slingsim.ConfigError, OSError) as err:
        return {"steps": done, "error": (type(err).__name__, str(err))}
    return {"steps": done, "error": None}


def probe(action: str):
    """Fail the way an engine bug would: die, hang, or raise something unclear."""
    if action == "abort":
        os.abort()
    if action == "sleep":
        import time

        time.sleep(3600)
    raise RuntimeError("not a clear error")


def main() -> None:
    source, sink = sys.stdin.buffer, os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr  # nothing but frames goes to the harness's pipe
    while True:
        case = read_frame(source)
        if case is None:
            return
        try:
            if case["kind"] == "probe":
                outcome = probe(case["do"])
            else:
                outcome = run_cli(case["argv"]) if case["kind"] == "cli" else run_api(case["steps"])
        except BaseException:  # noqa: BLE001 - everything else is what the fuzz tests look for
            outcome = {"unexpected": traceback.format_exc()[-4000:]}
        write_frame(sink, outcome)


if __name__ == "__main__":
    main()
