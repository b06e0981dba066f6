"""[DeSensi20] Fig. 11 in small: on Shandy, with congestion control, the application proxies stay
within a few tens of percent of their isolated time beside an incast or all-to-all on 75% of the nodes."""
from __future__ import annotations

from slingsim.experiments.shandy_applications import APPLICATIONS, run_shandy_applications


def test_applications_are_protected_at_scale(tmp_path):
    rows = run_shandy_applications(tmp_path, quick=True, scheduler="sync").to_pylist()
    assert {r["victim"] for r in rows} == set(APPLICATIONS)
    assert {r["aggressor"] for r in rows} == {"incast", "all-to-all"}
    for r in rows:
        assert not r["censored"]
        assert 0.9 < r["impact"] < 1.6, r
    assert (tmp_path / "shandy_applications.png").is_file()
