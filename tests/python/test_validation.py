"""``slingsim validate``: claims read the recipes' outcomes, verdicts follow the numbers, every claim names a
recipe that exists, and the Markdown report is the table."""
from __future__ import annotations

import json

import pytest

from slingsim.cli import main
from slingsim.experiments.registry import EXPERIMENTS
from slingsim.validation import (
    CLAIMS,
    FULL_MODE_READS,
    KNOWN_CAUSES,
    Outcome,
    claim_row,
    experiments_of,
    difference_lines,
    markdown,
    shares_status,
    summary_counts,
    within_factor,
)


def claim(experiment, quantity):
    return next(c for c in CLAIMS if c.experiment == experiment and c.quantity == quantity)


def test_every_claim_names_a_recipe():
    assert set(experiments_of()) <= set(EXPERIMENTS)
    assert len(experiments_of()) >= 20


def test_within_factor_both_ways():
    assert within_factor(1.9, 1.0) and within_factor(0.51, 1.0)
    assert within_factor(2.1, 1.0) is False and within_factor(0.49, 1.0) is False
    assert within_factor(None, 1.0) is None and within_factor(1.0, None) is None


def test_switch_latency_claim_reads_the_checks():
    c = claim("switch-latency", "mean switch latency (ns)")
    good = claim_row(c, Outcome([], {"mean_ns": 349.0, "min_ns": 337.0, "max_ns": 360.0, "paths_checked": True}))
    assert good["ours"] == 349.0 and good["ordering_holds"] and good["within_2x"] and good["shares"] == "checked"
    bad = claim_row(c, Outcome([], {"mean_ns": 900.0, "min_ns": 280.0, "max_ns": 1200.0, "paths_checked": False}))
    assert bad["ordering_holds"] is False and bad["within_2x"] is False and bad["shares"] == "FAILED"


def test_missing_keys_read_as_unknown_not_as_a_verdict():
    row = claim_row(claim("congestion-heatmap", "Slingshot, worst congestion impact"), Outcome([], {}))
    assert row["ours"] is None and row["ordering_holds"] is None and row["within_2x"] is None
    assert row["shares"] == "not checked"


def test_a_failed_recipe_is_reported_not_judged():
    row = claim_row(claim("traffic-classes-latency", "allreduce in the alltoall's class (x alone)"),
                    Outcome([], {}, 1.0, "RuntimeError: victim shares nothing"))
    assert row["error"] and row["shares"] == "recipe failed" and row["ordering_holds"] is None
    assert summary_counts([row])["recipes_failed"] == 1


def test_traffic_class_claims():
    o = Outcome([], {"same_class_impact": 2.5, "own_class_impact": 1.1, "shares_checked": True})
    same = claim_row(claim("traffic-classes-latency", "allreduce in the alltoall's class (x alone)"), o)
    assert same["ordering_holds"] and same["within_2x"]
    o = Outcome([], {"same_class_impact": 1.02, "own_class_impact": 1.05, "shares_checked": True})
    assert claim_row(claim("traffic-classes-latency", "allreduce in the alltoall's class (x alone)"),
                     o)["ordering_holds"] is False


def test_bursty_incast_needs_a_medium_lead_and_busier_aggressors_must_hurt_more():
    bursty = claim("bursty-incast", "worst impact of a bursty incast")
    assert claim_row(bursty, Outcome([], {"max_impact": 1.2, "medium_hurts_most": True}))["ordering_holds"]
    assert claim_row(bursty, Outcome([], {"max_impact": 1.0, "medium_hurts_most": False}))["ordering_holds"] is False
    ppn = claim("congestion-distribution",
                "Aries, worst impact with 24 aggressor processes per node over 1, random placement")
    one = {"linear": 30.0, "interleaved": 30.0, "random": 34.2}
    worse = Outcome([], {"aries_max_impact": one, "aries_max_impact_by_ppn": {"linear": 31.0, "interleaved": 36.8,
                                                                              "random": 68.4}})
    row = claim_row(ppn, worse)
    assert row["ordering_holds"] and row["ours"] == pytest.approx(2.0)
    mixed = Outcome([], {"aries_max_impact": one, "aries_max_impact_by_ppn": {"linear": 27.9, "interleaved": 36.8,
                                                                              "random": 30.4}})
    assert claim_row(ppn, mixed)["ordering_holds"] is False


def test_tc1_must_hold_80_20_and_each_job_alone_the_bottleneck():
    c = claim("traffic-classes-bandwidth", "TC1's share while both run (min 80%)")
    alone = {"same class": {"job1": 0.99, "job2": 0.97}, "separate classes": {"job1": 0.98, "job2": 0.96}}
    assert claim_row(c, Outcome([], {"tc1_share": 0.79, "tc2_share": 0.21, "alone_fraction": alone}))["ordering_holds"]
    assert claim_row(c, Outcome([], {"tc1_share": 0.74, "tc2_share": 0.26,
                                     "alone_fraction": alone}))["ordering_holds"] is False
    alone["same class"]["job2"] = None  # job 2 never ran alone for a whole bin: not a verdict against it
    assert claim_row(c, Outcome([], {"tc1_share": 0.79, "tc2_share": 0.21, "alone_fraction": alone}))["ordering_holds"]
    alone["same class"]["job1"] = 0.75
    assert claim_row(c, Outcome([], {"tc1_share": 0.79, "tc2_share": 0.21,
                                     "alone_fraction": alone}))["ordering_holds"] is False


def test_shares_status():
    assert shares_status({"shares_checked": True, "paths_checked": True}) == "checked"
    assert shares_status({"shares_checked": False}) == "FAILED"
    assert shares_status({"mean_ns": 1}) == "not checked"


def test_fitfly_ordering_reads_rows():
    c = claim("fitfly-networks", "AMG on Fit Fly at the highest background (ms)")
    hops = {"fitfly": 2.6, "slimfly": 2.6, "dragonfly": 3.7, "megafly": 5.4}
    rows = [{"network": n, "workload": w, "background": b, "max_comm_time_ns": t, "comparison": "table-2",
             "mean_hops": hops[n]}
            for n, t in (("fitfly", 2e6), ("slimfly", 5e6), ("dragonfly", None), ("megafly", 9e6))
            for w in ("amg", "multigrid") for b in (0.0, 0.725)]
    row = claim_row(c, Outcome(rows, {"shares_checked": True}))
    assert row["ours"] == 2.0 and row["ordering_holds"] is True
    for r in rows:
        if r["network"] == "megafly":
            r["mean_hops"] = 2.5  # Megafly takes the fewest hops: Slim Fly and Fit Fly no longer take fewer
    assert claim_row(c, Outcome(rows, {}))["ordering_holds"] is False
    for r in rows:
        r["mean_hops"] = hops[r["network"]]
        if r["network"] == "megafly" and r["background"] == 0.725:
            r["max_comm_time_ns"] = 4e6  # Megafly ahead of Slim Fly at the highest background
    assert claim_row(c, Outcome(rows, {}))["ordering_holds"] is False
    rows[1]["max_comm_time_ns"] = rows[3]["max_comm_time_ns"] = 99e6  # Fit Fly no longer lowest at 72.5%
    assert claim_row(c, Outcome(rows, {}))["ordering_holds"] is False


def test_markdown_has_one_line_per_claim():
    rows = [claim_row(c, Outcome([], {})) for c in CLAIMS]
    text = markdown(rows, True, "slingsim validate --quick", "2026-11-27")
    assert text.startswith("# Validation against the papers")
    assert sum(1 for line in text.splitlines() if line.startswith("| [")) == len(CLAIMS)


def test_every_known_cause_names_a_claim():
    claims = {(c.experiment, c.quantity) for c in CLAIMS}
    assert set(KNOWN_CAUSES) <= claims
    assert all(len(cause) > 40 for cause in KNOWN_CAUSES.values())


def test_the_report_gives_a_cause_for_every_difference_and_only_for_differences():
    """A row whose ordering fails or whose number is outside 2x is listed with the measured cause, or with
    "cause not established yet" when none is known; a row that agrees with the paper is not listed."""
    latency = claim("switch-latency", "mean switch latency (ns)")
    agrees = claim_row(latency, Outcome([], {"mean_ns": 349.0, "min_ns": 337.0, "max_ns": 360.0}))
    unexplained = claim_row(latency, Outcome([], {"mean_ns": 900.0, "min_ns": 280.0, "max_ns": 1200.0}))
    fig12 = claim_row(claim("bursty-incast", "worst impact of a bursty incast"),
                      Outcome([], {"max_impact": 1.001, "medium_hurts_most": False}))
    assert agrees["known_cause"] is None and unexplained["known_cause"] is None
    assert "first window" in fig12["known_cause"]
    lines = difference_lines([agrees, unexplained, fig12])
    assert len(lines) == 2
    assert "switch-latency" in lines[0] and "ordering fails and outside 2x" in lines[0]
    assert "cause not established yet" in lines[0]
    assert "bursty-incast" in lines[1] and "ordering fails" in lines[1] and "first window" in lines[1]
    text = markdown([agrees, unexplained, fig12], True, "slingsim validate --quick", "2026-11-29")
    assert "## Where ours differs, and why" in text
    assert "(experiments.md#slingsim-experiment-bursty-incast)" in text
    assert "switch-latency`, mean switch latency (ns) (ordering fails" in text
    assert markdown([agrees], True, "slingsim validate --quick", "2026-11-29").count("Where ours differs") == 0


def test_a_quick_report_lists_what_full_mode_reads_otherwise(monkeypatch):
    """A claim that holds in quick mode and fails in full: a quick report says so below its table even
    though the row agrees there; a full report, whose own verdict is the full one, does not. (Fig. 10's
    Slingshot row was one until Shandy's global links were spread over every switch, 2026-11-30.)"""
    assert set(FULL_MODE_READS) <= {(c.experiment, c.quantity) for c in CLAIMS}
    key = ("congestion-distribution", "Slingshot, worst impact over the cases")
    outcome = Outcome([], {"slingshot_max_impact": {"linear": 1.04, "interleaved": 1.02, "random": 1.03}})
    monkeypatch.setitem(FULL_MODE_READS, key, "full mode reads 4.14x at worst")
    row = claim_row(claim(*key), outcome)
    assert row["ordering_holds"] is True and "4.14x" in row["full_mode_reads"]
    quick = markdown([row], True, "slingsim validate --quick", "2026-11-30")
    assert "## Where full mode reads otherwise" in quick and "4.14x" in quick
    assert "Where full mode reads otherwise" not in markdown([row], False, "slingsim validate", "2026-11-30")
    monkeypatch.delitem(FULL_MODE_READS, key)
    plain = claim_row(claim(*key), outcome)
    assert plain["full_mode_reads"] is None
    assert "Where full mode reads otherwise" not in markdown([plain], True, "slingsim validate --quick", "2026-11-30")


def test_cli_refuses_unknown_only(capsys):
    assert main(["validate", "--only", "no-such-recipe", "--scheduler", "sync", "--out", "/tmp/x"]) == 2
    assert "no claims for" in capsys.readouterr().err


def test_cli_runs_one_recipe(tmp_path, capsys):
    md = tmp_path / "validation.md"
    code = main(["validate", "--quick", "--only", "switch-latency", "--scheduler", "sync", "--no-cache", "--quiet",
                 "--out", str(tmp_path / "out"), "--markdown", str(md), "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    (row,) = report["claims"]
    assert row["experiment"] == "switch-latency" and row["ordering_holds"] and row["within_2x"]
    assert (tmp_path / "out" / "validation.parquet").exists() and (tmp_path / "out" / "switch-latency").is_dir()
    assert "switch-latency" in md.read_text()


def test_share_growth_claim_reads_the_splits():
    """Fig. 9's growth with the aggressor's share: the full run with the preset (21.9x, 1.3x, 381x) fails it,
    the same study with the sliding window (34x, 38x, 620x) holds it, and one split alone reads nothing."""
    from slingsim.experiments.congestion_heatmap import impact_grows_with_aggressor_share

    c = claim("congestion-heatmap", "Aries, worst incast impact with the aggressor on the most nodes over the fewest "
                                    "(53/459 over 460/52; quick: 19/77 over 86/10 of 96 nodes)")

    def outcome(maxima):
        by = [{"victim_share": s, "max_impact": m, "censored": False} for s, m in zip((0.898, 0.5, 0.104), maxima)]
        return Outcome([], {"aries_incast_max_by_share": by,
                            "impact_grows_with_aggressor_share": impact_grows_with_aggressor_share(by)})

    blocks, window, quick = claim_row(c, outcome((21.9, 1.3, 381.0))), claim_row(c, outcome((34.0, 38.0, 620.0))), \
        claim_row(c, outcome((45.3,)))
    assert blocks["ours"] == pytest.approx(381.0 / 21.9) and blocks["ordering_holds"] is False
    assert window["ordering_holds"] is True
    assert quick["ours"] is None and quick["ordering_holds"] is None


def test_rank_order_bound_claim():
    """[Roweth] Fig. 3's 0.89 needs a rank order whose rounds allow it: node order on 1024 Shandy nodes (0.61 by
    schedule_bound.py) fails the claim, quick's 256 nodes (bound by their NICs, 1.0) hold it."""
    c = claim("alltoall-scaling", "the most MPICH's rounds allow on the most nodes with our rank order, fraction of "
                                  "the peak")
    full = claim_row(c, Outcome([], {"alltoall_schedule_bound_fraction": 0.611}))
    quick = claim_row(c, Outcome([], {"alltoall_schedule_bound_fraction": 1.0}))
    assert full["ours"] == 0.611 and full["ordering_holds"] is False
    assert quick["ordering_holds"] is True


def test_an_ordering_the_run_cannot_decide_is_reported_as_undecided_with_its_intervals():
    """Fig. 5's ordering reads True, False or undecided from the recipe's intervals: undecided rows are
    neither holds nor fails nor unread, are counted apart, and list the recipe's reasons and the cause."""
    c = claim("aries-time-vs-latency", "QCD of time over QCD of packet latency, smallest size, 10% host noise")
    reason = "gap at 8 B (1.16, 95% interval 0.59-4.66) against 65536 B (1.52, 95% interval 0.96-3.35): overlap"
    undecided = claim_row(c, Outcome([], {"heavy_smallest_time_over_latency_qcd": 1.16,
                                          "heavy_time_qcd_above_latency_qcd": True,
                                          "heavy_gap_larger_for_small_than_large": None,
                                          "heavy_undecided": [reason]}))
    assert undecided["ordering_holds"] is None and undecided["ordering_undecided"] == reason
    fails = claim_row(c, Outcome([], {"heavy_smallest_time_over_latency_qcd": 0.6,
                                      "heavy_time_qcd_above_latency_qcd": False,
                                      "heavy_gap_larger_for_small_than_large": None,
                                      "heavy_undecided": [reason]}))
    assert fails["ordering_holds"] is False and fails["ordering_undecided"] is None, "one failed part fails the row"
    holds = claim_row(c, Outcome([], {"heavy_smallest_time_over_latency_qcd": 3.0,
                                      "heavy_time_qcd_above_latency_qcd": True,
                                      "heavy_gap_larger_for_small_than_large": True, "heavy_undecided": []}))
    assert holds["ordering_holds"] is True and holds["ordering_undecided"] is None
    unread = claim_row(c, Outcome([], {}))
    counts = summary_counts([undecided, fails, holds, unread])
    assert (counts["ordering_holds"], counts["ordering_fails"], counts["ordering_undecided"],
            counts["ordering_unread"]) == (1, 1, 1, 1)
    text = markdown([undecided, holds], True, "slingsim validate --quick", "2026-12-02")
    assert "| undecided |" in text and "1 undecided, 0 could not be read" in text
    assert "## Orderings the runs cannot decide" in text and reason in text
    assert text.count("## Where ours differs") == 0, "an undecided row is not a difference"
