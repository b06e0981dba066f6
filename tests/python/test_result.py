"""Result tables and their Parquet/JSON round trip."""
import json

import pyarrow as pa
import pytest

import slingsim
from slingsim.result import Result, table_from_columns


def test_table_from_engine_columns():
    table = table_from_columns({"latency_ns": [1.5, 2.5], "hops": [3, 4], "kind": ["a", "b"]})
    assert table.num_rows == 2
    assert table.column("hops").to_pylist() == [3, 4]
    assert table_from_columns({}).num_rows == 0


def test_engine_hands_numbers_over_as_arrays_and_tables_read_them_unchanged(small_config):
    """Number columns cross from the engine as ``array.array`` (one copy of the data, no Python object
    per value) and become the same Arrow columns a list of the values gives."""
    import array

    from slingsim.api import Simulation

    sim = Simulation(small_config)
    sim.run()
    links = sim._engine.links_table()
    assert isinstance(links["bytes"], array.array) and links["bytes"].typecode == "q"
    assert isinstance(links["utilization"], array.array) and links["utilization"].typecode == "d"
    assert len({id(k) for k in links["kind"]}) == len(set(links["kind"])), "equal strings share one object"
    for name in ("packets_table", "links_table", "nic_counters_table", "timeline_table"):
        columns = getattr(sim._engine, name)()
        fast, plain = table_from_columns(columns), pa.table({k: list(v) for k, v in columns.items()})
        assert fast.num_rows > 0 and fast.schema == plain.schema, name
        for column in fast.column_names:
            got, want = fast[column].to_pylist(), plain[column].to_pylist()
            assert all(a == b or (a != a and b != b) for a, b in zip(got, want)), (name, column)
    empty = sim._engine.flows_table()
    assert len(empty["bytes"]) == 0 and table_from_columns(empty).schema.field("bytes").type == pa.int64()


def test_write_and_read_back_a_run(tmp_path, small_config):
    result = slingsim.run(small_config)
    assert isinstance(result.packets, pa.Table) and result.packets.num_rows > 0
    assert result.links.num_rows > 0
    out = result.write(tmp_path / "run")
    for name in ("summary.json", "config.json", "packets.parquet", "links.parquet", "flows.parquet"):
        assert (out / name).is_file(), name
    again = Result.read(out)
    assert again.summary == json.loads(json.dumps(result.summary))
    assert again.config == slingsim.resolved_config(small_config)
    assert again.packets.equals(result.packets)
    assert again.links.equals(result.links)
    assert again.flows.num_rows == result.flows.num_rows


def test_to_pandas_gives_a_dataframe_or_names_the_extra(monkeypatch, small_config):
    import importlib.util

    result = slingsim.run(small_config, progress=False)
    frame = result.to_pandas("links")
    assert list(frame.columns) == result.links.column_names and len(frame) == result.links.num_rows
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pandas" else real(name, *a))
    import pytest

    with pytest.raises(ImportError, match=r"pip install 'slingsim\[pandas\]'"):
        result.to_pandas("links")
    with pytest.raises(ValueError, match="packets, links"):
        result.to_pandas("nope")


def test_link_snapshots_are_read_on_the_way_and_kept_with_the_run(tmp_path, small_config):
    """``sim.link_snapshots_ns``: every link's counters at each time, in a table written and read back
    with the others; the last reading never exceeds the end's counters."""
    cfg = {**small_config, "sim": {**small_config["sim"], "link_snapshots_ns": [1000.0, 2000.0]}}
    result = slingsim.run(cfg)
    snaps = result.link_snapshots
    links = result.links.num_rows
    assert result.summary["link_snapshots"] == {"asked_ns": [1000.0, 2000.0], "taken_ns": [1000.0, 2000.0]}
    assert snaps.column_names == ["t_ns", "channel", "bytes", "stalled_ns"] and snaps.num_rows == 2 * links
    later = snaps.slice(links, links)["bytes"].to_pylist()
    assert all(a <= b for a, b in zip(snaps.slice(0, links)["bytes"].to_pylist(), later))
    assert all(a <= b for a, b in zip(later, result.links["bytes"].to_pylist()))
    assert Result.read(result.write(tmp_path / "run")).link_snapshots.equals(snaps)
    assert slingsim.run(small_config).link_snapshots.num_rows == 0


def test_link_snapshot_times_out_of_order_are_refused_by_name(small_config):
    cfg = {**small_config, "sim": {**small_config["sim"], "link_snapshots_ns": [2000.0, 1000.0]}}
    with pytest.raises(slingsim.ConfigError, match=r"sim\.link_snapshots_ns\[1\]"):
        slingsim.run(cfg)
