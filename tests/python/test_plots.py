"""Load-curve plots are written as PNG files."""
import pyarrow as pa
import pytest

from slingsim.plots import plot_load_curves


def _curve(label, pattern):
    return [
        {"label": label, "pattern": pattern, "offered_load": x, "accepted_load": min(x, 0.5),
         "latency_mean_ns": None if x == 0 else 1000 + 2000 * x}
        for x in (0.0, 0.25, 0.5, 0.75)
    ]


def test_one_line_per_label_and_one_row_per_facet(tmp_path):
    table = pa.Table.from_pylist(_curve("minimal", "uniform") + _curve("ugal", "uniform") + _curve("ugal", "adv"))
    path = plot_load_curves(table, tmp_path / "plot.png", facet_column="pattern", title="t")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_table_without_labels_and_empty_table(tmp_path):
    table = pa.Table.from_pylist(_curve("x", "p")).drop(["label"])
    assert plot_load_curves(table, tmp_path / "single.png").is_file()
    with pytest.raises(ValueError, match="empty"):
        plot_load_curves(table.slice(0, 0), tmp_path / "none.png")
