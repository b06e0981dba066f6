"""Plain-text rendering of summaries, topologies, load curves and benchmarks for the terminal."""
from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """Columns aligned under their headers: the first ``left`` columns (names) left-aligned, numbers right-aligned."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]

    def line(cells: Sequence[Any]) -> str:
        parts = [
            str(cell).ljust(width) if i < left else str(cell).rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths))
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def number(value: Optional[float], digits: int = 3) -> str:
    """A number with ``digits`` decimals, thousands separated; ``-`` when missing."""
    if value is None:
        return "-"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def _traffic_row(name: str, figures: Dict[str, Any]) -> List[str]:
    latency = figures.get("latency_ns") or {}
    if latency.get("count") == 0:  # no measured packet delivered: show "-", not 0 ns
        latency = {}
    return [
        name,
        number(figures.get("nodes")),
        number(figures.get("offered_load")),
        number(figures.get("accepted_load")),
        number(latency.get("mean"), 0),
        number(latency.get("p50"), 0),
        number(latency.get("p99"), 0),
        number(latency.get("p999"), 0),
        number(figures.get("hops_mean"), 2),
        number(figures.get("nonminimal_fraction")),
    ]


TRAFFIC_HEADERS = ["source", "nodes", "offered", "accepted", "lat mean ns", "p50 ns", "p99 ns", "p99.9 ns", "hops", "nonmin"]


def summary_text(summary: Dict[str, Any], title: str) -> str:
    """A run's summary: headline counters, load and latency overall and per traffic source, link use."""
    lines = [
        f"{title}: {summary['end_reason']} at {number(summary['sim_time_ns'], 0)} ns simulated, "
        f"{summary['wall_s']:.2f} s wall (build {summary.get('build_s', 0):.2f} s)",
        f"events {number(summary['events'])}, packet hops {number(summary['packet_hops'])}, "
        f"packets delivered {number(summary['packets_delivered'])}, "
        f"bytes conserved: {'yes' if summary['bytes_conserved'] else 'NO'}",
    ]
    kinds = summary.get("packets_by_kind") or {}
    if any(n for k, n in kinds.items() if k != "data"):
        # Acks and CNPs travel as packets (nic.acks = "packets"): say how many, and whether all are accounted for.
        lines.append("packets injected by kind: " + ", ".join(f"{k} {number(n)}" for k, n in kinds.items())
                     + f"; packets conserved: {'yes' if summary.get('packets_conserved') else 'NO'}")
    lines.append("")
    rows = [_traffic_row("(all)", summary)]
    rows += [_traffic_row(name, figures) for name, figures in summary.get("traffic", {}).items()]
    lines.append(text_table(TRAFFIC_HEADERS, rows))
    flows = {n: f["flows"] for n, f in summary.get("traffic", {}).items() if (f.get("flows") or {}).get("count")}
    if flows:
        lines += ["", text_table(
            ["source", "flows", "completed", "lost", "fct mean ns", "fct p50 ns", "fct p99 ns", "fct max ns"],
            [[n, number(f["count"]), number(f["completed"]), number(f.get("lost", 0))]
             + [number(f["fct_ns"].get(k), 0) for k in ("mean", "p50", "p99", "max")]
             for n, f in flows.items()],
        )]
    if summary.get("bytes_lost"):
        lines += ["", f"lost: {number(summary['bytes_lost'])} bytes in {number(summary['packets_lost'])} packets "
                      "(end-to-end retries exhausted, or lossy-class drops); what lost bytes is reported as not completed"]
    failed = summary.get("failed_links") or []
    if failed:
        def when(f: Dict[str, Any]) -> str:
            if not f["at_ns"]:
                return "down from the start"
            rerouted = f.get("rerouted_at_ns")
            return f"at {number(f['at_ns'], 0)} ns" + (f", rerouted at {number(rerouted, 0)} ns" if rerouted is not None else "")

        shown = "; ".join(f"switch {f['switch']} port {f['port']} -> switch {f['to_switch']} ({f['kind']}, {when(f)})"
                          for f in failed[:3])
        more = f"; {len(failed) - 3} more in the summary's failed_links" if len(failed) > 3 else ""
        lines += ["", f"failed links: {len(failed)}: {shown}{more}"]
    partition = summary.get("partition")
    if partition:
        parts = "; ".join(f"groups {', '.join(str(g) for g in p['groups'])} ({p['switches']} switches)" for p in partition["parts"])
        lines += ["", f"partitioned: failed links cut the network into {len(partition['parts'])} parts: {parts}. "
                      "Packets between parts cannot arrive."]
    jobs = summary.get("jobs") or {}
    if jobs:
        lines += ["", jobs_text(jobs)]
    if summary.get("hop_waits_ns"):
        lines += ["", hop_waits_text(summary)]
    links = summary.get("links") or {}
    if links:
        lines += ["", text_table(
            ["link kind", "count", "util mean", "util max"],
            [[kind, number(l["count"]), number(l["utilization_mean"]), number(l["utilization_max"])] for kind, l in links.items()],
        )]
    return "\n".join(lines)


WAIT_PLACES = ["ingress_held", "ingress_local", "ingress_global", "transit_local", "transit_global", "egress"]


def hop_waits_text(summary: Dict[str, Any]) -> str:
    """Where each source's packets waited (``sim.hop_waits``): per place, the waits per delivered
    packet, their mean and their p99 and maximum in ns; places where nothing passed are left out."""
    rows = []
    sources = [("(all)", summary)] + list((summary.get("traffic") or {}).items())
    for name, figures in sources:
        waits = figures.get("hop_waits_ns") or {}
        packets = (waits.get("egress") or {}).get("count") or 0
        # The usual order; a place the engine adds later still shows, after them.
        for place in WAIT_PLACES + [p for p in waits if p not in WAIT_PLACES]:
            w = waits.get(place) or {}
            if not w.get("count"):
                continue
            rows.append([name, place, number(w["count"] / packets if packets else None, 2),
                         number(w.get("mean"), 0), number(w.get("p99"), 0), number(w.get("max"), 0)])
    return "where packets waited (sim.hop_waits)\n" + text_table(
        ["source", "place", "per packet", "mean ns", "p99 ns", "max ns"], rows, left=2)


JOB_HEADERS = ["job", "ranks", "finished", "runtime ns", "iterations", "iter mean ns", "iter p99 ns",
               "msg latency mean ns", "messages", "busiest MPI CPU", "impact"]


def jobs_text(jobs: Dict[str, Any]) -> str:
    """One line per MPI job: time, iterations, message latency, the busiest rank's share of the run its
    CPU spent on MPI work and, when measured, congestion impact;
    then where the ranks of unfinished jobs wait and what their programs could not represent."""
    rows = []
    notes = []
    for name, j in jobs.items():
        it = j.get("iteration_ns") or {}
        imp = j.get("congestion_impact")
        rows.append([
            name, number(j["ranks"]), "yes" if j["finished"] else ("repeats" if j["repeat"] else "NO"),
            number(j.get("runtime_ns"), 0), number(j["iterations"]), number(it.get("mean"), 0), number(it.get("p99"), 0),
            number(j["message_latency_ns"].get("mean"), 0), number(j["messages"]),
            "-" if j.get("mpi_cpu_fraction") is None else f"{100 * j['mpi_cpu_fraction']:.0f}%",
            "-" if imp is None else f"{imp['impact_mean']:.2f}x",
        ])
        for w in j.get("waiting_ranks", []):
            notes.append(f"  {name}: rank {w['rank']} (node {w['node']}) waits at op {w['op_index']}: {json.dumps(w['op'])}")
        for w in j.get("warnings", []):
            notes.append(f"  {name}: {w}")
        if j.get("unknown_waits"):
            notes.append(f"  {name}: {j['unknown_waits']} waits on requests no operation opened (skipped)")
        if j.get("lost_messages"):
            notes.append(f"  {name}: {j['lost_messages']} messages lost {j['lost_bytes']} bytes (retries exhausted): "
                         "they never arrived, so the job did not finish")
    out = text_table(JOB_HEADERS, rows)
    return out + ("\n" + "\n".join(notes) if notes else "")


def deadlock_text(summary: Dict[str, Any]) -> str:
    """The deadlock report: every stuck buffer, one per line."""
    stuck = (summary.get("deadlock") or {}).get("stuck_buffers", [])
    lines = [f"deadlock: no packet moved for the watchdog time; {len(stuck)} stuck buffers:"]
    lines += [f"  {json.dumps(b) if not isinstance(b, str) else b}" for b in stuck]
    return "\n".join(lines)


def _bandwidth(bytes_per_s: Optional[float]) -> str:
    return "-" if bytes_per_s is None else f"{bytes_per_s / 1e12:.3f} TB/s"


def _per_switch(spread: Optional[Dict[str, Any]]) -> str:
    """``min-max`` global links a switch holds, and how many switches hold none."""
    if not spread:
        return "-"
    lo, hi, none = spread["min"], spread["max"], spread["switches_without"]
    text = str(lo) if lo == hi else f"{lo}-{hi}"
    return text + (f" ({number(none)} switches without)" if none else "")


def _failed(failed: Optional[Dict[str, Any]]) -> str:
    """Links down from the start (which routing goes around) and failing later."""
    if not failed:
        return "-"
    return f"{number(failed['down_at_start'])} / {number(failed['failing_later'])}"


def topology_text(analytics: Dict[str, Any], title: str) -> str:
    """Topology analytics as aligned ``name  value`` lines with units."""
    links = analytics.get("links", {})
    rows = [
        ["endpoints", number(analytics.get("endpoints"))],
        ["nodes", number(analytics.get("nodes"))],
        ["switches", number(analytics.get("switches"))],
        ["links terminal / local / global",
         " / ".join(number(links.get(k)) for k in ("terminal", "local", "global"))],
        ["diameter (switch hops)", number(analytics.get("diameter"))],
        ["average minimal hops", number(analytics.get("avg_min_hops"))],
        ["injection bandwidth", _bandwidth(analytics.get("injection_bw_Bps"))],
        ["global bandwidth", _bandwidth(analytics.get("global_bw_Bps"))],
        ["bisection bandwidth", _bandwidth(analytics.get("bisection_bw_Bps"))],
        ["all-to-all peak", _bandwidth(analytics.get("alltoall_peak_Bps"))],
        ["uniform minimal saturation", number(analytics.get("uniform_minimal_saturation"))],
        ["adversarial minimal saturation", number(analytics.get("adversarial_minimal_saturation"))],
        ["global links per switch", _per_switch(analytics.get("global_links_per_switch"))],
        ["links failed: down from the start / later", _failed(analytics.get("links_failed"))],
        ["radix used", number(analytics.get("radix_used"))],
        ["planes / rails", f"{number(analytics.get('planes', 1))} / {number(analytics.get('rails', 1))}"],
        ["cost (USD)", number(analytics.get("cost_usd"))],
        ["build time", f"{analytics.get('build_s', 0):.3f} s"],
    ]
    rows = [r for r in rows if r[1] not in ("-", "None")]
    return f"{title}\n" + text_table(["figure", "value"], rows)


def deadlock_check_text(reports: Dict[str, Any]) -> str:
    """Per routing algorithm: deadlock free or not, VCs, graph size, and any cycle."""
    verdict = {True: "yes", False: "NO", None: "skipped"}
    rows = [[name, verdict[r["deadlock_free"]], number(r.get("vcs")), number(r.get("vertices")), number(r.get("edges"))]
            for name, r in reports.items()]
    out = "deadlock check (channel dependency graph)\n" + text_table(["routing", "deadlock free", "VCs", "vertices", "edges"], rows)
    skipped = {r["skipped"] for r in reports.values() if r.get("skipped")}
    for why in skipped:
        out += f"\n{why}"
    for name, r in reports.items():
        if r.get("cycle"):
            hops = " -> ".join(f"{c['from']}>{c['to']} (vc {c['vc']})" for c in r["cycle"])
            out += f"\ncycle for {name}: {hops}"
    return out


LOAD_CURVE_HEADERS = {
    "load": ("load", 3), "offered_load": ("offered", 3), "accepted_load": ("accepted", 3),
    "latency_mean_ns": ("lat mean ns", 0), "latency_p50_ns": ("p50 ns", 0),
    "latency_p99_ns": ("p99 ns", 0), "latency_p999_ns": ("p99.9 ns", 0),
    "hops_mean": ("hops", 2), "nonminimal_fraction": ("nonmin", 3),
}


def load_curve_text(rows: List[Dict[str, Any]], label_columns: Sequence[str] = ()) -> str:
    """A load sweep table (rows as dicts), label columns first."""
    headers = list(label_columns) + [h for h, _ in LOAD_CURVE_HEADERS.values()] + ["end"]
    body = [
        [str(row[c]) for c in label_columns]
        + [number(row[key], digits) for key, (_, digits) in LOAD_CURVE_HEADERS.items()]
        + [row["end_reason"]]
        for row in rows
    ]
    return text_table(headers, body, left=max(1, len(label_columns)))


def bench_text(scenarios: List[Dict[str, Any]]) -> str:
    """Benchmark scenarios: throughput, simulated speed and peak memory per scenario."""
    rows = [
        [
            s["name"],
            f"{s['events_per_s'] / 1e6:.2f} M",
            f"{s['packet_hops_per_s'] / 1e6:.2f} M",
            number(s["sim_ns_per_wall_s"], 0),
            f"{s['peak_rss_bytes'] / 2**20:,.0f} MiB",
            f"{s['peak_rss_bytes_per_endpoint'] / 1024:,.1f} KiB",
            f"{s['build_s']:.2f}",
            f"{s['wall_s']:.2f}",
            f"{s['tables_s']:.2f}",
            number(s["events"]),
            number(s["packet_hops"]),
        ]
        for s in scenarios
    ]
    headers = ["scenario", "events/s", "pkt-hops/s", "sim ns/wall s", "peak RSS", "per endpoint", "build s", "run s", "tables s", "events", "packet hops"]
    return text_table(headers, rows)


def trace_info_text(info: Dict[str, Any], title: str) -> str:
    """A trace summary: ranks, bytes, message matching, MPI calls by count, then the warnings."""
    rows = [
        ["ranks", number(info["ranks"], 0)],
        ["bytes sent", number(info["bytes"], 0)],
        ["matched messages", number(info["matched_messages"], 0)],
        ["unmatched messages", number(info["unmatched_messages"], 0)],
    ]
    calls = sorted(info["calls"].items(), key=lambda kv: (-kv[1], kv[0]))
    text = f"{title}\n" + text_table(["figure", "value"], rows)
    text += "\n\n" + text_table(["call", "count"], [[name, number(n, 0)] for name, n in calls])
    warnings = info.get("warnings") or []
    text += "\n\nwarnings:" + "".join(f"\n  {w}" for w in warnings) if warnings else "\n\nwarnings: none"
    return text

