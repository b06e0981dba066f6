"""A few nodes with Cassini NICs, as [Roweth] Sec. V measured them: the ``slingshot-max`` preset's NICs,
links, switch and host (inline sends up to 96 B, NIC matching), its HPC Ethernet framing, on a
dragonfly shrunk to two groups of two switches. The papers' NIC figures are about one node pair; the
preset's 279,040 endpoints add nothing to them but build time."""
from __future__ import annotations

from ..config import Config, load_config

SYSTEM = "slingshot-max"
SMALL_TOPOLOGY = {"groups": 2, "switches_per_group": 2, "endpoints_per_switch": 4, "global_ports_per_switch": 1}


def cassini_fabric(rails: int = 1) -> Config:
    """Idle small dragonfly with Cassini NICs and hosts, ``rails`` NICs per node."""
    cfg = load_config(SYSTEM)
    cfg["topology"] = {**cfg["topology"], **SMALL_TOPOLOGY, "rails": rails}
    cfg["nic"]["frame"] = "slingshot"
    cfg["traffic"] = []
    return cfg
