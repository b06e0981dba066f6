"""When a victim may start beside an incast: after the incast's onset has drained.

[DeSensi20] Sec. III measures victims while the aggressor runs in its steady
state: the aggressor loops for the whole experiment and each victim is run
hundreds of times. A simulation runs the victim once, so it must start it
after the aggressor's onset. When an incast starts, every sending node opens
its flow to the target at once. Under Slingshot's congestion management each
flow starts with a window of its path's bandwidth-delay product (about 40 kB
on Shandy) and is cut to its fair share only when the first marked acks
return. By then every flow has its first window in the fabric: 458 senders
put about 16 MB into the switches feeding one 100 Gb/s port (15.8 MB at
0.25 ms), which drains them in about 1.5 ms. A victim sharing those switches waits behind them.

Measured on the full Fig. 9 set-up (Shandy, 53/459 split, pingpong 8 B
beside the incast): victim started at 1 ms, iterations of 615 and 153 us
among ones of 5.8 us (14x); at 1.5 ms one iteration of 250 us; at 2, 2.5, 3,
4 and 8 ms every iteration 5.8 us (1.00x). ``shandy_applications`` found the
same with 768 senders: LAMMPS 10.4x at 1 ms, 3.6x at 3 ms, 1.18x at 6 ms.

Nodes with several NIC rails have one onset per rail. A node sends its
messages on its rails in turn (``nic.rail_selection = "round-robin"``), and
each rail of a node is its own endpoint, so a sender's first message on each
rail opens a new flow with a new starting window. Shandy has two rails per
node: every incast sender's first message goes on rail 0, its second on rail
1, and the senders, sharing the target's port fairly, finish their first
messages together. Stepped through that run (0.5 ms steps, the bytes the
incast has in the fabric beyond the packets held at ingress): 12.8 MB at
0.5 ms, 0.1-0.2 MB from 2 to 5 ms, the second rail's onset 3.7-4.4 MB at
5.5-6 ms, and 0.4 MB or less from 7 ms to 24 ms with about 910 flows
throttled (458 per rail). A victim started at 4.8 ms (one message per
sender) met the second onset: sweep3d 1.83x, with single messages delayed
by up to 0.54 ms.

The rule: a victim starts no earlier than the target takes in one
aggressor message from every sending node on every rail, one rail at a
time at its NIC's line rate: senders x rails x message / NIC rate. Each
onset holds at most one starting window per flow (sending endpoint and
target endpoint: the window belongs to the endpoint pair, whatever the
processes per node), and every starting window here is below one 128 KiB
message, so the onsets have drained by then. It is an upper bound, and the
measurements above sit inside it (458 senders on two rails: steady from
7 ms, bound 9.6 ms). Aries has one rail and no onset to drain
(back-pressure builds its tree in microseconds and keeps it), but gets the
same rule, so both systems' victims start alike.
"""
from __future__ import annotations

from typing import Any, Dict

MIN_START_NS = 1_000_000.0
"""The earliest start: smaller aggressors still get a millisecond to reach their steady state."""


def incast_drained_ns(senders: int, message_bytes: int, nic_bps: float, rails: int = 1) -> float:
    """Nanoseconds a target NIC of ``nic_bps`` needs to take in one ``message_bytes`` message from each
    of ``senders`` sending nodes on each of ``rails`` rails, one rail at a time."""
    if nic_bps <= 0:
        raise ValueError(f"nic.bandwidth_bps: {nic_bps} is not positive; give the NIC's line rate in bits/s")
    if rails < 1:
        raise ValueError(f"topology.rails: {rails} is below 1; a node has at least one NIC rail")
    return max(0, senders) * rails * message_bytes * 8e9 / nic_bps


def victim_start_ns(cfg: Dict[str, Any], senders: int, message_bytes: int) -> float:
    """When a victim on ``cfg``'s system may start beside an incast of ``senders`` sending nodes and
    ``message_bytes`` messages: ``MIN_START_NS`` or the incast's drain bound over the system's rails,
    whichever is later, rounded up to a whole microsecond."""
    rails = int(cfg["topology"].get("rails") or 1)
    bound = incast_drained_ns(senders, message_bytes, float(cfg["nic"]["bandwidth_bps"]), rails)
    return max(MIN_START_NS, float(-(-bound // 1000) * 1000))
