"""The demo study's design: Malbec, three routings, two patterns."""
import pytest

from slingsim.experiments.demo import LOADS, QUICK_LOADS, ROUTINGS, demo_points, run_demo


def test_demo_covers_every_routing_pattern_and_load():
    points = demo_points()
    assert len(points) == len(ROUTINGS) * sum(len(v) for v in LOADS.values())
    labels = {(l["pattern"], l["routing"]) for l, _ in points}
    assert labels == {(p, r) for p in LOADS for r in ROUTINGS}
    for labels, cfg in points:
        assert cfg["topology"]["nodes"] == 484
        assert cfg["routing"]["algorithm"] == labels["routing"]
        assert cfg["traffic"][0]["pattern"] == labels["pattern"]
        assert cfg["traffic"][0]["load"] == labels["load"]


def test_quick_demo_is_smaller():
    assert len(demo_points(quick=True)) == len(ROUTINGS) * sum(len(v) for v in QUICK_LOADS.values())


@pytest.mark.slow
def test_quick_demo_writes_table_and_plot(tmp_path):
    table = run_demo(tmp_path, quick=True)
    assert table.num_rows == len(demo_points(quick=True))
    assert (tmp_path / "demo.parquet").is_file() and (tmp_path / "latency_vs_load.png").is_file()
