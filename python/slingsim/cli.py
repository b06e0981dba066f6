"""The ``slingsim`` command line: run, topo, sweep-load, demo, bench and trace (see ``docs/cli.md``).

Exit status: 0 on success, 2 for a bad config or argument (``error: ...`` on
stderr, no traceback), 3 when a run ended in deadlock (the stuck buffers are
printed).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import List, Optional

# Subcommands import the heavy modules (pyarrow, matplotlib, Dask) only when
# they run, so `slingsim --help` and argument errors answer instantly.
EXIT_USAGE = 2
EXIT_DEADLOCK = 3
EXIT_INTERRUPTED = 130

CONFIG_HELP = (
    "a TOML config file, or a preset name: slingshot-malbec, slingshot-shandy, slingshot-max, "
    "examples/small-dragonfly, ... (see python/slingsim/configs/)"
)


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


def _add_scheduler(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scheduler", metavar="ADDR",
        help="Dask scheduler: tcp://host:port of a running scheduler, or 'sync' to run serially "
             "in this process; default: a local cluster with one thread per core",
    )
    parser.add_argument("--workers", type=positive_int, metavar="N",
                        help="threads of the local cluster (default: number of cores)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="slingsim",
        description="Packet-level simulator of Slingshot-class HPC interconnects.",
        epilog="Config keys: docs/config.md. Results: docs/results.md.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = sub.add_parser("run", help="run one simulation and print its summary",
                         description="Run one simulation and print its summary (overall and per traffic source).")
    run.add_argument("config", metavar="CONFIG_OR_PRESET", help=CONFIG_HELP)
    _add_set(run)
    run.add_argument("--without", action="append", default=[], metavar="NAME",
                     help="drop the named traffic source or job (isolated baseline); repeatable")
    run.add_argument("--seed", type=seed_int, metavar="N", help="master seed (sets sim.seed)")
    run.add_argument("--out", metavar="DIR",
                     help="write summary.json, config.json, packets/links/flows.parquet into DIR")
    run.add_argument("--json", action="store_true",
                     help="print the summary as one JSON object (engine keys plus wall_s)")
    run.add_argument("--impact", action="append", default=[], metavar="JOB",
                     help="also run JOB alone and report its congestion impact (mean congested / mean isolated "
                          "iteration time, paper 000 Eq. 1) under jobs.JOB.congestion_impact; repeatable")

    topo = sub.add_parser("topo", help="print topology analytics",
                          description="Build the topology of a config and print its analytics.")
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
                       help="output folder (default: out/sweep-load)")
    _add_scheduler(sweep)
    sweep.add_argument("--json", action="store_true", help="print the table as JSON: {\"points\": [...]}")

    exp = sub.add_parser("experiment", help="run one of the papers' experiments (see docs/experiments.md)",
                         description="Run a recipe that reproduces a figure or table of the papers; "
                                     "prints a table and writes Parquet and PNG files.")
    exp.add_argument("name", choices=sorted(EXPERIMENTS), help="experiment: " + "; ".join(
        f"{k}: {v[0]}" for k, v in sorted(EXPERIMENTS.items())).replace("%", "%%"))
    exp.add_argument("--out", metavar="DIR", help="output folder (default: out/NAME)")
    exp.add_argument("--quick", action="store_true", help="a smaller network and fewer points, for a first look")
    _add_scheduler(exp)

    demo = sub.add_parser("demo", help="latency vs load on Malbec for minimal, Valiant and UGAL routing",
                          description="Latency against offered load on Malbec (484 nodes) for minimal, "
                                      "Valiant and UGAL routing under uniform and group-adversarial traffic; "
                                      "prints a table, writes demo.parquet and latency_vs_load.png.")
    demo.add_argument("--out", default="out/demo", metavar="DIR", help="output folder (default: out/demo)")
    demo.add_argument("--quick", action="store_true", help="three loads per curve and shorter windows")
    _add_scheduler(demo)

    bench = sub.add_parser("bench", help="performance benchmark",
                           description="Run the benchmark scenarios, each in a fresh process, and report "
                                       "events/s, packet-hops/s, simulated ns per wall second and peak memory.")
    bench.add_argument("--only", action="append", metavar="NAME",
                       help="run only this scenario (e.g. shandy-uniform-50, incast-slingshot, gpcnet-shandy-latency, "
                            "impact-pair-shandy; all in docs/benchmarks.md); repeatable")
    bench.add_argument("--json", action="store_true", help="print {\"scenarios\": [...]} as JSON")

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
    gpc.add_argument("--json", action="store_true",
                     help="print {tests: [{name, isolated, congested, impact_mean, impact_p99, ...}], ...} as JSON")

    trace = sub.add_parser("trace", help="read MPI traces (DUMPI, OTF2)",
                           description="Read MPI traces of real runs as slingsim MPI programs (docs/traces.md).")
    trace_sub = trace.add_subparsers(dest="trace_command", metavar="ACTION", required=True,
                                     help="info: the trace's summary")
    trace_info = trace_sub.add_parser(
        "info", help="summary of a trace: ranks, MPI calls, bytes, message matching, warnings",
        description="Read a trace and print its ranks, MPI calls by count, bytes sent, how many "
                    "point-to-point messages match statically, and what the program format cannot hold.")
    trace_info.add_argument("trace", metavar="TRACE",
                            help="a DUMPI .meta file, an OTF2 .otf2 anchor file, or the directory holding one")
    trace_info.add_argument("--json", action="store_true",
                            help="print {ranks, calls, bytes, matched_messages, unmatched_messages, warnings} as JSON")
    return parser


def cmd_run(args: argparse.Namespace) -> int:
    """``slingsim run``: one simulation, summary to stdout, files to --out."""
    from .api import run
    from .report import deadlock_text, summary_text

    result = run(args.config, args.overrides, args.without, args.seed, progress=True)
    for job in args.impact:
        from .jobs import impact, isolate

        alone = run(isolate(result.config, job), progress=True).summary
        result.summary["jobs"][job]["congestion_impact"] = impact(alone, result.summary, job)
    if args.out:
        result.write(args.out)
        print(f"wrote {args.out}", file=sys.stderr)
    summary = result.summary
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
    from .api import topology
    from .report import deadlock_check_text, topology_text

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
    """``slingsim sweep-load``: a load curve as a table, Parquet file and plot."""
    import pyarrow.parquet as pq

    from .config import resolve
    from .plots import plot_load_curves
    from .report import load_curve_text
    from .sweep import sweep_load

    cfg = resolve(args.config, args.overrides)
    table = sweep_load(cfg, args.loads, args.source, scheduler=args.scheduler,
                       workers=args.workers, progress=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, out / "sweep.parquet")
    title = f"{args.config}" + (f", source {args.source}" if args.source else "")
    plot_load_curves(table, out / "latency_vs_load.png", label_column=None, title=title)
    rows = table.to_pylist()
    print(json.dumps({"points": rows}) if args.json else load_curve_text(rows))
    print(f"wrote {out / 'sweep.parquet'} and {out / 'latency_vs_load.png'}", file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """``slingsim demo``: the Malbec routing study."""
    from .experiments.demo import run_demo
    from .report import load_curve_text

    table = run_demo(args.out, args.quick, args.scheduler, args.workers, progress=True)
    print(load_curve_text(table.to_pylist(), label_columns=("pattern", "routing")))
    print(f"wrote {Path(args.out) / 'demo.parquet'} and {Path(args.out) / 'latency_vs_load.png'}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``slingsim bench``: the performance scenarios."""
    from .bench import run_bench
    from .report import bench_text

    scenarios = run_bench(args.only, progress=True)
    print(json.dumps({"scenarios": scenarios}) if args.json else bench_text(scenarios))
    return 0


def cmd_experiment(args: argparse.Namespace) -> int:
    """``slingsim experiment NAME``: one of the papers' experiments."""
    import importlib

    _, module, function = EXPERIMENTS[args.name]
    recipe = getattr(importlib.import_module(f".experiments.{module}", __package__), function)
    table = recipe(args.out or f"out/{args.name}", args.quick, args.scheduler, args.workers, progress=True)
    from .report import text_table

    rows = table.to_pylist()
    headers = list(rows[0]) if rows else []
    print(text_table(headers, [[f"{v:,.3f}" if isinstance(v, float) else str(v) for v in r.values()] for r in rows], left=1))
    print(f"wrote {args.out or f'out/{args.name}'}")
    return 0


def cmd_gpcnet(args: argparse.Namespace) -> int:
    """``slingsim gpcnet``: the GPCNeT suite, isolated and congested."""
    from .gpcnet import key_results_text, run_gpcnet

    congestors = [] if args.congestors == "none" else [c for c in args.congestors.split(",") if c]
    report = run_gpcnet(args.system, args.nodes, args.ppn, args.iterations, congestors, args.overrides,
                        args.seed, args.scheduler, args.workers, progress=True, warmup_ns=args.warmup_ns)
    print(json.dumps(report) if args.json else key_results_text(report))
    return 0


def cmd_trace(args: argparse.Namespace) -> int:
    """``slingsim trace info``: a trace's summary."""
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


EXPERIMENTS = {
    "congestion-heatmap": ("paper 000 Fig. 9, congestion impact of incast and all-to-all aggressors on victim jobs, "
                           "Slingshot (Malbec) against Aries (Crystal)", "congestion_heatmap", "run_congestion_heatmap"),
    "bursty-incast": ("paper 000 Fig. 12, congestion impact of a bursty incast (message size x burst size x gap) "
                      "on a 128 B alltoall on Slingshot (Malbec)", "bursty_incast", "run_bursty_incast"),
    "tailbench": ("paper 000 Fig. 8, request latency (median, p95, p99) of Silo, Xapian, Img-dnn and Sphinx alone "
                  "and beside a 128 KiB incast, Slingshot (Malbec) against Aries (Crystal)", "tailbench",
                  "run_tailbench"),
    "traffic-classes-latency": ("paper 000 Fig. 13, an 8 B allreduce beside a 256 KiB alltoall on Malbec tapered to "
                                "25%, in the same traffic class or its own", "traffic_classes",
                                "run_traffic_classes_latency"),
    "traffic-classes-bandwidth": ("paper 000 Fig. 14, two bisection jobs in one class or in TC1 (min 80%) and TC2 "
                                  "(min 10%): bandwidth over time", "traffic_classes",
                                  "run_traffic_classes_bandwidth"),
    "congestion-distribution": ("paper 000 Fig. 10, distribution of congestion impacts over victim/aggressor "
                                "combinations by placement, aggressor PPN and node count, Slingshot against Aries",
                                "congestion_distribution", "run_congestion_distribution"),
    "node-distance": ("paper 000 Fig. 4, latency (RTT/2) and bandwidth between two nodes on one switch, in one "
                      "group and in two groups of an idle Malbec, 8 B to 2 MiB", "node_distance", "run_node_distance"),
    "bisection-alltoall": ("paper 000 Fig. 6, bisection and MPI_Alltoall bandwidth on the 1024 nodes of Shandy "
                           "against their 6.4 and 12.8 TB/s peaks", "bisection_alltoall", "run_bisection_alltoall"),
    "shandy-applications": ("paper 000 Fig. 11, congestion impact on MILC, HPCG, LAMMPS and FFT proxies sharing all "
                            "1024 Shandy nodes with an incast or all-to-all aggressor, random placement",
                            "shandy_applications", "run_shandy_applications"),
    "app-aware-routing": ("paper 004 Sec. 5, application-aware routing against ADAPTIVE and ADAPTIVE WITH HIGH BIAS "
                          "on Aries (Crystal): ping-pong, allreduce, alltoall, halo3d", "app_aware_routing",
                          "run_app_aware_routing"),
    "fitfly-rails": ("paper 003 Fig. 3, accepted vs offered load of Slim Fly and Fit Fly with 2/4/8 rails",
                     "fitfly_rails", "run_fitfly_rails"),
}
"""Experiment name -> (what it reproduces, module in slingsim.experiments, recipe function)."""

COMMANDS = {"run": cmd_run, "topo": cmd_topo, "sweep-load": cmd_sweep_load, "demo": cmd_demo, "bench": cmd_bench,
            "experiment": cmd_experiment, "gpcnet": cmd_gpcnet, "trace": cmd_trace}


def main(argv: Optional[List[str]] = None) -> int:
    """Parse arguments, run the subcommand, and map errors to ``error: ...`` with exit status 2."""
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except RuntimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
