"""The performance benchmark: fixed scenarios, each measured in a fresh process.

Each scenario runs in its own interpreter (``python -m slingsim.bench_worker
NAME``) so its peak resident memory is its own and not that of earlier
scenarios. Rates are taken over the simulation's run time, excluding the
network build, which is reported separately as ``build_s``. See
``docs/benchmarks.md``.
"""
from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from .config import Config, apply_overrides, load_config
from .progress import ProgressBar


def shandy_uniform_50() -> Config:
    """Shandy (1024 nodes, 2 rails, 2048 endpoints), uniform random traffic at 50% load, 5 us warmup + 200 us measured (long enough for steady state)."""
    return apply_overrides(load_config("slingshot-shandy"), [
        "traffic.uniform.load=0.5", "sim.warmup_ns=5000", "sim.duration_ns=200000",
        # The engine's base speed, comparable across releases: minimal routing,
        # no congestion control, RoCE frames, the per-output switch at speedup 2
        # (the preset's own mechanisms are measured by the incast-* scenarios,
        # its tiled switch by shandy-uniform-50-tiled).
        "routing.algorithm=minimal", "congestion.algorithm=none", "nic.frame=roce", "sim.drain_ns=0",
        "switch.model=per-output", "switch.speedup=2",
    ])


def shandy_uniform_50_tiled() -> Config:
    """``shandy-uniform-50`` with the preset's own switch: tiled, speedup 4 (what issue 11's detailed model costs)."""
    return apply_overrides(shandy_uniform_50(), ["switch.model=tiled", "switch.speedup=4"])


def max_build() -> Config:
    """The 279,040-endpoint ``slingshot-max``: build it, then 10 us of uniform traffic at 30% load, no warmup."""
    return apply_overrides(load_config("slingshot-max"), [
        "traffic.uniform.load=0.3", "sim.warmup_ns=0", "sim.duration_ns=10000",
    ])


def malbec_adversarial_ugal() -> Config:
    """Malbec (484 nodes), group-adversarial traffic at 40% load under UGAL routing, 10 us warmup + 40 us measured."""
    return apply_overrides(load_config("slingshot-malbec"), [
        "traffic.uniform.pattern=group_adversarial", "traffic.uniform.load=0.4",
        "routing.algorithm=ugal", "sim.warmup_ns=10000", "sim.duration_ns=40000",
        "congestion.algorithm=none", "nic.frame=roce", "sim.drain_ns=0",
    ])


CONGESTION_CONTROLS = ("none", "dcqcn", "slingshot", "slingshot-endpoint")


def incast_scenario(cc: str) -> Callable[[], Config]:
    """Malbec with a victim and an incast aggressor under one congestion control."""
    def config() -> Config:
        cfg = load_config("slingshot-malbec")
        cfg["traffic"] = [
            {"name": "victim", "pattern": "uniform", "load": 0.1, "message_bytes": 256,
             "nodes": {"count": 96}, "placement": "interleaved"},
            {"name": "aggressor", "pattern": "incast", "load": 0.5, "nodes": {"count": 128}, "target": 0},
        ]
        return apply_overrides(cfg, [f"congestion.algorithm={cc}", "sim.warmup_ns=10000", "sim.duration_ns=500000",
                                     "sim.drain_ns=0"])
    config.__doc__ = (f"Malbec: 96-node uniform victim (256 B at 10%) and a 128-node incast (50%), "
                      f"congestion control {cc}, 10 us warmup + 500 us; the cost of congestion control per packet-hop.")
    return config


GPCNET_ITERATIONS = 50


def gpcnet_latency_shandy() -> Config:
    """GPCNeT on Shandy (1024 nodes): the random-ring latency victim (205 nodes, 50 iterations) beside
    the four congestors (4 x 204 nodes), as ``slingsim gpcnet`` runs it, without the 200 untimed iterations
    it has run before them since 2026-11-30, so the scenario's work is what it was before."""
    from .gpcnet import gpcnet_configs

    return gpcnet_configs("slingshot-shandy", iterations=GPCNET_ITERATIONS, warmup_iterations=0)[0]["congested"]


def impact_pair_shandy() -> List[Config]:
    """A full congestion-impact measurement on Shandy, one core: a 512-node alltoall (128 B, 20 iterations)
    alone, then beside a 512-node incast aggressor (128 KiB puts), interleaved (paper 000 Sec. III)."""
    from .jobs import isolate

    cfg = load_config("slingshot-shandy")
    cfg["traffic"] = []
    cfg["job"] = [
        {"name": "victim", "workload": "alltoall", "bytes": 128, "iterations": 20, "nodes": {"fraction": 0.5},
         "placement": "interleaved", "start_ns": 200_000},
        {"name": "aggressor", "workload": "incast", "bytes": 131_072, "repeat": True, "iterations": 1},
    ]
    return [isolate(cfg, "victim"), cfg]


FAMILY_PRESETS = ("dragonfly-3k", "megafly-3k", "slimfly-3k", "fitfly-3k", "fattree-3k", "aries-crystal")
"""~3,000-node systems of each topology family (paper 003 Table 2, a fat tree of similar size, Crystal)."""


def family_scenario(preset: str) -> Callable[[], Config]:
    """Build a family's ~3,000-node preset (timed as build_s) and run 10 us of uniform traffic at 30% load."""
    def config() -> Config:
        return apply_overrides(load_config(preset), [
            "traffic.uniform.load=0.3", "sim.warmup_ns=2000", "sim.duration_ns=10000",
        ])
    config.__doc__ = f"{preset}: build, then 10 us of uniform traffic at 30% load after a 2 us warmup."
    return config


def dragonfly_1056_64b() -> Config:
    """A balanced 1056-node dragonfly (p=4, a=8, h=4, g=33) with 64-byte packets, one packet per ns per link,
    uniform at 38% load, 10 us warmup + 10 us: the regime of cycle-level simulators, where every packet is tiny."""
    return load_config("bench/dragonfly-1056-64B")


def fattree_permutation(endpoints: int) -> Callable[[], Config]:
    """A fat tree permutation of 2 MiB flows, run to completion."""
    def config() -> Config:
        return load_config(f"bench/fattree-permutation-{endpoints}")
    config.__doc__ = (f"A {endpoints}-endpoint 3-level fat tree (radix {8 if endpoints == 128 else 16}), 100 Gb/s, "
                      "one 2 MiB flow per node in a random permutation, run to completion.")
    return config


SCENARIOS: Dict[str, Callable[[], Union[Config, List[Config]]]] = {
    "shandy-uniform-50": shandy_uniform_50,
    "shandy-uniform-50-tiled": shandy_uniform_50_tiled,
    "max-build": max_build,
    "malbec-adversarial-ugal": malbec_adversarial_ugal,
    "dragonfly-1056-64B": dragonfly_1056_64b,
    "fattree-permutation-128": fattree_permutation(128),
    "fattree-permutation-1024": fattree_permutation(1024),
    **{f"incast-{cc}": incast_scenario(cc) for cc in CONGESTION_CONTROLS},
    **{f"{preset}-uniform-30": family_scenario(preset) for preset in FAMILY_PRESETS},
    "gpcnet-shandy-latency": gpcnet_latency_shandy,
    "impact-pair-shandy": impact_pair_shandy,
}
"""Benchmark scenarios by name, each a function returning its config (or a list of configs run one
after the other on one core and measured together)."""


def scenario_config(name: str) -> Union[Config, List[Config]]:
    """The config of a named scenario, or a ValueError listing the scenarios."""
    if name not in SCENARIOS:
        raise ValueError(f"bench --only: no scenario {name!r}; choose one of: {', '.join(SCENARIOS)}")
    return SCENARIOS[name]()


def measure_in_subprocess(name: str) -> Dict[str, Any]:
    """Run one scenario in a fresh interpreter and return the JSON figures it prints."""
    scenario_config(name)  # fail fast, in this process, on an unknown name
    done = subprocess.run(
        [sys.executable, "-m", "slingsim.bench_worker", name],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench scenario {name} failed (exit {done.returncode}):\n{done.stderr.strip()}")
    return json.loads(done.stdout)


def run_bench(only: Optional[Iterable[str]] = None, progress: bool = False) -> List[Dict[str, Any]]:
    """Measure the chosen scenarios (all by default), one subprocess each, in order."""
    names = list(only) if only else list(SCENARIOS)
    for name in names:
        scenario_config(name)
    results = []
    with ProgressBar(len(names), "benchmark", enabled=progress, delay_s=0.0) as bar:
        for name in names:
            results.append(measure_in_subprocess(name))
            bar.update(len(results))
    return results
