"""The commands on one config: ``run`` (one simulation), ``topo`` (its
topology's analytics) and ``sweep-load`` (it at several offered loads)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .arguments import scheduler_of, store_of
from .exit_status import EXIT_DEADLOCK


def cmd_run(args: argparse.Namespace) -> int:
    """``slingsim run``: one simulation, summary to stdout, files to --out."""
    from .. import api
    from ..report import deadlock_text, summary_text

    progress, cache = not args.quiet, store_of(args)
    if args.out:
        from ..atomic import check_replaceable

        check_replaceable(args.out)  # before simulating, not after
        result = api.run(args.config, args.overrides, args.without, args.seed, progress=progress, cache=cache)
        summary = result.summary
    else:
        summary = api.run_summary(args.config, args.overrides, args.without, args.seed, progress=progress,
                                  cache=cache)
    for job in args.impact:
        from ..jobs import impact, isolate

        alone = api.run_summary(isolate(summary["provenance"]["config"], job), progress=progress, cache=cache)
        summary["jobs"][job]["congestion_impact"] = impact(alone, summary, job)
    if args.out:
        result.write(args.out)
        if not args.quiet:
            print(f"wrote {args.out}", file=sys.stderr)
    if args.json:
        print(json.dumps(summary))
    else:
        print(summary_text(summary, f"run {args.config}"))
    if summary["end_reason"] == "deadlock":
        print(deadlock_text(summary), file=sys.stderr)
        return EXIT_DEADLOCK
    return 0


def cmd_topo(args: argparse.Namespace) -> int:
    """``slingsim topo``: analytics of a config's topology."""
    from ..api import topology, validate
    from ..report import deadlock_check_text, topology_text

    validate(args.config, args.overrides)  # every key, not only [topology]
    analytics = topology(args.config, args.overrides, check_deadlock=args.check_deadlock)
    if args.graphml:
        from ..api import topology_graphml

        topology_graphml(args.config, args.graphml, args.overrides)
    if args.json:
        print(json.dumps(analytics))
    else:
        print(topology_text(analytics, f"topology of {args.config}"))
        if args.check_deadlock:
            print(deadlock_check_text(analytics["deadlock"]))
        if args.graphml:
            print(f"wrote {args.graphml}")
    if args.check_deadlock and any(v is False for v in analytics["deadlock_free"].values()):
        return EXIT_DEADLOCK
    return 0


def cmd_sweep_load(args: argparse.Namespace) -> int:
    """``slingsim sweep-load``: a load curve as a table, Parquet file and plot, written to --out in one step."""
    from ..atomic import MARKER, check_replaceable, staged_folder, write_text
    from ..config import ConfigError, parse_value, resolve
    from ..plots import plot_load_curves
    from ..report import load_curve_text
    from ..sweep import sweep_load
    from ..tables import with_provenance, write_parquet

    check_replaceable(args.out)
    cfg = resolve(args.config, args.overrides)
    try:
        table = sweep_load(cfg, args.loads, args.source, scheduler=scheduler_of(args), workers=args.workers,
                           progress=not args.quiet, cache=store_of(args))
    except ConfigError as err:
        if err.origin is None and err.field.endswith(".load"):  # the sweep set it, from --loads
            raise _located(err, f"--loads {','.join(map(str, args.loads))}") from None
        raise
    record = json.loads(table.schema.metadata[b"slingsim.provenance"])
    # The overrides are the sweep's fixed parameters: one column each, so tables of several sweeps concatenate.
    for override in args.overrides:
        key, _, value = override.partition("=")
        table = table.append_column(key.strip(), [[parse_value(value.strip())] * table.num_rows])
    table = with_provenance(table, record)
    out = Path(args.out)
    with staged_folder(out) as staging:
        write_parquet(table, staging / "sweep.parquet")
        title = args.config + (f", source {args.source}" if args.source else "")
        if args.overrides:
            title += "\n" + ", ".join(args.overrides)
        plot_load_curves(table, staging / "latency_vs_load.png", label_column=None, title=title, provenance=record)
        write_text(staging / MARKER, json.dumps(record, indent=1) + "\n")
    rows = table.to_pylist()
    print(json.dumps({"points": rows}) if args.json else load_curve_text(rows))
    if not args.quiet:
        print(f"wrote {out / 'sweep.parquet'} and {out / 'latency_vs_load.png'}", file=sys.stderr)
    return 0


def _located(err: Exception, where: str) -> Exception:
    """A ConfigError like ``err`` whose field was set by ``where`` (an option of the command)."""
    from ..config import ConfigError

    located = ConfigError(f"{where}: {err}")
    located.field, located.origin = getattr(err, "field", ""), where
    return located
