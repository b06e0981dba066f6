"""[DeSensi20] Figs. 13 and 14: traffic classes on Malbec with its global bandwidth tapered to 25%.

Fig. 13 (``traffic-classes-latency``): an 8 B allreduce job runs beside a
256 KiB alltoall job that starts 0.4 ms into the test. In the alltoall's
class the allreduce is slowed 2.85x; in a class of its own 1.15x.

Fig. 14 (``traffic-classes-bandwidth``): two bisection-bandwidth jobs, the
second starting 0.9 ms after the first, in classes TC1 (minimum 80% of the
bandwidth) and TC2 (minimum 10%). In one class they share the bandwidth
evenly; in their own classes they split it about 80/20; a job alone takes
all of it.

As in the paper, each job has 64 nodes and the two are interleaved. Here
the 128 nodes are the first 8 of every switch of groups 0 and 1 (node i
to the first job, i + 1 to the second), so both jobs cross the tapered
global links between the two groups; [DeSensi20] does not say which groups
its nodes were in. The
taper is ``links.global_bandwidth_bps`` = 25% of 200 Gb/s.

Fig. 13's jobs run the paper's 16 processes per node. A 256 KiB alltoall
over their 1024 ranks is MPICH's pairwise exchange (partner r XOR i in
round i), and with ranks in node order its rounds below 16 stay on the
node, its rounds below 512 inside a group: only from round
``cross_group_round`` on do its messages cross the tapered global links
the allreduce crosses, about 0.17 s into it (measured beside the
allreduce: 15.74 us an iteration, exactly its time alone, through the
first rounds). So the alltoall job runs its pairwise rounds from that one
on (``alltoall-aggressor`` with ``params.first_round``), again and again;
the recipe derives the round from the nodes and checks that every pair of
every round it runs is in two groups (``rounds_cross_groups``). Before
2026-11-28 the jobs ran one process per node. A bisection job is a flow of ``BISECTION_BYTES`` from each of
its nodes to a partner in the other half (the ``bisection`` pattern), so it
ends when its data is through, as the paper's jobs do. The second job
moves twice the first one's data, so that it still runs, alone, once the
first is done (the paper's third phase).

Both studies take at most about two minutes on one core, so ``quick`` runs
them whole: a shorter run would measure fewer allreduces beside the
alltoall, or end before the second bisection job has started.

Both recipes report only if the two jobs share what the figures need
(:func:`check_shares`): each job spans at least two groups, so its traffic
crosses the tapered global links, and the jobs share at least one switch,
where the classes' arbitration meets both.
"""
from __future__ import annotations

import copy
import statistics
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..figures import plain_log_labels, save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from ..sweep import run_many, run_summaries  # noqa: E402
from .congestion_heatmap import victim_shares  # noqa: E402
from .output import study_output  # noqa: E402
from .placement import NodeLayout, nodes_per_group, nodes_per_switch  # noqa: E402

SYSTEM = "slingshot-malbec"
TAPER = 0.25
CLASSES = [{"name": "tc1", "dscp": 10, "min_share": 0.8}, {"name": "tc2", "dscp": 20, "min_share": 0.1}]
"""[DeSensi20] Sec. III-B: TC1 with a minimum of 80% of the bandwidth, TC2 with 10%."""
ALLTOALL_START_NS = 400_000.0
ALLREDUCE_ITERATIONS = 400
ALLTOALL_BYTES = 262_144
LATENCY_PPN = 16
"""[DeSensi20] Sec. III-B: each Fig. 13 job has 64 nodes and 16 processes per node."""
SECOND_JOB_START_NS = 900_000.0
BISECTION_BYTES = 16_000_000
"""Per flow of the first job (the second moves twice as much). Large enough that
no flow of the first job ends before the second has run for a few bins: with
neighbour loads (issue 11) the jobs run faster, and at 8 MB the first flows
ended 85 us after the second job started, leaving no phase to measure."""
TIMELINE_BIN_NS = 50_000.0
CASES = {"same class": ("tc1", "tc1"), "separate classes": ("tc1", "tc2")}
"""Case -> (class of the bulk or first job, class of the allreduce or second job)."""


def job_nodes() -> Tuple[List[int], List[int]]:
    """Two interleaved sets of 64 nodes: the first 8 nodes of every switch of groups 0 and 1."""
    per_switch = nodes_per_switch(SYSTEM)
    switches = 2 * nodes_per_group(SYSTEM) // per_switch
    pool = [switch * per_switch + k for switch in range(switches) for k in range(8)]
    return pool[0::2], pool[1::2]


def check_shares(name: str, first: List[int], second: List[int]) -> Dict[str, Any]:
    """What the first job's nodes (``victim_*``) share with the second's (``congestion_heatmap.victim_shares``)
    and the groups each spans; raises unless both span at least two groups (their traffic crosses the
    tapered global links) and they share at least one switch."""
    layout = NodeLayout(load_config(SYSTEM)["topology"])
    shares = victim_shares(layout, first, second)
    del shares["meets"]
    groups = [len({layout.group(n) for n in nodes}) for nodes in (first, second)]
    shares["first_groups"], shares["second_groups"] = groups
    if min(groups) < 2 or not shares["shared_switches"]:
        raise RuntimeError(f"{name}: the two jobs span {shares['first_groups']} and {shares['second_groups']} groups "
                           f"(at least 2 each needed, to cross the tapered global links) and share "
                           f"{shares['shared_switches']} switches (at least 1 needed); place both over switches of "
                           "two or more groups, interleaved")
    return shares


def tapered_malbec() -> Config:
    """Malbec with global links at 25% of their bandwidth, the two classes, no synthetic traffic."""
    cfg = load_config(SYSTEM)
    cfg["traffic"] = []
    cfg["links"]["global_bandwidth_bps"] = TAPER * cfg["links"]["bandwidth_bps"]
    cfg["classes"] = copy.deepcopy(CLASSES)
    cfg["sim"]["max_time_ns"] = 50e6
    return cfg


def pairwise_partner(ranks: int, r: int, i: int) -> int:
    """Rank ``r``'s partner in round ``i`` of MPICH's pairwise alltoall over ``ranks`` (what it sends to)."""
    return r ^ i if ranks & (ranks - 1) == 0 else (r + i) % ranks


def cross_group_round(nodes: List[int], ppn: int) -> int:
    """The first round of a pairwise alltoall over ``nodes`` (``ppn`` ranks each, in node order) from which
    every rank's partner, in that round and every later one, is on a node of another group; raises if no
    round is."""
    layout = NodeLayout(load_config(SYSTEM)["topology"])
    group = [layout.group(n) for n in nodes for _ in range(ppn)]
    ranks = len(group)
    first = ranks  # walk down from the last round while every pair of the round crosses
    while first > 1 and all(group[r] != group[pairwise_partner(ranks, r, first - 1)] for r in range(ranks)):
        first -= 1
    if first >= ranks:
        raise RuntimeError("traffic-classes-latency: no round of the alltoall crosses between groups for every "
                           "rank; place its nodes over two groups, each group's nodes together")
    return first


def latency_configs() -> Dict[str, Config]:
    """Fig. 13: the allreduce alone and beside the alltoall in each case, 16 processes per node; the
    alltoall runs its pairwise rounds from the first that crosses between groups (module docstring)."""
    allreduce_nodes, alltoall_nodes = job_nodes()
    iso = tapered_malbec()
    iso["sim"]["stop_after_job"] = "allreduce"
    iso["job"] = [{"name": "allreduce", "workload": "allreduce", "bytes": 8,
                   "iterations": ALLREDUCE_ITERATIONS, "ppn": LATENCY_PPN,
                   "nodes": {"list": allreduce_nodes}, "class": "tc2"}]
    configs = {"isolated": iso}
    first_round = cross_group_round(alltoall_nodes, LATENCY_PPN)
    for case, (bulk, small) in CASES.items():
        cfg = copy.deepcopy(iso)
        cfg["job"][0]["class"] = small
        cfg["job"].append({"name": "alltoall", "workload": "alltoall-aggressor", "bytes": ALLTOALL_BYTES,
                           "iterations": 1, "repeat": True, "start_ns": ALLTOALL_START_NS,
                           "ppn": LATENCY_PPN, "params": {"first_round": first_round},
                           "nodes": {"list": alltoall_nodes}, "class": bulk})
        configs[case] = cfg
    return configs


def iteration_series(summary: Dict[str, Any]) -> List[Tuple[float, float]]:
    """(end of iteration, its time) of the allreduce, both ns."""
    job = summary["jobs"]["allreduce"]
    end, series = job["start_ns"], []
    for t in job["iteration_times_ns"]:
        end += t
        series.append((end, t))
    return series


def run_traffic_classes_latency(
    out_dir: Union[str, Path] = "out/traffic-classes-latency",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run Fig. 13; write ``traffic_classes_latency.parquet`` (one row per case), ``..._iterations.parquet``
    (every allreduce iteration) and ``traffic_classes_latency.png``; return the case table."""
    started = provenance.now()
    configs = latency_configs()
    shares = check_shares("traffic-classes-latency", *(job["nodes"]["list"] for job in configs["same class"]["job"]))
    summaries = dict(zip(configs, run_summaries(list(configs.values()), scheduler, workers, progress, cache)))
    isolated = statistics.fmean(t for _, t in iteration_series(summaries["isolated"]))
    rows, series_rows = [], []
    for case, summary in summaries.items():
        series = iteration_series(summary)
        during = [t for end, t in series if case == "isolated" or end > ALLTOALL_START_NS]
        mean = statistics.fmean(during) if during else None
        rows.append({"case": case, "iterations": len(during), "mean_ns": mean,
                     "p99_ns": _percentile(during, 0.99), "impact": mean / isolated if mean else None})
        series_rows += [{"case": case, "end_ns": end, "time_ns": t} for end, t in series]
    first_round = configs["same class"]["job"][1]["params"]["first_round"]
    checks = {**latency_key_figures(rows), "ppn": LATENCY_PPN, "alltoall_first_round": first_round,
              "rounds_cross_groups": True, "shares_checked": True, "shares": shares}
    with study_output(out_dir, summaries.values(), started, {"quick": quick}) as out:
        out.write(traffic_classes_latency=rows, traffic_classes_latency_iterations=series_rows)
        plot_latency(series_rows, rows, out.path / "traffic_classes_latency.png", out.provenance)
        return out.table(rows, checks)


def latency_key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Fig. 13: the allreduce's impact in the alltoall's class and in its own; how many of the two it came
    through with exactly its isolated mean."""
    at = {r["case"]: r for r in rows}
    impact = {case: round(at[case]["impact"], 3) if at[case]["impact"] is not None else None for case in CASES}
    return {"same_class_impact": impact["same class"], "own_class_impact": impact["separate classes"],
            "identical_points": sum(at[case]["mean_ns"] == at["isolated"]["mean_ns"] for case in CASES),
            "paper": {"source": "[DeSensi20] Sec. III-B, Fig. 13", "same_class_impact": 2.85,
                      "own_class_impact": 1.15}}


def _percentile(values: List[float], q: float) -> Optional[float]:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def plot_latency(series_rows: List[Dict[str, Any]], rows: List[Dict[str, Any]], path: Path,
                 provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Allreduce iteration time against time, one line per case; the alltoall's start marked."""
    impact = {r["case"]: r["impact"] for r in rows}
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for case in dict.fromkeys(r["case"] for r in series_rows):
        points = [(r["end_ns"] / 1e3, r["time_ns"] / 1e3) for r in series_rows if r["case"] == case]
        label = case if case == "isolated" else f"{case} ({impact[case]:.2f}x)"
        ax.plot([p[0] for p in points], [p[1] for p in points], lw=0.8, label=label)
    ax.axvline(ALLTOALL_START_NS / 1e3, color="grey", ls=":", lw=1, label="alltoall starts")
    ax.set_yscale("log")
    plain_log_labels(ax)
    ax.set_xlabel("time (us)")
    ax.set_ylabel("8 B allreduce (us)")
    ax.set_title("allreduce beside a 256 KiB alltoall, Malbec tapered to 25%", fontsize=9)
    ax.legend(fontsize=8)
    return save_figure(fig, path, provenance)


def bandwidth_configs() -> Dict[str, Config]:
    """Fig. 14: two bisection jobs, the second starting later, in one class or in TC1 and TC2."""
    first, second = job_nodes()
    nbytes = BISECTION_BYTES
    configs = {}
    for case, (class1, class2) in CASES.items():
        cfg = tapered_malbec()
        cfg["sim"].update({"warmup_ns": 0.0, "duration_ns": 50e6, "timeline_bin_ns": TIMELINE_BIN_NS})
        cfg["traffic"] = [
            {"name": "job1", "pattern": "bisection", "load": 1.0, "flow_bytes": nbytes,
             "nodes": {"list": first}, "class": class1},
            {"name": "job2", "pattern": "bisection", "load": 1.0, "flow_bytes": 2 * nbytes,
             "nodes": {"list": second}, "class": class2, "start_ns": SECOND_JOB_START_NS},
        ]
        configs[case] = cfg
    return configs


def bandwidth_phases(timeline: List[Dict[str, Any]], flows: List[Dict[str, Any]]) -> Dict[str, Optional[float]]:
    """Mean Gb/s of each job while alone and while both run.

    "Both" is from one bin after the second job starts to the first flow
    that completes; job2 is alone from one bin after job1's last flow ends
    to the first of its own flows that completes after that.
    """
    per_bin: Dict[float, Dict[str, float]] = {}
    for row in timeline:
        per_bin.setdefault(row["t_ns"], {})[row["source"]] = row["throughput_gbps"]
    done = [f for f in flows if f["completed"]]
    first_end = min((f["end_ns"] for f in done), default=float("inf"))
    job1_end = max((f["end_ns"] for f in done if f["source"] == "job1"), default=float("inf"))

    def mean(job: str, lo: float, hi: float) -> Optional[float]:
        values = [b.get(job, 0.0) for t, b in per_bin.items() if t >= lo and t + TIMELINE_BIN_NS <= hi]
        return statistics.fmean(values) if values else None

    job2_next_end = min((f["end_ns"] for f in done if f["source"] == "job2" and f["end_ns"] > job1_end),
                        default=float("inf"))
    return {"job1_alone_gbps": mean("job1", 0.0, SECOND_JOB_START_NS),
            "job1_both_gbps": mean("job1", SECOND_JOB_START_NS + TIMELINE_BIN_NS, first_end),
            "job2_both_gbps": mean("job2", SECOND_JOB_START_NS + TIMELINE_BIN_NS, first_end),
            "job2_alone_gbps": mean("job2", job1_end + TIMELINE_BIN_NS, job2_next_end)}


def run_traffic_classes_bandwidth(
    out_dir: Union[str, Path] = "out/traffic-classes-bandwidth",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run Fig. 14; write ``traffic_classes_bandwidth.parquet`` (one row per case),
    ``..._timeline.parquet`` and ``traffic_classes_bandwidth.png``; return the case table."""
    started = provenance.now()
    configs = bandwidth_configs()
    shares = check_shares("traffic-classes-bandwidth",
                          *(source["nodes"]["list"] for source in configs["separate classes"]["traffic"]))
    results = run_many(list(configs.values()), scheduler, workers, progress, cache)
    rows, timeline_rows = [], []
    for case, result in zip(configs, results):
        timeline = result.timeline.to_pylist()
        phases = bandwidth_phases(timeline, result.flows.to_pylist())
        both = (phases["job1_both_gbps"] or 0.0) + (phases["job2_both_gbps"] or 0.0)
        rows.append({"case": case, **phases,
                     "job1_share_both": phases["job1_both_gbps"] / both if both else None,
                     "end_reason": result.summary["end_reason"]})
        timeline_rows += [{"case": case, "job": r["source"], "t_ns": r["t_ns"], "gbps": r["throughput_gbps"]}
                          for r in timeline]
    checks = {**bandwidth_key_figures(rows), "shares_checked": True, "shares": shares}
    with study_output(out_dir, [r.summary for r in results], started, {"quick": quick}) as out:
        out.write(traffic_classes_bandwidth=rows, traffic_classes_bandwidth_timeline=timeline_rows)
        plot_bandwidth(timeline_rows, out.path / "traffic_classes_bandwidth.png", out.provenance)
        return out.table(rows, checks)


def bandwidth_key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Fig. 14: the first job's share of the two jobs' bandwidth while both run, in one class
    (``one_class_share``) and in TC1 beside TC2 (``tc1_share``, ``tc2_share`` the rest); each job's bandwidth
    alone over the two jobs' total while both run (``alone_fraction``: 1 = a job alone takes all of it);
    how many cases left the first job's bandwidth exactly where it was alone."""
    at = {r["case"]: r for r in rows}

    def rounded(value: Optional[float]) -> Optional[float]:
        return round(value, 3) if value is not None else None

    alone = {}
    for case, r in at.items():
        both = (r["job1_both_gbps"] or 0.0) + (r["job2_both_gbps"] or 0.0)
        alone[case] = {job: rounded(r[f"{job}_alone_gbps"] / both) if both and r[f"{job}_alone_gbps"] else None
                       for job in ("job1", "job2")}
    tc1 = at["separate classes"]["job1_share_both"]
    return {"one_class_share": rounded(at["same class"]["job1_share_both"]),
            "tc1_share": rounded(tc1), "tc2_share": rounded(1.0 - tc1) if tc1 is not None else None,
            "alone_fraction": alone,
            "identical_points": sum(r["job1_both_gbps"] == r["job1_alone_gbps"] for r in rows),
            "paper": {"source": "[DeSensi20] Sec. III-B, Fig. 14", "one_class_share": 0.5, "tc1_share": 0.8,
                      "tc2_share": 0.2, "alone_fraction": 1.0}}


def plot_bandwidth(timeline_rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Delivered Gb/s of each job against time, one panel per case (Fig. 14's layout)."""
    cases = list(dict.fromkeys(r["case"] for r in timeline_rows))
    fig, axes = plt.subplots(len(cases), 1, figsize=(7, 2.4 * len(cases)), sharex=True, squeeze=False)
    for ax, case in zip(axes[:, 0], cases):
        for job in ("job1", "job2"):
            points = sorted((r["t_ns"] / 1e3, r["gbps"]) for r in timeline_rows if r["case"] == case and r["job"] == job)
            ax.step([p[0] for p in points], [p[1] for p in points], where="post", label=job)
        ax.set_ylabel("Gb/s")
        ax.set_title(case, fontsize=9)
        ax.legend(fontsize=8)
    axes[-1, 0].set_xlabel("time (us)")
    return save_figure(fig, path, provenance)
