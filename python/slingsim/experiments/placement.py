"""Node numbers of a preset's groups and switches, for recipes that place jobs by hand.

Nodes are numbered group by group: a dragonfly group holds switches x
endpoints / rails nodes, a switch endpoints / rails of them (every rail of
a node sits on its own switch of the group); an Aries group holds rows x
columns routers of ``endpoints_per_switch`` nodes.
"""
from __future__ import annotations

from typing import Any, Dict, List, Set

from ..config import load_config


class NodeLayout:
    """The switches and the group a node of a dragonfly or Aries topology sits on, numbered as the engine
    numbers them: nodes group by group, switch by switch. A dragonfly switch holds endpoints / rails nodes
    and rail r of a node sits r switches after its first (crates/slingsim-core/src/topology/dragonfly.rs);
    an Aries router holds ``endpoints_per_switch`` nodes and a group rows x columns routers."""

    def __init__(self, topology: Dict[str, Any]) -> None:
        rails = topology.get("rails", 1)
        if topology["kind"] == "dragonfly":
            switches = topology["switches_per_group"]
        elif topology["kind"] == "aries" and rails == 1:
            switches = topology["rows"] * topology["columns"]
        else:
            raise ValueError(f"node layout: topology kind {topology['kind']!r} with {rails} rails is not known here")
        self.rails = rails
        self.switches_per_group = switches
        self.per_switch = topology["endpoints_per_switch"] // rails
        self.per_group = switches * self.per_switch
        self.nodes = topology.get("nodes", topology["groups"] * self.per_group)

    def switches(self, node: int) -> Set[int]:
        """The switches of the node's NICs, one per rail."""
        group, m = divmod(node, self.per_group)
        first = m // self.per_switch
        a = self.switches_per_group
        return {group * a + (first + rail) % a for rail in range(self.rails)}

    def group(self, node: int) -> int:
        return node // self.per_group


def nodes_per_switch(preset: str) -> int:
    return NodeLayout(load_config(preset)["topology"]).per_switch


def nodes_per_group(preset: str) -> int:
    return NodeLayout(load_config(preset)["topology"]).per_group


def group_pool(preset: str, groups: int, per_group: int) -> List[int]:
    """The first ``per_group`` nodes of each of the first ``groups`` groups."""
    size = nodes_per_group(preset)
    return [g * size + i for g in range(groups) for i in range(per_group)]


def switch_order_pool(preset: str, groups: int, per_group: int, per_switch: int) -> List[int]:
    """``per_group`` nodes of each of the first ``groups`` groups, the first ``per_switch`` (at most) of each
    switch; listed switch by switch, the groups in turn (switch 0 of group 0, switch 0 of group 1, ...,
    switch 1 of group 0, ...). A linear split of it gives the victim and the aggressor nodes in the same
    groups, and a small victim nodes on several switches."""
    size, switch_size = nodes_per_group(preset), nodes_per_switch(preset)
    take = min(switch_size, per_switch)
    switches = -(-per_group // take)
    return [g * size + s * switch_size + k for s in range(switches) for g in range(groups) for k in range(take)]
