"""The commands that run many simulations: ``demo``, ``experiment`` (one of
the papers' studies), ``validate`` (all of them against the papers),
``gpcnet``, and ``bench`` (the performance scenarios)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List

from .arguments import scheduler_of, store_of
from .exit_status import EXIT_USAGE

if TYPE_CHECKING:
    from ..validation import Outcome


def cmd_demo(args: argparse.Namespace) -> int:
    """``slingsim demo``: the Malbec routing study."""
    from ..atomic import check_replaceable
    from ..experiments.demo import run_demo
    from ..report import load_curve_text

    check_replaceable(args.out)
    table = run_demo(args.out, args.quick, scheduler_of(args), args.workers, progress=not args.quiet,
                     cache=store_of(args))
    print(load_curve_text(table.to_pylist(), label_columns=("pattern", "routing")))
    print(f"wrote {Path(args.out) / 'demo.parquet'} and {Path(args.out) / 'latency_vs_load.png'}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``slingsim bench``: the performance scenarios."""
    from ..bench import run_bench
    from ..report import bench_text

    scenarios = run_bench(args.only, progress=not args.quiet)
    print(json.dumps({"scenarios": scenarios}) if args.json else bench_text(scenarios))
    return 0


def cmd_experiment(args: argparse.Namespace) -> int:
    """``slingsim experiment NAME``: one of the papers' experiments."""
    from ..atomic import check_replaceable
    from ..experiments.registry import recipe_with_options
    from ..study_overrides import study_overrides, unmatched_message

    run = recipe_with_options(args.name, stop_rule=args.stop_rule)
    out = args.out or f"out/{args.name}"
    check_replaceable(out)
    with study_overrides(args.overrides) as applied:  # a bad --set is refused here, before anything runs
        table = run(out, args.quick, scheduler_of(args), args.workers, progress=not args.quiet,
                    cache=store_of(args))
    from ..experiments.output import table_checks

    rows = table.to_pylist()
    checks = table_checks(table)
    unmatched = applied.unmatched()
    if args.json:
        print(json.dumps({"experiment": args.name, "quick": args.quick, "results": rows, **checks,
                          "overrides": list(args.overrides), "out": str(out)}))
    else:
        _print_experiment(rows, checks, args.overrides, out)
    if unmatched:
        print(f"error: {unmatched_message(unmatched, args.name)}", file=sys.stderr)
        return EXIT_USAGE
    return 0


def _print_experiment(rows: List[Dict[str, Any]], checks: Dict[str, Any], overrides: List[str], out: str) -> None:
    """An experiment's rows as a table, then its checks (the plain values), overrides and folder."""
    from ..report import text_table

    headers = list(rows[0]) if rows else []
    print(text_table(headers, [[f"{v:,.3f}" if isinstance(v, float) else str(v) for v in r.values()]
                               for r in rows], left=1))
    for key, value in checks.items():
        if not isinstance(value, (dict, list)):
            print(f"{key}: {json.dumps(value)}")
    if overrides:
        print(f"overrides: {', '.join(overrides)}")
    print(f"wrote {out}")


def cmd_validate(args: argparse.Namespace) -> int:
    """``slingsim validate``: every recipe against the papers, one table."""
    from .. import provenance
    from ..atomic import write_text
    from ..study_overrides import study_overrides, unmatched_message
    from ..tables import write_rows
    from ..validation import markdown, run_validation, summary_counts

    only = [n for n in args.only.split(",") if n] if args.only else None
    started = provenance.now()
    with study_overrides(args.overrides) as applied:  # a bad --set is refused here, before anything runs
        rows = run_validation(args.out, args.quick, scheduler_of(args), args.workers, progress=not args.quiet,
                              cache=store_of(args), only=only, on_recipe=_recipe_reporter(args.quiet))
    counts = summary_counts(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_rows(out / "validation.parquet", rows, {
        "command": provenance.command_line(), "version": provenance.VERSION, "commit": provenance.source_commit(),
        "started": started, "platform": provenance.platform_info(), "quick": args.quick,
        "overrides": list(args.overrides)})
    if args.markdown:
        command = ("slingsim validate" + (" --quick" if args.quick else "")
                   + "".join(f" --set {o}" for o in args.overrides) + f" --markdown {args.markdown}")
        write_text(Path(args.markdown), markdown(rows, args.quick, command, started[:10]))
    if args.json:
        print(json.dumps({"quick": args.quick, "counts": counts, "claims": rows,
                          "overrides": list(args.overrides), "out": str(out)}))
    else:
        _print_validation(rows, counts, out, args.quick)
    unmatched = applied.unmatched()
    if unmatched:
        print(f"error: {unmatched_message(unmatched, 'the recipes validated')}", file=sys.stderr)
        return EXIT_USAGE
    if counts["recipes_failed"] or (args.strict and counts["ordering_fails"]):
        return 1
    return 0


def _recipe_reporter(quiet: bool) -> Callable[[str, Outcome], None]:
    """``run_validation``'s ``on_recipe``: a line on stderr as each recipe ends (none with ``--quiet``)."""

    def said(name: str, outcome: Outcome) -> None:
        if not quiet:
            state = f"failed: {outcome.error}" if outcome.error else "done"
            print(f"validate: {name} {state} ({outcome.seconds:.0f} s)", file=sys.stderr, flush=True)

    return said


def _print_validation(rows: List[Dict[str, Any]], counts: Dict[str, int], out: Path, quick: bool) -> None:
    """The validation table, each claim that differs and its cause, each claim its run cannot decide, what
    full mode reads otherwise (in a quick run), the counts and the folder."""
    from ..report import text_table
    from ..validation import HEADERS, difference_lines, full_mode_lines, table_cells, undecided_lines

    print(text_table(HEADERS, [table_cells(r) for r in rows], left=5))
    for line in difference_lines(rows):
        print(f"differs: {line}")
    for line in undecided_lines(rows):
        print(f"undecided: {line}")
    for line in full_mode_lines(rows, quick):
        print(f"full mode reads otherwise: {line}")
    print(f"orderings: {counts['ordering_holds']} hold, {counts['ordering_fails']} do not, "
          f"{counts['ordering_undecided']} undecided, {counts['ordering_unread']} unread; "
          f"within 2x: {counts['within_2x']}, outside: "
          f"{counts['outside_2x']}; recipes failed: {counts['recipes_failed']}")
    print(f"wrote {out}")


def cmd_gpcnet(args: argparse.Namespace) -> int:
    """``slingsim gpcnet``: the GPCNeT suite, isolated and congested."""
    from ..gpcnet import key_results_text, run_gpcnet

    congestors = [] if args.congestors == "none" else [c for c in args.congestors.split(",") if c]
    report = run_gpcnet(args.system, args.nodes, args.ppn, args.iterations, congestors, args.overrides,
                        args.seed, scheduler_of(args), args.workers, progress=not args.quiet,
                        warmup_ns=args.warmup_ns, cache=store_of(args), rings=args.rings,
                        warmup_iterations=args.warmup_iterations)
    print(json.dumps(report) if args.json else key_results_text(report))
    return 0
