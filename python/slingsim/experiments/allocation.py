"""Fragmented allocations and a background of other jobs on Aries ([DeSensi19] Sec. 3.1, 5).

A production machine gives a job whatever nodes are free: [DeSensi19]'s
1024-node job on Piz Daint sat on 257 routers over 6 groups, its 64-node
job on Cori on 33 routers over 5 groups (Sec. 5.1), and every run shared
the network with the other jobs of the day (Sec. 6, "System state").
:func:`fragmented` draws such an allocation, seeded, with exactly the
node, router and group counts asked for; :func:`background_jobs` fills
part of the rest of the machine with other jobs, a seeded mix of the
existing workloads, each repeating until the run ends.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set

from .placement import NodeLayout


@dataclass(frozen=True)
class Shape:
    """How many nodes, routers and groups an allocation spans."""

    nodes: int
    routers: int
    groups: int


def shape(layout: NodeLayout, nodes: Iterable[int]) -> Shape:
    """The shape of an allocation: its nodes and the routers and groups they sit on."""
    nodes = list(nodes)
    routers = {s for n in nodes for s in layout.switches(n)}
    return Shape(len(set(nodes)), len(routers), len({layout.group(n) for n in nodes}))


def fragmented(layout: NodeLayout, nodes: int, routers: int, groups: int, seed: int,
               exclude: Iterable[int] = ()) -> List[int]:
    """``nodes`` nodes on exactly ``routers`` routers in exactly ``groups`` groups, drawn at random
    (seeded) from the nodes not in ``exclude``: the groups first, then the routers spread over them as
    evenly as their free routers allow, then the nodes, at least one on every router. Raises
    ``ValueError`` naming the argument when the machine cannot hold that shape."""
    per_router = layout.per_switch
    if layout.rails != 1:
        raise ValueError("fragmented allocation: one rail per node only")
    if not 1 <= groups <= routers <= nodes:
        raise ValueError(f"fragmented allocation: need 1 <= groups ({groups}) <= routers ({routers}) "
                         f"<= nodes ({nodes})")
    if nodes > routers * per_router:
        raise ValueError(f"fragmented allocation: {nodes} nodes do not fit on {routers} routers of "
                         f"{per_router} nodes; ask for at least {-(-nodes // per_router)} routers")
    taken: Set[int] = set(exclude)
    free: Dict[int, List[int]] = {}
    for n in range(layout.nodes):
        if n not in taken:
            (router,) = layout.switches(n)
            free.setdefault(router, []).append(n)
    by_group: Dict[int, List[int]] = {}
    for router in sorted(free):
        by_group.setdefault(layout.group(free[router][0]), []).append(router)
    rng = random.Random(seed)
    candidates = sorted(by_group)
    if len(candidates) < groups:
        raise ValueError(f"fragmented allocation: groups = {groups} but only {len(candidates)} groups "
                         "have free nodes")
    chosen = rng.sample(candidates, groups)
    capacity = {g: len(by_group[g]) for g in chosen}
    if sum(capacity.values()) < routers:
        raise ValueError(f"fragmented allocation: routers = {routers} but the {groups} groups drawn have "
                         f"{sum(capacity.values())} routers with free nodes; ask for fewer routers or more groups")
    # Routers per group: one each, then the rest round-robin where free routers remain.
    count = {g: 1 for g in chosen}
    order = list(chosen)
    while sum(count.values()) < routers:
        for g in order:
            if sum(count.values()) == routers:
                break
            if count[g] < capacity[g]:
                count[g] += 1
    picked = [r for g in chosen for r in rng.sample(by_group[g], count[g])]
    room = sum(len(free[r]) for r in picked)
    if room < nodes:
        raise ValueError(f"fragmented allocation: the {routers} routers drawn hold {room} free nodes, "
                         f"fewer than nodes = {nodes}; free more of the machine or ask for more routers")
    out = [rng.choice(free[r]) for r in picked]
    rest = [n for r in picked for n in free[r] if n not in set(out)]
    out += rng.sample(rest, nodes - len(out))
    return sorted(out)


@dataclass(frozen=True)
class BackgroundWorkload:
    """One kind of job of the background mix: what it runs between compute phases."""

    workload: str
    bytes: int
    compute_ns: float


BACKGROUND_MIX: Sequence[BackgroundWorkload] = (
    BackgroundWorkload("halo3d", 65_536, 4_000_000.0),
    BackgroundWorkload("allreduce", 8, 50_000.0),
    BackgroundWorkload("alltoall", 4_096, 4_000_000.0),
    BackgroundWorkload("milc", 16_384, 1_500_000.0),
    BackgroundWorkload("bcast", 262_144, 2_500_000.0),
)
"""The other jobs' workloads *(assumed: [DeSensi19] names no mix)*: the microbenchmarks and proxies
slingsim has, each with compute between its exchanges so that a job offers about 1% of its nodes'
81.6 Gb/s on average, in bursts at the line rate as an application does (halo3d: 6 x 64 KiB per node
every 4 ms; alltoall: 4 KiB to each of up to 127 peers every 4 ms; milc: 8 x 16 KiB every 1.5 ms;
bcast: 256 KiB per node every 2.5 ms; allreduce: 8 B every 50 us). A production machine's network
is mostly idle on average and busy in bursts; a heavier mix is a config change away (``mix``)."""

BACKGROUND_SIZES = (16, 32, 64, 128)
"""Nodes per background job, drawn at random *(assumed)*."""


def background_jobs(layout: NodeLayout, busy: Iterable[int], occupancy: float, seed: int,
                    groups: Optional[Iterable[int]] = None,
                    mix: Sequence[BackgroundWorkload] = BACKGROUND_MIX,
                    sizes: Sequence[int] = BACKGROUND_SIZES) -> List[Dict[str, Any]]:
    """Jobs of other users on ``occupancy`` of the nodes not in ``busy`` (0 to 1), in ``groups`` (every
    group when None; a study passes its job's groups, where other traffic meets the job's on minimal
    paths, to keep the simulation small): sizes and workloads
    drawn at random from ``sizes`` and ``mix``, each job on random free nodes (a fragmented allocation,
    as a batch system leaves them), starting at a random point of its first compute phase (so the jobs do not
    move in step) and repeating until the run ends, named ``bg0``, ``bg1``, ... Seeded:
    the same arguments give the same jobs."""
    if not 0.0 <= occupancy <= 1.0:
        raise ValueError(f"background occupancy = {occupancy}: give a fraction of the free nodes, 0 to 1")
    busy = set(busy)
    wanted = None if groups is None else set(groups)
    free = [n for n in range(layout.nodes) if n not in busy and (wanted is None or layout.group(n) in wanted)]
    rng = random.Random(seed)
    rng.shuffle(free)
    budget = int(round(occupancy * len(free)))
    jobs: List[Dict[str, Any]] = []
    while budget >= min(sizes):
        size = rng.choice([s for s in sizes if s <= budget])
        kind = rng.choice(list(mix))
        nodes, free = sorted(free[:size]), free[size:]
        budget -= size
        jobs.append({
            "name": f"bg{len(jobs)}",
            "workload": kind.workload,
            "bytes": kind.bytes,
            "compute_ns": kind.compute_ns,
            "iterations": 1,
            "repeat": True,
            "start_ns": round(rng.uniform(0.0, kind.compute_ns)),
            "seed": len(jobs),
            "nodes": {"list": nodes},
        })
    return jobs


def background_problems(layout: NodeLayout, job: Iterable[int], background: Sequence[Dict[str, Any]]) -> List[str]:
    """What keeps ``background`` from being the job's neighbours (empty if nothing): it must have nodes,
    none of them the job's, all in the job's groups and some in each of them."""
    mine = set(job)
    groups = {layout.group(n) for n in mine}
    nodes = [n for j in background for n in j["nodes"]["list"]]
    theirs = {layout.group(n) for n in nodes}
    problems = []
    if not nodes:
        problems.append("the background is empty: raise its occupancy")
    if mine & set(nodes):
        problems.append(f"background jobs sit on {len(mine & set(nodes))} of the job's nodes")
    if theirs - groups:
        problems.append(f"background jobs sit in groups {sorted(theirs - groups)}, outside the job's groups "
                        f"{sorted(groups)}")
    if nodes and groups - theirs:
        problems.append(f"the background misses the job's groups {sorted(groups - theirs)}")
    return problems
