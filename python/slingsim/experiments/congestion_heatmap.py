"""[DeSensi20] Fig. 9: congestion impact of an incast and an all-to-all aggressor on victim jobs,
Slingshot against Aries.

The paper splits 512 nodes between a victim and an aggressor (90/10, 50/50
and 10/90, linear allocation), runs each victim alone and beside each
aggressor (128 KiB messages: MPI_Put incast, MPI_Sendrecv all-to-all) and
reports the mean congestion impact C = T_congested / T_isolated (its Eq. 1)
as a heatmap per system. Here Slingshot is the ``slingshot-malbec`` preset
(Slingshot routing and congestion control) and Aries the ``aries-crystal``
preset (ADAPTIVE_0 routing, back-pressure only, 64 B packets); both give
the study the same number of nodes. What to look for: Slingshot's impacts
stay within a few x, Aries' reach tens to ~100x under incast; all-to-all
hurts little on either (adaptive routing spreads it); impacts grow with the
aggressor's share and are larger for small-message victims.

The paper measures victims while the aggressor runs in its steady state, so
a victim starts 1 ms into the run, or beside an incast once the incast's
onset has drained (:mod:`.onset`: one 128 KiB message from every sender
on every rail through the target's NIC, 9.6 ms for Shandy's 459-node
incast): started at 1 ms, the 53/459 split's ping-pong victim met the
onset's 16 MB and slowed 14x. Each row gives its ``victim_start_ns``.

A congested run stops 100 ms after the victim starts (``RUN_AFTER_START_NS``). A victim
that has not finished by then is flagged ``censored``: its impact is
(time it ran) / (iterations it was to run) / T_isolated, a lower bound,
since its iterations take at least the time it ran together
(:func:`impact_of`). (Aries' worst cases would otherwise run for many
simulated milliseconds each.)

A point counts only if its victim's traffic can meet the aggressor's
(:func:`victim_shares`): the victim spans at least two switches, so its
traffic crosses the links and switches between them, and at least one of
its switches or groups also holds aggressor nodes (the incast's target is
one). The recipe checks that on the configs before it runs and on the
nodes each congested run placed its jobs on, and refuses to report
otherwise: a victim alone on one switch never meets the aggressor, and its
isolated and congested times come out identical. ``--quick`` runs 96
nodes with the victim on 20% (19 nodes, 18 for ping-pong), which spans the
first switch and the second, where the incast's target sits; with 10% the
victim was 10 nodes on one Malbec switch. (176 nodes with 10% spans the
same switches but took 5 minutes on one core.)
"""
from __future__ import annotations

import copy
import math
import random
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from ..figures import plain_log_labels, save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..sweep import run_summaries  # noqa: E402
from .onset import MIN_START_NS, victim_start_ns  # noqa: E402
from .output import study_output  # noqa: E402
from .placement import NodeLayout, switch_order_pool  # noqa: E402
from .stop_rules import (check_stop_rule, points_with_stop_rule, stop_rule_checks, stop_rule_row,  # noqa: E402
                         study_params)

SYSTEMS = {"Slingshot": "slingshot-shandy", "Aries": "aries-crystal"}
"""The full study's systems: [DeSensi20] Sec. III-A runs its 512-node heatmaps on Shandy (1024 nodes) and
Crystal (698)."""
QUICK_SYSTEMS = {"Slingshot": "slingshot-malbec", "Aries": "aries-crystal"}
"""``--quick``: the smaller Slingshot system, Malbec (484 nodes), as in the paper's Fig. 10 (C)."""
VICTIMS = {
    # label: (workload, bytes, iterations, compute_ns)
    "allreduce 8B": ("allreduce", 8, 10, 0.0),
    "alltoall 128B": ("alltoall", 128, 5, 0.0),
    "barrier": ("barrier", 0, 10, 0.0),
    "bcast 8B": ("bcast", 8, 10, 0.0),
    "pingpong 8B": ("pingpong", 8, 10, 0.0),
    "halo3d": ("halo3d", 8192, 5, 10_000.0),
    "sweep3d": ("sweep3d", 1024, 2, 10_000.0),
    "incast (ember)": ("incast", 1024, 5, 0.0),
    "MILC": ("milc", 16_384, 5, 20_000.0),
    "HPCG": ("hpcg", 8192, 5, 20_000.0),
    "LAMMPS": ("lammps", 8192, 5, 20_000.0),
    "FFT": ("fft", 4096, 3, 20_000.0),
}
QUICK_VICTIMS = ("alltoall 128B", "pingpong 8B", "halo3d")
"""``--quick`` victims of the studies built on this one (``congestion-distribution``, ``shandy-applications``)."""
QUICK_HEATMAP_VICTIMS = QUICK_VICTIMS + ("incast (ember)",)
"""``congestion-heatmap --quick``: also the ember incast, the victim the full study's Aries incast hurts most
(381x on 53 nodes), so quick mode asks whether small-message victims are hurt most against the victim that
decides it in full (without it quick answered yes, full no); it adds 4 points and about 5 s."""
AGGRESSORS = {"incast": "incast", "all-to-all": "alltoall-aggressor"}
NODES, QUICK_NODES = 512, 96
SHANDY_PER_SWITCH = 8
"""The full study's Shandy nodes: 64 of each of its 8 groups, 8 of each switch, listed switch by switch with
the groups in turn (:func:`paper_pools`)."""
SPLITS = (460 / NODES, 256 / NODES, 53 / NODES)
"""Victim share of the nodes: [DeSensi20] Sec. III-A's 460/52, 256/256 and 53/459 of 512 (even, a power of
two and odd, since MPI collectives pick algorithms by node count); other node counts round these shares."""
QUICK_SPLITS = (0.2,)
"""Quick: a 20% victim (19 nodes, linear) spans two Malbec switches and shares the second with the
incast's target; a 10% victim (10 nodes) sat on one switch and never met the aggressor."""
QUICK_HEATMAP_SPLITS = (0.9, 0.5) + QUICK_SPLITS
"""``congestion-heatmap --quick``: the paper's three splits on 96 nodes (86/10, 48/48, 19/77; 20% for the
paper's 10%, as above), so quick mode also reads whether the impact grows with the aggressor's share; it adds
32 points and about 65 s on one core. Each victim meets its aggressor (``shares_checked``): at 48/48 it shares
the incast target's group but not its switch, as the full study's 256/256 Aries victim does (target router 64,
victim routers 0-63)."""
SMALL_MESSAGE_BYTES = 128
"""Victims whose messages are at most this big are the small-message ones of [DeSensi20] Sec. III-A."""
AGGRESSOR_BYTES = 131_072
START_NS = MIN_START_NS
"""The earliest victim start; beside an incast the victim starts once the incast's onset has drained
(:func:`.onset.victim_start_ns`: one message from every sender on every rail through the target's NIC,
9.6 ms for the 53/459 split on Shandy), since the paper measures the steady state."""
RUN_AFTER_START_NS = 100e6
"""Congested runs stop this long after the victim starts (a victim still running is a lower bound). On the
full set-up's 53/459 split the Aries incast slows victims to 5-15 ms per iteration (sweep3d: 95 ms), so a
5 ms cap left 14 of 36 Aries incast points as lower bounds far below their means; 100 ms lets all but
sweep3d finish, at 45-90 s of CPU time per such point. Runs whose victim finishes end there, so the cap
changes nothing else."""
QUICK_ALLTOALL_START_NS = 200_000.0
"""``--quick``, beside an all-to-all of one process per node: the victim starts at 0.2 ms, not 1 ms. On the
quick systems (96 nodes) that aggressor delivers its steady rate from 0.15 ms on (Crystal: 190-221 GB/s in
every 50 us window from 0.1 to 1 ms; Malbec: 397-445 GB/s from 0.15 ms; measured 2026-11-28, the test
``test_quick_alltoall_aggressor_is_steady_when_the_victim_starts`` checks it), and Crystal's 64 B packets
made its first millisecond 85% of the quick recipes' time. With 24 processes per node the copies start in
step and their rate still changes at 1 ms, so those victims keep ``START_NS``; so do victims on other
systems (``shandy-applications --quick`` runs Shandy), where the steady state was not measured."""


def base(preset: str) -> Config:
    """A system preset with its synthetic traffic removed."""
    cfg = load_config(preset)
    cfg["traffic"] = []
    return cfg


def victim_job(label: str, count: int, placement: str = "linear") -> Dict[str, Any]:
    """The victim ``label`` on ``count`` nodes (an even count for ping-pong); :func:`study_points` sets its start."""
    workload, nbytes, iterations, compute = VICTIMS[label]
    if workload == "pingpong" and count % 2:
        count -= 1
    return {"name": "victim", "workload": workload, "bytes": nbytes, "iterations": iterations,
            "compute_ns": compute, "nodes": {"count": count}, "placement": placement}


def paper_pools() -> Dict[str, List[int]]:
    """The 512 nodes the full study splits on each system. Crystal: its first 512 (both groups), so every
    linear split shares a group. Shandy: its first 512 nodes in node order are groups 0-3, and the paper's
    256/256 split would put the victim on groups 0-1 and the aggressor on 2-3, sharing no switch or group
    (the paper does not say how Shandy's nodes are numbered); so its 512 are 64 of each group, listed
    switch by switch across the groups (:func:`switch_order_pool`), and a linear split gives both jobs
    nodes in every group, the incast's target switch among the victim's."""
    return {"Slingshot": switch_order_pool(SYSTEMS["Slingshot"], 8, NODES // 8, SHANDY_PER_SWITCH),
            "Aries": list(range(NODES))}


def split_pool(pool: List[int], count: int, placement: str, seed: int = 0) -> Tuple[List[int], List[int]]:
    """The victim's ``count`` nodes of ``pool`` and the rest, by placement ([DeSensi20] Fig. 7) within the pool."""
    if placement == "linear":
        chosen = pool[:count]
    elif placement == "interleaved":
        step = len(pool) / count
        chosen = [pool[int(i * step)] for i in range(count)]
    elif placement == "random":
        chosen = random.Random(seed).sample(pool, count)
    else:
        raise ValueError(f"placement: unknown {placement!r}; choose linear, interleaved or random")
    taken = set(chosen)
    return sorted(chosen), [n for n in pool if n not in taken]


def study_points(
    quick: bool = False,
    placement: str = "linear",
    aggressor_ppn: int = 1,
    systems: Optional[Dict[str, str]] = None,
    nodes: Optional[int] = None,
    pools: Optional[Dict[str, List[int]]] = None,
    splits: Optional[Tuple[float, ...]] = None,
    victims: Optional[Tuple[str, ...]] = None,
    start_ns: Optional[float] = None,
) -> List[Tuple[Dict[str, Any], Config, Config]]:
    """Every (labels, isolated config, congested config) of the study.

    By default Fig. 9's: linear placement, one aggressor process per node,
    ``SYSTEMS`` on the ``NODES`` nodes of :func:`paper_pools` split as the
    paper does (``--quick``: ``QUICK_SYSTEMS`` on their first ``QUICK_NODES``). ``pools`` gives each
    system an explicit node list to split instead (Fig. 10 (C)); ``splits``
    (victim shares) and ``victims`` (keys of ``VICTIMS``) replace Fig. 9's;
    ``start_ns`` is when the victim starts (congested runs stop ``RUN_AFTER_START_NS`` later); by default ``START_NS`` beside
    the all-to-all (``--quick`` on ``QUICK_SYSTEMS`` with one aggressor process per node:
    ``QUICK_ALLTOALL_START_NS``) and, beside
    the incast, once its onset has drained (:func:`.onset.victim_start_ns`),
    with the isolated run starting its victim at the same time.
    """
    if systems is None and pools is None and nodes is None and not quick:
        pools = paper_pools()
    systems = systems or (QUICK_SYSTEMS if quick else SYSTEMS)
    nodes = nodes or (QUICK_NODES if quick else NODES)
    victims = victims or (QUICK_VICTIMS if quick else tuple(VICTIMS))
    splits = splits or (QUICK_SPLITS if quick else SPLITS)
    points = []
    for system, preset in systems.items():
        pool = (pools or {}).get(system)
        total = len(pool) if pool else nodes
        for split in splits:
            count = max(2, round(total * split))
            for victim in victims:
                job = victim_job(victim, count, placement=placement)
                aggressor_nodes: Dict[str, Any] = {"count": total - count}
                if pool:
                    victim_nodes, rest = split_pool(pool, job["nodes"]["count"], placement)
                    job["nodes"], aggressor_nodes = {"list": victim_nodes}, {"list": rest[:total - count]}
                for aggressor, workload in AGGRESSORS.items():
                    iso = base(preset)
                    start = start_ns
                    if (start is None and quick and workload != "incast" and aggressor_ppn == 1
                            and preset in QUICK_SYSTEMS.values()):
                        start = QUICK_ALLTOALL_START_NS
                    if start is None:
                        senders = total - count - 1 if workload == "incast" else 0
                        start = victim_start_ns(iso, senders, AGGRESSOR_BYTES)
                    iso["sim"]["max_time_ns"] = start + RUN_AFTER_START_NS
                    iso["job"] = [{**job, "start_ns": start}]
                    con = copy.deepcopy(iso)
                    aggressor_job = {"name": "aggressor", "workload": workload, "bytes": AGGRESSOR_BYTES,
                                     "iterations": 1, "repeat": True, "nodes": aggressor_nodes,
                                     "ppn": aggressor_ppn, "placement": "linear"}
                    if aggressor_ppn > 1:
                        aggressor_job["ppn_copies"] = True  # [DeSensi20] Sec. III: one copy per process
                    con["job"].append(aggressor_job)
                    labels = {"system": system, "victim": victim, "aggressor": aggressor,
                              "victim_share": split, "nodes": total}
                    points.append((labels, iso, con))
    return points


def impact_of(iso: Dict[str, Any], con: Dict[str, Any]) -> Tuple[Optional[float], bool]:
    """Mean congestion impact and whether it is a lower bound (the victim had not finished).

    A victim still running when its run stopped had run for ``ran`` ns, and its iterations, the unfinished
    ones included, take at least that long together; so its mean over the N iterations it was to run (its
    isolated run's count, at least one more than it finished) is at least ran / N, the impact given for it.
    The mean of the iterations it did finish is no bound: an incast's first and slowest wave falls in them
    (the 53/459 Aries ember incast victim finished one iteration in 3.5 ms of its first 5 ms, 497x its time
    alone, and all five at a mean of 381x). Under a stopping rule (``--stop-rule``) the count is not fixed in
    advance and the isolated run's stands in for it: a bound only if the congested run would have stopped by
    then."""
    vi = iso["jobs"]["victim"]
    ti = (vi["iteration_ns"] or {}).get("mean")
    if not ti:
        return None, False
    jc = con["jobs"]["victim"]
    if jc["finished"] and jc["iteration_ns"]:
        return jc["iteration_ns"]["mean"] / ti, False
    ran = con["sim_time_ns"] - jc["start_ns"]
    iterations = max(vi["iterations"], jc["iterations"] + 1)
    return ran / iterations / ti, True


def impact_row(iso: Dict[str, Any], con: Dict[str, Any]) -> Dict[str, Any]:
    """The victim's impact, whether it is a lower bound, and its mean iteration time alone and congested."""
    impact, censored = impact_of(iso, con)
    return {"impact": impact, "censored": censored,
            "isolated_ns": (iso["jobs"]["victim"]["iteration_ns"] or {}).get("mean"),
            "congested_ns": (con["jobs"]["victim"]["iteration_ns"] or {}).get("mean")}


def planned_nodes(cfg: Config) -> Dict[str, Optional[List[int]]]:
    """Each traffic source's and job's nodes as the engine hands them out: sources first, then jobs, in
    config order; a ``list`` as given (in its order), ``count``, ``fraction`` and ``all`` in node order
    from the nodes still free by placement (crates/slingsim-core/src/traffic/nodes.rs). None where a
    random placement decides them (from there on only lists are known)."""
    layout = NodeLayout(cfg["topology"])
    free, known = list(range(layout.nodes)), True
    out: Dict[str, Optional[List[int]]] = {}
    tables = list(cfg.get("traffic", [])) + list(cfg.get("job", []))
    jobs_from = len(cfg.get("traffic", []))
    for i, table in enumerate(tables):
        name = table.get("name", f"job{i - jobs_from}")
        selection, placement = table.get("nodes", "all"), table.get("placement", "linear")
        if isinstance(selection, dict) and "list" in selection:
            chosen = list(selection["list"])
        elif not known or placement == "random":
            known, out[name] = False, None
            continue
        else:
            if selection == "all":
                count = len(free)
            elif "count" in selection:
                count = selection["count"]
            else:  # the engine rounds half away from zero
                count = max(1, math.floor(layout.nodes * selection["fraction"] + 0.5))
            chosen = free[:count] if placement == "linear" else [free[k * len(free) // count] for k in range(count)]
        taken = set(chosen)
        free = [n for n in free if n not in taken]
        out[name] = chosen  # ranks fill a list in its order, other selections in node order
    return out


def incast_target(job: Dict[str, Any], nodes: Sequence[int]) -> Optional[int]:
    """The node of an incast job's target rank (ranks fill the job's nodes ``ppn`` at a time; with
    ``ppn_copies`` every copy's target is that process slot of the target rank's node), None for other
    workloads."""
    if job.get("workload") != "incast":
        return None
    target = job.get("params", {}).get("target", 0)
    return nodes[target if job.get("ppn_copies") else target // job.get("ppn", 1)]


def victim_shares(layout: NodeLayout, victim: Sequence[int], aggressor: Sequence[int],
                  target: Optional[int] = None) -> Dict[str, Any]:
    """What a victim's nodes share with its aggressor's: switches and groups holding both, whether a victim
    node sits on the incast target's switch or in its group; and ``meets``: the victim spans at least two
    switches (its traffic crosses links and switches between them) and at least one of its switches or
    groups also holds aggressor nodes (the target is one). A victim that does not meet its aggressor
    cannot feel it."""
    victim_switches = set().union(*(layout.switches(n) for n in victim))
    aggressor_switches = set().union(*(layout.switches(n) for n in aggressor))
    victim_groups = {layout.group(n) for n in victim}
    shared_switches = victim_switches & aggressor_switches
    shared_groups = victim_groups & {layout.group(n) for n in aggressor}
    out: Dict[str, Any] = {"victim_nodes": len(victim), "victim_switches": len(victim_switches),
                           "shared_switches": len(shared_switches), "shared_groups": len(shared_groups)}
    if target is not None:
        out["victim_on_target_switch"] = bool(victim_switches & layout.switches(target))
        out["victim_in_target_group"] = layout.group(target) in victim_groups
    out["meets"] = len(victim_switches) >= 2 and bool(shared_switches or shared_groups)
    return out


def point_shares(con: Config, nodes: Dict[str, Optional[List[int]]]) -> Optional[Dict[str, Any]]:
    """:func:`victim_shares` of a congested config's victim and aggressor jobs on ``nodes`` (job -> nodes),
    None if either's nodes are not known."""
    victim, aggressor = nodes.get("victim"), nodes.get("aggressor")
    if victim is None or aggressor is None:
        return None
    job = next(j for j in con["job"] if j["name"] == "aggressor")
    return victim_shares(NodeLayout(con["topology"]), victim, aggressor, incast_target(job, aggressor))


def require_meeting(name: str, labels: Dict[str, Any], shares: Optional[Dict[str, Any]]) -> None:
    """Raise unless the victim of the point meets its aggressor (``shares["meets"]``)."""
    if shares is None or shares["meets"]:
        return
    raise RuntimeError(
        f"{name}: {labels}: the victim cannot meet the aggressor: its {shares['victim_nodes']} nodes sit on "
        f"{shares['victim_switches']} switch(es) (at least 2 needed) and share {shares['shared_switches']} "
        f"switches and {shares['shared_groups']} groups with the aggressor (at least one needed); spread the "
        "victim over switches or groups the aggressor uses (more nodes, a larger victim share or another placement)")


def summarise_shares(points: Sequence[Tuple[Dict[str, Any], Any, Any]], shares: Sequence[Dict[str, Any]]
                     ) -> Dict[str, Any]:
    """Per system (all points if unlabelled): points, the fewest victim switches and shared switches and
    groups over its points, and how many incast victims sit on their target's switch and in its group."""
    out: Dict[str, Dict[str, Any]] = {}
    for (labels, _, _), s in zip(points, shares):
        o = out.setdefault(labels.get("system", "all"), {"points": 0, "incast_points": 0,
                                                         "victim_on_target_switch": 0, "victim_in_target_group": 0})
        o["points"] += 1
        for key in ("victim_switches", "shared_switches", "shared_groups"):
            o[f"{key}_min"] = min(o.get(f"{key}_min", s[key]), s[key])
        if "victim_on_target_switch" in s:
            o["incast_points"] += 1
            o["victim_on_target_switch"] += s["victim_on_target_switch"]
            o["victim_in_target_group"] += s["victim_in_target_group"]
    return out


def identical_points(rows: Sequence[Dict[str, Any]]) -> int:
    """Rows whose victim's congested mean iteration equals its isolated one exactly: a victim the aggressor
    never touched."""
    return sum(r["congested_ns"] is not None and r["congested_ns"] == r["isolated_ns"] for r in rows)


def run_points(
    points: List[Tuple[Dict[str, Any], Config, Config]],
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
    name: str = "congestion-heatmap",
    stop_rule: Optional[str] = None,
) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]], List[Dict[str, Any]]]:
    """Run every point (identical isolated configs once); return a row of labels and impact per point, the
    summaries of every run (isolated then congested, for the study's provenance) and each point's
    :func:`victim_shares` on the nodes its congested run placed the jobs on. Raises (naming ``name``), before
    running where the configs fix the nodes and after running from the runs' nodes, if a victim cannot
    meet its aggressor. ``stop_rule`` runs every victim under that rule (:mod:`.stop_rules`); each row then
    says whether it held."""
    points = points_with_stop_rule(points, stop_rule)
    for labels, _, con in points:
        require_meeting(name, labels, point_shares(con, planned_nodes(con)))
    configs = [iso for _, iso, _ in points] + [con for _, _, con in points]
    summaries = run_summaries(configs, scheduler, workers, progress, cache)
    isolated, congested = summaries[: len(points)], summaries[len(points):]
    rows = [{**labels, **impact_row(iso_s, con_s), "victim_start_ns": con_s["jobs"]["victim"]["start_ns"],
             **stop_rule_row(iso_s, con_s)}
            for (labels, _, _), iso_s, con_s in zip(points, isolated, congested)]
    shares = []
    for (labels, _, con), con_s in zip(points, congested):
        placed = {job: con_s["jobs"][job]["node_ids"] for job in ("victim", "aggressor")}
        shares.append(point_shares(con, placed))
        require_meeting(name, labels, shares[-1])
    return rows, summaries, shares


def max_impact(rows: Sequence[Dict[str, Any]]) -> Tuple[Optional[float], bool]:
    """The largest impact of ``rows`` and whether it is a lower bound: true if any of the rows is censored,
    since that row's true impact may lie above the maximum."""
    impacts = [r["impact"] for r in rows if r["impact"] is not None]
    return (round(max(impacts), 3) if impacts else None), any(bool(r["censored"]) for r in rows)


def aries_incast_max_by_share(rows: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Aries' largest impact beside the incast at each victim share, the aggressor's share rising: one
    ``{victim_share, max_impact, censored}`` per split."""
    aries = [r for r in rows if r["system"] == "Aries" and r["aggressor"] == "incast"]
    shares = sorted({r["victim_share"] for r in aries}, reverse=True)
    out = []
    for share in shares:
        top, censored = max_impact([r for r in aries if r["victim_share"] == share])
        out.append({"victim_share": round(share, 4), "max_impact": top, "censored": censored})
    return out


def impact_grows_with_aggressor_share(by_share: Sequence[Dict[str, Any]]) -> Optional[bool]:
    """[DeSensi20] Sec. III-A: "the congestion impact increases when increasing the fraction of nodes allocated
    to the aggressor". True if each split's largest Aries incast impact exceeds the one with the smaller
    aggressor share, false if one does not; None with fewer than two splits or where a
    censored maximum (a lower bound) leaves a step open: an open step when the smaller share's maximum is
    censored, or when the larger share's is censored and not above it."""
    steps = list(zip(by_share, by_share[1:]))
    if not steps or any(s["max_impact"] is None for s in by_share):
        return None
    decided = []
    for smaller, larger in steps:
        if smaller["censored"] or (larger["censored"] and larger["max_impact"] <= smaller["max_impact"]):
            decided.append(None)
        else:
            decided.append(larger["max_impact"] > smaller["max_impact"])
    if False in decided:
        return False
    return None if None in decided else True


def small_message_victims_hurt_most(rows: Sequence[Dict[str, Any]]) -> Optional[bool]:
    """On Aries under incast, whether the largest impact on a victim of messages of at most
    ``SMALL_MESSAGE_BYTES`` (8 B collectives, ping-pong, barrier, 128 B alltoall) exceeds the largest on the
    others (halo3d, sweep3d, the ember incast, the applications); None if the rows lack either kind or cannot
    decide it: a censored impact is a lower bound, so "yes" needs every other victim's impact known and below
    the small-message lead, and "no" needs every small-message impact known and below the others' lead."""
    aries = [r for r in rows if r["system"] == "Aries" and r["aggressor"] == "incast" and r["impact"] is not None]
    small = [r for r in aries if VICTIMS[r["victim"]][1] <= SMALL_MESSAGE_BYTES]
    large = [r for r in aries if VICTIMS[r["victim"]][1] > SMALL_MESSAGE_BYTES]
    if not small or not large:
        return None
    lead_small, lead_large = max(r["impact"] for r in small), max(r["impact"] for r in large)
    if lead_small > lead_large and not any(r["censored"] for r in large):
        return True
    if lead_large >= lead_small and not any(r["censored"] for r in small):
        return False
    return None


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Fig. 9's key numbers: the largest impact per system (Aries per aggressor), each with whether it is a
    lower bound, whether the incast hurts more than the all-to-all on Aries, whether small-message
    victims are hurt most, Aries' largest incast impact per split and whether it grows with the
    aggressor's share, and how many victims the aggressor left exactly untouched."""
    def of(system: str, aggressor: Optional[str] = None) -> List[Dict[str, Any]]:
        return [r for r in rows if r["system"] == system and aggressor in (None, r["aggressor"])]

    out: Dict[str, Any] = {}
    for key, chosen in (("slingshot_max_impact", of("Slingshot")), ("aries_max_impact", of("Aries")),
                        ("aries_incast_max_impact", of("Aries", "incast")),
                        ("aries_alltoall_max_impact", of("Aries", "all-to-all"))):
        out[key], out[f"{key}_censored"] = max_impact(chosen)
    incast, alltoall = out["aries_incast_max_impact"], out["aries_alltoall_max_impact"]
    out["incast_hurts_more_than_alltoall"] = incast > alltoall if None not in (incast, alltoall) else None
    out["small_message_victims_hurt_most"] = small_message_victims_hurt_most(rows)
    out["aries_incast_max_by_share"] = aries_incast_max_by_share(rows)
    out["impact_grows_with_aggressor_share"] = impact_grows_with_aggressor_share(out["aries_incast_max_by_share"])
    out["identical_points"] = identical_points(rows)
    out["paper"] = {"source": "[DeSensi20] Sec. III-A, Fig. 9 (and Fig. 10 (A) for its maximum)",
                    "slingshot_max_impact": 1.3, "aries_max_impact": 93,
                    "aries_linear_max_impact_at_most": 100,
                    "aries_lammps_incast_50_50": 17,
                    "shape": "the worst case is 1.3x on Slingshot against 93x on Aries; the impact grows with the "
                             "aggressor's share and is larger for small-message victims; the all-to-all does "
                             "not significantly affect either system"}
    return out


def run_congestion_heatmap(
    out_dir: Union[str, Path] = "out/congestion-heatmap",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
    stop_rule: Optional[str] = None,
) -> pa.Table:
    """Run the study; write ``congestion_heatmap.parquet`` and ``congestion_heatmap.png``; return the table
    with :func:`key_figures`, ``shares_checked`` and the victims' ``shares`` per system as its checks.
    ``stop_rule="paper"`` runs each victim until [DeSensi20]'s statistical rule holds (:mod:`.stop_rules`)."""
    check_stop_rule(stop_rule)
    started = provenance.now()
    points = study_points(quick, victims=QUICK_HEATMAP_VICTIMS if quick else None,
                          splits=QUICK_HEATMAP_SPLITS if quick else None)
    rows, summaries, shares = run_points(points, scheduler, workers, progress, cache, stop_rule=stop_rule)
    checks = {**key_figures(rows), "shares_checked": True, "shares": summarise_shares(points, shares),
              **stop_rule_checks(rows, stop_rule)}
    with study_output(out_dir, summaries, started, study_params(quick, stop_rule)) as out:
        out.write(congestion_heatmap=rows)
        plot(rows, out.path / "congestion_heatmap.png", out.provenance)
        return out.table(rows, checks)


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """One heatmap per system: victims down (named once, on the left), aggressor x victim share across,
    log colour scale from 1x; ">" marks a censored (lower-bound) impact."""
    systems = list(dict.fromkeys(r["system"] for r in rows))
    victims = list(dict.fromkeys(r["victim"] for r in rows))
    columns = list(dict.fromkeys((r["aggressor"], r["victim_share"]) for r in rows))
    fig, axes = plt.subplots(1, len(systems), figsize=(3.0 + 1.25 * len(columns) * len(systems), 1.6 + 0.42 * len(victims)),
                             squeeze=False, sharey=True, layout="constrained")
    top = max([r["impact"] or 1.0 for r in rows] + [2.0])
    norm = LogNorm(vmin=1.0, vmax=top)
    for k, (ax, system) in enumerate(zip(axes[0], systems)):
        grid = [[math.nan] * len(columns) for _ in victims]
        censored = [[False] * len(columns) for _ in victims]
        for r in rows:
            if r["system"] == system and r["impact"] is not None:
                i, j = victims.index(r["victim"]), columns.index((r["aggressor"], r["victim_share"]))
                grid[i][j], censored[i][j] = r["impact"], bool(r.get("censored"))
        image = ax.imshow([[max(v, 1.0) if v == v else math.nan for v in row] for row in grid],
                          cmap="Reds", norm=norm, aspect="auto")
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                if v == v:
                    dark = norm(max(v, 1.0)) > 0.6
                    ax.text(j, i, (">" if censored[i][j] else "") + f"{v:.1f}", ha="center", va="center", fontsize=8,
                            color="w" if dark else "k")
        ax.set_xticks(range(len(columns)), [f"{a}\n{round(100 * s)}/{round(100 - 100 * s)}" for a, s in columns],
                      fontsize=8)
        if k == 0:  # the y axis is shared: later panels show no labels of their own
            ax.set_yticks(range(len(victims)), victims, fontsize=8)
        ax.set_title(system, fontsize=10)
    bar = fig.colorbar(image, ax=list(axes[0]), label="congestion impact (log scale)")
    plain_log_labels(bar.ax)
    fig.supxlabel("aggressor, victim/aggressor % of nodes", fontsize=8)
    return save_figure(fig, path, provenance)
