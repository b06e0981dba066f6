"""The ``slingsim`` command line: run, topo, sweep-load, experiment, demo, gpcnet, bench, trace,
plot and cache (see ``docs/cli.md``).

Exit status: 0 on success, 2 for a bad config, argument or missing file
(``error: ...`` on stderr, no traceback; a refused config field is named with
the file and line, or the ``--set``, that set it), 3 when a run ended in
deadlock (the stuck buffers are printed), 1 for other failures (a batch
cluster that never started, a disk that filled up), 141 (128 + SIGPIPE),
silently, when the reader of the output went away (``slingsim ... | head``).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import List, Optional

from .cluster import BATCH_KINDS
from .experiments.registry import EXPERIMENTS
from .experiments.stop_rules import STOP_RULES

# Subcommands import the heavy modules (pyarrow, matplotlib, Dask) only when
# they run, so `slingsim --help` and argument errors answer instantly.
EXIT_USAGE = 2
EXIT_DEADLOCK = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 128 + getattr(signal, "SIGPIPE", 13)

CONFIG_HELP = (
    "a TOML config file, or a preset name: slingshot-malbec, slingshot-shandy, slingshot-max, "
    "examples/small-dragonfly, ... (see python/slingsim/configs/)"
)


class VersionAction(argparse.Action):
    """``--version``: print the version and source commit, then exit."""

    def __init__(self, option_strings: List[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest=dest, nargs=0, default=argparse.SUPPRESS,
                         help="print slingsim's version and git commit, then exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from .provenance import VERSION, source_commit

        print(f"slingsim {VERSION} (commit {source_commit()})")
        parser.exit()


def parse_loads(text: str) -> List[float]:
    """``--loads`` value: comma-separated offered loads, each a number >= 0."""
    loads = []
    for item in text.split(","):
        item = item.strip()
        try:
            load = float(item)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{item!r} is not a number; give offered loads like 0.1,0.2,0.5"
            ) from None
        if load != load or load < 0:
            raise argparse.ArgumentTypeError(
                f"{item} is not a valid load; loads are fractions of injection bandwidth, 0 or more"
            )
        loads.append(load)
    return loads


def positive_int(text: str) -> int:
    """``--workers`` value: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be 1 or more")
    return value


def seed_int(text: str) -> int:
    """``--seed`` value: a non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer seed") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; seeds are 0 or more")
    return value


def _add_set(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="override a config key, e.g. routing.algorithm=ugal, traffic.uniform.load=0.4 "
             "(a source by name) or traffic.0.load=0.4 (by position); values are TOML; repeatable",
    )


def _add_study_set(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="[KIND:]KEY=VALUE",
        help="change a mechanism in every run of the study (KEY=VALUE) or in the runs on one network "
             "family (KIND: aries, dragonfly, slimfly, fitfly, megafly, fattree), e.g. "
             "aries:nic.outstanding_release=each; keys of nic, links, switch, routing, congestion, qos, mpi "
             "and host only; values are TOML; repeatable (docs/experiments.md#changing-a-mechanism)",
    )


def _add_scheduler(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scheduler", metavar="ADDR",
        help="Dask scheduler: tcp://host:port of a running scheduler, or 'sync' to run serially "
             "in this process; default: a quiet local cluster with one thread per core",
    )
    parser.add_argument("--workers", type=positive_int, metavar="N",
                        help="threads of the local cluster (default: number of cores)")
    batch = parser.add_argument_group("batch cluster (dask-jobqueue; pip install 'slingsim[cluster]')")
    batch.add_argument("--cluster", choices=BATCH_KINDS,
                       help="run the simulations as Dask workers in batch jobs of this system")
    batch.add_argument("--jobs", type=positive_int, metavar="N", help="batch jobs to start (default 1)")
    batch.add_argument("--cores", type=positive_int, metavar="N",
                       help="cores of each job, one simulation thread each")
    batch.add_argument("--memory", metavar="SIZE", help="memory of each job, e.g. 16GB")
    batch.add_argument("--walltime", metavar="TIME", help="time limit of each job, e.g. 01:00:00")
    batch.add_argument("--cluster-profile", metavar="FILE",
                       help="TOML file with a [slurm] table: jobs, cores, memory, walltime, start_timeout_s and "
                            "any dask-jobqueue option (queue, account, job_extra_directives, ...); the options "
                            "above override it")


def _add_store(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cache", metavar="DIR",
                        help="result store folder: runs found there are read instead of simulated, new ones are "
                             "added (default: $SLINGSIM_CACHE or ~/.cache/slingsim)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the result store: simulate every run")


def _add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress bars and no notes on stderr (errors are still printed)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="slingsim",
        description="Packet-level simulator of Slingshot-class HPC interconnects.",
        epilog="Config keys: docs/config.md. Results: docs/results.md. Exit status: 0 success, 2 bad input "
               "(error: names the field and the file and line or --set that set it), 3 deadlock, 1 other "
               "failures, 141 output pipe closed.",
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser("run", help="run one simulation and print its summary",
                         description="Run one simulation and print its summary (overall and per traffic source).")
    run.add_argument("config", metavar="CONFIG_OR_PRESET", help=CONFIG_HELP)
    _add_set(run)
    run.add_argument("--without", action="append", default=[], metavar="NAME",
                     help="drop the named traffic source or job (isolated baseline); repeatable")
    run.add_argument("--seed", type=seed_int, metavar="N", help="master seed (sets sim.seed)")
    run.add_argument("--out", metavar="DIR",
                     help="write summary.json, config.json, provenance.json and the tables as Parquet into DIR, "
                          "replacing an earlier result there in one step")
    run.add_argument("--json", action="store_true",
                     help="print the summary as one JSON object (engine keys plus wall_s, provenance, cached)")
    run.add_argument("--impact", action="append", default=[], metavar="JOB",
                     help="also run JOB alone and report its congestion impact (mean congested / mean isolated "
                          "iteration time, [DeSensi20] Eq. 1) under jobs.JOB.congestion_impact; repeatable")
    _add_store(run)
    _add_quiet(run)

    topo = sub.add_parser("topo", help="print topology analytics",
                          description="Check the whole config as `run` would, build its topology and print "
                                      "its analytics.")
    topo.add_argument("config", metavar="CONFIG_OR_PRESET", help=CONFIG_HELP)
    _add_set(topo)
    topo.add_argument("--json", action="store_true", help="print the analytics as one JSON object")
    topo.add_argument("--check-deadlock", action="store_true",
                      help="build the channel dependency graph of every routing algorithm with the engine's "
                           "virtual-channel scheme and prove it acyclic (or print the cycle)")
    topo.add_argument("--graphml", metavar="FILE", help="also write the topology as GraphML to FILE")

    sweep = sub.add_parser("sweep-load", help="latency and accepted load against offered load",
                           description="Run a config at several offered loads (in parallel over Dask) "
                                       "and report latency and accepted load; writes sweep.parquet "
                                       "and latency_vs_load.png.")
    sweep.add_argument("config", metavar="CONFIG", help=CONFIG_HELP)
    sweep.add_argument("--loads", type=parse_loads, required=True, metavar="L1,L2,...",
                       help="offered loads, fractions of injection bandwidth, e.g. 0.1,0.2,0.5")
    _add_set(sweep)
    sweep.add_argument("--source", metavar="NAME",
                       help="sweep only this traffic source and report its figures "
                            "(default: every Bernoulli source, overall figures)")
    sweep.add_argument("--out", default="out/sweep-load", metavar="DIR",
                       help="output folder (default: out/sweep-load), replaced in one step")
    _add_scheduler(sweep)
    _add_store(sweep)
    _add_quiet(sweep)
    sweep.add_argument("--json", action="store_true",
                       help="print the table as JSON: {\"points\": [...]}, each point with cached (read from the store)")

    exp = sub.add_parser("experiment", help="run one of the papers' experiments (see docs/experiments.md)",
                         description="Run a recipe that reproduces a figure or table of the papers; "
                                     "prints a table and writes Parquet and PNG files.")
    exp.add_argument("name", choices=sorted(EXPERIMENTS), help="experiment: " + "; ".join(
        f"{k}: {v[0]}" for k, v in sorted(EXPERIMENTS.items())).replace("%", "%%"))
    exp.add_argument("--out", metavar="DIR", help="output folder (default: out/NAME)")
    exp.add_argument("--quick", action="store_true", help="a smaller network and fewer points, for a first look")
    exp.add_argument("--json", action="store_true",
                     help="print {experiment, quick, results: [rows], checks} as JSON instead of the table")
    exp.add_argument("--stop-rule", choices=sorted(STOP_RULES), default=None,
                     help="run each victim until [DeSensi20]'s statistical rule holds (at least 200 iterations, "
                          "the median's 95%% confidence interval within 5%%) instead of the recipe's fixed count: "
                          "congestion-heatmap, congestion-distribution, bursty-incast, shandy-applications; much "
                          "slower (docs/workloads.md#stopping-rule)")
    _add_study_set(exp)
    _add_scheduler(exp)
    _add_store(exp)
    _add_quiet(exp)

    val = sub.add_parser("validate", help="run every recipe and compare it with the papers' numbers (docs/validation.md)",
                         description="Run every recipe of `slingsim experiment` that the papers state a number or "
                                     "an ordering for, and print one table: the paper's figure and number, ours, "
                                     "whether the paper's ordering holds and whether ours is within 2x of it; "
                                     "then, for each claim that differs, the cause the measurements found. "
                                     "Each recipe's output goes to OUT/NAME. Exit status 1 if a recipe failed "
                                     "(or, with --strict, if an ordering does not hold).")
    val.add_argument("--quick", action="store_true", help="the recipes' quick modes (about 7 minutes on 2 cores "
                     "from an empty result store)")
    val.add_argument("--only", metavar="NAMES",
                     help="comma-separated experiments to validate (default: every one with a claim)")
    val.add_argument("--out", default="out/validate", metavar="DIR",
                     help="folder of the recipes' outputs and validation.parquet (default: out/validate)")
    val.add_argument("--markdown", metavar="FILE",
                     help="also write the table as Markdown (docs/validation.md is this file)")
    val.add_argument("--json", action="store_true", help="print {quick, counts, claims: [rows]} as JSON")
    val.add_argument("--strict", action="store_true", help="exit 1 if any ordering the papers state does not hold")
    _add_study_set(val)
    _add_scheduler(val)
    _add_store(val)
    _add_quiet(val)

    demo = sub.add_parser("demo", help="latency vs load on Malbec for minimal, Valiant and UGAL routing",
                          description="Latency against offered load on Malbec (484 nodes) for minimal, "
                                      "Valiant and UGAL routing under uniform and group-adversarial traffic; "
                                      "prints a table, writes demo.parquet and latency_vs_load.png.")
    demo.add_argument("--out", default="out/demo", metavar="DIR", help="output folder (default: out/demo)")
    demo.add_argument("--quick", action="store_true", help="three loads per curve and shorter windows")
    _add_scheduler(demo)
    _add_store(demo)
    _add_quiet(demo)

    bench = sub.add_parser("bench", help="performance benchmark",
                           description="Run the benchmark scenarios, each in a fresh process, and report "
                                       "events/s, packet-hops/s, simulated ns per wall second and peak memory.")
    bench.add_argument("--only", action="append", metavar="NAME",
                       help="run only this scenario (e.g. shandy-uniform-50, incast-slingshot, gpcnet-shandy-latency, "
                            "impact-pair-shandy; all in docs/benchmarks.md); repeatable")
    bench.add_argument("--json", action="store_true", help="print {\"scenarios\": [...]} as JSON")
    _add_quiet(bench)

    gpc = sub.add_parser("gpcnet", help="the GPCNeT congestion suite on a system (docs/workloads.md)",
                         description="Run GPCNeT's victim tests (random-ring latency, random-ring bandwidth+sync, "
                                     "allreduce) on 20% of the nodes, alone and beside four congestors (alltoall, "
                                     "incast, put incast, get broadcast) on the other 80%, and print its key-results "
                                     "table with congestion impact.")
    gpc.add_argument("system", metavar="SYSTEM", help=CONFIG_HELP)
    gpc.add_argument("--nodes", type=positive_int, metavar="N", help="nodes to use (default: all of the system)")
    gpc.add_argument("--ppn", type=positive_int, default=1, metavar="P", help="processes per node (default 1)")
    gpc.add_argument("--iterations", type=positive_int, default=20, metavar="N",
                     help="iterations of each victim test (default 20)")
    gpc.add_argument("--congestors", default=",".join(("alltoall", "incast", "put-incast", "get-bcast")),
                     metavar="LIST", help="comma-separated congestors, or 'none' for an idle baseline "
                                          "(default: alltoall,incast,put-incast,get-bcast)")
    gpc.add_argument("--warmup-ns", type=float, default=1_000_000.0, metavar="NS",
                     help="how long the congestors run before the victims start (default 1000000)")
    _add_set(gpc)
    gpc.add_argument("--seed", type=seed_int, metavar="N", help="master seed (placement, random ring)")
    _add_scheduler(gpc)
    _add_store(gpc)
    _add_quiet(gpc)
    gpc.add_argument("--json", action="store_true",
                     help="print {tests: [{name, isolated, congested, impact_mean, impact_p99, ...}], ...} as JSON")

    trace = sub.add_parser("trace", help="read MPI traces (DUMPI, OTF2), write a workload as a DUMPI trace",
                           description="Read MPI traces of real runs as slingsim MPI programs, or write a generated workload as one (docs/traces.md).")
    trace_sub = trace.add_subparsers(dest="trace_command", metavar="ACTION", required=True,
                                     help="info: the trace's summary; write: a generated workload as a DUMPI trace")
    trace_info = trace_sub.add_parser(
        "info", help="summary of a trace: ranks, MPI calls, bytes, message matching, warnings",
        description="Read a trace and print its ranks, MPI calls by count, bytes sent, how many "
                    "point-to-point messages match statically, and what the program format cannot hold.")
    trace_info.add_argument("trace", metavar="TRACE",
                            help="a DUMPI .meta file, an OTF2 .otf2 anchor file, or the directory holding one")
    trace_info.add_argument("--json", action="store_true",
                            help="print {ranks, calls, bytes, matched_messages, unmatched_messages, warnings} as JSON")

    trace_write = trace_sub.add_parser(
        "write", help="write a generated workload (amg, multigrid, halo3d, ...) as a DUMPI trace",
        description="Generate the program a job running WORKLOAD would replay on N ranks and write it as a "
                    "DUMPI trace (OUT/PREFIX.meta and one OUT/PREFIX-NNNN.bin per rank) that other simulators "
                    "can replay and `slingsim trace info` reads back; iteration marks, which are no MPI "
                    "call, are left out and counted.")
    trace_write.add_argument("workload", metavar="WORKLOAD", help="a named workload (docs/workloads.md), e.g. amg or multigrid")
    trace_write.add_argument("out", metavar="OUT", help="directory to write the trace into (created if needed)")
    trace_write.add_argument("--ranks", type=positive_int, required=True, metavar="N", help="MPI ranks")
    trace_write.add_argument("--iterations", type=positive_int, metavar="N",
                             help="iterations of the workload (default: the workload's)")
    trace_write.add_argument("--param", dest="params", action="append", default=[], metavar="KEY=VALUE",
                             help="a workload parameter (values are TOML), e.g. n=50 or box=32; repeatable")
    trace_write.add_argument("--seed", type=seed_int, default=1, metavar="N",
                             help="master seed the workload's random choices derive from (default 1, as sim.seed)")
    trace_write.add_argument("--prefix", default=None, metavar="NAME", help="name of the trace's files (default: WORKLOAD)")
    trace_write.add_argument("--json", action="store_true", help="print {meta, ranks, calls, left_out} as JSON")

    plot = sub.add_parser("plot", help="figures of a run's result folder",
                          description="Draw link utilisation by kind (link_utilization.png), a per-link heatmap of "
                                      "the global links (global_links.png) and the delivery timeline "
                                      "(timeline.png) of a folder written by `slingsim run --out`.")
    plot.add_argument("result", metavar="RESULT_DIR", help="folder written by `slingsim run --out DIR`")
    plot.add_argument("--out", metavar="DIR", help="where to write the PNG files (default: RESULT_DIR)")

    cache = sub.add_parser("cache", help="inspect or empty the result store",
                           description="The result store keeps finished runs keyed by a hash of their resolved "
                                       "config, seed and engine build (docs/results.md#result-store).")
    cache_sub = cache.add_subparsers(dest="cache_command", metavar="ACTION", required=True,
                                     help="info: what the store holds; clear: remove every stored run")
    for name, text in (("info", "print the store's folder, runs, size and engine builds"),
                       ("clear", "remove every stored run")):
        action = cache_sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        action.add_argument("--cache", metavar="DIR",
                            help="result store folder (default: $SLINGSIM_CACHE or ~/.cache/slingsim)")
        action.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    return parser


def store_of(args: argparse.Namespace) -> object:
    """The ``cache`` argument of the API for ``--cache DIR`` / ``--no-cache``: a folder, True or False."""
    if getattr(args, "no_cache", False):
        if args.cache:
            raise ValueError("--cache and --no-cache: give one of them")
        return False
    return args.cache or True


def scheduler_of(args: argparse.Namespace) -> object:
    """The ``scheduler`` argument of the API: ``--scheduler``, or a BatchCluster for ``--cluster``/``--cluster-profile``."""
    batch = {"jobs": args.jobs, "cores": args.cores, "memory": args.memory, "walltime": args.walltime}
    if args.cluster is None and args.cluster_profile is None:
        given = [f"--{k}" for k, v in batch.items() if v is not None]
        if given:
            raise ValueError(f"{', '.join(given)}: only with --cluster slurm or --cluster-profile FILE")
        return args.scheduler
    if args.scheduler is not None:
        raise ValueError("--scheduler and --cluster: give one of them (a batch cluster brings its own scheduler)")
    from .cluster import BatchCluster

    if args.cluster_profile is not None:
        return BatchCluster.from_profile(args.cluster_profile, kind=args.cluster, **batch)
    return BatchCluster(kind=args.cluster, **{k: v for k, v in batch.items() if v is not None})


def cmd_run(args: argparse.Namespace) -> int:
    """``slingsim run``: one simulation, summary to stdout, files to --out."""
    from . import api
    from .report import deadlock_text, summary_text

    progress, cache = not args.quiet, store_of(args)
    if args.out:
        from .atomic import check_replaceable

        check_replaceable(args.out)  # before simulating, not after
        result = api.run(args.config, args.overrides, args.without, args.seed, progress=progress, cache=cache)
        summary = result.summary
    else:
        summary = api.run_summary(args.config, args.overrides, args.without, args.seed, progress=progress,
                                  cache=cache)
    for job in args.impact:
        from .jobs import impact, isolate

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
    from .api import topology, validate
    from .report import deadlock_check_text, topology_text

    validate(args.config, args.overrides)  # every key, not only [topology]
    analytics = topology(args.config, args.overrides, check_deadlock=args.check_deadlock)
    if args.graphml:
        from .api import topology_graphml

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
        return 3
    return 0


def cmd_sweep_load(args: argparse.Namespace) -> int:
    """``slingsim sweep-load``: a load curve as a table, Parquet file and plot, written to --out in one step."""
    from .atomic import MARKER, check_replaceable, staged_folder, write_text
    from .config import ConfigError, parse_value, resolve
    from .plots import plot_load_curves
    from .report import load_curve_text
    from .sweep import sweep_load
    from .tables import with_provenance, write_parquet

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


def cmd_demo(args: argparse.Namespace) -> int:
    """``slingsim demo``: the Malbec routing study."""
    from .atomic import check_replaceable
    from .experiments.demo import run_demo
    from .report import load_curve_text

    check_replaceable(args.out)
    table = run_demo(args.out, args.quick, scheduler_of(args), args.workers, progress=not args.quiet,
                     cache=store_of(args))
    print(load_curve_text(table.to_pylist(), label_columns=("pattern", "routing")))
    print(f"wrote {Path(args.out) / 'demo.parquet'} and {Path(args.out) / 'latency_vs_load.png'}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``slingsim bench``: the performance scenarios."""
    from .bench import run_bench
    from .report import bench_text

    scenarios = run_bench(args.only, progress=not args.quiet)
    print(json.dumps({"scenarios": scenarios}) if args.json else bench_text(scenarios))
    return 0


def cmd_experiment(args: argparse.Namespace) -> int:
    """``slingsim experiment NAME``: one of the papers' experiments."""
    from .atomic import check_replaceable
    from .experiments.registry import recipe_with_options

    from .study_overrides import study_overrides, unmatched_message

    run = recipe_with_options(args.name, stop_rule=args.stop_rule)
    out = args.out or f"out/{args.name}"
    check_replaceable(out)
    with study_overrides(args.overrides) as applied:  # a bad --set is refused here, before anything runs
        table = run(out, args.quick, scheduler_of(args), args.workers, progress=not args.quiet,
                    cache=store_of(args))
    from .experiments.output import table_checks
    from .report import text_table

    rows = table.to_pylist()
    checks = table_checks(table)
    unmatched = applied.unmatched()
    if args.json:
        print(json.dumps({"experiment": args.name, "quick": args.quick, "results": rows, **checks,
                          "overrides": list(args.overrides), "out": str(out)}))
    else:
        headers = list(rows[0]) if rows else []
        print(text_table(headers, [[f"{v:,.3f}" if isinstance(v, float) else str(v) for v in r.values()]
                                   for r in rows], left=1))
        for key, value in checks.items():
            if not isinstance(value, (dict, list)):
                print(f"{key}: {json.dumps(value)}")
        if args.overrides:
            print(f"overrides: {', '.join(args.overrides)}")
        print(f"wrote {out}")
    if unmatched:
        print(f"error: {unmatched_message(unmatched, args.name)}", file=sys.stderr)
        return EXIT_USAGE
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    """``slingsim validate``: every recipe against the papers, one table."""
    from . import provenance
    from .atomic import write_text
    from .report import text_table
    from .tables import write_rows
    from .validation import HEADERS, Outcome, difference_lines, markdown, run_validation, summary_counts, table_cells

    only = [n for n in args.only.split(",") if n] if args.only else None

    def said(name: str, outcome: Outcome) -> None:
        if not args.quiet:
            state = f"failed: {outcome.error}" if outcome.error else "done"
            print(f"validate: {name} {state} ({outcome.seconds:.0f} s)", file=sys.stderr, flush=True)

    from .study_overrides import study_overrides, unmatched_message

    started = provenance.now()
    with study_overrides(args.overrides) as applied:  # a bad --set is refused here, before anything runs
        rows = run_validation(args.out, args.quick, scheduler_of(args), args.workers, progress=not args.quiet,
                              cache=store_of(args), only=only, on_recipe=said)
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
        print(text_table(HEADERS, [table_cells(r) for r in rows], left=5))
        for line in difference_lines(rows):
            print(f"differs: {line}")
        print(f"orderings: {counts['ordering_holds']} hold, {counts['ordering_fails']} do not, "
              f"{counts['ordering_unread']} unread; within 2x: {counts['within_2x']}, outside: "
              f"{counts['outside_2x']}; recipes failed: {counts['recipes_failed']}")
        print(f"wrote {out}")
    unmatched = applied.unmatched()
    if unmatched:
        print(f"error: {unmatched_message(unmatched, 'the recipes validated')}", file=sys.stderr)
        return EXIT_USAGE
    if counts["recipes_failed"] or (args.strict and counts["ordering_fails"]):
        return 1
    return 0


def cmd_gpcnet(args: argparse.Namespace) -> int:
    """``slingsim gpcnet``: the GPCNeT suite, isolated and congested."""
    from .gpcnet import key_results_text, run_gpcnet

    congestors = [] if args.congestors == "none" else [c for c in args.congestors.split(",") if c]
    report = run_gpcnet(args.system, args.nodes, args.ppn, args.iterations, congestors, args.overrides,
                        args.seed, scheduler_of(args), args.workers, progress=not args.quiet,
                        warmup_ns=args.warmup_ns, cache=store_of(args))
    print(json.dumps(report) if args.json else key_results_text(report))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    """``slingsim plot RESULT_DIR``: link utilisation, global-link heatmap and delivery timeline of a run."""
    from .result_plots import plot_result

    for path in plot_result(args.result, args.out):
        print(f"wrote {path}")
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    """``slingsim cache info|clear``: the result store."""
    from .store import ResultStore

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
    from .report import trace_info_text
    from .trace import info

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
    from .config import ConfigError, parse_value
    from .trace import workload_program, write_dumpi

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



COMMANDS = {"run": cmd_run, "topo": cmd_topo, "sweep-load": cmd_sweep_load, "demo": cmd_demo, "bench": cmd_bench,
            "experiment": cmd_experiment, "validate": cmd_validate, "gpcnet": cmd_gpcnet, "trace": cmd_trace, "plot": cmd_plot,
            "cache": cmd_cache}


def main(argv: Optional[List[str]] = None) -> int:
    """Parse arguments, run the subcommand, and map errors to ``error: ...`` (exit 2 for bad input, 1 otherwise);
    a closed output pipe ends the command quietly with status 141, as it ends other Unix tools."""
    from .origins import CLI, SPELLING

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
            from .provenance import invoked_as

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
    from .config import ConfigError, resolve_traced

    config = getattr(args, "config", None) or getattr(args, "system", None)
    if not isinstance(err, ConfigError) or err.origin is not None or not err.field or config is None:
        return err
    try:
        _, sources = resolve_traced(config, args.overrides if hasattr(args, "overrides") else (),
                                    getattr(args, "without", ()), getattr(args, "seed", None))
    except (ValueError, OSError):
        return err
    return sources.explain(err)


def _located(err: Exception, where: str) -> Exception:
    """A ConfigError like ``err`` whose field was set by ``where`` (an option of the command)."""
    from .config import ConfigError

    located = ConfigError(f"{where}: {err}")
    located.field, located.origin = getattr(err, "field", ""), where
    return located


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


if __name__ == "__main__":
    sys.exit(main())
