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

from .api import Simulation
from .bench import scenario_config


def peak_rss_bytes() -> int:
    """Maximum resident set size of this process so far (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def measure(name: str) -> Dict[str, Any]:
    """Build and run scenario ``name``; rates are per second of run time (build excluded)."""
    cfg = scenario_config(name)
    sim = Simulation(cfg)
    started = time.perf_counter()
    sim.run()
    wall_s = time.perf_counter() - started
    summary = sim.summary()
    per_s = 1.0 / wall_s if wall_s > 0 else float("inf")
    return {
        "name": name,
        "events_per_s": summary["events"] * per_s,
        "packet_hops_per_s": summary["packet_hops"] * per_s,
        "sim_ns_per_wall_s": summary["sim_time_ns"] * per_s,
        "peak_rss_bytes": peak_rss_bytes(),
        "wall_s": wall_s,
        "build_s": sim.build_s,
        "events": summary["events"],
        "packet_hops": summary["packet_hops"],
        "sim_time_ns": summary["sim_time_ns"],
        "end_reason": summary["end_reason"],
        "accepted_load": summary["accepted_load"],
    }


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
