"""[Roweth] Sec. II-E and Fig. 2: the latency of trace packets beside congesting background traffic,
with and without Slingshot's congestion management; and Sec. II-F's RFC 2544 measurements of one
Rosetta switch (frame rate of 64 B frames, port-to-port latency).

Fig. 2's values are not in the paper's text; what it shows is that congestion management keeps the
trace packets' latency close to its quiet value while the background congests an endpoint. Here, on
Malbec: trace packets (64 B messages, each of every fourth node sending at 0.2% of its line rate)
to one trace node that sits on the same switch as the background's target, beside an incast (every
other node sends 4 KiB messages at half its line rate to that target), with the switches'
congestion management (``slingshot``, the preset's), with back-pressure only (``none``), and alone.
The trace's destination shares the congested egress switch and the links into it with the incast;
the recipe checks that, and that the trace's senders share switches with the background's, or
refuses to report: trace packets that never meet the congestion would say nothing about it.

RFC 2544 (Sec. II-F): "The measured rate for 64B frames was 297,619,047 frames per second (FPS). No
packets were dropped. Latency for Ethernet packets was measured at 308-327 ns depending on the
combination of ports used." Here a tester port sends 64 B Ethernet frames (2 B of payload behind
RoCE's 62 B of headers, plus 20 B of preamble and gap) at 200 Gb/s through one switch to another
port: the frame rate is what leaves the switch, the port-to-port latency a low-load frame's time from
its last bit into the switch to its first bit out (the network latency less both links' latency and
one serialization).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from ..cluster import SchedulerLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from .placement import nodes_per_switch  # noqa: E402
from .point_study import run_point_study  # noqa: E402

SYSTEM = "slingshot-malbec"
MODES = ("alone", "none", "slingshot")
"""The trace alone; beside the background with back-pressure only; with the switches' congestion management."""
TRACE_EVERY = 4
TRACE_LOAD = 0.002
TRACE_BYTES = 64
BACKGROUND_LOAD = 0.5
BACKGROUND_BYTES = 4096
WARMUP_NS = 2_500_000
QUICK_WARMUP_NS = 500_000
"""Covers the incast's onset: every flow starts with a window of its path's bandwidth-delay product
before the first congestion acks return, and 362 flows of about 60 KB each take 1.7 ms to drain
through the target's 100 Gb/s port (95 flows in the quick run, 0.5 ms). Measured from 200 us, the
full run's trace still waited behind that burst with or without congestion management (p99 139 us
against 1.5 us alone); from 2.5 ms congestion management keeps the trace at its quiet latency."""
DURATION_NS = 100_000
QUICK_DURATION_NS = 30_000
QUICK_NODES = 128
"""Quick: the first 128 nodes (one group), every property kept: the trace still meets the incast."""
RFC2544_GBPS = 200.0
RFC2544_PAYLOAD = 2
"""Payload of a 64 B RoCE frame (62 B of headers)."""
RFC2544_FRAME_WIRE_BYTES = 84
"""64 B frame plus 20 B of preamble and inter-frame gap."""
PAPER_FPS = 297_619_047
PAPER_PORT_LATENCY_NS = (308, 327)


TRACE_TARGET = 1
"""Index in the trace nodes of the trace's destination: node 4, on switch 0 beside the incast's target (node 1)."""


def node_sets(quick: bool) -> Tuple[List[int], List[int]]:
    """(trace nodes, background nodes): the trace's destination is trace node ``TRACE_TARGET``, the
    background's incast target its first node."""
    total = QUICK_NODES if quick else load_config(SYSTEM)["topology"]["nodes"]
    trace = list(range(0, total, TRACE_EVERY))
    background = [n for n in range(total) if n % TRACE_EVERY != 0]
    return trace, background


def shares_checked(trace: List[int], background: List[int]) -> Dict[str, Any]:
    """Raise unless the trace's destination sits on the incast target's switch and the trace's senders
    share switches with the background's; return what they share."""
    per = nodes_per_switch(SYSTEM)
    senders_sw = {n // per for n in background[1:]}
    shared = {n // per for n in trace} & senders_sw
    target_sw, trace_dst_sw = background[0] // per, trace[TRACE_TARGET] // per
    if trace_dst_sw != target_sw or not shared:
        raise RuntimeError("packet-latency-background: the trace's destination is not on the incast target's switch, "
                           "or its senders share no switch with the background's; the figure needs the trace to "
                           "meet the congestion")
    return {"shared_switches": len(shared), "target_switch": target_sw}


def background_config(mode: str, quick: bool) -> Config:
    """Malbec with the trace and, unless ``mode`` is alone, the incast background."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    trace, background = node_sets(quick)
    cfg = load_config(SYSTEM)
    cfg["congestion"] = {**cfg.get("congestion", {}), "algorithm": "none" if mode == "none" else "slingshot"}
    cfg["sim"] = {**cfg.get("sim", {}), "warmup_ns": QUICK_WARMUP_NS if quick else WARMUP_NS,
                  "duration_ns": QUICK_DURATION_NS if quick else DURATION_NS}
    cfg["traffic"] = [{"name": "trace", "pattern": "incast", "load": TRACE_LOAD, "message_bytes": TRACE_BYTES,
                       "nodes": {"list": trace}, "target": TRACE_TARGET}]
    if mode != "alone":
        cfg["traffic"].append({"name": "background", "pattern": "incast", "load": BACKGROUND_LOAD,
                               "message_bytes": BACKGROUND_BYTES, "nodes": {"list": background}, "target": 0})
    return cfg


def rfc2544_config(load: float) -> Config:
    """Two ports of one switch: port 1 sends 64 B frames at ``load`` of 200 Gb/s to port 0."""
    cfg = load_config(SYSTEM)
    cfg["nic"] = {**cfg["nic"], "bandwidth_bps": RFC2544_GBPS * 1e9, "frame": "roce"}
    cfg["congestion"] = {**cfg.get("congestion", {}), "algorithm": "none"}
    cfg["sim"] = {**cfg.get("sim", {}), "warmup_ns": 2_000, "duration_ns": 20_000}
    cfg["traffic"] = [{"name": "tester", "pattern": "incast", "load": load, "process": "periodic",
                       "message_bytes": RFC2544_PAYLOAD, "nodes": {"list": [0, 1]}, "target": 0}]
    return cfg


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config]]:
    """Every (labels, config): the three trace modes and the two RFC 2544 runs."""
    points = [({"test": "trace", "mode": m}, background_config(m, quick)) for m in MODES]
    points += [({"test": "rfc2544", "mode": "frame-rate"}, rfc2544_config(1.0)),
               ({"test": "rfc2544", "mode": "latency"}, rfc2544_config(0.01))]
    return points


COLUMNS = ("test", "mode", "mean_ns", "p50_ns", "p99_ns", "max_ns", "trace_packets", "background_accepted_load",
           "frames_per_s", "offered_load", "accepted_load", "port_to_port_ns")
"""Every row has every column (None where a test has no value), so one table holds both tests."""


def row_of(labels: Dict[str, Any], summary: Dict[str, Any]) -> Dict[str, Any]:
    """One point's row, every column present."""
    row = _row(labels, summary)
    return {k: row.get(k) for k in COLUMNS}


def _row(labels: Dict[str, Any], summary: Dict[str, Any]) -> Dict[str, Any]:
    cfg = summary["provenance"]["config"]
    if labels["test"] == "trace":
        tr = summary["traffic"]["trace"]
        lat = tr["latency_ns"]
        if not lat["count"]:
            raise RuntimeError(f"packet-latency-background: {labels}: no trace packet was delivered")
        row = {**labels, "mean_ns": lat["mean"], "p50_ns": lat["p50"], "p99_ns": lat["p99"], "max_ns": lat["max"],
               "trace_packets": lat["count"], "background_accepted_load": None}
        if labels["mode"] != "alone":
            row["background_accepted_load"] = summary["traffic"]["background"]["accepted_load"]
        return row
    if summary["packets_lost"] or not summary["bytes_conserved"]:
        raise RuntimeError(f"packet-latency-background: {labels}: frames were lost; RFC 2544 counts a rate only "
                           "without loss")
    tester = summary["traffic"]["tester"]
    # Accepted load is per node of the source, the receiving port included.
    fps = tester["accepted_load"] * tester["nodes"] * RFC2544_GBPS * 1e9 / 8 / RFC2544_FRAME_WIRE_BYTES
    links = cfg["links"]
    wire_ns = links["terminal_latency_ns"] + links["fec_latency_ns"]
    serialize_ns = RFC2544_FRAME_WIRE_BYTES * 8 / RFC2544_GBPS
    port_ns = tester["network_latency_ns"]["mean"] - 2 * wire_ns - serialize_ns
    return {**labels, "frames_per_s": fps, "offered_load": tester["offered_load"],
            "accepted_load": tester["accepted_load"], "port_to_port_ns": port_ns}


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Trace latency beside the background over alone, per mode; the RFC 2544 figures."""
    trace = {r["mode"]: r for r in rows if r["test"] == "trace"}
    rfc = {r["mode"]: r for r in rows if r["test"] == "rfc2544"}
    alone = trace["alone"]
    impact = {m: {"mean": round(trace[m]["mean_ns"] / alone["mean_ns"], 3),
                  "p99": round(trace[m]["p99_ns"] / alone["p99_ns"], 3)} for m in ("none", "slingshot")}
    fps = rfc["frame-rate"]["frames_per_s"]
    return {
        "trace_impact": impact,
        "congestion_management_keeps_latency": impact["slingshot"]["p99"] < 1.2
        and impact["none"]["p99"] >= 1.3 * impact["slingshot"]["p99"],
        "rfc2544_frames_per_s": round(fps),
        "rfc2544_line_rate": abs(fps / PAPER_FPS - 1) < 0.01,
        "port_to_port_ns": round(rfc["latency"]["port_to_port_ns"], 1),
        "shares_checked": True,
        "paper": {"source": "[Roweth] Fig. 2 and Sec. II-F", "rfc2544_frames_per_s": PAPER_FPS,
                  "port_to_port_ns": list(PAPER_PORT_LATENCY_NS),
                  "fig2": "trace packet latency with congesting background traffic; values not in the text"},
    }


def run_packet_latency_background(
    out_dir: Union[str, Path] = "out/packet-latency-background",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
) -> pa.Table:
    """Run the study; write ``packet_latency_background.parquet`` and ``.png``; return one row per point."""
    shares_checked(*node_sets(quick))
    return run_point_study("packet_latency_background", study_points(quick), row_of, key_figures, plot, out_dir,
                           quick, scheduler, workers, progress, cache)


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Trace packet latency (mean, p50, p99) by mode, log scale."""
    trace = [r for r in rows if r["test"] == "trace"]
    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    width = 0.25
    for i, stat in enumerate(("p50_ns", "mean_ns", "p99_ns")):
        ax.bar([k + (i - 1) * width for k in range(len(trace))], [r[stat] for r in trace], width,
               label=stat.replace("_ns", ""))
    ax.set_xticks(range(len(trace)))
    ax.set_xticklabels([{"alone": "alone", "none": "background,\nback-pressure", "slingshot": "background,\ncongestion mgmt"}
                        [r["mode"]] for r in trace], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("trace packet latency (ns)")
    ax.legend(fontsize=7)
    fig.suptitle("Trace packets beside an incast, Malbec", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, path, provenance)
