"""Paper 000 Fig. 9 in small: Slingshot keeps victims near their isolated time where Aries'
back-pressure lets an incast slow them; all-to-all hurts little on either."""
from __future__ import annotations

from slingsim.experiments.congestion_heatmap import run_congestion_heatmap, study_points


def test_points_pair_each_victim_with_each_aggressor_on_both_systems():
    points = study_points(quick=True)
    systems = {labels["system"] for labels, _, _ in points}
    assert systems == {"Slingshot", "Aries"}
    for labels, iso, con in points:
        assert [j["name"] for j in iso["job"]] == ["victim"]
        assert [j["name"] for j in con["job"]] == ["victim", "aggressor"]
        assert con["job"][0] == iso["job"][0]


def test_slingshot_is_less_affected_than_aries(tmp_path):
    rows = run_congestion_heatmap(tmp_path, quick=True, scheduler="sync").to_pylist()
    assert (tmp_path / "congestion_heatmap.png").is_file()
    impact = {(r["system"], r["victim"], r["aggressor"]): r["impact"] for r in rows}
    assert max(v for (s, _, _), v in impact.items() if s == "Slingshot") < 1.5
    assert impact[("Aries", "alltoall 128B", "incast")] > 2.0
    assert impact[("Aries", "alltoall 128B", "all-to-all")] < 1.5
