"""[McGlohon19] Sec. 6.4-6.5, Figs. 4-9 and Table 3: AMG and MultiGrid beside background traffic on four networks.

The four networks of Table 2 (``slimfly-3k``, ``fitfly-3k``, ``dragonfly-3k``,
``megafly-3k``) each run a primary workload, AMG on 1,728 ranks or MultiGrid
on 1,000 (the ``amg`` and ``multigrid`` workloads, calibrated to the traces'
published runtimes: docs/workloads.md), one rank per node, beside 1,000
nodes of uniform random background (Sec. 6.1.3: every node sends one message
every 100 us to a random node of the background, the message's size setting
the intensity as a fraction of the 12.5 GiB/s link bandwidth, from 0 to
72.5%). Both allocations come from one seeded random permutation of the
nodes every network has, so every network runs the same allocation map.
The equalised-bandwidth variants (Sec. 6.5) add Fit Fly at FDR (7 GiB/s
links, ``fitfly-3k-fdr``) against Slim Fly at EDR (Figs. 6-7) and Slim Fly at
HDR (25 GiB/s) against Fit Fly at EDR (Figs. 8-9); the background keeps the
same bytes (fractions of 12.5 GiB/s) on every network.

Metrics (Sec. 6.2): the workload's maximum communication time (per rank,
first message to last, the maximum over ranks), the mean latency of all
packets delivered (workload and background) and their mean hops. Ours count
switch-to-switch links; CODES counts routers visited (one more), given
beside as ``mean_hops_codes``. Each row also says how much of the background
the network accepted and whether it was saturated (accepted more than 5%
short of offered): at 72.5% only Fit Fly, whose two planes split the
background, keeps up, so Table 3 compares saturated networks.

The workload replays its communication only (``compute_scale = 0``, as
CODES' ``--disable_compute``): Table 3's 1.4 ms cannot contain a second of
computation. Runs stop at 1 s of simulated time as the paper's did; a run
still going is reported as "> 1 s" with a null time. To keep the study
within its hour, a loaded run first simulates ``CHECK_NS``; if by then the
workload has sent so few of its messages (counted in the idle run) that at
that rate it would need more than twice the cap, it is reported as "> 1 s
(projected)" without simulating the rest; otherwise it runs to its end or
to the cap.

``quick`` runs scaled-down networks of about 200 nodes (Slim Fly and Fit
Fly with q = 5, a Dragonfly of 11 groups, a Megafly of 7) with 64-rank
workloads beside 64 background nodes, at 0, 25 and 72.5%, without the
equalised variants.

A node hands its data to its NICs at one link's rate (``nic.node_injection_bps``), as CODES, which ran the
paper's simulations, does: [McGlohon19] Sec. 6.5 names this as the cause of its equalised-bandwidth results
("CODES using link bandwidth for the speed of transmission of data from the workload server and the terminal
node instead of the total injection bandwidth"). Only Fit Fly, whose nodes have two rails, is held by it.
"""
from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import pyarrow as pa

from ..config import Config, load_config
from .. import provenance
from ..cluster import SchedulerLike
from ..store import CacheLike
from ..sweep import run_labelled, run_many
from .fitfly_networks_plot import plot_comparison
from .output import study_output

GIB = 2**30
EDR_GIBPS = 12.5
"""Table 2's link bandwidth, GiB/s (Sec. 6.4: GiB/s rather than EDR's GB/s, on purpose)."""
INTERVAL_NS = 100_000.0
"""Sec. 6.1.3: the background's mean interval between a node's messages."""
BACKGROUND = (0.0, 0.15, 0.30, 0.50, 0.725)
"""Background intensities, fractions of the 12.5 GiB/s link bandwidth (72.5%: Table 3)."""
QUICK_BACKGROUND = (0.0, 0.25, 0.725)
CAP_NS = 1e9
"""Sec. 7.1: the paper stopped its simulations at 1 s of simulated time."""
CHECK_NS = 3e6
QUICK_CHECK_NS = 1e6
PROJECTION_MARGIN = 2.0
"""A run is projected past the cap only if its rate so far would need this many times the cap."""
SATURATION_SHORTFALL = 0.05
"""A run's background is saturated when the network accepts less than this fraction short of what it offers:
its excess then waits at its NICs and grows for as long as the run lasts."""
SEED = 2019
"""Seed of the allocation map shared by every network."""
BACKGROUND_NODES = 1000
QUICK_BACKGROUND_NODES = 64

WORKLOADS = {
    # label: (workload, ranks, quick ranks, iterations). One solver iteration each:
    # AMG's setup and one preconditioned CG iteration, MultiGrid's one V-cycle.
    "amg": ("amg", 1728, 64, 1),
    "mg": ("multigrid", 1000, 64, 1),
}

NETWORKS: Dict[str, Tuple[str, str, float, str]] = {
    # key: (network, preset, link GiB/s, comparison)
    "slimfly": ("slimfly", "slimfly-3k", EDR_GIBPS, "table-2"),
    "fitfly": ("fitfly", "fitfly-3k", EDR_GIBPS, "table-2"),
    "dragonfly": ("dragonfly", "dragonfly-3k", EDR_GIBPS, "table-2"),
    "megafly": ("megafly", "megafly-3k", EDR_GIBPS, "table-2"),
    "fitfly-fdr": ("fitfly", "fitfly-3k-fdr", 7.0, "fig-6-7"),
    "slimfly-hdr": ("slimfly", "slimfly-3k", 25.0, "fig-8-9"),
}
QUICK_NETWORKS = ("slimfly", "fitfly", "dragonfly", "megafly")

QUICK_TOPOLOGY = {
    "slimfly-3k": {"q": 5, "endpoints_per_switch": 4},
    "fitfly-3k": {"q": 5, "endpoints_per_switch": 4},
    "dragonfly-3k": {"groups": 11, "switches_per_group": 6, "endpoints_per_switch": 3, "global_ports_per_switch": 2, "radix": 16},
    "megafly-3k": {"groups": 7, "leaves_per_group": 6, "spines_per_group": 6, "endpoints_per_switch": 5, "global_ports_per_switch": 1, "radix": 12},
}

PAPER_TABLE_3_MS = {
    # [McGlohon19] Table 3: maximum communication time at 72.5% background, ms (None: "> 1 s").
    ("amg", "slimfly"): 28.4, ("amg", "fitfly"): 1.4, ("amg", "dragonfly"): None, ("amg", "megafly"): None,
    ("mg", "slimfly"): 20.3, ("mg", "fitfly"): 5.4, ("mg", "dragonfly"): None, ("mg", "megafly"): None,
}


def network_config(key: str, quick: bool) -> Config:
    """The network of ``key`` with no traffic: the preset, its link rate, and in quick mode its small version."""
    _, preset, gibps, _ = NETWORKS[key]
    cfg = load_config(preset)
    if quick:
        cfg["topology"].update(QUICK_TOPOLOGY[preset])
    bps = gibps * GIB * 8
    cfg["nic"]["bandwidth_bps"] = bps
    cfg["links"]["bandwidth_bps"] = bps
    if cfg["topology"].get("rails", 1) > 1:
        # CODES hands a node's data to its NICs at one link's rate, not at the rails' sum (Sec. 6.5); with one
        # rail that is the NIC's own rate, so only Fit Fly's nodes are held to it.
        cfg["nic"]["node_injection_bps"] = bps
    cfg["traffic"] = []
    return cfg


def allocation(quick: bool) -> Tuple[List[int], List[int]]:
    """(workload pool, background nodes): one seeded permutation of the nodes every network has.

    The workload of ``r`` ranks takes the first ``r`` nodes of the pool, rank i on pool[i].
    """
    nodes = list(range(198 if quick else 3042))  # the smallest network's nodes (quick: Dragonfly; full: Slim Fly)
    random.Random(SEED).shuffle(nodes)
    workload_max = max(w[2] if quick else w[1] for w in WORKLOADS.values())
    count = QUICK_BACKGROUND_NODES if quick else BACKGROUND_NODES
    return nodes[:workload_max], nodes[workload_max:workload_max + count]


def background_bytes(fraction: float) -> int:
    """Message size that makes one message per 100 us ``fraction`` of 12.5 GiB/s (Sec. 6.1.3)."""
    return round(fraction * EDR_GIBPS * GIB * INTERVAL_NS * 1e-9)


def point_config(key: str, workload: str, fraction: float, quick: bool, max_time_ns: float) -> Config:
    """One run: the network, the workload (communication only) and, above 0, the background."""
    cfg = network_config(key, quick)
    pool, background = allocation(quick)
    name, ranks, quick_ranks, iterations = WORKLOADS[workload]
    ranks = quick_ranks if quick else ranks
    cfg["sim"] = {"warmup_ns": 0, "duration_ns": max_time_ns, "max_time_ns": max_time_ns, "drain_ns": 0}
    cfg["job"] = [{"name": workload, "workload": name, "iterations": iterations, "nodes": {"list": pool[:ranks]},
                   "compute_scale": 0.0}]
    if fraction > 0:
        cfg["traffic"] = [{"name": "background", "pattern": "uniform", "process": "periodic",
                           "interval_ns": INTERVAL_NS, "message_bytes": background_bytes(fraction),
                           "nodes": {"list": background}}]
    return cfg


def labels(key: str, workload: str, fraction: float) -> Dict[str, Any]:
    network, _, gibps, comparison = NETWORKS[key]
    return {"network": network, "link_gibps": gibps, "comparison": comparison, "workload": workload,
            "background": fraction}


def study_keys(quick: bool) -> List[str]:
    return list(QUICK_NETWORKS if quick else NETWORKS)


def run_fitfly_networks(
    out_dir: Union[str, Path] = "out/fitfly-networks",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``fitfly_networks.parquet``, ``table3.parquet`` and the figures; return the table."""
    started = provenance.now()
    keys = study_keys(quick)
    levels = QUICK_BACKGROUND if quick else BACKGROUND
    check = QUICK_CHECK_NS if quick else CHECK_NS
    run = lambda points: run_labelled(points, scheduler, workers, progress, cache)  # noqa: E731

    # Idle runs, with their link tables for the shares check; they also give
    # each workload's message count, for the projection.
    idle_points = [({**labels(k, w, 0.0), "key": k}, point_config(k, w, 0.0, quick, CAP_NS)) for k in keys for w in WORKLOADS]
    idle_results = run_many([c for _, c in idle_points], scheduler, workers, progress, cache)
    idle = [(l, r.summary) for (l, _), r in zip(idle_points, idle_results)]
    totals = {(l["key"], l["workload"]): s["jobs"][l["workload"]]["messages"] for l, s in idle}
    loaded = [(k, w, f) for k in keys for w in WORKLOADS for f in levels if f > 0]
    first = run([({**labels(k, w, f), "key": k}, point_config(k, w, f, quick, check)) for k, w, f in loaded])
    rest, results = [], {}
    for l, s in first:
        job = s["jobs"][l["workload"]]
        done = job["messages"] / max(1, totals[(l["key"], l["workload"])])
        results[(l["key"], l["workload"], l["background"])] = [s]
        if not job["finished"] and (done == 0 or check / done > PROJECTION_MARGIN * CAP_NS):
            s["projection"] = {"at_ns": check, "progress": done}
        elif not job["finished"]:
            rest.append(({**l}, point_config(l["key"], l["workload"], l["background"], quick, CAP_NS)))
    for l, s in run(rest):
        results[(l["key"], l["workload"], l["background"])].append(s)
    for l, s in idle:
        results[(l["key"], l["workload"], 0.0)] = [s]

    rows, summaries = [], [s for _, s in idle] + [s for _, s in first] + [s for runs in results.values() for s in runs[1:]]
    for k in keys:
        for w in WORKLOADS:
            for f in levels:
                rows.append(result_row(labels(k, w, f), results[(k, w, f)], check))
    shares = check_shares(keys, quick, {(l["key"], l["workload"]): r for (l, _), r in zip(idle_points, idle_results)},
                          scheduler, workers, progress, cache)
    table3 = table3_rows(rows)
    checks = {"shares_checked": all(s["shared_links"] > 0 for s in shares.values()), "shares": shares,
              "cap_ns": CAP_NS, "check_ns": check, "quick": quick, "saturated_at_top_background": saturated_at_top(rows)}
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(fitfly_networks=rows, table3=table3)
        plot_comparison(rows, out.path, quick, out.provenance)
        return out.table(rows, checks)


def result_row(label: Dict[str, Any], runs: Sequence[Dict[str, Any]], check: float) -> Dict[str, Any]:
    """One row of the study from its run(s): the last one decides, every one costs its wall time."""
    s = runs[-1]
    job = s["jobs"][label["workload"]]
    projection = s.get("projection")
    capped = not job["finished"]
    hops = s["hops_mean"]
    if projection:
        reason = (f"projected past 1 s: {100 * projection['progress']:.1f}% of its messages sent "
                  f"after {check / 1e6:g} ms")
    elif capped:
        reason = "still running at 1 s of simulated time"
    else:
        reason = None
    return {
        **label,
        "max_comm_time_ns": None if capped else job["max_comm_time_ns"],
        "capped": capped,
        "cap_reason": reason,
        "sim_time_ns": s["sim_time_ns"],
        "mean_latency_ns": s["latency_ns"]["mean"] if s["latency_ns"]["count"] else None,
        "mean_hops": hops,
        "mean_hops_codes": hops + 1.0,
        "workload_latency_ns": s["traffic"][label["workload"]]["latency_ns"]["mean"],
        "background_accepted": s["traffic"].get("background", {}).get("accepted_load"),
        "background_offered": s["traffic"].get("background", {}).get("offered_load"),
        "background_saturated": saturated(s["traffic"].get("background")),
        "wall_s": sum(r.get("wall_s", 0.0) for r in runs),
        "cpu_s": sum(r.get("cpu_s", 0.0) for r in runs),
        "cached": all(r.get("cached", False) for r in runs),
    }


def saturated(background: Optional[Dict[str, Any]]) -> Optional[bool]:
    """Whether the network accepted less of the background than it was offered (None: no background)."""
    if not background or not background.get("offered_load"):
        return None
    return background["accepted_load"] < (1.0 - SATURATION_SHORTFALL) * background["offered_load"]


def saturated_at_top(rows: Sequence[Dict[str, Any]]) -> Dict[str, List[str]]:
    """Per workload, the Table 2 networks whose background was saturated at the highest intensity."""
    top = max(r["background"] for r in rows)
    out: Dict[str, List[str]] = {}
    for r in rows:
        if r["comparison"] == "table-2" and r["background"] == top:
            names = out.setdefault(r["workload"], [])
            if r["background_saturated"]:
                names.append(r["network"])
    return out


def table3_rows(rows: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Table 3: maximum communication time at 72.5% on the four Table-2 networks, ours beside the paper's."""
    out = []
    for r in rows:
        if r["comparison"] != "table-2" or r["background"] != 0.725:
            continue
        paper = PAPER_TABLE_3_MS[(r["workload"], r["network"])]
        ours = r["max_comm_time_ns"]
        out.append({"workload": r["workload"], "network": r["network"],
                    "ours": "> 1 s" if ours is None else f"{ours / 1e6:.1f} ms",
                    "paper": "> 1 s" if paper is None else f"{paper} ms",
                    "ours_ms": None if ours is None else ours / 1e6, "paper_ms": paper,
                    "background_accepted": r["background_accepted"], "background_saturated": r["background_saturated"]})
    return out


def check_shares(keys: Sequence[str], quick: bool, alone: Dict[Tuple[str, str], Any], scheduler: SchedulerLike,
                 workers: Optional[int], progress: bool, cache: CacheLike) -> Dict[str, Dict[str, Any]]:
    """Per network: do the workload's and the background's packets cross the same switch-to-switch links?

    ``alone`` holds each workload's idle run (with its link table); this runs
    the background alone (its highest level, 300 us) and compares: a link is
    shared when both put bytes on it. ``shared_links`` counts them over both
    workloads, ``<workload>_bytes_shared`` is the fraction of that workload's
    link bytes that went over shared links.
    """
    configs = []
    for k in keys:
        bg = point_config(k, "mg", max(QUICK_BACKGROUND if quick else BACKGROUND), quick, CAP_NS)
        bg["job"] = []
        bg["sim"] = {"warmup_ns": 0, "duration_ns": 300_000.0, "drain_ns": 0}
        configs.append(bg)
    results = {(k, "background"): r for k, r in zip(keys, run_many(configs, scheduler, workers, progress, cache))}
    results.update(alone)
    out = {}
    for k in keys:
        def used(result: Any) -> Dict[int, int]:
            t = result.links.to_pylist()
            return {r["channel"]: r["bytes"] for r in t if r["kind"] != "terminal" and r["bytes"] > 0}
        background = used(results[(k, "background")])
        entry: Dict[str, Any] = {}
        shared_total = 0
        for w in WORKLOADS:
            mine = used(results[(k, w)])
            shared = [c for c in mine if c in background]
            entry[f"{w}_links"] = len(mine)
            entry[f"{w}_bytes_shared"] = sum(mine[c] for c in shared) / max(1, sum(mine.values()))
            shared_total += len(shared)
        entry["background_links"] = len(background)
        entry["shared_links"] = shared_total
        out[k] = entry
    return out
