"""The argument parser: one function per subcommand adds its options, in the
order ``slingsim --help`` and ``slingsim COMMAND --help`` list them."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..experiments.registry import EXPERIMENTS
from ..experiments.stop_rules import STOP_RULES
from .arguments import (CONFIG_HELP, VersionAction, add_quiet, add_scheduler, add_set, add_store, add_study_set,
                        non_negative_int, parse_loads, positive_int, seed_int)

if TYPE_CHECKING:
    # What add_subparsers returns: argparse's type for it is private, and generic only to type checkers.
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]


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
    for add in (_add_run, _add_topo, _add_sweep_load, _add_experiment, _add_validate, _add_demo, _add_bench,
                _add_gpcnet, _add_trace, _add_plot, _add_cache):
        add(sub)
    return parser


def _add_run(sub: Subcommands) -> None:
    run = sub.add_parser("run", help="run one simulation and print its summary",
                         description="Run one simulation and print its summary (overall and per traffic source; "
                                     "with --set sim.hop_waits=true also where each source's packets waited).")
    run.add_argument("config", metavar="CONFIG_OR_PRESET", help=CONFIG_HELP)
    add_set(run)
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
    add_store(run)
    add_quiet(run)


def _add_topo(sub: Subcommands) -> None:
    topo = sub.add_parser("topo", help="print topology analytics",
                          description="Check the whole config as `run` would, build its topology and print "
                                      "its analytics.")
    topo.add_argument("config", metavar="CONFIG_OR_PRESET", help=CONFIG_HELP)
    add_set(topo)
    topo.add_argument("--json", action="store_true", help="print the analytics as one JSON object")
    topo.add_argument("--check-deadlock", action="store_true",
                      help="build the channel dependency graph of every routing algorithm with the engine's "
                           "virtual-channel scheme and prove it acyclic (or print the cycle)")
    topo.add_argument("--graphml", metavar="FILE", help="also write the topology as GraphML to FILE")


def _add_sweep_load(sub: Subcommands) -> None:
    sweep = sub.add_parser("sweep-load", help="latency and accepted load against offered load",
                           description="Run a config at several offered loads (in parallel over Dask) "
                                       "and report latency and accepted load; writes sweep.parquet "
                                       "and latency_vs_load.png.")
    sweep.add_argument("config", metavar="CONFIG", help=CONFIG_HELP)
    sweep.add_argument("--loads", type=parse_loads, required=True, metavar="L1,L2,...",
                       help="offered loads, fractions of injection bandwidth, e.g. 0.1,0.2,0.5")
    add_set(sweep)
    sweep.add_argument("--source", metavar="NAME",
                       help="sweep only this traffic source and report its figures "
                            "(default: every Bernoulli source, overall figures)")
    sweep.add_argument("--out", default="out/sweep-load", metavar="DIR",
                       help="output folder (default: out/sweep-load), replaced in one step")
    add_scheduler(sweep)
    add_store(sweep)
    add_quiet(sweep)
    sweep.add_argument("--json", action="store_true",
                       help="print the table as JSON: {\"points\": [...]}, each point with cached (read from the store)")


def _add_experiment(sub: Subcommands) -> None:
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
    add_study_set(exp)
    add_scheduler(exp)
    add_store(exp)
    add_quiet(exp)


def _add_validate(sub: Subcommands) -> None:
    val = sub.add_parser("validate", help="run every recipe and compare it with the papers' numbers (docs/validation.md)",
                         description="Run every recipe of `slingsim experiment` that the papers state a number or "
                                     "an ordering for, and print one table: the paper's figure and number, ours, "
                                     "whether the paper's ordering holds and whether ours is within 2x of it; "
                                     "then, for each claim that differs, the cause the measurements found. "
                                     "Each recipe's output goes to OUT/NAME. Exit status 1 if a recipe failed "
                                     "(or, with --strict, if an ordering does not hold).")
    val.add_argument("--quick", action="store_true", help="the recipes' quick modes (20-25 minutes on 2 cores "
                     "from an empty result store)")
    val.add_argument("--only", metavar="NAMES",
                     help="comma-separated experiments to validate (default: every one with a claim)")
    val.add_argument("--out", default="out/validate", metavar="DIR",
                     help="folder of the recipes' outputs and validation.parquet (default: out/validate)")
    val.add_argument("--markdown", metavar="FILE",
                     help="also write the table as Markdown (docs/validation.md is this file)")
    val.add_argument("--json", action="store_true", help="print {quick, counts, claims: [rows]} as JSON")
    val.add_argument("--strict", action="store_true", help="exit 1 if any ordering the papers state does not hold")
    add_study_set(val)
    add_scheduler(val)
    add_store(val)
    add_quiet(val)


def _add_demo(sub: Subcommands) -> None:
    demo = sub.add_parser("demo", help="latency vs load on Malbec for minimal, Valiant and UGAL routing",
                          description="Latency against offered load on Malbec (484 nodes) for minimal, "
                                      "Valiant and UGAL routing under uniform and group-adversarial traffic; "
                                      "prints a table, writes demo.parquet and latency_vs_load.png.")
    demo.add_argument("--out", default="out/demo", metavar="DIR", help="output folder (default: out/demo)")
    demo.add_argument("--quick", action="store_true", help="three loads per curve and shorter windows")
    add_scheduler(demo)
    add_store(demo)
    add_quiet(demo)


def _add_bench(sub: Subcommands) -> None:
    bench = sub.add_parser("bench", help="performance benchmark",
                           description="Run the benchmark scenarios, each in a fresh process, and report "
                                       "events/s, packet-hops/s, simulated ns per wall second and peak memory.")
    bench.add_argument("--only", action="append", metavar="NAME",
                       help="run only this scenario (e.g. shandy-uniform-50, incast-slingshot, gpcnet-shandy-latency, "
                            "impact-pair-shandy; all in docs/benchmarks.md); repeatable")
    bench.add_argument("--json", action="store_true", help="print {\"scenarios\": [...]} as JSON")
    add_quiet(bench)


def _add_gpcnet(sub: Subcommands) -> None:
    gpc = sub.add_parser("gpcnet", help="the GPCNeT congestion suite on a system (docs/workloads.md)",
                         description="Run GPCNeT's victim tests (random-ring latency, random-ring bandwidth+sync, "
                                     "allreduce) on 20% of the nodes, alone and beside four congestors (alltoall, "
                                     "incast, put incast, get broadcast) on the other 80%, and print its key-results "
                                     "table with congestion impact.")
    gpc.add_argument("system", metavar="SYSTEM", help=CONFIG_HELP)
    gpc.add_argument("--nodes", type=positive_int, metavar="N", help="nodes to use (default: all of the system)")
    gpc.add_argument("--ppn", type=positive_int, default=1, metavar="P", help="processes per node (default 1)")
    gpc.add_argument("--iterations", type=positive_int, metavar="N",
                     help="timed iterations of each victim test, per ring for the ring tests (default GPCNeT's: "
                          "200 of the latency test and the allreduce, 8 of the bandwidth test)")
    gpc.add_argument("--rings", type=positive_int, default=1, metavar="N",
                     help="random rings the two ring tests draw in turn, each with its untimed and timed "
                          "iterations (default 1; GPCNeT draws 30 per measurement)")
    gpc.add_argument("--warmup-iterations", type=non_negative_int, metavar="N",
                     help="untimed iterations of each test before its timed ones, on every ring "
                          "(default GPCNeT's: 200 for the latency test, 1 for the bandwidth test and the allreduce)")
    gpc.add_argument("--congestors", default=",".join(("alltoall", "incast", "put-incast", "get-bcast")),
                     metavar="LIST", help="comma-separated congestors, or 'none' for an idle baseline "
                                          "(default: alltoall,incast,put-incast,get-bcast)")
    gpc.add_argument("--warmup-ns", type=float, default=1_000_000.0, metavar="NS",
                     help="how long the congestors run before the victims start (default 1000000)")
    add_set(gpc)
    gpc.add_argument("--seed", type=seed_int, metavar="N", help="master seed (placement, random ring)")
    add_scheduler(gpc)
    add_store(gpc)
    add_quiet(gpc)
    gpc.add_argument("--json", action="store_true",
                     help="print {tests: [{name, isolated, congested, impact_mean, impact_p99, ...}], ...} as JSON")


def _add_trace(sub: Subcommands) -> None:
    trace = sub.add_parser("trace", help="read MPI traces (DUMPI, OTF2), write a workload as a DUMPI trace",
                           description="Read MPI traces of real runs as slingsim MPI programs, or write a generated workload as one (docs/traces.md).")
    trace_sub = trace.add_subparsers(dest="trace_command", metavar="ACTION", required=True,
                                     help="info: the trace's summary; write: a generated workload as a DUMPI trace")
    _add_trace_info(trace_sub)
    _add_trace_write(trace_sub)


def _add_trace_info(trace_sub: Subcommands) -> None:
    trace_info = trace_sub.add_parser(
        "info", help="summary of a trace: ranks, MPI calls, bytes, message matching, warnings",
        description="Read a trace and print its ranks, MPI calls by count, bytes sent, how many "
                    "point-to-point messages match statically, and what the program format cannot hold.")
    trace_info.add_argument("trace", metavar="TRACE",
                            help="a DUMPI .meta file, an OTF2 .otf2 anchor file, or the directory holding one")
    trace_info.add_argument("--json", action="store_true",
                            help="print {ranks, calls, bytes, matched_messages, unmatched_messages, warnings} as JSON")


def _add_trace_write(trace_sub: Subcommands) -> None:
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


def _add_plot(sub: Subcommands) -> None:
    plot = sub.add_parser("plot", help="figures of a run's result folder",
                          description="Draw link utilisation by kind (link_utilization.png), a per-link heatmap of "
                                      "the global links (global_links.png) and the delivery timeline "
                                      "(timeline.png) of a folder written by `slingsim run --out`.")
    plot.add_argument("result", metavar="RESULT_DIR", help="folder written by `slingsim run --out DIR`")
    plot.add_argument("--out", metavar="DIR", help="where to write the PNG files (default: RESULT_DIR)")


def _add_cache(sub: Subcommands) -> None:
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
