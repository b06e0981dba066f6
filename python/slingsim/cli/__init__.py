"""The ``slingsim`` command line: run, topo, sweep-load, experiment, demo, gpcnet, bench, trace,
plot and cache (see ``docs/cli.md``).

Exit status: 0 on success, 2 for a bad config, argument or missing file
(``error: ...`` on stderr, no traceback; a refused config field is named with
the file and line, or the ``--set``, that set it), 3 when a run ended in
deadlock (the stuck buffers are printed), 1 for other failures (a batch
cluster that never started, a disk that filled up), 141 (128 + SIGPIPE),
silently, when the reader of the output went away (``slingsim ... | head``).

This module runs a command and turns its errors into those statuses; the
rest of the package: ``parser.py`` (every subcommand's options),
``arguments.py`` (the option types and options several subcommands share),
``one_config.py``, ``studies.py`` and ``files.py`` (the commands themselves),
``exit_status.py`` (the statuses' numbers).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Dict, List, Optional

# Subcommands import the heavy modules (pyarrow, matplotlib, Dask) only when
# they run, so `slingsim --help` and argument errors answer instantly.
from .exit_status import EXIT_BROKEN_PIPE, EXIT_DEADLOCK, EXIT_INTERRUPTED, EXIT_USAGE
from .files import cmd_cache, cmd_plot, cmd_trace
from .one_config import cmd_run, cmd_sweep_load, cmd_topo
from .parser import build_parser
from .studies import cmd_bench, cmd_demo, cmd_experiment, cmd_gpcnet, cmd_validate

__all__ = ["main", "build_parser", "COMMANDS",
           "EXIT_USAGE", "EXIT_DEADLOCK", "EXIT_INTERRUPTED", "EXIT_BROKEN_PIPE"]

COMMANDS: Dict[str, Callable[[argparse.Namespace], int]] = {
    "run": cmd_run, "topo": cmd_topo, "sweep-load": cmd_sweep_load, "demo": cmd_demo, "bench": cmd_bench,
    "experiment": cmd_experiment, "validate": cmd_validate, "gpcnet": cmd_gpcnet, "trace": cmd_trace,
    "plot": cmd_plot, "cache": cmd_cache}
"""Each subcommand's name and the function that runs it."""


def main(argv: Optional[List[str]] = None) -> int:
    """Parse arguments, run the subcommand, and map errors to ``error: ...`` (exit 2 for bad input, 1 otherwise);
    a closed output pipe ends the command quietly with status 141, as it ends other Unix tools."""
    from ..origins import CLI, SPELLING

    spelling = SPELLING.set(CLI)
    try:
        try:
            return _run_command(argv)
        finally:
            sys.stdout.flush()  # here, not at exit, so a closed pipe is caught below
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    finally:
        SPELLING.reset(spelling)


def _run_command(argv: Optional[List[str]]) -> int:
    """Parse the arguments and run the subcommand, errors as ``error: ...`` lines."""
    args = build_parser().parse_args(argv)
    try:
        try:
            if argv is None:
                return COMMANDS[args.command](args)
            from ..provenance import invoked_as

            with invoked_as(argv):
                return COMMANDS[args.command](args)
        except ValueError as err:
            raise _traced(err, args) from None
    except BrokenPipeError:
        raise
    except (ValueError, FileNotFoundError, FileExistsError, NotADirectoryError, IsADirectoryError) as err:
        print(f"error: {_message(err)}", file=sys.stderr)
        return EXIT_USAGE
    except (RuntimeError, OSError, ImportError) as err:
        print(f"error: {_message(err)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _traced(err: ValueError, args: argparse.Namespace) -> ValueError:
    """A config error not yet traced to what the user wrote (it came through a
    resolved config, as in a sweep), traced through the command's own config,
    ``--set``, ``--without`` and ``--seed``."""
    from ..config import ConfigError, resolve_traced

    config = getattr(args, "config", None) or getattr(args, "system", None)
    if not isinstance(err, ConfigError) or err.origin is not None or not err.field or config is None:
        return err
    try:
        _, sources = resolve_traced(config, args.overrides if hasattr(args, "overrides") else (),
                                    getattr(args, "without", ()), getattr(args, "seed", None))
    except (ValueError, OSError):
        return err
    return sources.explain(err)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush of a closed pipe raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _message(err: BaseException) -> str:
    """An exception's text without Python's ``[Errno N]`` prefix (the message already says what is wrong)."""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return str(err)
