"""``slingsim validate``: every recipe run and set beside the papers' numbers, in one table.

A :class:`Claim` is one thing a paper says about one of its figures: a number (the mean switch
latency is 350 ns) and an ordering or shape (Slingshot suffers less than Aries, two NICs carry twice
what one carries). Each claim reads its recipe's outcome: the rows and the checks the recipe stored
with its table, the same figures ``slingsim experiment NAME --json`` prints. A row of the report
says what the paper gives, what we measure, whether the ordering holds and whether the magnitude is
within 2x of the paper's (only where the paper states a number), and whether the recipe verified that
the parts of the network the figure is about were shared (``shares_checked``) or, for one-node or
one-link figures, that the set-up was what the figure needs (the recipe's ``*_checked`` keys).

The recipes run one after another, each through the same Dask path as a sweep, on one client opened
for the whole validation; a recipe that fails is reported as such and the others still run.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from .cluster import SchedulerLike
from .store import CacheLike

ALONE_FRACTION = 0.93
"""[DeSensi20] Fig. 14: a job alone takes the whole bottleneck; ours counts if it moves at least this fraction of
what the two jobs move together (the bound ``tests/python/test_traffic_classes.py`` holds the recipe to)."""

MAGNITUDE_FACTOR = 2.0
"""Ours counts as within the paper's magnitude if the ratio of the two is at most this either way."""


@dataclass
class Outcome:
    """What one recipe produced: its rows and its checks (empty if it failed: ``error`` says why)."""

    rows: List[Dict[str, Any]]
    checks: Dict[str, Any]
    seconds: float = 0.0
    error: Optional[str] = None


@dataclass(frozen=True)
class Claim:
    """One statement of a paper about one figure, and how to read ours from the recipe's outcome.

    ``paper`` is the paper's statement as text, ``paper_value`` its number (None when the paper gives
    only a shape); ``ours`` reads our number (None when the recipe did not report it); ``ordering``
    states the shape or ordering the paper finds and ``holds`` reads whether ours has it.
    """

    experiment: str
    figure: str
    quantity: str
    paper: str
    paper_value: Optional[float]
    ours: Callable[[Outcome], Optional[float]]
    ordering: str
    holds: Callable[[Outcome], Optional[bool]]


def _get(data: Any, *path: Any) -> Any:
    """``data[path[0]][path[1]]...``, or None where a step is missing."""
    for step in path:
        if isinstance(data, dict) and step in data:
            data = data[step]
        elif isinstance(data, list) and isinstance(step, int) and -len(data) <= step < len(data):
            data = data[step]
        else:
            return None
    return data


def _share_growth(o: "Outcome") -> Optional[float]:
    """Aries' largest incast impact at the largest aggressor share over the one at the smallest (None with
    one split or an unknown maximum)."""
    by = _get(o.checks, "aries_incast_max_by_share")
    if not isinstance(by, list) or len(by) < 2 or any(not b.get("max_impact") for b in (by[0], by[-1])):
        return None
    return by[-1]["max_impact"] / by[0]["max_impact"]


def check(*path: Any) -> Callable[[Outcome], Any]:
    """A reader of ``checks[path...]``."""
    return lambda o: _get(o.checks, *path)


def _max_of(values: Iterable[Any]) -> Optional[float]:
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return max(numbers) if numbers else None


def _all_true(*readers: Callable[[Outcome], Any]) -> Callable[[Outcome], Optional[bool]]:
    """True if every reader gives True, False if any gives False, None if any is missing."""
    def read(o: Outcome) -> Optional[bool]:
        values = [r(o) for r in readers]
        if any(v is None for v in values):
            return None
        return all(bool(v) for v in values)
    return read


def _all_values(*path: Any) -> Callable[[Outcome], Optional[bool]]:
    """True if ``checks[path...]`` is a non-empty dict (or nested dicts) whose every leaf is True."""
    def leaves(v: Any) -> List[Any]:
        return [x for w in v.values() for x in leaves(w)] if isinstance(v, dict) else [v]

    def read(o: Outcome) -> Optional[bool]:
        v = _get(o.checks, *path)
        if not isinstance(v, dict) or not v:
            return None
        return all(x is True for x in leaves(v))
    return read


def _compare(a: Callable[[Outcome], Any], op: Callable[[float, float], bool],
             b: Union[float, Callable[[Outcome], Any]]) -> Callable[[Outcome], Optional[bool]]:
    def read(o: Outcome) -> Optional[bool]:
        x, y = a(o), b(o) if callable(b) else b
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            return None
        return bool(op(x, y))
    return read


def _lt(a: Callable[[Outcome], Any], b: Union[float, Callable[[Outcome], Any]]) -> Callable[[Outcome], Optional[bool]]:
    return _compare(a, lambda x, y: x < y, b)


def _le(a: Callable[[Outcome], Any], b: Union[float, Callable[[Outcome], Any]]) -> Callable[[Outcome], Optional[bool]]:
    return _compare(a, lambda x, y: x <= y, b)


def _ge(a: Callable[[Outcome], Any], b: Union[float, Callable[[Outcome], Any]]) -> Callable[[Outcome], Optional[bool]]:
    return _compare(a, lambda x, y: x >= y, b)


def _at_most_pairs(by_ppn: Optional[Dict[str, Any]]) -> Optional[float]:
    """The value of the largest pair count of a ``{ppn: value}`` map (keys are numbers as strings)."""
    if not by_ppn:
        return None
    return by_ppn[max(by_ppn, key=int)]


def _tc1_share_and_alone(o: Outcome) -> Optional[bool]:
    """Fig. 14: TC1 within 3 points of 80% while both jobs run, and each job that ran alone for a measurable
    time took at least ``ALONE_FRACTION`` of what the two move together; the first job, which runs alone
    before the second starts, must have been measured in every case."""
    tc1, alone = _get(o.checks, "tc1_share"), _get(o.checks, "alone_fraction")
    if tc1 is None or not alone:
        return None
    if any(not isinstance(case.get("job1"), (int, float)) for case in alone.values()):
        return None
    measured = [v for case in alone.values() for v in case.values() if isinstance(v, (int, float))]
    return abs(tc1 - 0.80) <= 0.03 and all(v >= ALONE_FRACTION for v in measured)


TABLE_2_NETWORKS = frozenset({"slimfly", "fitfly", "dragonfly", "megafly"})


def _times_at_top_background(o: Outcome) -> Optional[Dict[str, Dict[str, float]]]:
    """Per workload, each Table 2 network's maximum communication time at the highest background (a capped
    run as infinity: slower than any finished one); None unless every network has a row for every workload."""
    rows = [r for r in o.rows if r.get("comparison") == "table-2"]
    if not rows:
        return None
    top = max(r["background"] for r in rows)
    times: Dict[str, Dict[str, float]] = {}
    for r in rows:
        if r["background"] == top:
            t = r["max_comm_time_ns"]
            times.setdefault(r["workload"], {})[r["network"]] = math.inf if t is None else t
    return times if all(TABLE_2_NETWORKS <= set(t) for t in times.values()) else None


def _fitfly_lowest_at_top_background(o: Outcome) -> Optional[bool]:
    """At the highest background, Fit Fly (EDR) has the lowest maximum communication time for both workloads
    among the four Table 2 networks."""
    times = _times_at_top_background(o)
    return None if times is None else all(t["fitfly"] <= min(t.values()) for t in times.values())


def _slimfly_beats_dragonflies_and_fewer_hops(o: Outcome) -> Optional[bool]:
    """[McGlohon19] Sec. 6-7: at the highest background Slim Fly's maximum communication time is below
    Dragonfly's and Megafly's for both workloads, and Slim Fly and Fit Fly take fewer hops on average over
    their points than Dragonfly and Megafly."""
    times = _times_at_top_background(o)
    if times is None:
        return None
    if not all(t["slimfly"] < min(t["dragonfly"], t["megafly"]) for t in times.values()):
        return False
    hops = {n: [r["mean_hops"] for r in o.rows if r.get("comparison") == "table-2" and r["network"] == n
                and r.get("mean_hops") is not None] for n in TABLE_2_NETWORKS}
    if any(not v for v in hops.values()):
        return None
    mean = {n: sum(v) / len(v) for n, v in hops.items()}
    return max(mean["slimfly"], mean["fitfly"]) < min(mean["dragonfly"], mean["megafly"])


def _fitfly_time_at_top_background(o: Outcome) -> Optional[float]:
    rows = [r for r in o.rows if r.get("network") == "fitfly" and r.get("comparison") == "table-2"
            and r.get("workload") == "amg"]
    if not rows:
        return None
    top = max(rows, key=lambda r: r["background"])
    t = top.get("max_comm_time_ns")
    return None if t is None else t / 1e6


CLAIMS: Sequence[Claim] = (
    Claim("switch-latency", "[DeSensi20] Fig. 2", "mean switch latency (ns)", "350 ns mean and median", 350.0,
          check("mean_ns"), "every sample between 300 and 400 ns",
          _all_true(_ge(check("min_ns"), 300.0), _le(check("max_ns"), 400.0))),
    Claim("node-distance", "[DeSensi20] Fig. 4", "8 B RTT/2 on one switch (ns)",
          "1.5-1.8 us quiet MPI latency ([Roweth] Sec. II-F)", 1650.0, check("one_switch_rtt2_ns"),
          "distance matters for small messages (at most 40% spread at 8 B), not large (under 10% from 16 KiB)",
          _all_true(_le(check("spread_8B"), 0.40), _lt(check("max_spread_from_16KiB"), 0.10))),
    Claim("software-layers", "[DeSensi20] Fig. 5", "MPI over libfabric at 8 B (fraction)",
          "MPI adds only a marginal overhead to libfabric", None, check("mpi_over_libfabric_8B"),
          "verbs <= libfabric <= MPI, MPI within 25% of libfabric",
          _all_true(_le(check("rtt2_8B_ns", "verbs"), check("rtt2_8B_ns", "libfabric")),
                    _le(check("rtt2_8B_ns", "libfabric"), check("rtt2_8B_ns", "mpi")),
                    _le(check("mpi_over_libfabric_8B"), 0.25))),
    Claim("bisection-alltoall", "[DeSensi20] Fig. 6", "MPI_Alltoall, fraction of 12.8 TB/s at the largest size",
          "more than 90% of the peak", 0.90, check("alltoall_peak_fraction"),
          "bandwidth drops above 256 B (Bruck to another algorithm); no packet lost",
          _all_true(check("drop_above_256B"), _compare(check("bytes_lost"), lambda x, y: x == y, 0))),
    Claim("bisection-alltoall", "[DeSensi20] Fig. 6", "bisection, fraction of 6.4 TB/s at the largest size",
          "near the 6.4 TB/s peak (value not in the text)", None, check("bisection_peak_fraction"),
          "the alltoall moves more than the bisection test (up to twice: half its traffic stays in its half)",
          _lt(check("bisection_tbytes_per_s"), check("alltoall_tbytes_per_s"))),
    Claim("alltoall-scaling", "[Roweth] Fig. 3", "MPI_Alltoall, fraction of the peak on the most nodes (full: 1024)",
          "11.4 TB/s on 1024 nodes, 0.89 of the 12.8 TB/s peak", 0.89, check("alltoall_peak_fraction"),
          "bandwidth rises with the node count; no packet dropped",
          _all_true(check("rises_with_nodes"), _compare(check("bytes_lost"), lambda x, y: x == y, 0))),
    Claim("alltoall-scaling", "[Roweth] Fig. 3",
          "the most MPICH's rounds allow on the most nodes with our rank order, fraction of the peak",
          "0.89 measured, so the paper's rank order allowed at least that", None,
          check("alltoall_schedule_bound_fraction"),
          "our rank order allows the paper's 0.89 (MPICH's rounds, ranks in node order: docs/experiments.md)",
          _ge(check("alltoall_schedule_bound_fraction"), 0.89)),
    Claim("alltoall-scaling", "[Roweth] Fig. 3",
          "MPI_Alltoall with the ranks spread over the groups, fraction of the peak on the most nodes",
          "11.4 TB/s, 0.89 of the peak (in a rank order the paper does not give)", 0.89,
          check("spread_alltoall_peak_fraction"),
          "spreading the ranks over the groups moves more than node order, as the rounds' bound says",
          _lt(check("alltoall_peak_fraction"), check("spread_alltoall_peak_fraction"))),
    Claim("nic-bandwidth", "[Roweth] Fig. 5", "two NICs over one at the largest size",
          "two NICs carry about twice what one carries (values not in the text)", 2.0, check("two_over_one"),
          "two NICs at least 1.8x one", check("two_nics_double")),
    Claim("packet-latency-background", "[Roweth] Sec. II-F", "RFC 2544 64 B frame rate (M frames/s)",
          "297.6 M frames/s (line rate)", 297.619047,
          lambda o: None if _get(o.checks, "rfc2544_frames_per_s") is None else o.checks["rfc2544_frames_per_s"] / 1e6,
          "line rate", check("rfc2544_line_rate")),
    Claim("packet-latency-background", "[Roweth] Sec. II-F", "port-to-port latency (ns)", "308-327 ns", 317.5,
          check("port_to_port_ns"), "between 250 and 400 ns",
          _all_true(_ge(check("port_to_port_ns"), 250.0), _le(check("port_to_port_ns"), 400.0))),
    Claim("packet-latency-background", "[Roweth] Fig. 2", "trace p99 beside an incast, congestion management on (x alone)",
          "trace packets keep their latency beside congesting traffic (values not in the text)", 1.0,
          check("trace_impact", "slingshot", "p99"),
          "congestion management keeps the p99 within 1.2x; back-pressure alone does not",
          _all_true(check("congestion_management_keeps_latency"),
                    _lt(check("trace_impact", "slingshot", "p99"), check("trace_impact", "none", "p99")))),
    Claim("rma-bandwidth", "[Roweth] Fig. 6", "half-peak put size, 16 or more PEs (B)", "near 128 B", 128.0,
          check("half_peak_bytes_16_or_more_pes"), "more PEs, more small-transfer bandwidth",
          check("more_pes_more_small_transfer_bandwidth")),
    Claim("mpi-latency", "[Roweth] Fig. 7", "latency step above 96 B (ns)",
          "flat to 96 B, a DMA read more above (values not in the text)", None, check("step_at_96B_ns"),
          "flat to 96 B and the step is the DMA read", _all_true(check("flat_to_96B_ok"), check("step_is_dma_read"))),
    Claim("matching-rate", "[Roweth] Fig. 8", "rate at 64 attempts over 0, NIC matching, most pairs",
          "no loss of message rate up to 64 match attempts per message", 1.0,
          lambda o: _at_most_pairs(_get(o.checks, "rate_at_64_over_0", "nic")),
          "flat to 64 attempts", check("rate_flat_to_64")),
    Claim("message-rate", "[Roweth] Fig. 9", "pair-based over best-case peak rate",
          "the pair-based test reaches the best-case rate (values not in the text)", 1.0,
          check("pair_based_over_best_case"), "pair-based reaches the best case", check("pair_based_reaches_best_case")),
    Claim("tailbench", "[DeSensi20] Fig. 8", "Slingshot, worst mean impact over the services",
          "no relevant effect on Slingshot", 1.0,
          lambda o: _max_of((_get(v, "mean") for v in (_get(o.checks, "slingshot_impact") or {}).values())),
          "Aries suffers more than Slingshot for every service",
          lambda o: None if not _get(o.checks, "aries_impact") or not _get(o.checks, "slingshot_impact") else all(
              _get(o.checks, "aries_impact", s, "mean") >= _get(o.checks, "slingshot_impact", s, "mean")
              for s in o.checks["slingshot_impact"])),
    Claim("tailbench", "[DeSensi20] Fig. 8", "Aries, Sphinx's mean impact",
          "less than the other services' (values not in the text)", None,
          check("aries_impact", "Sphinx", "mean"), "on Aries Sphinx, the most compute-bound, suffers least",
          check("aries_sphinx_suffers_least")),
    Claim("congestion-heatmap", "[DeSensi20] Fig. 9", "Slingshot, worst congestion impact", "1.3x", 1.3,
          check("slingshot_max_impact"), "Slingshot at most 2x everywhere",
          _le(check("slingshot_max_impact"), 2.0)),
    Claim("congestion-heatmap", "[DeSensi20] Fig. 9", "Aries, worst congestion impact", "93x", 93.0,
          check("aries_max_impact"), "on Aries incast hurts more than all-to-all, and small-message victims most",
          _all_true(check("incast_hurts_more_than_alltoall"), check("small_message_victims_hurt_most"))),
    Claim("congestion-heatmap", "[DeSensi20] Fig. 9",
          "Aries, worst incast impact with the aggressor on the most nodes over the fewest (full mode: 53/459 over "
          "460/52; quick runs one split)",
          "grows with the aggressor's share (LAMMPS 17x at 50/50; values in the figure only)", None,
          _share_growth, "the impact grows with the aggressor's share at every split",
          check("impact_grows_with_aggressor_share")),
    Claim("congestion-distribution", "[DeSensi20] Fig. 10 (A)", "Aries, worst impact with linear placement",
          "never above 100 (interleaved and random up to 150)", 100.0, check("aries_max_impact", "linear"),
          "interleaved and random at least as bad as linear on Aries",
          _all_true(_ge(check("aries_max_impact", "interleaved"), check("aries_max_impact", "linear")),
                    _ge(check("aries_max_impact", "random"), check("aries_max_impact", "linear")))),
    Claim("congestion-distribution", "[DeSensi20] Fig. 10 (B)",
          "Aries, worst impact with 24 aggressor processes per node over 1, random placement",
          "higher with 24 processes per node, most of all with random placement (values in the figure only)", None,
          lambda o: (None if not isinstance(_get(o.checks, "aries_max_impact_by_ppn", "random"), (int, float))
                     or not _get(o.checks, "aries_max_impact", "random")
                     else o.checks["aries_max_impact_by_ppn"]["random"] / o.checks["aries_max_impact"]["random"]),
          "24 aggressor processes per node at least as bad as 1 on Aries, for every placement",
          _all_true(*(_ge(check("aries_max_impact_by_ppn", p), check("aries_max_impact", p))
                      for p in ("linear", "interleaved", "random")))),
    Claim("congestion-distribution", "[DeSensi20] Fig. 10", "Slingshot, worst impact over the cases",
          "2.3 (below 2 in all but one case)", 2.3,
          lambda o: _max_of((_get(o.checks, "slingshot_max_impact") or {}).values()),
          "Slingshot below 3x in every case",
          lambda o: None if not _get(o.checks, "slingshot_max_impact") else
          all(v < 3.0 for v in o.checks["slingshot_max_impact"].values() if isinstance(v, (int, float)))),
    Claim("shandy-applications", "[DeSensi20] Fig. 11", "worst application impact on 1024 nodes",
          "3.55x (LAMMPS beside an incast on 75%)", 3.55, check("max_impact"),
          "congestion control protects the applications (at most 4x)", _le(check("max_impact"), 4.0)),
    Claim("bursty-incast", "[DeSensi20] Fig. 12", "worst impact of a bursty incast", "1.21x, medium messages",
          1.21, check("max_impact"),
          "medium messages hurt more than the smallest and the largest (by more than 0.01, the figure's two decimals)",
          check("medium_hurts_most")),
    Claim("bursty-incast", "[DeSensi20] Fig. 12", "bursts of 10^6 messages, largest impact difference from persistent",
          "no difference between bursts of 10^6 messages and persistent congestion", None,
          lambda o: _max_of(v for v in (_get(o.checks, "longest_burst_minus_persistent") or {}).values()
                            if isinstance(v, (int, float))),
          "bursts of 10^6 messages within 0.01 of persistent, each outlasting the victim",
          _all_true(check("longest_burst_equals_persistent"), check("longest_burst_outlasted_victim"))),
    Claim("traffic-classes-latency", "[DeSensi20] Fig. 13", "allreduce in the alltoall's class (x alone)", "2.85x",
          2.85, check("same_class_impact"), "its own class hurts less than the shared one",
          _lt(check("own_class_impact"), check("same_class_impact"))),
    Claim("traffic-classes-latency", "[DeSensi20] Fig. 13", "allreduce in its own class (x alone)", "1.15x", 1.15,
          check("own_class_impact"), "its own class within 1.5x of alone", _le(check("own_class_impact"), 1.5)),
    Claim("traffic-classes-bandwidth", "[DeSensi20] Fig. 14", "TC1's share while both run (min 80%)", "80%", 0.80,
          check("tc1_share"),
          "TC1/TC2 split 80/20 within 3 points while both run, and a job alone takes the bottleneck (at least "
          "0.93 of what the two move together)",
          _tc1_share_and_alone),
    Claim("traffic-classes-bandwidth", "[DeSensi20] Fig. 14", "first job's share, one class", "50%", 0.50,
          check("one_class_share"), "one class splits within 5 points of 50/50",
          lambda o: None if _get(o.checks, "one_class_share") is None else abs(o.checks["one_class_share"] - 0.5) <= 0.05),
    Claim("app-aware-routing", "[DeSensi19] Sec. 5", "app-aware's worst time over the better static mode",
          "within a few percent of the better mode on every test", 1.0, check("app_aware_worst_ratio"),
          "app-aware within 10% of the better static mode everywhere", check("app_aware_within_10_percent")),
    Claim("aries-pingpong-routing", "[DeSensi19] Fig. 7", "Eq. 2 error, worst (fraction)",
          "Eq. 2 follows the measured times", None,
          lambda o: _max_of(abs(_get(o.checks, c, m, "model_error") or 0.0)
                            for c in ("inter_group", "intra_group") for m in ("adaptive", "high_bias")),
          "high bias faster across groups, adaptive faster inside one",
          _all_true(check("inter_high_bias_faster"), check("intra_adaptive_faster"))),
    Claim("aries-allocation-noise", "[DeSensi19] Fig. 3", "inter-group worst round trip over the median",
          "outliers up to three orders of magnitude", 1000.0, check("inter_groups_max_over_median"),
          "median and spread grow with the distance", _all_true(check("median_grows_with_distance"),
                                                               check("iqr_grows_with_distance"))),
    Claim("aries-time-vs-latency", "[DeSensi19] Fig. 5", "QCD of time over QCD of packet latency, smallest size, "
          "10% host noise", "time varies more than latency, most for small messages", None,
          check("heavy_smallest_time_over_latency_qcd"),
          "with host noise, time's QCD above latency's at every size, the gap larger for the smallest size "
          "than for the largest", _all_true(check("heavy_time_qcd_above_latency_qcd"),
                                            check("heavy_gap_larger_for_small_than_large"))),
    Claim("aries-node-alltoall", "[DeSensi19] Fig. 4", "QCD of the alltoall's time on one node, smallest size, "
          "10% host noise", "the time varies a great deal though the network is not used (values in the figure "
          "only)", None, check("heavy_smallest_qcd"),
          "no packet enters the network, and the time varies at every size with host noise and only with it",
          _all_true(check("heavy_time_varies_at_every_size"), check("quiet_time_constant"))),
    Claim("aries-model-check", "[DeSensi19] Sec. 2.4", "Eq. 2 against the time, mean correlation over sizes",
          "79% over 40 allocations", 0.79, check("mean_correlation"),
          "Eq. 2 follows the time (mean correlation at least 0.5)", _ge(check("mean_correlation"), 0.5)),
    Claim("aries-routing-study", "[DeSensi19] Figs. 8-9", "app-aware's worst time over the better static mode",
          "mostly follows the better one", None, check("app_aware_worst_ratio"),
          "high bias wins small tests, DEFAULT large alltoall and halo3d",
          _all_true(_all_values("high_bias_wins_small"), _all_values("default_wins_large"))),
    Claim("aries-applications", "[DeSensi19] Fig. 10", "FFT on 256 nodes: high bias over DEFAULT (median)",
          "high bias better on 256 nodes, DEFAULT on 64", None, check("cases", "FFT 256 nodes", "high_bias_over_default"),
          "FFT's better mode flips from high bias (256 nodes) to DEFAULT (64 nodes)", check("fft_best_mode_flips")),
    Claim("aries-idle-counters", "[DeSensi19] Table 1", "incoming flits, twice the wait over once",
          "2.3x (110M to 255M flits, 1 s to 2 s)", 255.0 / 110.0, check("flits_ratio"),
          "an idle job's router counters grow with the time, their rates do not",
          _all_true(check("counters_grow_with_time"), check("rates_unchanged"), check("job_sent_nothing"))),
    Claim("fitfly-rails", "[McGlohon19] Fig. 3", "Fit Fly saturation with 8 rails over 2", "4x (rails add bandwidth)",
          4.0, check("fitfly_8_over_2"), "accepted load grows with the rails", check("accepted_grows_with_rails")),
    Claim("fitfly-networks", "[McGlohon19] Table 3", "AMG on Fit Fly at the highest background (ms)",
          "1.4 ms at 72.5%", 1.4, _fitfly_time_at_top_background,
          "Fit Fly lowest maximum communication time at the highest background, Slim Fly below Dragonfly and "
          "Megafly there; Slim Fly and Fit Fly take fewer hops",
          _all_true(_fitfly_lowest_at_top_background, _slimfly_beats_dragonflies_and_fewer_hops)),
)
"""Every claim ``slingsim validate`` checks, in the order of its table."""

KNOWN_CAUSES: Dict[Tuple[str, str], str] = {
    ("node-distance", "8 B RTT/2 on one switch (ns)"):
        "each extra switch adds a 350 ns hop to a 1.77 us host time: 8 B spread 41% against at most 40% (45% with "
        "20 m global cables, a length the papers do not give); 16 KiB keeps 11.5% because the same 0.73 us of path "
        "is over a one-switch time of 6.4 us, 3.3 us of it copies at the assumed 10 GB/s: copies at 7 GB/s give "
        "9.4%, and the papers do not give the hosts' copy rate",
    ("bisection-alltoall", "MPI_Alltoall, fraction of 12.8 TB/s at the largest size"):
        "MPICH's rounds of 32 peers with the ranks in node order allow at most 0.61 of the peak on any network if "
        "the ranks go through them together (the alltoall-scaling row on what the rank order allows); how Shandy "
        "numbered its ranks is not in the papers",
    ("bisection-alltoall", "bisection, fraction of 6.4 TB/s at the largest size"):
        "the alltoall falls short for its rank order (row above), not the bisection: full mode's bisection reaches "
        "0.917 of 6.4 TB/s with 16 processes per node",
    ("alltoall-scaling", "MPI_Alltoall, fraction of the peak on the most nodes (full: 1024)"):
        "MPICH's rounds of 32 peers with the ranks in node order allow at most 0.61 of the peak on any network "
        "if the ranks go through them together (next row); ours reaches about 0.57 of that bound, and 0.61 of the peak with every peer posted at once "
        "(mpi.alltoall_throttle = 0); the recipe's variants measure the rest (the row on spread ranks)",
    ("alltoall-scaling", "MPI_Alltoall with the ranks spread over the groups, fraction of the peak on the most nodes"):
        "rendezvous above 16 KiB: a message's data waits for its receiver to post the receive, so each block of 32 "
        "peers waits for its receivers' progress too (on 1024 nodes a message spends 28 us in its handshake, 14 of "
        "them waiting for the receiver, before 39 us of data); on bare verbs (no rendezvous) the same ranks reach 0.84 in "
        "full mode (0.79 without congestion management), and without the host's CPU costs MPI still gives 0.56 "
        "(no rank's CPU is busy with MPI for more than 12% of the run); with every peer posted at once "
        "(mpi.alltoall_throttle = 0) 0.72; with 4 processes per node at 8 KiB per rank pair (eager) 0.73, the busiest "
        "CPU then working 61% of the run (8 per node at 4 KiB: 0.69, where blocks of 32 peers span 4 nodes and allow "
        "0.77); where_time_goes in the recipe's --json",
    ("alltoall-scaling", "the most MPICH's rounds allow on the most nodes with our rank order, fraction of the peak"):
        "in node order each round of 32 peers sends a group's bytes to one or two other groups, and bytes beyond a "
        "group pair's 8 direct links cross two global links; the bound takes the rounds as not overlapping, and "
        "our ranks finish a block 1.6 blocks apart on average (the job's collective_rounds), so it reads the "
        "schedule rather than limits the run; the paper's 0.89 suggests its ranks were spread over the groups or "
        "its MPI posted more than 32 peers at once (all at once, the bound is 1.0 in node order too); the papers "
        "give neither",
    ("congestion-heatmap", "Aries, worst congestion impact"):
        "how Aries arbitrates and when its NIC releases its 1,024 outstanding packets are not published; none of "
        "the six pairs of those choices gives both this ordering and Fig. 10's (docs/model.md, \"The two unpublished "
        "Aries choices together\"); the worst case moves most with the assumed tile buffer (full mode: 381x)",
    ("congestion-distribution", "Aries, worst impact with linear placement"):
        "the paper's 100 is a bound on linear placement's worst case, and ours lies below it",
    ("congestion-distribution", "Aries, worst impact with 24 aggressor processes per node over 1, random placement"):
        "with the preset's release rule a node's 24 processes share one block of 1,024 packets and press no harder "
        "than one; the rules that let them press harder make them 3-40 times worse, beyond the paper's Aries "
        "maximum (docs/model.md, \"The two unpublished Aries choices together\")",
    ("congestion-distribution", "Slingshot, worst impact over the cases"):
        "quick mode runs 96 nodes and three victims, where the paper's 2.3x is one case of its full study; the "
        "switches hold every incast pair to its share from its first packet",
    ("shandy-applications", "worst application impact on 1024 nodes"):
        "the switches hold the 767 incast flows per rail into one port to their shares, so in full mode the "
        "incast leaves the applications at most 1.004x once its onset has drained (the worst is beside the "
        "all-to-all); what left LAMMPS 3.55x slower on Shandy is not known",
    ("bursty-incast", "worst impact of a bursty incast"):
        "every pair the incast's onset throttles stays throttled, so no later message meets congestion before "
        "congestion control; forgetting a pair once it has nothing in flight gives the shape but 1.7-14x for "
        "4-16 KiB, as only the ingress switch reacts (docs/model.md, \"Why [DeSensi20] Fig. 12's medium-message bump "
        "is absent\")",
    ("aries-allocation-noise", "inter-group worst round trip over the median"):
        "two chassis have two minimal paths of 42 Gb/s row links where two blades of a chassis have one, which "
        "outweighs a hop for a 16 KiB message; why the spread inside a group no longer grows with the distance "
        "since the 2026-11-29 re-cabling is not established; no 1000x outliers: the background offers about 1% "
        "of the nodes' bandwidth and the run has no OS noise",
    ("aries-time-vs-latency", "QCD of time over QCD of packet latency, smallest size, 10% host noise"):
        "chance: a QCD moves only when more than a quarter of the round trips are delayed, and an 8 B round trip "
        "is hit by the assumed detours about that often, so its ratio falls either side from one draw to the next "
        "(quick 0.61 and full 0.94 since the 2026-11-29 re-cabling, 7.31 and 1.22 before it; 0.66 or 3.15 with a 1 MiB "
        "pair added to the run)",
    ("aries-routing-study", "app-aware's worst time over the better static mode"):
        "on Daint's 1024 ranks Bruck's 8 B alltoall is a heavy exchange, which DEFAULT wins; app-aware misses "
        "Daint's 512 B alltoall (1.26x), whose messages below its 4 KiB threshold go with high bias undecided, "
        "as the paper's rule has it, and Daint's 16 KiB halo3d (1.15x), a median of 3 iterations: with 9, 1.086x",
    ("aries-applications", "FFT on 256 nodes: high bias over DEFAULT (median)"):
        "not established; ruled out: the message size (scaled as a pencil transpose's, high bias comes level with "
        "DEFAULT on 256 nodes but never ahead) and the allocation's shape; a second minimal candidate over any of a "
        "group pair's links (routing.minimal_paths = \"one-global-hop\") brings it to 1.09 but turns Fig. 7's "
        "across-group ordering the other way",
    ("fitfly-networks", "AMG on Fit Fly at the highest background (ms)"):
        "part of Fit Fly's gap is the idle baseline, which pays the host stack per message, the rest is not "
        "established; at 72.5% Slim Fly, Dragonfly and Megafly are saturated (they accept 0.51, 0.40 and 0.33 of "
        "the 0.74 offered: hot destinations back-pressure the fabric, as no congestion control runs), so Table 3 "
        "compares saturated fabrics; none of ours reaches CODES' 1 s, so in full mode Megafly edges out Slim Fly "
        "for AMG, and CODES' VC order and lockstep background, tried, do not explain it",
}
"""What the measurements found behind each claim's difference from the paper, keyed by (experiment,
quantity): the report prints it when the claim's ordering fails or its number is outside 2x, and says
"cause not established yet" for a differing claim with no entry. The recipe's section of
docs/experiments.md has the numbers and how they were measured."""


def experiments_of(claims: Sequence[Claim] = CLAIMS) -> List[str]:
    """The recipes the claims need, in order, once each."""
    return list(dict.fromkeys(c.experiment for c in claims))


def within_factor(ours: Optional[float], paper: Optional[float], factor: float = MAGNITUDE_FACTOR) -> Optional[bool]:
    """Whether ``ours`` is within ``factor`` of ``paper`` either way (None if either is missing or not positive)."""
    if ours is None or paper is None or ours <= 0 or paper <= 0:
        return None
    return 1 / factor <= ours / paper <= factor


def shares_status(checks: Dict[str, Any]) -> str:
    """``checked`` if the recipe verified what its figure needs shared or set up, ``FAILED`` if it found it not,
    ``not checked`` if it says nothing."""
    flags = [v for k, v in checks.items() if k.endswith("_checked") and isinstance(v, bool)]
    if not flags:
        return "not checked"
    return "checked" if all(flags) else "FAILED"


def _safe(read: Callable[[Outcome], Any], outcome: Outcome) -> Any:
    try:
        return read(outcome)
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError):
        return None


def claim_row(claim: Claim, outcome: Outcome) -> Dict[str, Any]:
    """One row of the report."""
    ours = None if outcome.error else _safe(claim.ours, outcome)
    if isinstance(ours, bool) or not isinstance(ours, (int, float)):
        ours = None
    holds = None if outcome.error else _safe(claim.holds, outcome)
    return {
        "experiment": claim.experiment,
        "figure": claim.figure,
        "quantity": claim.quantity,
        "paper": claim.paper,
        "paper_value": claim.paper_value,
        "ours": None if ours is None else float(ours),
        "ordering": claim.ordering,
        "ordering_holds": None if holds is None else bool(holds),
        "within_2x": within_factor(ours, claim.paper_value),
        "shares": "recipe failed" if outcome.error else shares_status(outcome.checks),
        "error": outcome.error,
        "recipe_s": round(outcome.seconds, 1),
        "known_cause": KNOWN_CAUSES.get((claim.experiment, claim.quantity)),
    }


def differs(row: Dict[str, Any]) -> bool:
    """Whether a row departs from the paper: its ordering fails or its number is outside 2x."""
    return row["ordering_holds"] is False or row["within_2x"] is False


def differing(rows: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The rows of recipes that ran and depart from the paper."""
    return [r for r in rows if not r["error"] and differs(r)]


def difference_line(row: Dict[str, Any]) -> str:
    """What differs in a departing row and the cause the measurements found, or that none has been found
    yet; the recipe's section of docs/experiments.md has the numbers."""
    what = " and ".join(w for w, bad in (("ordering fails", row["ordering_holds"] is False),
                                          ("outside 2x", row["within_2x"] is False)) if bad)
    cause = row["known_cause"] or "cause not established yet"
    return f"{row['figure']} `{row['experiment']}`, {row['quantity']} ({what}): {cause}"


def difference_lines(rows: Sequence[Dict[str, Any]]) -> List[str]:
    """One line per row that departs from the paper (:func:`difference_line`)."""
    return [difference_line(r) for r in differing(rows)]


def experiments_anchor(experiment: str) -> str:
    """The link to a recipe's section of docs/experiments.md, from docs/validation.md."""
    return f"experiments.md#slingsim-experiment-{experiment}"


def run_recipe(name: str, out_dir: Path, quick: bool, scheduler: Any, workers: Optional[int], progress: bool,
               cache: CacheLike) -> Outcome:
    """Run one recipe into ``out_dir / name``; a failure becomes an outcome with its error."""
    from .experiments.output import table_checks
    from .experiments.registry import recipe

    started = time.perf_counter()
    try:
        table = recipe(name)(out_dir / name, quick, scheduler, workers, progress=progress, cache=cache)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # noqa: BLE001 - one failing recipe must not hide the others' results
        return Outcome([], {}, time.perf_counter() - started, f"{type(exc).__name__}: {exc}")
    return Outcome(table.to_pylist(), table_checks(table), time.perf_counter() - started)


def run_validation(
    out_dir: Union[str, Path] = "out/validate",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
    only: Optional[Sequence[str]] = None,
    on_recipe: Optional[Callable[[str, Outcome], None]] = None,
) -> List[Dict[str, Any]]:
    """Run every recipe the claims need (``only``: these experiments), each into ``out_dir/NAME``; return the
    report's rows (one per claim). ``on_recipe(name, outcome)`` is called as each recipe ends."""
    from .cluster import dask_client

    names = experiments_of()
    if only:
        unknown = [n for n in only if n not in names]
        if unknown:
            raise ValueError(f"--only: no claims for {unknown}; the validated experiments are {names}")
        names = [n for n in names if n in only]
    out = Path(out_dir)
    outcomes: Dict[str, Outcome] = {}

    def run_all(sched: Any) -> None:
        for name in names:
            outcomes[name] = run_recipe(name, out, quick, sched, workers, progress, cache)
            if on_recipe is not None:
                on_recipe(name, outcomes[name])

    if scheduler == "sync":
        run_all("sync")
    else:
        with dask_client(scheduler, workers) as client:
            run_all(client)
    return [claim_row(c, outcomes[c.experiment]) for c in CLAIMS if c.experiment in outcomes]


def _number(x: Optional[float]) -> str:
    if x is None:
        return "-"
    if x == 0 or 0.01 <= abs(x) < 1e5:
        return f"{x:.3g}" if abs(x) < 100 else f"{x:,.0f}"
    return f"{x:.3g}"


def _verdict(x: Optional[bool]) -> str:
    return "-" if x is None else ("yes" if x else "NO")


def table_cells(row: Dict[str, Any]) -> List[str]:
    """A row as the report's cells: figure, quantity, paper, ours, ordering, holds, within 2x, shares."""
    ours = "failed" if row["error"] else _number(row["ours"])
    return [f"{row['figure']} `{row['experiment']}`", row["quantity"], row["paper"], ours, row["ordering"],
            _verdict(row["ordering_holds"]), _verdict(row["within_2x"]), row["shares"]]


HEADERS = ["figure (recipe)", "quantity", "paper", "ours", "paper's ordering", "holds", "within 2x", "set-up"]


def summary_counts(rows: Sequence[Dict[str, Any]]) -> Dict[str, int]:
    """How many claims hold, fail, or could not be read, and how many recipes failed."""
    return {
        "claims": len(rows),
        "ordering_holds": sum(r["ordering_holds"] is True for r in rows),
        "ordering_fails": sum(r["ordering_holds"] is False for r in rows),
        "ordering_unread": sum(r["ordering_holds"] is None for r in rows),
        "within_2x": sum(r["within_2x"] is True for r in rows),
        "outside_2x": sum(r["within_2x"] is False for r in rows),
        "recipes_failed": len({r["experiment"] for r in rows if r["error"]}),
    }


def markdown(rows: Sequence[Dict[str, Any]], quick: bool, command: str, date: str) -> str:
    """The report as ``docs/validation.md``."""
    counts = summary_counts(rows)
    lines = [
        "# Validation against the papers",
        "",
        f"Generated by `{command}` on {date} ({'quick' if quick else 'full'} recipes); regenerate it with the same "
        "command. Each row is one statement of a paper about one figure: the paper's number, ours, whether the "
        "paper's ordering or shape holds in our run, and whether our number is within 2x of the paper's (`-` where "
        "the paper gives only a shape). *Set-up* says whether the recipe verified that its victim and aggressor "
        "share what the figure needs, or that the nodes, NICs and paths are the ones the figure is about "
        "(`not checked`: the recipe does not verify it yet). The list below the table gives the cause of every "
        "difference, and docs/experiments.md, per recipe, the numbers behind it.",
        "",
        f"{counts['ordering_holds']} of {counts['claims']} orderings hold, {counts['ordering_fails']} do not, "
        f"{counts['ordering_unread']} could not be read; {counts['within_2x']} numbers within 2x of the paper's, "
        f"{counts['outside_2x']} outside; {counts['recipes_failed']} recipes failed.",
        "",
        "| " + " | ".join(HEADERS) + " |",
        "|" + "---|" * len(HEADERS),
    ]
    for row in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in table_cells(row)) + " |")
    departing = differing(rows)
    if departing:
        lines += ["", "## Where ours differs, and why", "",
                  "Each row above whose ordering fails or whose number is outside 2x of the paper's, with the cause "
                  "the measurements found (the recipe's section of [experiments.md](experiments.md) has the numbers "
                  "and how they were measured).", ""]
        for r in departing:
            lines.append(f"- {difference_line(r)} ([{r['experiment']}]({experiments_anchor(r['experiment'])}))")
    failed = [r for r in rows if r["error"]]
    if failed:
        lines += ["", "Recipes that failed:", ""]
        for name in dict.fromkeys(r["experiment"] for r in failed):
            error = next(r["error"] for r in failed if r["experiment"] == name)
            lines.append(f"- `{name}`: {error}")
    return "\n".join(lines) + "\n"
