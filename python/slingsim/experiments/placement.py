"""Node numbers of a preset's groups and switches, for recipes that place jobs by hand.

Nodes are numbered group by group: a dragonfly group holds switches x
endpoints / rails nodes, a switch endpoints / rails of them (every rail of
a node sits on its own switch of the group); an Aries group holds rows x
columns routers of ``endpoints_per_switch`` nodes.
"""
from __future__ import annotations

from typing import List

from ..config import load_config


def nodes_per_switch(preset: str) -> int:
    topo = load_config(preset)["topology"]
    return topo["endpoints_per_switch"] // topo.get("rails", 1)


def nodes_per_group(preset: str) -> int:
    topo = load_config(preset)["topology"]
    if topo["kind"] == "aries":
        return topo["rows"] * topo["columns"] * topo["endpoints_per_switch"]
    return topo["switches_per_group"] * nodes_per_switch(preset)


def group_pool(preset: str, groups: int, per_group: int) -> List[int]:
    """The first ``per_group`` nodes of each of the first ``groups`` groups."""
    size = nodes_per_group(preset)
    return [g * size + i for g in range(groups) for i in range(per_group)]
