"""What produced a result: the record every output of slingsim carries.

A provenance record is a plain dict (see ``docs/results.md#provenance``):
``config`` (the resolved config, every default filled in), ``seed``,
``version`` (of slingsim), ``commit`` (git commit of the source, ``-dirty``
when it had uncommitted changes), ``engine`` (version and a hash of the
compiled engine, the store's notion of "same engine"), ``command`` (the
command line), ``started`` (UTC, ISO 8601) and ``platform`` (Python, OS,
machine, host). It goes into ``summary.json``, into the schema metadata of
every Parquet file (key ``slingsim.provenance``) and into every figure (a
caption line and PNG text chunks).
"""
from __future__ import annotations

import contextlib
import datetime
import functools
import hashlib
import json
import os
import platform
import shlex
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence

from . import _core

METADATA_KEY = "slingsim.provenance"
"""Key of the provenance JSON in a Parquet file's schema metadata and in a PNG's text chunks."""

VERSION = _core.version()
"""Version of slingsim (the Python package and the engine share it)."""


@functools.lru_cache(maxsize=None)
def source_commit() -> str:
    """Git commit of the slingsim source that runs: the live checkout for an
    editable install (``-dirty`` with uncommitted changes), else the commit
    the engine was built from, else ``unknown``."""
    package = Path(__file__).resolve().parent
    top = _git(package, "rev-parse", "--show-toplevel")
    if top and (Path(top) / "crates" / "slingsim-core").is_dir():
        head = _git(package, "rev-parse", "HEAD")
        if head:
            dirty = _git(package, "status", "--porcelain", "--untracked-files=no")
            return f"{head}-dirty" if dirty else head
    return _core.build_commit()


def _git(folder: Path, *args: str) -> Optional[str]:
    """Output of a git command in ``folder``, or None if git is missing or fails."""
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@functools.lru_cache(maxsize=None)
def engine_build() -> str:
    """The engine's version and the first 16 hex digits of the SHA-256 of its
    compiled module: two builds that could simulate differently differ here."""
    digest = hashlib.sha256()
    with open(_core.__file__, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return f"{VERSION}+{digest.hexdigest()[:16]}"


@functools.lru_cache(maxsize=None)
def platform_info() -> Dict[str, Any]:
    """Where a run ran: Python version, OS, machine, host name, usable cores."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "python": platform.python_version(),
        "system": platform.platform(),
        "machine": platform.machine(),
        "host": socket.gethostname(),
        "cores": cores,
    }


_INVOKED_AS: Optional[List[str]] = None
"""The ``slingsim`` command being run by :func:`slingsim.cli.main`, when it was given its arguments."""


@contextlib.contextmanager
def invoked_as(argv: Sequence[str]) -> Iterator[None]:
    """Within the block, the command line of this process is ``slingsim ARGV...``
    (for ``slingsim.cli.main(argv)`` called from Python, where ``sys.argv`` is the caller's)."""
    global _INVOKED_AS
    previous, _INVOKED_AS = _INVOKED_AS, ["slingsim", *argv]
    try:
        yield
    finally:
        _INVOKED_AS = previous


def command_line(argv: Optional[Sequence[str]] = None) -> str:
    """The command line of this process (``sys.argv``, or the command :func:`invoked_as`
    names), shell-quoted; the ``slingsim`` entry point is shown by its name, not its path."""
    args = list(argv if argv is not None else _INVOKED_AS or sys.argv)
    if args and Path(args[0]).name in ("slingsim", "slingsim.exe"):
        args[0] = "slingsim"
    return shlex.join(args) if args else ""


def now() -> str:
    """The current time, UTC, ISO 8601 to the second (``2025-01-31T12:00:00Z``)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def record(config: Dict[str, Any], started: str, command: Optional[str] = None) -> Dict[str, Any]:
    """The provenance of one run of the resolved ``config`` started at ``started``."""
    return {
        "version": VERSION,
        "commit": source_commit(),
        "engine": engine_build(),
        "seed": config.get("sim", {}).get("seed"),
        "command": command if command is not None else command_line(),
        "started": started,
        "platform": platform_info(),
        "config": config,
    }


def study_record(
    runs: Iterable[Dict[str, Any]],
    started: str,
    command: Optional[str] = None,
    parameters: Optional[Dict[str, Any]] = None,
) -> Dict[str, Any]:
    """The provenance of a study (a sweep or an experiment): this command's
    own record plus every run's ``{key, seed, cached, config}``.

    ``runs`` are the runs' summaries (each carries its ``provenance``, its
    store ``key`` and ``cached``); ``parameters`` are the study's own
    settings (e.g. ``{"quick": True}``).
    """
    listed: List[Dict[str, Any]] = []
    seen = set()
    for summary in runs:
        prov = summary.get("provenance", {})
        key = summary.get("key")
        if key in seen:
            continue
        seen.add(key)
        listed.append({"key": key, "seed": prov.get("seed"), "cached": summary.get("cached", False),
                       "config": prov.get("config")})
    return {
        "version": VERSION,
        "commit": source_commit(),
        "engine": engine_build(),
        "seed": sorted({run["seed"] for run in listed if run["seed"] is not None}),
        "command": command if command is not None else command_line(),
        "started": started,
        "platform": platform_info(),
        "parameters": parameters or {},
        "runs": listed,
    }


def as_json(prov: Dict[str, Any]) -> str:
    """Provenance as compact JSON text (for Parquet and PNG metadata)."""
    return json.dumps(prov, separators=(",", ":"))


def caption(prov: Dict[str, Any]) -> str:
    """One line for the foot of a figure: version, commit, seed(s), start time and command."""
    commit = str(prov.get("commit", "unknown"))
    short = commit[:10] + ("-dirty" if commit.endswith("-dirty") else "")
    seed = prov.get("seed")
    seeds = ",".join(str(s) for s in seed) if isinstance(seed, list) else str(seed)
    command = prov.get("command", "")
    if len(command) > 90:
        command = command[:87] + "..."
    return f"slingsim {prov.get('version')} ({short}), seed {seeds}, {prov.get('started')}: {command}"
