"""``slingsim plot RESULT_DIR``: link utilisation by kind, the global links' heatmap and the delivery timeline."""
import pytest

from slingsim.cli import main
from slingsim.figures import read_figure_provenance
from slingsim.result_plots import global_link_grid, group_pair_max

from conftest import SHORT_WINDOW, SMALL

SETS = [arg for item in SHORT_WINDOW for arg in ("--set", item)]
PNG = b"\x89PNG\r\n\x1a\n"


def test_plot_draws_three_figures_with_the_runs_provenance(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", SMALL, *SETS, "--set", "traffic.uniform.pattern=group_adversarial", "--out", str(out),
                 "--quiet"]) == 0
    capsys.readouterr()
    assert main(["plot", str(out)]) == 0
    names = ("link_utilization.png", "global_links.png", "timeline.png")
    assert capsys.readouterr().out.split() == [w for n in names for w in ("wrote", str(out / n))]
    import json

    summary = json.loads((out / "summary.json").read_text())
    for name in names:
        assert (out / name).read_bytes()[:8] == PNG
        prov = read_figure_provenance(out / name)
        assert prov["commit"] == summary["provenance"]["commit"] and prov["seed"] == summary["seed"]


def test_a_fat_tree_gets_its_figures_without_dragonfly_groups(tmp_path, capsys):
    out = tmp_path / "fattree"
    assert main(["run", "fattree-3k", "--set", "topology.radix=8", "--set", "sim.warmup_ns=1000",
                 "--set", "sim.duration_ns=3000", "--out", str(out), "--quiet"]) == 0
    assert main(["plot", str(out), "--out", str(tmp_path / "figs")]) == 0
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == [
        "global_links.png", "link_utilization.png", "timeline.png"]


def test_plot_of_a_folder_that_is_not_a_run_is_an_error(tmp_path, capsys):
    assert main(["plot", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "summary.json" in err and "run --out" in err


def test_global_links_are_laid_out_per_switch_and_per_group_pair():
    links = [
        {"kind": "global", "src_switch": 0, "src_port": 9, "dst_switch": 2, "utilization": 0.5},
        {"kind": "global", "src_switch": 0, "src_port": 8, "dst_switch": 3, "utilization": 0.25},
        {"kind": "global", "src_switch": 3, "src_port": 8, "dst_switch": 0, "utilization": 1.0},
        {"kind": "local", "src_switch": 0, "src_port": 1, "dst_switch": 1, "utilization": 0.9},
    ]
    switches, grid = global_link_grid(links)
    assert switches == [0, 3]
    assert grid == [[0.25, 0.5], [1.0, pytest.approx(float("nan"), nan_ok=True)]]
    groups, matrix = group_pair_max(links, per_group=2)
    assert groups == [0, 1] and matrix[0][1] == 0.5 and matrix[1][0] == 1.0
