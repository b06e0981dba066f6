"""[DeSensi19] Table 1: the router counters of a job that does nothing grow with the time it is watched.

A job of 16 nodes on 5 Aries routers of ``aries-daint`` (a fragmented allocation) only waits, for one
period and then for two, and ends; other jobs (the seeded background of ``allocation.py``) keep
running on the rest of its group. Each run reads what the paper read from the job's routers: the
flits coming into them (every link into one of the 5 routers, from NICs and from other routers,
bytes over the flit size) and their tiles' stalled time (the links table's ``stalled_ns`` of every
output of the 5 routers: packets waiting and none with credits downstream), in ns and in cycles of
one flit time at the NIC's rate. The job itself sends nothing, so everything counted is other jobs'
traffic; the counters double when the wait doubles, their rates per second stay the same. The
paper's lesson (Sec. 3.2): a longer run sees more flits because it lasted longer, not the other way
round; normalise the counters by the observation time, or read NIC counters, which only the job's
own packets move.

The paper waited 1 s and 2 s (110M and 255M incoming flits, 94M and 157M stalled cycles). Simulating
seconds of a busy machine's background at 64 B packets is out of reach here: the recipe waits
20 ms and 40 ms (``--quick``: 10 ms and 20 ms) after a 4 ms lead-in (``LEAD_IN_NS``), long against
the background jobs' periods (at most 4 ms), beside four draws of the other jobs
(``BACKGROUND_SEEDS``), and sums each wait's counters over the four: one observation four times as
long, over four neighbourhoods. One background is not enough at these windows: the stalls are rare
bursts (microseconds of stalled time in tens of milliseconds), whose rate moved by tens of percent
from one window to the next with the first draw alone (0.62x between 10 and 20 ms, 1.09x between 20
and 40 ms, 1.28x between 40 and 80 ms, measured 2026-11-28) and by two orders of magnitude from one
draw to another (0.64 to 78.5 million stalled cycles per second over the same 10 ms), where the
paper's two rates differ by 16%. ``--json`` keeps each draw's rates (``per_background``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_many  # noqa: E402
from .allocation import Shape, background_jobs, background_problems, fragmented, shape  # noqa: E402
from .output import study_output  # noqa: E402
from .placement import NodeLayout  # noqa: E402

NAME = "aries-idle-counters"
SYSTEM = "aries-daint"
JOB_SHAPE = Shape(nodes=16, routers=5, groups=1)
"""[DeSensi19] Table 1: 16 nodes over 5 blades (one router each). The paper does not say how many
groups; one is assumed, which keeps the background, confined to the job's groups, small."""
WAITS_NS = (20_000_000.0, 40_000_000.0)
QUICK_WAITS_NS = (10_000_000.0, 20_000_000.0)
OCCUPANCY = 0.5
"""Share of the job's group's free nodes that other jobs hold *(assumed)*."""
SEED = 1
"""The idle job's fragmented allocation."""
BACKGROUND_SEEDS = (1, 2, 3, 4)
"""Draws of the other jobs on the idle job's group (their sizes, workloads, nodes and phases); each
wait's counters are summed over them (module docs)."""
PAPER = {"waits_s": (1, 2), "incoming_flits": (110e6, 255e6), "stalled_cycles": (94e6, 157e6)}
LEAD_IN_NS = 4_000_000.0
"""The other jobs run this long before the job's routers are read: the paper read a machine whose other
jobs had been running for long, while every background job here starts at time 0, together, and their
first iterations burst at once (most of the stalls of a 10 ms wait fell in that burst). 4 ms is the
longest background period. Each wait's counters are those up to its end less those up to the lead-in,
both read in one run per background (``sim.link_snapshots_ns`` at the lead-in and at the shorter wait's
end, the links table at the longer wait's end): the idle job sends nothing, so they are what runs
ending at those times would give."""
RATE_TOLERANCE = 0.25
"""The per-second rates of the two waits may differ this much and still count as the same: other
jobs' bursts fall where they fall (the paper's own rates differ by 16% for flits, 16% for stalls)."""


def allocation(layout: NodeLayout) -> List[int]:
    return fragmented(layout, JOB_SHAPE.nodes, JOB_SHAPE.routers, JOB_SHAPE.groups, SEED)


def idle_program(ranks: int, wait_ns: float) -> Dict[str, Any]:
    """Every rank computes for ``wait_ns`` and ends: a job that sends nothing."""
    return {"ranks": ranks, "comms": [list(range(ranks))],
            "ops": [[{"op": "compute", "ns": wait_ns}, {"op": "iteration_end"}] for _ in range(ranks)]}


def run_config(run_ns: float, background_seed: int = BACKGROUND_SEEDS[0],
               read_at_ns: Sequence[float] = ()) -> Tuple[Config, List[int], List[Dict[str, Any]]]:
    """The config of a run that ends at ``run_ns``: the idle job waits that long beside the background
    drawn with ``background_seed`` on its group; the counters are those of the whole run, and with
    ``read_at_ns`` also those up to each of those earlier times (``sim.link_snapshots_ns``)."""
    cfg = load_config(SYSTEM)
    layout = NodeLayout(cfg["topology"])
    job = allocation(layout)
    background = background_jobs(layout, job, OCCUPANCY, background_seed, groups={layout.group(n) for n in job})
    cfg["traffic"] = []
    cfg["job"] = [{"name": "idle", "workload": "program", "program": idle_program(len(job), run_ns),
                   "nodes": {"list": job}}] + background
    cfg["sim"] = {**cfg.get("sim", {}), "warmup_ns": 0.0, "duration_ns": run_ns, "max_time_ns": 2 * run_ns}
    if read_at_ns:
        cfg["sim"]["link_snapshots_ns"] = list(read_at_ns)
    return cfg, job, background


def check_setup(layout: NodeLayout, job: List[int], background: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The job has the paper's shape and other jobs share its group: else there is nothing to count."""
    got = shape(layout, job)
    if got != JOB_SHAPE:
        raise RuntimeError(f"{NAME}: the idle job spans {got}, not the paper's {JOB_SHAPE}")
    problems = background_problems(layout, job, background)
    if problems:
        raise RuntimeError(f"{NAME}: no other job shares the idle job's group as it should: " + "; ".join(problems)
                           + "; its routers would count nothing of interest")
    groups = {layout.group(n) for n in job}
    return {"job_shape": got.__dict__, "background_jobs": len(background),
            "background_nodes_in_group": sum(layout.group(n) in groups for j in background for n in j["nodes"]["list"])}


def router_counters(links: pa.Table, routers: Set[int], flit_bytes: int) -> Dict[str, float]:
    """Flits into ``routers`` (every channel ending at one of them) and stalled ns of their outputs."""
    cols = links.to_pydict()
    into = [i for i, d in enumerate(cols["dst_switch"]) if d in routers]
    out = [i for i, s in enumerate(cols["src_switch"]) if s in routers]
    flits = sum(-(-cols["bytes"][i] // flit_bytes) for i in into)
    return {"incoming_flits": float(flits), "stalled_ns": float(sum(cols["stalled_ns"][i] for i in out))}


def counters_of(run_ns: float, result: Any, job: List[int], layout: NodeLayout) -> Dict[str, float]:
    """The job's router counters over a whole run that should end at ``run_ns``, and when it ended."""
    summary = result.summary
    idle = summary["jobs"]["idle"]
    if not idle["finished"]:
        raise RuntimeError(f"{NAME}: the idle job did not finish its {run_ns / 1e6:g} ms wait "
                           f"(end reason {summary['end_reason']!r})")
    return {**job_router_counters(result.links, result, job, layout), "measured_ns": summary["measured_ns"],
            "job_messages": idle["messages"]}


def job_router_counters(links: pa.Table, result: Any, job: List[int], layout: NodeLayout) -> Dict[str, float]:
    """``router_counters`` of the routers that hold the job's nodes, in flits of the run's NICs."""
    flit_bytes = int(result.config["nic"].get("flit_bytes", 16))
    return router_counters(links, {s for n in job for s in layout.switches(n)}, flit_bytes)


def counters_at(t_ns: float, result: Any, job: List[int], layout: NodeLayout) -> Dict[str, float]:
    """The job's router counters up to ``t_ns`` of a longer run, read there (``sim.link_snapshots_ns``):
    what a run ending at ``t_ns`` would give, the idle job having sent nothing by then either."""
    taken = result.summary.get("link_snapshots", {}).get("taken_ns", [])
    if t_ns not in taken:
        raise RuntimeError(f"{NAME}: the run did not read its links at {t_ns / 1e6:g} ms (read at {taken} ns; "
                           f"end reason {result.summary['end_reason']!r})")
    import pyarrow.compute as pc

    at = result.link_snapshots.filter(pc.equal(result.link_snapshots["t_ns"], t_ns)).sort_by("channel")
    links = result.links
    if at.num_rows != links.num_rows:
        raise RuntimeError(f"{NAME}: {at.num_rows} links read at {t_ns / 1e6:g} ms, the network has {links.num_rows}")
    upto = pa.table({"src_switch": links["src_switch"], "dst_switch": links["dst_switch"],
                     "bytes": at["bytes"], "stalled_ns": at["stalled_ns"]})
    return {**job_router_counters(upto, result, job, layout), "measured_ns": t_ns,
            "job_messages": result.summary["jobs"]["idle"]["messages"]}


def row_of(wait_ns: float, run: Dict[str, float], lead_in: Dict[str, float], nic: Dict[str, Any]) -> Dict[str, Any]:
    """One wait's row: its run's counters less the lead-in's."""
    return pooled_row(wait_ns, [(run, lead_in)], nic)


def pooled_row(wait_ns: float, runs: Sequence[Tuple[Dict[str, float], Dict[str, float]]],
               nic: Dict[str, Any]) -> Dict[str, Any]:
    """One wait's row over several backgrounds: each (run, lead-in) pair's counters less the lead-in's,
    summed, and the rates over the summed time."""
    flit_bytes = int(nic.get("flit_bytes", 16))
    cycle_ns = flit_bytes * 8 / nic["bandwidth_bps"] * 1e9
    counters = {k: sum(run[k] - lead_in[k] for run, lead_in in runs) for k in ("incoming_flits", "stalled_ns")}
    measured_ns = sum(run["measured_ns"] - lead_in["measured_ns"] for run, lead_in in runs)
    seconds = measured_ns / 1e9
    return {
        "wait_ms": wait_ns / 1e6,
        "measured_ms": measured_ns / 1e6,
        "incoming_flits": counters["incoming_flits"],
        "stalled_ns": counters["stalled_ns"],
        "stalled_cycles": counters["stalled_ns"] / cycle_ns,
        "flits_per_s": counters["incoming_flits"] / seconds,
        "stalled_cycles_per_s": counters["stalled_ns"] / cycle_ns / seconds,
        "job_messages": sum(run["job_messages"] for run, _ in runs),
    }


def key_figures(rows: List[Dict[str, Any]], setup: Dict[str, Any]) -> Dict[str, Any]:
    """Counter ratios of the longer wait over the shorter, and of their per-second rates."""
    short, long = sorted(rows, key=lambda r: r["wait_ms"])
    time_ratio = long["wait_ms"] / short["wait_ms"]
    flit_rate = long["flits_per_s"] / short["flits_per_s"] if short["flits_per_s"] else None
    stall_rate = (long["stalled_cycles_per_s"] / short["stalled_cycles_per_s"]
                  if short["stalled_cycles_per_s"] else None)
    same = [r for r in (flit_rate, stall_rate) if r is not None]
    return {
        "setup_checked": True,
        **setup,
        "time_ratio": time_ratio,
        "flits_ratio": long["incoming_flits"] / short["incoming_flits"] if short["incoming_flits"] else None,
        "stalls_ratio": long["stalled_ns"] / short["stalled_ns"] if short["stalled_ns"] else None,
        "flits_rate_ratio": flit_rate,
        "stalls_rate_ratio": stall_rate,
        "job_sent_nothing": all(r["job_messages"] == 0 for r in rows),
        "counters_grow_with_time": bool(same) and long["incoming_flits"] > short["incoming_flits"]
        and long["stalled_ns"] > short["stalled_ns"],
        "rates_unchanged": len(same) == 2 and all(abs(r - 1) <= RATE_TOLERANCE for r in same),
        "paper": {"source": "[DeSensi19] Sec. 3.2, Table 1", **PAPER,
                  "flits_ratio": PAPER["incoming_flits"][1] / PAPER["incoming_flits"][0],
                  "stalls_ratio": PAPER["stalled_cycles"][1] / PAPER["stalled_cycles"][0],
                  "shape": "an idle job's router counters grow with its run time, not with any traffic of its own"},
    }


def run_aries_idle_counters(
    out_dir: Union[str, Path] = "out/aries-idle-counters",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run both waits beside each background; write ``aries_idle_counters.parquet`` and
    ``aries_idle_counters.png``."""
    started = provenance.now()
    waits = QUICK_WAITS_NS if quick else WAITS_NS
    runs = (LEAD_IN_NS,) + tuple(LEAD_IN_NS + w for w in waits)
    # One run per background to the longest wait, its links read at the lead-in and at the shorter
    # wait's end on the way: the same counters as runs ending there, at the cost of the longest alone.
    built = {seed: run_config(runs[-1], seed, read_at_ns=runs[:-1]) for seed in BACKGROUND_SEEDS}
    layout = NodeLayout(built[BACKGROUND_SEEDS[0]][0]["topology"])
    setups = [check_setup(layout, built[seed][1], built[seed][2]) for seed in BACKGROUND_SEEDS]
    results = dict(zip(built, run_many([built[seed][0] for seed in built], scheduler, workers, progress, cache)))
    counters = {(seed, t): counters_at(t, results[seed], built[seed][1], layout) for seed in built for t in runs[:-1]}
    counters.update({(seed, runs[-1]): counters_of(runs[-1], results[seed], built[seed][1], layout) for seed in built})
    nic = results[BACKGROUND_SEEDS[0]].config["nic"]
    rows = [pooled_row(w, [(counters[(seed, t)], counters[(seed, runs[0])]) for seed in BACKGROUND_SEEDS], nic)
            for w, t in zip(waits, runs[1:])]
    per_background = []
    for seed in BACKGROUND_SEEDS:
        for w, t in zip(waits, runs[1:]):
            r = row_of(w, counters[(seed, t)], counters[(seed, runs[0])], nic)
            per_background.append({"background_seed": seed, "wait_ms": r["wait_ms"], "flits_per_s": r["flits_per_s"],
                                   "stalled_cycles_per_s": r["stalled_cycles_per_s"]})
    setup = {"job_shape": setups[0]["job_shape"], "background_seeds": list(BACKGROUND_SEEDS),
             "background_jobs": sum(x["background_jobs"] for x in setups),
             "background_nodes_in_group": [x["background_nodes_in_group"] for x in setups],
             "per_background": per_background}
    with study_output(out_dir, [results[seed].summary for seed in built], started, {"quick": quick}) as out:
        out.write(aries_idle_counters=rows)
        plot(rows, out.path / "aries_idle_counters.png", out.provenance)
        return out.table(rows, key_figures(rows, setup))


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Counters and their per-second rates for both waits."""
    rows = sorted(rows, key=lambda r: r["wait_ms"])
    labels = [f"{r['wait_ms']:g} ms" for r in rows]
    fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.2))
    for ax, (total, rate, title) in zip(axes, (("incoming_flits", "flits_per_s", "incoming flits"),
                                               ("stalled_cycles", "stalled_cycles_per_s", "stalled cycles"))):
        ax.bar([0, 1], [r[total] for r in rows], color=["C0", "C1"])
        ax.set_xticks([0, 1], labels)
        ax.set_title(title, fontsize=9)
        twin = ax.twinx()
        twin.tick_params(axis="x", labelbottom=False, labeltop=False)  # the bars' axis labels the waits
        twin.plot([0, 1], [r[rate] for r in rows], "ko--", ms=4)
        twin.set_ylim(0, 1.3 * max(r[rate] for r in rows) or 1)
        twin.set_ylabel("per second (dashed)", fontsize=8)
    fig.suptitle("Idle 16-node job on 5 Aries routers: counters grow with time, rates do not", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
