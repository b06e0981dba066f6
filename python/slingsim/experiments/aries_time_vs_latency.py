"""[DeSensi19] Fig. 5: how much a ping-pong's time varies against how much its messages' latency varies,
by message size, between two groups of Piz Daint with one process per node.

The paper measures both with the quartile coefficient of dispersion, QCD = (Q3 - Q1) / (Q3 + Q1)
([DeSensi19] Sec. 3.3), and finds the time's QCD above the latency's, most of all for small messages:
the time of a communication routine also holds host-side delays (OS noise, the paper's [28]), so its
variability overestimates the network's noise.

Here each message size has its own inter-group pair on ``aries-daint`` (:func:`check_pairs` checks the
groups and that no two pairs share a router), all in one run beside other users' jobs
(:func:`slingsim.experiments.allocation.background_jobs` in the pairs' two groups, checked to be there).
Each round trip follows a pause (as ``aries-allocation-noise`` samples) and runs, as the ping's rank sees
it, from just before its send to the pong's arrival (:func:`timed_pingpong` marks it as one iteration,
so its time is exact). Its *latency* is the mean network latency (injection to delivery) of the packets
delivered during that round trip (the job's ``iteration_packet_latency_ns``): what the Aries NIC's
latency counters give when read once per round trip ([DeSensi19] Sec. 2.3), and in this model what a
detour cannot touch. Each row also gives ``packet_latency_qcd``, the spread over every single packet:
Aries routes each packet adaptively, so one message's packets take paths of different lengths and that
spread is far wider than the per-round-trip mean's.

The host side is ``[host.noise]``: each CPU takes detours at exponential gaps. The papers give no
figure for Piz Daint's noise, so the recipe runs every size three times, at the levels of
:mod:`slingsim.experiments.host_noise_levels` (no detours, 1 us detours on 1% of the CPU and on 10%): the paper's finding is checked on the noisy runs, and the quiet run shows what the network alone
gives (:func:`check_noise` refuses noisy runs whose ranks no detour held up, and quiet ones that were).

Each ratio of the time's QCD over the latency's comes with a 95% bootstrap interval over the round trips
(:func:`ratio_interval`), and a finding counts only where the intervals decide it: a ratio above 1 only if
its interval lies above 1, the smallest size's gap above the largest's only if their intervals do not
overlap; otherwise the finding is undecided (None, with the intervals under ``LEVEL_undecided``). A QCD
moves only when more than a quarter of the round trips are held up, and an 8 B round trip is held up by
the assumed detours about that often, so its ratio's interval is wide: 100 round trips leave it between
about 0.6 and 4.7 (2026-12-02, docs/experiments.md).
"""
from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_summaries  # noqa: E402
from . import allocation  # noqa: E402
from .aries_allocation_noise import check_background  # noqa: E402
from .aries_pingpong_routing import router_place  # noqa: E402
from .host_noise_levels import NOISE, held_up_ns, level_title  # noqa: E402
from .output import rounded, study_output  # noqa: E402
from .placement import NodeLayout  # noqa: E402

NAME = "aries-time-vs-latency"
SYSTEM = "aries-daint"
SIZES = (8, 256, 4096, 65_536, 1_048_576)
QUICK_SIZES = (8, 4096, 65_536)
ROUTERS_PER_GROUP = 96
NODES_PER_ROUTER = 4
BACKGROUND_GROUPS = (0, 1)
OCCUPANCY, QUICK_OCCUPANCY = 0.5, 0.25
"""Share of the free nodes of the two groups held by other jobs *(assumed, as aries-allocation-noise)*."""
PAUSE_NS = 50_000
"""Mean pause before each round trip (uniform from 0.5 to 1.5 times it)."""
ROUND_TRIPS, QUICK_ROUND_TRIPS = 300, 100
BOOTSTRAP_RESAMPLES = 2000
"""Resamples of the round trips behind each ratio's interval."""
CONFIDENCE = 0.95


def pair_of(k: int) -> Tuple[int, int]:
    """The ``k``-th size's pair: a node of router 60 + 6k of group 0 and one of router 30 + 6k of group 1
    (different chassis and blades for every k up to 5, so no two pairs share a router or a first hop)."""
    return (NODES_PER_ROUTER * (60 + 6 * k),
            NODES_PER_ROUTER * (ROUTERS_PER_GROUP + 30 + 6 * k))


def check_pairs(cfg: Config, pairs: Dict[int, Tuple[int, int]]) -> Dict[str, Any]:
    """Where each size's pair sits; raises ``ValueError`` unless each pair spans two groups and no two
    pairs share a router."""
    seen: Dict[int, int] = {}
    placed = {}
    for size, pair in pairs.items():
        a, b = (router_place(cfg, n) for n in pair)
        if a["group"] == b["group"]:
            raise ValueError(f"{NAME}: the {size} B pair {list(pair)} sits in one group ({a['group']}); "
                             "Fig. 5's ping-pong crosses two groups")
        for place in (a, b):
            if place["router"] in seen:
                raise ValueError(f"{NAME}: the {size} B and {seen[place['router']]} B pairs share router "
                                 f"{place['router']}; give each pair routers of its own")
            seen[place["router"]] = size
        placed[str(size)] = {"nodes": list(pair), "routers": [a["router"], b["router"]],
                             "groups": [a["group"], b["group"]]}
    return placed


def timed_pingpong(nbytes: int, gaps: Sequence[int]) -> Dict[str, Any]:
    """A ping-pong of ``nbytes`` with a pause before each ping, marked so that every odd iteration of the
    job is one round trip exactly: rank 0 pauses, marks, sends the ping, receives the pong and marks; rank 1
    marks, receives the ping, marks and sends the pong. Rank 1's marks come before rank 0's (the ping is
    in before the pong leaves; the pong has left before rank 0's pause ends), so the job's marks, the
    latest of the two, are rank 0's: the round trip runs from just before its send to the pong's arrival,
    host delays included."""
    ops0: List[Dict[str, Any]] = []
    ops1: List[Dict[str, Any]] = []
    for gap in gaps:
        ops0 += [{"op": "compute", "ns": float(gap)}, {"op": "iteration_end"},
                 {"op": "send", "comm": 0, "peer": 1, "tag": 0, "bytes": nbytes},
                 {"op": "recv", "comm": 0, "peer": 1, "tag": 0, "bytes": nbytes}, {"op": "iteration_end"}]
        ops1 += [{"op": "iteration_end"}, {"op": "recv", "comm": 0, "peer": 0, "tag": 0, "bytes": nbytes},
                 {"op": "iteration_end"}, {"op": "send", "comm": 0, "peer": 0, "tag": 0, "bytes": nbytes}]
    return {"ranks": 2, "comms": [[0, 1]], "ops": [ops0, ops1]}


def round_trips_ns(job: Dict[str, Any], round_trips: int, what: str) -> List[float]:
    """The round trips of a :func:`timed_pingpong` job (its odd iterations); raises ``RuntimeError`` naming
    ``what`` unless it completed them all."""
    times = job["iteration_times_ns"]
    if len(times) != 2 * round_trips:
        raise RuntimeError(f"{NAME}: the {what} completed {len(times) // 2} of its {round_trips} round trips")
    return times[1::2]


def quartile_dispersion(values: Sequence[float]) -> Optional[float]:
    """(Q3 - Q1) / (Q3 + Q1) of ``values`` (linear interpolation between order statistics), None if empty."""
    if not values:
        return None
    q1, q3 = np.percentile(np.asarray(values, dtype=float), [25, 75])
    return float((q3 - q1) / (q3 + q1)) if q3 + q1 > 0 else None


def ratio_interval(rtts: Sequence[float], latencies: Sequence[float], seed: int,
                   resamples: int = BOOTSTRAP_RESAMPLES) -> Tuple[Optional[float], Optional[float]]:
    """The :data:`CONFIDENCE` bootstrap interval of QCD(``rtts``) / QCD(``latencies``): the round trips are
    resampled with replacement, each with its own latency, ``resamples`` times from a generator seeded by
    ``seed`` (so a run's interval is reproducible); (None, None) if a resample has no spread in latency."""
    t = np.asarray(rtts, dtype=float)
    m = np.asarray(latencies, dtype=float)
    if len(t) != len(m) or len(t) < 4:
        raise ValueError(f"{NAME}: an interval needs paired round trips and latencies, at least 4 "
                         f"(got {len(t)} and {len(m)})")
    picks = np.random.default_rng(seed).integers(0, len(t), size=(resamples, len(t)))

    def qcds(v: np.ndarray) -> np.ndarray:
        q1, q3 = np.percentile(v[picks], [25, 75], axis=1)
        return (q3 - q1) / (q3 + q1)

    time, latency = qcds(t), qcds(m)
    if not np.all(latency > 0):
        return None, None
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(time / latency, [tail, 100 - tail])
    return float(low), float(high)


def decided(low: Optional[float], high: Optional[float], other_low: Optional[float],
            other_high: Optional[float]) -> Optional[bool]:
    """True if the interval (``low``, ``high``) lies wholly above (``other_low``, ``other_high``), False if
    wholly below it, None if they overlap or either is missing; a threshold is an interval of one point."""
    if None in (low, high, other_low, other_high):
        return None
    return True if low > other_high else (False if high < other_low else None)


def job_name(size: int) -> str:
    return f"pp{size}"


def run_config(sizes: Sequence[int], noise: Optional[Dict[str, Any]], round_trips: int, occupancy: float,
               seed: int = 1) -> Tuple[Config, Dict[str, Any], Dict[str, Any]]:
    """One run: a timed ping-pong per size on its own pair beside the background of ``seed``, with host
    noise ``noise`` (None: none); returns the config, the pairs' places and the background's check."""
    if round_trips < 4:
        raise ValueError(f"{NAME}: round_trips = {round_trips}; quartiles need at least 4")
    if len(sizes) > 6:
        raise ValueError(f"{NAME}: {len(sizes)} sizes; at most 6 pairs fit the routers chosen (pair_of)")
    cfg = load_config(SYSTEM)
    pairs = {size: pair_of(k) for k, size in enumerate(sizes)}
    placed = check_pairs(cfg, pairs)
    layout = NodeLayout(cfg["topology"])
    busy = [n for pair in pairs.values() for n in pair]
    background = allocation.background_jobs(layout, busy, occupancy, seed, groups=BACKGROUND_GROUPS)
    checked = check_background(layout, background, {str(s): p for s, p in pairs.items()}, BACKGROUND_GROUPS,
                               name=NAME)
    rng = random.Random(seed)
    cfg["traffic"] = []
    cfg["job"] = [{"name": job_name(size), "workload": "program", "nodes": {"list": list(pair)},
                   "program": timed_pingpong(size, [round(rng.uniform(0.5, 1.5) * PAUSE_NS)
                                                    for _ in range(round_trips)])}
                  for size, pair in pairs.items()] + background
    cfg["sim"]["seed"] = seed
    cfg["sim"]["max_time_ns"] = 20.0 * round_trips * PAUSE_NS + 1e7
    # Every packet of the run is measured: each round trip needs its packets' latency.
    cfg["sim"]["warmup_ns"] = 0.0
    cfg["sim"]["duration_ns"] = cfg["sim"]["max_time_ns"]
    if noise is not None:
        cfg.setdefault("host", {})["noise"] = dict(noise)
    return cfg, placed, checked


def qcd(stats: Dict[str, Any]) -> Optional[float]:
    """(p75 - p25) / (p75 + p25) of a latency summary, None if empty."""
    q1, q3 = stats.get("p25"), stats.get("p75")
    if q1 is None or q3 is None or q1 + q3 <= 0:
        return None
    return (q3 - q1) / (q3 + q1)


def check_noise(level: str, summary: Dict[str, Any], sizes: Sequence[int]) -> float:
    """The mean time detours held a ping-pong rank up (ns); raises ``RuntimeError`` if a noisy run's
    ping-pongs were never held up or a quiet run's were."""
    return held_up_ns(NAME, level, summary, [job_name(s) for s in sizes], "ping-pong")


def row_of(level: str, size: int, summary: Dict[str, Any], round_trips: int) -> Dict[str, Any]:
    """One size under one noise level: the round trips' QCD and the QCD of each round trip's mean packet
    network latency (both exact), their medians and ratio with its interval (:func:`ratio_interval`), and
    the QCD over every single packet (from the latency summary's quartiles, within about 1%)."""
    job = summary["jobs"][job_name(size)]
    rtts = round_trips_ns(job, round_trips, f"{size} B ping-pong ({level} noise)")
    latencies = [v for v in job["iteration_packet_latency_ns"][1::2] if v is not None]
    if len(latencies) != len(rtts):
        raise RuntimeError(f"{NAME}: the {size} B ping-pong ({level} noise) has a packet latency for "
                           f"{len(latencies)} of its {len(rtts)} round trips (are its packets measured?)")
    t, m = quartile_dispersion(rtts), quartile_dispersion(latencies)
    packets = qcd(summary["traffic"][job_name(size)]["network_latency_ns"])
    low, high = ratio_interval(rtts, latencies, seed=size)
    return {"noise": level, "bytes": size, "round_trips": len(rtts), "time_qcd": t, "latency_qcd": m,
            "time_over_latency_qcd": (t / m) if t is not None and m else None,
            "time_over_latency_qcd_low": low, "time_over_latency_qcd_high": high, "packet_latency_qcd": packets,
            "time_median_us": float(np.median(rtts)) / 1e3, "latency_median_ns": float(np.median(latencies)),
            "detoured_ns_per_rank": job.get("host_noise", {}).get("detoured_ns_per_rank", 0.0)}


def key_figures(rows: List[Dict[str, Any]], placed: Dict[str, Any], background: Dict[str, Any],
                held: Dict[str, float]) -> Dict[str, Any]:
    """The QCDs per noise level and size, and the paper's findings on each level as True, False or None
    where the ratios' intervals do not decide them (``LEVEL_undecided`` says which and why)."""
    out: Dict[str, Any] = {}
    for level in NOISE:
        mine = sorted((r for r in rows if r["noise"] == level), key=lambda r: r["bytes"])
        if not mine:
            continue
        out[level] = {str(r["bytes"]): {"time_qcd": rounded(r["time_qcd"]), "latency_qcd": rounded(r["latency_qcd"]),
                                        "time_over_latency_qcd": rounded(r["time_over_latency_qcd"]),
                                        "interval": [rounded(v) for v in _interval(r)]}
                      for r in mine}
        undecided: List[str] = []
        above = [decided(*_interval(r), 1.0, 1.0) for r in mine]
        if False in above:
            out[f"{level}_time_qcd_above_latency_qcd"] = False
        elif None in above:
            out[f"{level}_time_qcd_above_latency_qcd"] = None
            undecided += [f"time's QCD over the latency's at {r['bytes']} B: {_interval_text(r)}, which contains 1"
                          for r, a in zip(mine, above) if a is None]
        else:
            out[f"{level}_time_qcd_above_latency_qcd"] = True
        small, large = mine[0], mine[-1]
        gap = None
        if len(mine) > 1:
            gap = decided(*_interval(small), *_interval(large))
            if gap is None:
                undecided.append(f"gap at {small['bytes']} B ({_interval_text(small)}) against "
                                 f"{large['bytes']} B ({_interval_text(large)}): the intervals overlap")
        out[f"{level}_gap_larger_for_small_than_large"] = gap
        out[f"{level}_smallest_time_over_latency_qcd"] = rounded(small["time_over_latency_qcd"])
        out[f"{level}_undecided"] = undecided
    out["noise_checked"] = True
    out["detoured_ns_per_rank"] = {k: round(v, 1) for k, v in held.items()}
    out["noise"] = NOISE
    out["pairs_checked"] = True
    out["pairs"] = placed
    out["background_checked"] = True
    out["background"] = background
    out["paper"] = {"source": "[DeSensi19] Sec. 3.3, Fig. 5 (Piz Daint, two groups, one process per node)",
                    "finding": "the execution time's QCD is above the packet latency's at every size, most of "
                               "all for small messages: communication time overestimates network noise"}
    return out


def _interval(row: Dict[str, Any]) -> Tuple[Optional[float], Optional[float]]:
    return row.get("time_over_latency_qcd_low"), row.get("time_over_latency_qcd_high")


def _interval_text(row: Dict[str, Any]) -> str:
    low, high = _interval(row)
    ratio = row["time_over_latency_qcd"]
    if low is None or high is None:
        return f"{ratio:.2f} (no interval)"
    return f"{ratio:.2f}, {CONFIDENCE:.0%} interval {low:.2f}-{high:.2f}"


def run_aries_time_vs_latency(
    out_dir: Union[str, Path] = "out/aries-time-vs-latency",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the figure; write ``aries_time_vs_latency.parquet`` (one row per noise level and size) and
    ``aries_time_vs_latency.png``; return the rows with the findings in the table's metadata."""
    started = provenance.now()
    sizes = QUICK_SIZES if quick else SIZES
    round_trips = QUICK_ROUND_TRIPS if quick else ROUND_TRIPS
    occupancy = QUICK_OCCUPANCY if quick else OCCUPANCY
    built = {level: run_config(sizes, noise, round_trips, occupancy) for level, noise in NOISE.items()}
    summaries = dict(zip(built, run_summaries([copy.deepcopy(cfg) for cfg, _, _ in built.values()], scheduler,
                                              workers, progress, cache)))
    rows, held = [], {}
    for level, summary in summaries.items():
        if summary["end_reason"] != "jobs_done":
            raise RuntimeError(f"{NAME}: the {level} noise run ended with {summary['end_reason']!r}, not with the "
                               "ping-pongs done")
        held[level] = check_noise(level, summary, sizes)
        rows += [row_of(level, size, summary, round_trips) for size in sizes]
    _, placed, background = built["none"]
    checks = key_figures(rows, placed, background, held)
    with study_output(out_dir, summaries.values(), started, {"quick": quick}) as out:
        out.write(aries_time_vs_latency=rows)
        plot(rows, out.path / "aries_time_vs_latency.png", out.provenance)
        return out.table(rows, checks)


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Fig. 5: QCD against message size, the time's and the latency's, one panel per noise level."""
    levels = [lv for lv in NOISE if any(r["noise"] == lv for r in rows)]
    fig, axes = plt.subplots(1, len(levels), figsize=(3.2 * len(levels), 3.0), sharey=True, squeeze=False)
    for ax, level in zip(axes[0], levels):
        mine = sorted((r for r in rows if r["noise"] == level), key=lambda r: r["bytes"])
        xs = [r["bytes"] for r in mine]
        ax.plot(xs, [r["time_qcd"] for r in mine], "o-", label="execution time")
        ax.plot(xs, [r["latency_qcd"] for r in mine], "s--", label="packet latency")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message size (B)", fontsize=8)
        ax.set_title(level_title(level), fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel("QCD", fontsize=8)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Aries (Piz Daint), ping-pong across two groups: time vs latency variability "
                 "([DeSensi19] Fig. 5)", fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
