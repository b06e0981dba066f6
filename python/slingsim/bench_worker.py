"""Child process of ``slingsim bench``: measure one scenario and print its figures as JSON.

Usage: ``python -m slingsim.bench_worker SCENARIO``. Peak memory is this
process's own maximum resident set size, so each scenario runs in a fresh
interpreter.
"""
from __future__ import annotations

import json
import resource
import sys
import time
from typing import Any, Dict

from . import _core
from .api import Simulation
from .bench import scenario_config


def peak_rss_bytes() -> int:
    """Maximum resident set size of this process so far (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def measure(name: str) -> Dict[str, Any]:
    """Build and run scenario ``name`` (its configs one after the other); rates are per second of
    the engine's run time (builds excluded); ``tables_s`` is the time after the run spent handing the
    result tables to Python, which :meth:`Simulation.run` does before it returns."""
    configs = scenario_config(name)
    configs = configs if isinstance(configs, list) else [configs]
    wall_s = build_s = tables_s = 0.0
    summaries = []
    for cfg in configs:
        sim = Simulation(cfg)
        started = time.perf_counter()
        sim.run()
        wall_s += sim.wall_s
        tables_s += time.perf_counter() - started - sim.wall_s
        build_s += sim.build_s
        summaries.append(sim.summary())
    total = lambda key: sum(s[key] for s in summaries)  # noqa: E731
    per_s = 1.0 / wall_s if wall_s > 0 else float("inf")
    last = summaries[-1]
    endpoints = max(s["endpoints"] for s in summaries)
    peak = peak_rss_bytes()
    out = {
        "name": name,
        "events_per_s": total("events") * per_s,
        "packet_hops_per_s": total("packet_hops") * per_s,
        "sim_ns_per_wall_s": total("sim_time_ns") * per_s,
        "peak_rss_bytes": peak,
        "endpoints": endpoints,
        "peak_rss_bytes_per_endpoint": peak / endpoints,
        "wall_s": wall_s,
        "build_s": build_s,
        "tables_s": tables_s,
        "events": total("events"),
        "packet_hops": total("packet_hops"),
        "events_per_hop": total("events") / max(1, total("packet_hops")),
        "bytes_per_packet": _core.packet_record_bytes(),
        "sim_time_ns": total("sim_time_ns"),
        "end_reason": last["end_reason"],
        "accepted_load": last["accepted_load"],
        "runs": len(summaries),
    }
    if last.get("jobs"):
        out["jobs_finished"] = all(j["finished"] or j["repeat"] for s in summaries for j in s["jobs"].values())
    return out


def main(argv=None) -> int:
    """Entry point: measure the scenario named on the command line and print one JSON object."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m slingsim.bench_worker SCENARIO", file=sys.stderr)
        return 2
    print(json.dumps(measure(args[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
