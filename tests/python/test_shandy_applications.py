"""[DeSensi20] Fig. 11 in small: on Shandy, with congestion control, the application proxies stay
within a few tens of percent of their isolated time beside an incast or all-to-all on 75% of the nodes."""
from __future__ import annotations

from slingsim.experiments.output import table_checks
from slingsim.experiments.shandy_applications import APPLICATIONS, key_figures, run_shandy_applications


def test_applications_are_protected_at_scale(tmp_path):
    table = run_shandy_applications(tmp_path, quick=True, scheduler="sync")
    rows = table.to_pylist()
    checks = table_checks(table)
    # Random placement: the check ran on the nodes the engine drew.
    assert checks["shares_checked"] and checks["shares"]["victim_switches_min"] >= 2
    assert checks["identical_points"] == 0
    assert {r["victim"] for r in rows} == set(APPLICATIONS)
    assert {r["aggressor"] for r in rows} == {"incast", "all-to-all"}
    for r in rows:
        assert not r["censored"]
        assert 0.9 < r["impact"] < 1.6, r
    assert (tmp_path / "shandy_applications.png").is_file()


def test_key_figures_name_the_worst_point_and_each_aggressors_maximum():
    rows = [{"victim": v, "aggressor": a, "victim_share": share, "impact": impact, "censored": False,
             "isolated_ns": 1.0, "congested_ns": impact}
            for v, a, share, impact in (("LAMMPS", "incast", 0.25, 3.5), ("MILC", "incast", 0.75, 1.1),
                                        ("FFT", "all-to-all", 0.25, 1.4), ("HPCG", "all-to-all", 0.5, 1.0))]
    checks = key_figures(rows)
    assert checks["max_impact"] == 3.5 and not checks["max_impact_censored"]
    assert checks["max_at"] == {"victim": "LAMMPS", "aggressor": "incast", "victim_share": 0.25}
    assert checks["max_impact_by_aggressor"] == {"incast": 3.5, "all-to-all": 1.4}
    assert checks["identical_points"] == 1 and checks["paper"]["max_impact"] == 3.55
