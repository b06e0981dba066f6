"""[McGlohon19] Fig. 3's key figures: each network's saturation and whether it grows with the rails.
The engine runs behind them are exercised by test_topology's Fit Fly tests."""
from __future__ import annotations

from slingsim.experiments.fitfly_rails import key_figures


def rows_of(saturations):
    rows = []
    for rails, top in saturations.items():
        name = "Slim Fly" if rails == 1 else f"Fit Fly {rails} rails"
        rows += [{"network": name, "rails": rails, "offered_percent": p, "accepted_percent": min(p, top)}
                 for p in (50, 100, 200, 400, 800) if p / rails <= 100]
    return rows


def test_saturation_is_the_most_accepted_load_per_network():
    checks = key_figures(rows_of({1: 77.0, 2: 154.0, 4: 309.0, 8: 618.0}))
    assert checks["saturation_percent"] == {"Slim Fly": 77.0, "Fit Fly 2 rails": 154.0, "Fit Fly 4 rails": 309.0,
                                            "Fit Fly 8 rails": 618.0}
    assert checks["saturation_over_slim_fly"]["Fit Fly 8 rails"] == round(618 / 77, 3)
    assert checks["fitfly_8_over_2"] == round(618 / 154, 3)
    assert checks["accepted_grows_with_rails"]


def test_saturation_that_stalls_does_not_grow():
    assert not key_figures(rows_of({1: 77.0, 2: 154.0, 4: 150.0, 8: 618.0}))["accepted_grows_with_rails"]
