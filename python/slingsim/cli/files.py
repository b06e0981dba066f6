"""The commands on files, which simulate nothing: ``plot`` (a run's result
folder), ``cache`` (the result store) and ``trace`` (MPI traces, read or
written)."""
from __future__ import annotations

import argparse
import json
import sys


def cmd_plot(args: argparse.Namespace) -> int:
    """``slingsim plot RESULT_DIR``: link utilisation, global-link heatmap and delivery timeline of a run."""
    from ..result_plots import plot_result

    for path in plot_result(args.result, args.out):
        print(f"wrote {path}")
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    """``slingsim cache info|clear``: the result store."""
    from ..store import ResultStore

    store = ResultStore(args.cache)
    if args.cache_command == "clear":
        removed = store.clear()
        print(json.dumps(removed) if args.json else
              f"removed {removed['runs']} runs ({removed['bytes'] / 1e6:.1f} MB) from {store.root}")
        return 0
    info = store.info()
    if args.json:
        print(json.dumps(info))
        return 0
    print(f"result store {info['root']}: {info['runs']} runs ({info['with_tables']} with tables), "
          f"{info['bytes'] / 1e6:.1f} MB")
    for engine, runs in sorted(info["engines"].items()):
        mark = "  (this engine)" if engine == info["current_engine"] else ""
        print(f"  engine {engine}: {runs} runs{mark}")
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    """``slingsim trace info``: a trace's summary; ``slingsim trace write``: a workload as a DUMPI trace."""
    if args.trace_command == "write":
        return cmd_trace_write(args)
    from ..report import trace_info_text
    from ..trace import info

    try:
        summary = info(args.trace)
    except ImportError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    keys = ("ranks", "calls", "bytes", "matched_messages", "unmatched_messages", "warnings")
    if args.json:
        print(json.dumps({key: summary[key] for key in keys}))
    else:
        print(trace_info_text(summary, f"trace {args.trace}"))
    return 0


def cmd_trace_write(args: argparse.Namespace) -> int:
    """``slingsim trace write WORKLOAD OUT --ranks N``: a generated workload as a DUMPI trace."""
    from ..config import ConfigError, parse_value
    from ..trace import workload_program, write_dumpi

    params = {}
    for item in args.params:
        key, sep, text = item.partition("=")
        if not sep or not key.strip() or not text.strip():
            raise ConfigError(f"--param {item!r}: expected KEY=VALUE, e.g. n=50")
        params[key.strip()] = parse_value(text.strip())
    program = workload_program(args.workload, args.ranks, args.iterations, params, args.seed)
    written = write_dumpi(program, args.out, args.prefix or args.workload)
    if args.json:
        print(json.dumps({**written, "ranks": program["ranks"]}))
        return 0
    calls = sum(written["calls"].values())
    print(f"wrote {written['meta']}: {program['ranks']} ranks, {calls:,} MPI calls "
          f"({', '.join(f'{k} {v:,}' for k, v in sorted(written['calls'].items()))})")
    for kind, n in sorted(written["left_out"].items()):
        print(f"left out: {n:,} {kind} operations (no MPI call; a replay of the trace has no iteration marks)")
    return 0
