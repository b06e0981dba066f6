"""The claims: what the papers say about each figure, and how to read ours from the recipe's outcome.

:data:`CLAIMS` is the validation table, one :class:`Claim` per row in the table's order. Each claim
names its recipe, states the paper's number and ordering as text, and reads ours with the readers of
``readers.py``. To validate a new figure, add its claims here and, for each difference the
measurements explain, its cause in ``causes.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

from .readers import (
    Outcome,
    _all_true,
    _all_values,
    _at_most_pairs,
    _compare,
    _fitfly_lowest_at_top_background,
    _fitfly_time_at_top_background,
    _ge,
    _get,
    _le,
    _lt,
    _max_of,
    _reasons,
    _share_growth,
    _slimfly_beats_dragonflies_and_fewer_hops,
    _tc1_share_and_alone,
    check,
)


@dataclass(frozen=True)
class Claim:
    """One statement of a paper about one figure, and how to read ours from the recipe's outcome.

    ``paper`` is the paper's statement as text, ``paper_value`` its number (None when the paper gives
    only a shape); ``ours`` reads our number (None when the recipe did not report it); ``ordering``
    states the shape or ordering the paper finds and ``holds`` reads whether ours has it. ``undecided``
    reads why the recipe's measurement cannot decide the ordering (its intervals overlap), for a claim
    whose recipe reports that; a row whose ``holds`` is None with such a reason is undecided, not unread.
    """

    experiment: str
    figure: str
    quantity: str
    paper: str
    paper_value: Optional[float]
    ours: Callable[[Outcome], Optional[float]]
    ordering: str
    holds: Callable[[Outcome], Optional[bool]]
    undecided: Optional[Callable[[Outcome], Optional[str]]] = None


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
          "Aries, worst incast impact with the aggressor on the most nodes over the fewest (53/459 over 460/52; "
          "quick: 19/77 over 86/10 of 96 nodes)",
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
    Claim("bursty-incast", "[DeSensi20] Fig. 12",
          "medium messages, worst impact with bursts of 100 or more and gaps of 10 us or less",
          "the highest impact for large bursts and small gaps (values in the figure only)", None,
          check("medium_corner_max_impact"),
          "the medium sizes' worst impact lies at large bursts and small gaps (within 0.01)",
          check("medium_peak_at_large_bursts_small_gaps")),
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
          "than for the largest (each decided by the ratios' 95% intervals)",
          _all_true(check("heavy_time_qcd_above_latency_qcd"), check("heavy_gap_larger_for_small_than_large")),
          undecided=_reasons("heavy_undecided")),
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


def experiments_of(claims: Sequence[Claim] = CLAIMS) -> List[str]:
    """The recipes the claims need, in order, once each."""
    return list(dict.fromkeys(c.experiment for c in claims))
