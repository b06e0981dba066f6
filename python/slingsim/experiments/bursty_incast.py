"""[DeSensi20] Fig. 12: congestion impact of a bursty incast on a 128 B alltoall, on Slingshot.

The paper runs a 128 B MPI_Alltoall victim on half of Malbec's nodes and an
incast aggressor on the other half (interleaved) and varies the aggressor's
message size, the messages in a burst and the pause between bursts. Its
answer: Slingshot is tolerant of bursty as of persistent congestion; small
messages make too little congestion and large ones are throttled at once by
congestion control, so only medium sizes with large bursts and short gaps
nudge the victim (up to 1.21x); bursts of 10^6 messages behave as persistent
congestion. Here every point is the mean iteration time of the victim beside
the aggressor over its time alone (Eq. 1), on the ``slingshot-malbec``
preset. Each aggressor rank runs GPCNeT's put incast, whose code the paper
used: one put, flushed before the next ([GPCNeT], ``congestors.c``); a burst
is that loop run ``burst_messages`` times, then the gap. The persistent row
repeats with no pause and fills every gap column.
The recipe reports only if the victim meets the incast
(``congestion_heatmap.victim_shares``: it spans at least two switches and
one of its switches or groups also holds incast nodes); interleaved on all
of Malbec, every switch holds both, the target's too.
"""
from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from .. import provenance  # noqa: E402
from ..cluster import SchedulerLike  # noqa: E402
from ..figures import save_figure  # noqa: E402
from ..store import CacheLike  # noqa: E402
from ..config import Config, load_config  # noqa: E402
from .onset import victim_start_ns  # noqa: E402
from .output import study_output  # noqa: E402
from .congestion_heatmap import identical_points, max_impact, run_points, summarise_shares  # noqa: E402
from .stop_rules import check_stop_rule, stop_rule_checks, study_params

SYSTEM = "slingshot-malbec"
SIZES = (8, 1024, 16_384, 131_072)
"""Aggressor message sizes, bytes: one heatmap each."""
BURSTS = (1, 10, 100, 1000, 10_000, 100_000, 1_000_000)
"""Messages per burst of every aggressor rank (0 in the table = persistent)."""
GAPS_NS = (1_000, 10_000, 100_000, 1_000_000)
"""Pause after each burst."""
QUICK_SIZES, QUICK_BURSTS, QUICK_GAPS_NS = SIZES, (1, 100, 1_000_000), (1_000, 100_000, 1_000_000)
"""Quick keeps what the figure is about, the message size: all four sizes (the figure's four heatmaps), and thins
each heatmap to the ends and the middle of its burst axis (1, 100 and 10^6 messages) and to the ends of its gap
axis (1 us and 1 ms) plus 100 us, the gap where full mode's medium sizes peaked while only the ingress switch held
congesting flows. Without 100 us quick's lead came from
the 1 ms gap, where it is a transient of the victim's first ten iterations that the paper's stopping rule dilutes
below the claim's 0.01 (docs/measurement-log.md); at 100 us the same restarts recur through the whole run."""
SAME_IMPACT = 0.01
"""Two impacts are "no different" when they differ by at most this (Fig. 12 prints two decimals)."""
VICTIM_BYTES, VICTIM_ITERATIONS = 128, 100
VICTIM_SHARE = 0.5
RUN_AFTER_START_NS = 19e6
"""Runs stop this long after the victim starts."""


def base(aggressor_bytes: int) -> Config:
    """Malbec with its synthetic traffic removed and the victim job, half of the nodes, interleaved, starting
    once an incast of ``aggressor_bytes`` messages on the other half has drained its onset
    (:func:`.onset.victim_start_ns`: 1 ms, 2.5 ms for 128 KiB)."""
    cfg = load_config(SYSTEM)
    cfg["traffic"] = []
    nodes = cfg["topology"]["nodes"]
    senders = nodes - math.floor(nodes * VICTIM_SHARE + 0.5) - 1
    start = victim_start_ns(cfg, senders, aggressor_bytes)
    cfg["sim"]["max_time_ns"] = start + RUN_AFTER_START_NS
    cfg["job"] = [{"name": "victim", "workload": "alltoall", "bytes": VICTIM_BYTES, "iterations": VICTIM_ITERATIONS,
                   "nodes": {"fraction": VICTIM_SHARE}, "placement": "interleaved", "start_ns": start}]
    return cfg


def with_aggressor(iso: Config, nbytes: int, burst: int, gap_ns: float) -> Config:
    """The isolated config plus an incast (MPI_Put) on the other half; ``burst`` 0 = persistent."""
    con = copy.deepcopy(iso)
    con["job"].append({"name": "aggressor", "workload": "incast", "bytes": nbytes, "iterations": 1, "repeat": True,
                       "burst_messages": burst, "burst_gap_ns": gap_ns})
    return con


def study_points(quick: bool = False) -> List[Tuple[Dict[str, Any], Config, Config]]:
    """Every (labels, isolated config, congested config) of the study; one isolated config per size."""
    sizes, bursts, gaps = (QUICK_SIZES, QUICK_BURSTS, QUICK_GAPS_NS) if quick else (SIZES, BURSTS, GAPS_NS)
    settings = [(0, None)] + [(burst, float(gap)) for burst in bursts for gap in gaps]  # 0: persistent
    points = []
    for nbytes in sizes:
        iso = base(nbytes)
        points += [({"aggressor_bytes": nbytes, "burst_messages": burst, "burst_gap_ns": gap}, iso,
                    with_aggressor(iso, nbytes, burst, gap or 0.0)) for burst, gap in settings]
    return points


def run_bursty_incast(
    out_dir: Union[str, Path] = "out/bursty-incast",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
    stop_rule: Optional[str] = None,
) -> pa.Table:
    """Run the study; write ``bursty_incast.parquet`` and ``bursty_incast.png``; return the table."""
    check_stop_rule(stop_rule)
    started = provenance.now()
    points = study_points(quick)
    rows, summaries, shares = run_points(points, scheduler, workers, progress, cache, name="bursty-incast",
                                         stop_rule=stop_rule)
    for (_, _, con), row, con_s in zip(points, rows, summaries[len(points):]):
        row["burst_outlasted_victim"] = burst_outlasted_victim(row, con_s)
        row["aggressor_port_load"] = aggressor_port_load(con_s, con)
        row["hop_ack_share"] = hop_ack_share(con_s)
    checks = {**key_figures(rows), "shares_checked": True, "shares": summarise_shares(points, shares)["all"],
              **stop_rule_checks(rows, stop_rule)}
    with study_output(out_dir, summaries, started, study_params(quick, stop_rule)) as out:
        out.write(bursty_incast=rows)
        plot(rows, out.path / "bursty_incast.png", out.provenance)
        return out.table(rows, checks)


def burst_outlasted_victim(row: Dict[str, Any], congested: Dict[str, Any]) -> Optional[bool]:
    """Whether the aggressor's first burst was still being sent when the run ended (some rank had not
    finished it); None for persistent congestion, which has no bursts."""
    if not row["burst_messages"]:
        return None
    return congested["jobs"]["aggressor"]["iterations"] == 0


def aggressor_port_load(congested: Dict[str, Any], cfg: Config) -> float:
    """What the incast delivered over the whole run as a fraction of its target's link rate (payload
    bytes, so a saturated port reads about 0.99). Near 1, the target's port was congested throughout
    and each new put met a queue; well below it, the ranks' gaps left the port idle part of the time,
    as gaps of 400 us or more do with 241 ranks of 16 KiB puts (docs/measurement-log.md)."""
    delivered = congested["traffic"]["aggressor"]["bytes_delivered"]
    return round(delivered * 8.0 / (congested["sim_time_ns"] * 1e-9) / cfg["nic"]["bandwidth_bps"], 4)


def hop_ack_share(congested: Dict[str, Any]) -> Optional[float]:
    """Of the incast's congestion acks, the share a holding hop sent rather than the congested port.
    The port acks a source's first packet as it joins the port's queue (a flow that crossed the fabric
    before any hop held it); a hop acks each packet it holds beside an output, and the hops hold a new
    flow only behind packets of the same destination already held there. It counts acks, not flows:
    about 0.5 for a persistent 16 KiB incast, whose cut flows keep the hops' allowance full; toward 0
    as the hops stop holding and every new flow reaches the port before it is cut, which is where the
    16 KiB victim suffers most (docs/model.md, "What the hops' allowance decides"). 0 when the hops
    hold nothing (``congestion.hop_hold_bytes = 0``); None without Slingshot's congestion management
    or when no congestion ack was sent."""
    c = congested.get("congestion", {})
    hop, port = c.get("hop_congestion_acks", 0), c.get("early_acks")
    if port is None or hop + port == 0:
        return None
    return round(hop / (hop + port), 4)


def longest_burst_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Fig. 12's last claim: bursts of the most messages (10^6) act as persistent congestion. Per aggressor
    size, the largest difference between a longest-burst impact (any gap) and the persistent impact; they
    count as equal within ``SAME_IMPACT``. Also whether every longest burst outlasted the victim, the
    reason they should be equal."""
    longest = max(r["burst_messages"] for r in rows)
    diffs: Dict[str, Optional[float]] = {}
    for nbytes in sorted({r["aggressor_bytes"] for r in rows}):
        mine = [r for r in rows if r["aggressor_bytes"] == nbytes]
        persistent = [r["impact"] for r in mine if r["burst_messages"] == 0 and r["impact"] is not None]
        bursts = [r["impact"] for r in mine if r["burst_messages"] == longest and r["impact"] is not None]
        diffs[str(nbytes)] = (round(max(abs(b - persistent[0]) for b in bursts), 4)
                              if persistent and bursts else None)
    known = [d for d in diffs.values() if d is not None]
    outlasted = [r.get("burst_outlasted_victim") for r in rows if r["burst_messages"] == longest]
    return {
        "longest_burst": longest,
        "longest_burst_minus_persistent": diffs,
        "longest_burst_equals_persistent": bool(known) and max(known) <= SAME_IMPACT,
        "longest_burst_outlasted_victim": bool(outlasted) and all(o is True for o in outlasted),
    }


def medium_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Fig. 12's first claim: medium aggressor messages nudge the victim where the smallest and the largest
    do not. The largest impact with the smallest and largest sizes, the largest with the sizes between
    them, and whether the medium one exceeds the other by more than ``SAME_IMPACT`` (the figure's
    resolution: a lead that rounds away at two decimals is no lead). None without a size between."""
    sizes = sorted({r["aggressor_bytes"] for r in rows})
    ends = (sizes[0], sizes[-1])
    medium = sizes[1:-1]
    at_ends = max_impact([r for r in rows if r["aggressor_bytes"] in ends])[0]
    at_medium = max_impact([r for r in rows if r["aggressor_bytes"] in medium])[0] if medium else None
    return {
        "smallest_and_largest_bytes": list(ends),
        "smallest_and_largest_messages_max_impact": at_ends,
        "medium_bytes": medium,
        "medium_messages_max_impact": at_medium,
        "medium_hurts_most": (None if at_medium is None or at_ends is None
                              else round(at_medium - at_ends, 6) > SAME_IMPACT),
    }


LARGE_BURST_MESSAGES = 100
SMALL_GAP_NS = 10_000.0
"""Fig. 12's corner of large bursts and small gaps: bursts of at least this many messages, at most this gap."""


def corner_figures(rows: List[Dict[str, Any]], medium: Dict[str, Any]) -> Dict[str, Any]:
    """Fig. 12's second claim: "the highest impact for large bursts and for small gaps". Over the medium
    sizes (``medium``: :func:`medium_figures` of the same rows), the largest impact in that corner
    (:data:`LARGE_BURST_MESSAGES`, :data:`SMALL_GAP_NS`) and whether it is the medium sizes' largest at
    the figure's resolution (within ``SAME_IMPACT``). None without a size between the smallest and the
    largest or without a point in the corner."""
    corner = [r for r in rows if r["aggressor_bytes"] in medium["medium_bytes"]
              and r["burst_messages"] >= LARGE_BURST_MESSAGES
              and r["burst_gap_ns"] is not None and r["burst_gap_ns"] <= SMALL_GAP_NS]
    at_corner = max_impact(corner)[0] if corner else None
    at_medium = medium["medium_messages_max_impact"]
    return {
        "medium_corner_max_impact": at_corner,
        "medium_peak_at_large_bursts_small_gaps": (None if at_corner is None or at_medium is None
                                                   else round(at_medium - at_corner, 6) <= SAME_IMPACT),
    }


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The largest impact and where it occurs (burst 0 and gap None: persistent), the largest under
    persistent congestion, the medium sizes against the smallest and the largest
    (:func:`medium_figures`) and the longest bursts against persistent congestion."""
    measured = [r for r in rows if r["impact"] is not None]
    medium = medium_figures(rows)
    top = max(measured, key=lambda r: r["impact"])
    biggest, censored = max_impact(rows)
    return {
        "max_impact": biggest,
        "max_impact_censored": censored,
        "max_at": {k: top[k] for k in ("aggressor_bytes", "burst_messages", "burst_gap_ns")},
        "persistent_impact": max_impact([r for r in rows if r["burst_messages"] == 0])[0],
        **medium,
        **corner_figures(rows, medium),
        "identical_points": identical_points(rows),
        **longest_burst_figures(rows),
        "paper": {"source": "[DeSensi20] Sec. III-A, Fig. 12", "max_impact": 1.21,
                  "shape": "only medium message sizes with large bursts and short gaps nudge the victim (up to "
                           "1.21x); small messages make too little congestion, large ones are throttled at once; "
                           "bursts of 10^6 messages behave as persistent congestion"},
    }


def _size_label(nbytes: int) -> str:
    return f"{nbytes // 1024} KiB" if nbytes >= 1024 else f"{nbytes} B"


def _gap_label(gap_ns: float) -> str:
    return f"{gap_ns / 1e6:g} ms" if gap_ns >= 1e6 else f"{gap_ns / 1e3:g} us"


def plot(rows: List[Dict[str, Any]], path: Path, provenance: Optional[Dict[str, Any]] = None) -> Path:
    """One heatmap per aggressor size: burst size up (persistent at the bottom), gap across."""
    sizes = list(dict.fromkeys(r["aggressor_bytes"] for r in rows))
    bursts = sorted({r["burst_messages"] for r in rows if r["burst_messages"]}) + [0]
    gaps = sorted({r["burst_gap_ns"] for r in rows if r["burst_gap_ns"] is not None})
    fig, axes = plt.subplots(1, len(sizes), figsize=(2.2 + 0.95 * len(gaps) * len(sizes), 1.9 + 0.45 * len(bursts)),
                             squeeze=False, sharey=True, layout="constrained")
    axes = list(axes[0])
    top = max([r["impact"] or 1.0 for r in rows] + [1.25])
    for ax, nbytes in zip(axes, sizes):
        grid = [[math.nan] * len(gaps) for _ in bursts]
        for r in rows:
            if r["aggressor_bytes"] != nbytes or r["impact"] is None:
                continue
            columns = range(len(gaps)) if r["burst_gap_ns"] is None else [gaps.index(r["burst_gap_ns"])]
            for j in columns:
                grid[bursts.index(r["burst_messages"])][j] = r["impact"]
        image = ax.imshow(grid, cmap="Reds", vmin=1.0, vmax=top, aspect="auto")
        for i, line in enumerate(grid):
            for j, v in enumerate(line):
                if v == v:
                    ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(len(gaps)), [_gap_label(g) for g in gaps], fontsize=7)
        if ax is axes[0]:  # the y axis is shared: later panels show no labels of their own
            ax.set_yticks(range(len(bursts)), [f"{b:,}" if b else "persistent" for b in bursts], fontsize=7)
        ax.set_title(f"incast {_size_label(nbytes)}", fontsize=9)
    axes[0].set_ylabel("messages per burst")
    fig.supxlabel("gap between bursts (persistent: no gaps, same value in every column)", fontsize=9)
    fig.colorbar(image, ax=list(axes), label="congestion impact")
    return save_figure(fig, path, provenance)
