"""[DeSensi19] Figs. 8-9: MPI microbenchmarks under Aries' DEFAULT, ADAPTIVE WITH HIGH BIAS and
APPLICATION-AWARE routing, on a fragmented allocation beside other jobs.

The paper runs ping-pong, allreduce, alltoall, barrier, broadcast, halo3d and sweep3d on a 1024-node job
of Piz Daint that sat on 257 routers over 6 groups (Fig. 8) and on a 64-node job of Cori on 33 routers
over 5 groups (Fig. 9), one process per node, each at several input sizes (Sec. 5.1). Here each job gets
those shapes from :func:`allocation.fragmented` on ``aries-daint`` and ``aries-cori`` (seeded), and
shares its groups with a seeded background of other jobs (:func:`allocation.background_jobs`). Every
test runs three times, with the job's ``routing`` set to ``adaptive-0`` (DEFAULT; its MPI_Alltoall
messages go with ``mpi.gni_a2a_routing`` = ``adaptive-1``, as Cray MPICH's default, Sec. 2.2),
``adaptive-3`` (ADAPTIVE WITH HIGH BIAS) and ``app-aware`` (Algorithm 1, docs/workloads.md). The three
runs of a test have the same allocation, the same background and the same seed, so only the routing
differs: the paper alternates the modes on successive iterations for the same reason (Sec. 5.1), so that
transient noise does not favour one of them.

Per (system, test, size, routing): the mean and median iteration time, both over DEFAULT's median (the
paper's normalisation), and for app-aware the share of its network messages sent with DEFAULT (from the
job's ``app_aware_messages``; the paper's x-axis gives the share of traffic). Sizes are ours, chosen for
what a simulation affords (the paper's are in its figures only; ``SIZES`` says what each means); ping-pong
runs between two nodes of the allocation in different groups (the first node of the allocation and the
first one outside its group), the rest of the job's nodes idle, as a ping-pong between two ranks of the job
would; the other tests use every node of the job, ranks in node order. Barrier has no size: one point.
``quick`` runs the Cori job's small tests, and its large alltoall (4 KiB) and halo3d (64 KiB faces) for two
iterations each, and Daint's 8 B alltoall (``QUICK_SIZES``). Measured numbers and the reasons where they differ from
the paper: docs/experiments.md.

The paper's findings (Sec. 5.1): high bias is faster for tests that move little data (ping-pong,
barrier, small inputs), DEFAULT for large alltoall, broadcast and halo3d; app-aware mostly follows the
better of the two. The checks say whether each holds here. The recipe refuses to run unless each job has
the paper's shape and its background sits in the job's groups only, beside and not on its nodes.
"""
from __future__ import annotations

import functools
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_labelled  # noqa: E402
from . import allocation  # noqa: E402
from .output import rounded, study_output  # noqa: E402
from .placement import NodeLayout  # noqa: E402

DEFAULT, HIGH_BIAS, APP_AWARE = "adaptive-0", "adaptive-3", "app-aware"
ROUTINGS = (DEFAULT, HIGH_BIAS, APP_AWARE)
STATIC = (DEFAULT, HIGH_BIAS)


@dataclass(frozen=True)
class JobShape:
    """The paper's job on one system: its nodes, routers and groups, and the figure it appears in."""

    figure: str
    nodes: int
    routers: int
    groups: int


SYSTEMS: Dict[str, JobShape] = {
    "aries-daint": JobShape("Fig. 8", 1024, 257, 6),
    "aries-cori": JobShape("Fig. 9", 64, 33, 5),
}
"""[DeSensi19] Sec. 5.1: 1024 nodes on 257 routers over 6 groups of Piz Daint, 64 nodes on 33 routers
over 5 groups of Cori."""

ALLOCATION_SEED = 1
BACKGROUND_SEED = 2
OCCUPANCY = 0.25
"""Share of the free nodes of the job's groups that other jobs hold *(assumed: the paper reports no
occupancy; its runs shared a production machine, Sec. 6)*. Only the job's groups get a background: other
traffic meets the job's on its minimal paths there, and the rest of the machine would cost simulation
time without touching the job."""

WORKLOADS = {"ping-pong": "pingpong", "allreduce": "allreduce", "alltoall": "alltoall", "barrier": "barrier",
             "bcast": "bcast", "halo3d": "halo3d", "sweep3d": "sweep3d"}
"""Test name (as the paper's figures) -> slingsim workload (docs/workloads.md)."""


@dataclass(frozen=True)
class Size:
    """One input of a test: ``bytes`` as the workload reads it, and iterations to run."""

    bytes: int
    iterations: int


# test -> (small, large); barrier has no size and runs once per system.
# bytes: ping-pong the message; allreduce the vector; alltoall per pair; bcast the buffer; halo3d one face
# (the paper gives the domain); sweep3d each wavefront message. Small is a 1 KiB message (16 packets) or an
# 8 B reduction or alltoall. An 8 B ping-pong or binomial bcast message is one packet, which both modes
# route minimally (nothing of its own is in flight to look like congestion): the two tie.
# A simulated 64 B packet costs 30-50 us of a core, so 1024-node Daint gets fewer iterations and smaller
# large inputs than Cori: its alltoall of 512 B per pair is 8.5 M packets (4-5 min per run), 4 KiB would be
# 67 M; its sweep3d wavefront crosses a 32 x 32 grid (1 ms per iteration).
SIZES: Dict[str, Dict[str, Tuple[Size, ...]]] = {
    "aries-cori": {
        "ping-pong": (Size(1_024, 20), Size(1_048_576, 4)),
        "allreduce": (Size(8, 20), Size(262_144, 3)),
        "alltoall": (Size(8, 10), Size(16_384, 3)),
        "barrier": (Size(0, 20),),
        "bcast": (Size(1_024, 20), Size(262_144, 4)),
        "halo3d": (Size(1_024, 10), Size(131_072, 4)),
        "sweep3d": (Size(1_024, 5), Size(8_192, 3)),
    },
    "aries-daint": {
        "ping-pong": (Size(1_024, 20), Size(1_048_576, 4)),
        "allreduce": (Size(8, 10), Size(16_384, 3)),
        "alltoall": (Size(8, 3), Size(512, 1)),
        "barrier": (Size(0, 10),),
        "bcast": (Size(1_024, 10), Size(65_536, 2)),
        "halo3d": (Size(1_024, 5), Size(16_384, 3)),
        "sweep3d": (Size(256, 2), Size(1_024, 1)),
    },
}
QUICK_SIZES: Dict[str, Dict[str, Tuple[Size, ...]]] = {
    "aries-cori": {
        "ping-pong": (Size(1_024, 20),),
        "allreduce": (Size(8, 20),),
        "alltoall": (Size(8, 10), Size(4_096, 2)),
        "barrier": (Size(0, 20),),
        "bcast": (Size(1_024, 20),),
        "halo3d": (Size(1_024, 10), Size(65_536, 2)),
    },
    # Daint's 8 B alltoall, as in the full study: at 1024 ranks Bruck's rounds send 4 KiB per rank, the one
    # small test that moves enough data for DEFAULT to win (three runs, 40-50 s each on one core).
    "aries-daint": {
        "alltoall": (Size(8, 3),),
    },
}
MAX_TIME_NS = 50e6
"""Guard on simulated time: a test that has not finished by then is reported as an error."""
HEAVY = ("alltoall", "halo3d")
"""The tests whose large input [DeSensi19] Sec. 5.1 finds faster with DEFAULT (and which ``default_wins_large``
checks; it names broadcast too, whose large input at 1024 ranks is latency-bound here, see ``SIZES``)."""
TIE = 0.02
"""Medians closer than 2% count as a tie: a one-packet message has no packets of its own in flight to
make adaptive routing see congestion, so both modes route it minimally, and MPI_Alltoall's DEFAULT is
``adaptive-1``, whose bias near the destination keeps small messages minimal too."""
WITHIN = 1.10
"""App-aware's median may be at most 10% above the better static mode's ([DeSensi19] Sec. 5.1: it
"selects most of the times" the better one; reading the counters costs it a little)."""


@dataclass(frozen=True)
class Allocation:
    """A job's nodes on a system, the shape they were drawn for, and the background jobs beside them."""

    system: str
    want: JobShape
    layout: NodeLayout
    nodes: Tuple[int, ...]
    background: Tuple[Dict[str, Any], ...]

    @property
    def groups(self) -> List[int]:
        return sorted({self.layout.group(n) for n in self.nodes})

    def pingpong_pair(self) -> List[int]:
        """The allocation's first node and its first node in another group."""
        first = self.nodes[0]
        other = next((n for n in self.nodes if self.layout.group(n) != self.layout.group(first)), None)
        if other is None:
            raise ValueError(f"ping-pong pair: the allocation on {self.system} spans one group; give it two or more")
        return [first, other]


@functools.lru_cache(maxsize=None)
def draw_allocation(system: str, want: JobShape) -> Allocation:
    """A seeded fragmented allocation of ``want``'s shape on ``system`` and its background in the job's groups."""
    layout = NodeLayout(load_config(system)["topology"])
    nodes = allocation.fragmented(layout, want.nodes, want.routers, want.groups, seed=ALLOCATION_SEED)
    groups = sorted({layout.group(n) for n in nodes})
    background = allocation.background_jobs(layout, nodes, OCCUPANCY, BACKGROUND_SEED, groups=groups)
    return Allocation(system, want, layout, tuple(nodes), tuple(background))


def job_allocation(system: str) -> Allocation:
    """The allocation of ``system``'s job in the paper's shape (``SYSTEMS``), and its background."""
    if system not in SYSTEMS:
        raise ValueError(f"aries-routing-study: system {system!r} is not one of {sorted(SYSTEMS)}")
    return draw_allocation(system, SYSTEMS[system])


def allocation_problems(alloc: Allocation) -> List[str]:
    """What is wrong with ``alloc`` (empty if nothing): the job must have the shape it was drawn for, and
    the background must sit in the job's groups, off the job's nodes."""
    want = alloc.want
    problems = []
    got = allocation.shape(alloc.layout, alloc.nodes)
    if got != allocation.Shape(want.nodes, want.routers, want.groups):
        problems.append(f"the job spans {got.nodes} nodes, {got.routers} routers, {got.groups} groups; "
                        f"[DeSensi19] {want.figure} needs {want.nodes}, {want.routers}, {want.groups}")
    problems += allocation.background_problems(alloc.layout, alloc.nodes, alloc.background)
    return problems


def checked_allocation(system: str) -> Allocation:
    """:func:`job_allocation`, or ``ValueError`` listing what does not match the paper."""
    alloc = job_allocation(system)
    problems = allocation_problems(alloc)
    if problems:
        raise ValueError(f"aries-routing-study: {system}: " + "; ".join(problems)
                         + " (change ALLOCATION_SEED, BACKGROUND_SEED or OCCUPANCY)")
    return alloc


def size_label(nbytes: int) -> str:
    """8 B, 1 KiB, 1 MiB; barrier (0) has none."""
    if nbytes == 0:
        return "-"
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale} {unit}"
    return f"{nbytes} B"


def tests(system: str, quick: bool = False) -> List[Tuple[str, str, Size]]:
    """(test, "small" or "large", size) of every test of ``system``."""
    table = (QUICK_SIZES if quick else SIZES)[system]
    return [(test, ("small", "large")[k], size) for test, sizes in table.items() for k, size in enumerate(sizes)]


def systems(quick: bool = False) -> List[str]:
    return list(QUICK_SIZES if quick else SIZES)


def point_config(alloc: Allocation, test: str, size: Size, routing: str) -> Config:
    """One test on ``alloc``'s job with ``routing``, beside the background."""
    if routing not in ROUTINGS:
        raise ValueError(f"aries-routing-study: routing {routing!r} is not one of {ROUTINGS}")
    nodes = alloc.pingpong_pair() if test == "ping-pong" else list(alloc.nodes)
    cfg = load_config(alloc.system)
    cfg["traffic"] = []
    cfg["sim"]["max_time_ns"] = MAX_TIME_NS
    job = {"name": "app", "workload": WORKLOADS[test], "bytes": size.bytes, "iterations": size.iterations,
           "nodes": {"list": nodes}, "routing": routing}
    cfg["job"] = [job] + [dict(bg) for bg in alloc.background]
    return cfg


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): each test and size of each system under each routing."""
    points = []
    for system in systems(quick):
        alloc = checked_allocation(system)
        for test, which, size in tests(system, quick):
            for routing in ROUTINGS:
                labels = {"system": system, "figure": SYSTEMS[system].figure, "test": test, "size": which,
                          "bytes": size.bytes, "routing": routing}
                points.append((labels, point_config(alloc, test, size, routing)))
    return points


def result_row(labels: Dict[str, Any], cfg: Config, summary: Dict[str, Any]) -> Dict[str, Any]:
    """One run's row; ``RuntimeError`` if the job did not run where asked or did not finish."""
    job = summary["jobs"]["app"]
    asked = cfg["job"][0]
    where = f"aries-routing-study: {labels['system']} {labels['test']} {labels['size']} {labels['routing']}"
    if list(job["node_ids"]) != list(asked["nodes"]["list"]):
        raise RuntimeError(f"{where}: the engine placed the job on other nodes than its allocation")
    if job["iterations"] < asked["iterations"]:
        raise RuntimeError(f"{where}: {job['iterations']} of {asked['iterations']} iterations done by "
                           f"sim.max_time_ns = {MAX_TIME_NS:g} (end: {summary.get('end_reason')}); raise MAX_TIME_NS")
    modes = job["app_aware_messages"] or {}
    decisions = job.get("app_aware_decisions") or {}
    nic = job.get("nic_counters") or {}
    return {**labels, "iterations": job["iterations"],
            "mean_us": job["iteration_ns"]["mean"] / 1e3, "median_us": job["iteration_ns"]["p50"] / 1e3,
            "default_share": modes.get(DEFAULT, 0) / max(1, sum(modes.values())) if modes else None,
            "switch_share": decisions["switches"] / decisions["decisions"] if decisions.get("decisions") else None,
            "nic_latency_ns": nic.get("mean_latency_ns"), "nic_stall_ns_per_flit": nic.get("stall_ns_per_flit")}


def derived_scales(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """App-aware's scaling factors as [DeSensi19] Sec. 4.2 derives them, "a median case over several runs of
    different microbenchmarks in different allocations": per test, high bias's NIC latency ``L`` and stall per
    flit ``s`` over DEFAULT's (the job's NICs, its whole run), the median over the tests. A test whose
    DEFAULT run stalled not at all gives no stall ratio."""
    by: Dict[Tuple[str, str, str], Dict[str, Dict[str, Any]]] = {}
    for r in rows:
        by.setdefault((r["system"], r["test"], r["size"]), {})[r["routing"]] = r
    lam, sig = [], []
    for runs in by.values():
        a, b = runs.get(DEFAULT), runs.get(HIGH_BIAS)
        if not a or not b:
            continue
        if a.get("nic_latency_ns") and b.get("nic_latency_ns") is not None:
            lam.append(b["nic_latency_ns"] / a["nic_latency_ns"])
        if a.get("nic_stall_ns_per_flit") and b.get("nic_stall_ns_per_flit") is not None:
            sig.append(b["nic_stall_ns_per_flit"] / a["nic_stall_ns_per_flit"])
    return {"latency_scale": round(statistics.median(lam), 3) if lam else None,
            "stall_scale": round(statistics.median(sig), 3) if sig else None,
            "tests": len(lam), "tests_with_stalls": len(sig)}


def normalise(rows: List[Dict[str, Any]]) -> None:
    """Add DEFAULT's median to every row and both times over it (``norm_median``, ``norm_mean``)."""
    base = {(r["system"], r["test"], r["size"]): r["median_us"] for r in rows if r["routing"] == DEFAULT}
    for r in rows:
        b = base[(r["system"], r["test"], r["size"])]
        r["default_median_us"] = b
        r["norm_median"] = r["median_us"] / b
        r["norm_mean"] = r["mean_us"] / b


def run_aries_routing_study(
    out_dir: Union[str, Path] = "out/aries-routing-study",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``aries_routing_study.parquet`` and ``aries_routing_study.png``; return the table."""
    started = provenance.now()
    points = study_points(quick)
    rows, summaries = [], []
    configs = [cfg for _, cfg in points]
    for (labels, summary), cfg in zip(run_labelled(points, scheduler, workers, progress, cache), configs):
        summaries.append(summary)
        rows.append(result_row(labels, cfg, summary))
    normalise(rows)
    # The factors the runs used: their resolved config, with any --set applied.
    used = summaries[0]["provenance"]["config"]["mpi"]["app_aware"]
    checks = {**key_figures(rows), "app_aware_scales_derived": derived_scales(rows),
              "app_aware_scales_used": {k: used[k] for k in ("latency_scale", "stall_scale")},
              "allocation_checked": True,
              "allocations": {s: {**allocation_summary(checked_allocation(s)),
                                  "pingpong_pair": checked_allocation(s).pingpong_pair()} for s in systems(quick)}}
    with study_output(out_dir, summaries, started, {"quick": quick}) as out:
        out.write(aries_routing_study=rows)
        plot(rows, out.path / "aries_routing_study.png", out.provenance)
        return out.table(rows, checks)


def allocation_summary(alloc: Allocation) -> Dict[str, Any]:
    """The job's shape and groups and the background's size."""
    got = allocation.shape(alloc.layout, alloc.nodes)
    return {"nodes": got.nodes, "routers": got.routers, "groups": got.groups, "group_ids": alloc.groups,
            "background_jobs": len(alloc.background),
            "background_nodes": sum(len(j["nodes"]["list"]) for j in alloc.background)}


def _medians(rows: List[Dict[str, Any]]) -> Dict[Tuple[str, str, str], Dict[str, float]]:
    out: Dict[Tuple[str, str, str], Dict[str, float]] = {}
    for r in rows:
        out.setdefault((r["system"], r["test"], r["size"]), {})[r["routing"]] = r["median_us"]
    return out


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Per system and test: high bias's and app-aware's median over DEFAULT's, the better static mode and
    app-aware over it. Whether high bias wins the small tests (slower on none by more than ``TIE``, faster
    by more than ``TIE`` on at least half; ties listed), DEFAULT the large alltoall and halo3d (high bias
    slower by more than ``TIE``), and app-aware stays within ``WITHIN`` of the better static mode
    everywhere (where it does not: ``app_aware_misses``)."""
    medians = _medians(rows)
    aware = {(r["system"], r["test"], r["size"]): r for r in rows if r["routing"] == APP_AWARE}
    per_test: Dict[str, Dict[str, Any]] = {}
    for (system, test, which), t in medians.items():
        best = min(STATIC, key=lambda mode: t[mode])
        run = aware.get((system, test, which), {})
        per_test.setdefault(system, {})[f"{test} {which}"] = {
            "default_median_us": round(t[DEFAULT], 3),
            "high_bias_over_default": round(t[HIGH_BIAS] / t[DEFAULT], 3),
            "app_aware_over_default": round(t[APP_AWARE] / t[DEFAULT], 3),
            "best_static": best,
            "app_aware_over_best": round(t[APP_AWARE] / t[best], 3),
            "app_aware_default_share": rounded(run.get("default_share"), 3),
            "app_aware_switch_share": rounded(run.get("switch_share"), 3),
        }
    small_wins, small_ties, large_wins = {}, {}, {}
    for system, by_test in per_test.items():
        small = {name: v["high_bias_over_default"] for name, v in by_test.items() if name.endswith(" small")}
        faster = [name for name, ratio in small.items() if ratio < 1.0 - TIE]
        small_ties[system] = [name for name, ratio in small.items() if abs(ratio - 1.0) <= TIE]
        small_wins[system] = (all(ratio <= 1.0 + TIE for ratio in small.values())
                              and 2 * len(faster) >= len(small) > 0)
        large_wins[system] = {test: by_test[f"{test} large"]["high_bias_over_default"] > 1.0 + TIE
                              for test in HEAVY if f"{test} large" in by_test}
    ratios = {f"{system} {name}": v["app_aware_over_best"] for system, by_test in per_test.items()
              for name, v in by_test.items()}
    worst = max(ratios, key=ratios.get)
    return {
        "tests": per_test,
        "high_bias_wins_small": small_wins,
        "high_bias_small_ties": small_ties,
        "default_wins_large": large_wins,
        "app_aware_worst_ratio": ratios[worst],
        "app_aware_worst_at": worst,
        "app_aware_within_10_percent": ratios[worst] <= WITHIN,
        "app_aware_misses": [name for name, ratio in ratios.items() if ratio > WITHIN],
        "paper": {"source": "[DeSensi19] Sec. 5.1, Figs. 8 (Piz Daint, 1024 nodes) and 9 (Cori, 64 nodes)",
                  "shape": "ADAPTIVE WITH HIGH BIAS is faster for tests that move little data (ping-pong, barrier, "
                           "small inputs), DEFAULT for large alltoall, broadcast and halo3d, by up to 2x either way; "
                           "APPLICATION-AWARE mostly follows the better one (misses: large broadcast, the largest "
                           "sweep3d); Cori 'similar'; the values are in the figures only"},
    }


ROUTING_NAMES = {DEFAULT: "DEFAULT (adaptive-0)", HIGH_BIAS: "HIGH BIAS (adaptive-3)", APP_AWARE: "app-aware"}


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """One panel per system: median over DEFAULT's median per test and size (bars; the mean as a dot), the
    x-axis as the paper's: input size, DEFAULT's median and app-aware's share of DEFAULT."""
    names = list(dict.fromkeys(r["system"] for r in rows))
    widths = [len({(r["test"], r["size"]) for r in rows if r["system"] == s}) for s in names]
    fig, axes = plt.subplots(len(names), 1, figsize=(1.5 + 0.85 * max(widths), 3.6 * len(names)), squeeze=False)
    width = 0.8 / len(ROUTINGS)
    for ax, system in zip(axes[:, 0], names):
        mine = [r for r in rows if r["system"] == system]
        cases = list(dict.fromkeys((r["test"], r["size"]) for r in mine))
        at = {(r["test"], r["size"], r["routing"]): r for r in mine}
        for k, routing in enumerate(ROUTINGS):
            xs = [i + (k - 1) * width for i in range(len(cases))]
            ax.bar(xs, [at[c + (routing,)]["norm_median"] for c in cases], width, label=ROUTING_NAMES[routing])
            ax.plot(xs, [at[c + (routing,)]["norm_mean"] for c in cases], "k.", ms=3)
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_ylim(0, 1.3 * max(max(r["norm_median"], r["norm_mean"]) for r in mine))  # room for the legend
        labels = []
        for test, which in cases:
            r = at[(test, which, APP_AWARE)]
            share = "" if r["default_share"] is None else f"\n{100 * r['default_share']:.0f}%"
            labels.append(f"{test}\n{size_label(r['bytes'])}\n{_time_label(r['default_median_us'])}{share}")
        ax.set_xticks(range(len(cases)), labels, fontsize=7)
        ax.set_xlabel("test, input, DEFAULT's median, app-aware's messages sent with DEFAULT", fontsize=7)
        ax.set_ylabel("median / DEFAULT median")
        shape = SYSTEMS[system]
        ax.set_title(f"{system}: {shape.nodes} nodes on {shape.routers} routers in {shape.groups} groups "
                     f"([DeSensi19] {shape.figure}); dots: mean", fontsize=9)
        ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    return save_figure(fig, path, provenance)


def _time_label(us: float) -> str:
    return f"{us / 1e3:.3g} ms" if us >= 1e3 else f"{us:.3g} us"
