"""The fastest a collective's schedule lets a dragonfly move its bytes, given where its ranks sit.

MPICH runs an alltoall in rounds: up to 32 KiB a rank exchanges with 32 consecutive ranks at a time
and waits for all of them before the next 32 (``collectives.rs``, MPICH's throttle), above that one
peer at a time. Which groups a round's bytes go between therefore depends on the rank order: with
ranks in node order (128 consecutive ranks in one Shandy group) each round sends every group's bytes
to one or two other groups, a group-adversarial pattern that no routing carries at the all-to-all
peak. This module says how fast each round could go at best and sums the rounds.

A round of bytes ``T[g][h]`` between groups takes at least the longest of:

- the busiest node's sends, and its receives, at its NICs' rate (all rails);
- the busiest group's bytes out of it (or into it) over its global links;
- the global links' total: bytes from ``g`` to ``h`` beyond what the direct ``g``-``h`` links carry in
  the round's time must leave through another group, so they cross at least two global links
  (any path that avoids the direct links passes a third group). The time ``t`` is the least with
  ``sum(T[g][h] + max(0, T[g][h] - c t)) <= C t``, ``c`` the direct links' rate, ``C`` every global
  link's.

The sum of the rounds bounds the collective if its ranks go through the rounds together, as
MPICH's waits make them do: a rank cannot finish round k before the ranks it receives from have
sent their round-k bytes. A schedule whose ranks drifted rounds apart could mix rounds and beat it.
The local (intra-group) links are not counted, so the bound is loose where they limit. The rounds
are the MPI runtime's own (``_core.collective_round_traffic``), so bound and simulation run one
algorithm.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Dict, List, Sequence, Tuple

from .. import _core
from ..api import topology
from ..config import Config, load_config
from .placement import NodeLayout


def round_time_s(t: Sequence[Sequence[float]], node_send: float, node_recv: float, rates: Dict[str, float]) -> Dict[str, Any]:
    """The least time of one round (seconds) and the limit that sets it."""
    groups = len(t)
    pair, total, group_out, node = rates["pair_Bps"], rates["global_Bps"], rates["group_out_Bps"], rates["node_Bps"]
    cross = [(g, h) for g in range(groups) for h in range(groups) if g != h and t[g][h]]
    limits = {
        "node injection": node_send / node,
        "node ejection": node_recv / node,
        "group's global links out": max((sum(t[g][h] for h in range(groups) if h != g) for g in range(groups)),
                                        default=0.0) / group_out,
        "group's global links in": max((sum(t[g][h] for g in range(groups) if g != h) for h in range(groups)),
                                       default=0.0) / group_out,
        "global links (detours cross two)": _detour_time(t, cross, pair, total),
    }
    limit = max(limits, key=lambda k: limits[k])
    return {"seconds": limits[limit], "limit": limit}


def _detour_time(t: Sequence[Sequence[float]], cross: List[tuple], pair: float, total: float) -> float:
    """Least ``x`` with sum over group pairs of T + max(0, T - pair x) <= total x (bisection: the left
    side falls with ``x``, the right side grows)."""
    if not cross:
        return 0.0
    direct = sum(t[g][h] for g, h in cross)
    lo, hi = direct / total, 2 * direct / total
    for _ in range(64):
        x = (lo + hi) / 2
        if direct + sum(max(0.0, t[g][h] - pair * x) for g, h in cross) <= total * x:
            hi = x
        else:
            lo = x
    return hi


def network_rates(cfg: Config) -> Dict[str, Any]:
    """Per direction: one global link's rate times the links between two groups, every global link, a
    group's links out, and one node's NICs; from the topology's analytics. Dragonflies only."""
    a = topology(cfg)
    if a["kind"] != "dragonfly":
        raise ValueError(f"schedule bound: needs a dragonfly (global links between every pair of groups); "
                         f"the topology is {a['kind']!r}")
    per_pair = a.get("global_links_per_group_pair")
    if not per_pair:
        raise ValueError("schedule bound: the dragonfly's groups are not joined by the same number of global "
                         "links each (global_links_per_group_pair is missing)")
    link = a["global_bw_Bps"] / (2 * a["links"]["global"])
    return {"groups": a["groups"], "nodes": a["nodes"], "pair_Bps": per_pair * link, "global_Bps": a["global_bw_Bps"],
            "group_out_Bps": per_pair * link * (a["groups"] - 1), "node_Bps": a["injection_bw_Bps"] / a["nodes"]}


def collective_bound(cfg: Config, nodes: Sequence[int], nbytes: int, collective: str = "alltoall",
                     ppn: int = 1, algorithm: str = "auto") -> Dict[str, Any]:
    """Bound of one ``collective`` of ``nbytes`` on ranks placed ``ppn`` per node on ``nodes`` in order
    (rank i on ``nodes[i // ppn]``), as the MPI layer places a job's ranks: ``seconds``, the bytes
    between nodes, the rounds, the algorithm and how many rounds each limit set."""
    rates = network_rates(cfg)
    layout = NodeLayout(cfg["topology"])
    if any(not 0 <= n < rates["nodes"] for n in nodes):
        raise ValueError(f"schedule bound: nodes must lie in 0..{rates['nodes'] - 1}")
    used = sorted(set(nodes))
    index = {n: i for i, n in enumerate(used)}
    request = {"collective": collective, "algorithm": algorithm, "bytes": int(nbytes),
               "node_of": [index[nodes[r // ppn]] for r in range(len(nodes) * ppn)],
               "group_of_node": [layout.group(n) for n in used]}
    throttle = cfg.get("mpi", {}).get("alltoall_throttle")
    if throttle is not None:  # else the engine's default, as in a run
        request["throttle"] = throttle
    answer = json.loads(_core.collective_round_traffic(json.dumps(request)))
    seconds, limits, moved = 0.0, {}, 0
    for rnd in answer["rounds"]:
        moved += sum(map(sum, rnd["group_bytes"]))
        r = round_time_s(rnd["group_bytes"], rnd["max_node_send"], rnd["max_node_recv"], rates)
        seconds += r["seconds"]
        limits[r["limit"]] = limits.get(r["limit"], 0) + 1
    return {"seconds": seconds, "moved_bytes": moved, "rounds": len(answer["rounds"]),
            "algorithm": answer["algorithm"], "limits": limits}


def alltoall_bound_tbytes_per_s(preset: str, nodes: Tuple[int, ...], nbytes: int, ppn: int = 1) -> float:
    """The most TB/s an MPI_Alltoall of ``nbytes`` per pair, ``ppn`` ranks per node on ``nodes`` in order, can move
    on ``preset`` by its schedule's bound, counting each pair's ``nbytes`` once as the recipes count a run's
    bandwidth (Bruck's rounds forward blocks, so they move more bytes than that). The preset is loaded with
    the study's ``--set`` overrides, and the bound is cached by the config they give, so it follows any that
    change the network's rates or MPICH's rounds (``mpi.alltoall_throttle``)."""
    return _alltoall_bound(json.dumps(load_config(preset), sort_keys=True, default=str), nodes, nbytes, ppn)


@lru_cache(maxsize=64)
def _alltoall_bound(cfg_json: str, nodes: Tuple[int, ...], nbytes: int, ppn: int) -> float:
    b = collective_bound(json.loads(cfg_json), list(nodes), nbytes, ppn=ppn)
    ranks = len(nodes) * ppn
    return ranks * (ranks - 1) * nbytes / b["seconds"] / 1e12
