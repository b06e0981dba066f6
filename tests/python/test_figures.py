"""Figures carry their provenance, and the layout check every test applies can fail."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from slingsim.figures import read_figure_provenance, save_figure  # noqa: E402

from figure_layout import layout_problems  # noqa: E402

PROVENANCE = {"version": "0.1.0", "commit": "0123456789abcdef", "seed": 3, "started": "2025-01-01T00:00:00Z",
              "command": "slingsim run x", "config": {"big": True}}


def test_panel_labels_that_run_into_the_next_panel_are_found():
    fig, axes = plt.subplots(1, 2, figsize=(4, 2))
    for ax in axes:
        ax.set_yticks([0, 1], ["a rather long victim name", "another long name"])
    assert any("overlaps the axes" in p for p in layout_problems(fig))
    plt.close(fig)


def test_labels_on_top_of_each_other_are_found():
    fig, ax = plt.subplots()
    ax.text(0.5, 0.5, "first label")
    ax.text(0.5, 0.5, "second label")
    assert any("overlaps text" in p for p in layout_problems(fig))
    plt.close(fig)


def test_the_caption_goes_under_everything_and_the_metadata_into_the_png(tmp_path):
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2], [3, 4])
    ax.set_xlabel("offered load (fraction of injection bandwidth)")
    path = save_figure(fig, tmp_path / "f.png", PROVENANCE)  # the conftest check runs inside
    prov = read_figure_provenance(path)
    assert prov["commit"] == PROVENANCE["commit"] and "config" not in prov
    bare, ax = plt.subplots()
    assert read_figure_provenance(save_figure(bare, tmp_path / "bare.png")) is None


def test_a_short_log_colour_bar_labels_only_what_fits():
    from matplotlib.colors import LogNorm

    from slingsim.figures import plain_log_labels

    # A one-row heatmap's colour bar from 1 to 8.8: 7, 8 and 9 would touch.
    fig, ax = plt.subplots(figsize=(4, 2.0), layout="constrained")
    image = ax.imshow([[1.0, 8.8]], cmap="Reds", norm=LogNorm(vmin=1.0, vmax=8.8), aspect="auto")
    bar = fig.colorbar(image, ax=ax)
    plain_log_labels(bar.ax)
    fig.canvas.draw()
    assert not [p for p in layout_problems(fig) if "overlaps text" in p]
    labels = [t.get_text() for t in bar.ax.yaxis.get_ticklabels(which="both") if t.get_text()]
    assert "2" in labels and "5" in labels and "8" not in labels
    plt.close(fig)
