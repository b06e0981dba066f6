"""Every output says what produced it, and the resolved config it records re-makes the run bit for bit."""
import json
import subprocess
import sys

import pytest

import slingsim
from slingsim import _core
from slingsim.cli import main
from slingsim.config import load_config, resolve, to_json
from slingsim.result import TABLE_NAMES, Result
from slingsim.tables import read_provenance

from conftest import SHORT_WINDOW, SMALL

SETS = [arg for item in SHORT_WINDOW for arg in ("--set", item)]
PROVENANCE_KEYS = {"config", "version", "commit", "seed", "command", "started", "platform", "engine"}
VARIES = ("wall_s", "cpu_s", "engine_wall_s", "build_s", "provenance", "cached", "key")
"""Summary keys that differ between two runs of the same config (timings, when and how it ran)."""


def _physics(summary):
    return {k: v for k, v in summary.items() if k not in VARIES}


def _bits(table):
    """A table's data as Arrow IPC bytes (no metadata, one chunk): equal bytes, identical results, NaNs included."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    table = table.replace_schema_metadata(None).combine_chunks()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def test_run_json_has_the_provenance_keys(capsys):
    assert main(["run", "examples/incast-mix", *SETS, "--seed", "4", "--json", "--no-cache"]) == 0
    summary = json.loads(capsys.readouterr().out)
    prov = summary["provenance"]
    assert set(prov) >= PROVENANCE_KEYS
    assert prov["seed"] == 4 == prov["config"]["sim"]["seed"]
    assert prov["version"] == slingsim.__version__
    assert prov["command"].startswith("slingsim run examples/incast-mix --set")
    assert prov["started"].endswith("Z") and set(prov["platform"]) >= {"python", "system", "machine", "host"}
    assert len(prov["commit"].removesuffix("-dirty")) in (40, 7) or prov["commit"] == "unknown"
    assert summary["cached"] is False


def test_the_resolved_config_has_every_default():
    cfg = slingsim.resolved_config(SMALL)
    preset = load_config(SMALL)
    assert "switch" not in preset or "buffer_bytes" not in preset.get("switch", {})
    assert cfg["switch"]["buffer_bytes"] == 131_072  # the engine's default, written out
    assert cfg["congestion"]["algorithm"] == "none" and cfg["mpi"]["algorithms"]["alltoall"] == "auto"
    assert cfg["traffic"][0]["process"] == "bernoulli" and cfg["traffic"][0]["message_bytes"] == 4096
    assert set(cfg["topology"]) >= {"kind", "groups", "radix", "rails"} and "q" not in cfg["topology"]


@pytest.mark.parametrize("preset", slingsim.available_presets())
def test_every_preset_resolves_to_a_config_that_builds_the_same_network(preset):
    if preset == "slingshot-max":
        pytest.skip("279,040 endpoints: its analytics take minutes (the resolution itself is checked in Rust)")
    original = resolve(preset)
    resolved = slingsim.resolved_config(preset)
    assert json.loads(_core.resolved_config(to_json(resolved))) == resolved  # resolving twice changes nothing
    drop = lambda a: {k: v for k, v in a.items() if k != "build_s"}  # noqa: E731
    assert drop(slingsim.topology(resolved)) == drop(slingsim.topology(original))


def test_awkward_values_survive_resolution():
    cfg = load_config(SMALL)
    cfg["traffic"][0]["name"] = 'quo"te \\ new\nline é ✓'
    cfg["traffic"][0]["nodes"] = {"list": [0, 3, 7]}
    cfg["links"] = {"bit_error_rate": 1e-12, "failed": [{"switch": 1, "port": 5}]}
    cfg["sim"] = {"duration_ns": 4000, "warmup_ns": 1500.5}
    resolved = slingsim.resolved_config(cfg)
    assert resolved["traffic"][0]["name"] == 'quo"te \\ new\nline é ✓'
    assert resolved["traffic"][0]["nodes"] == {"list": [0, 3, 7]}
    assert resolved["links"]["bit_error_rate"] == 1e-12
    assert resolved["links"]["failed"] == [{"switch": 1, "port": 5, "at_ns": 0.0}]  # the entry's default filled in
    assert resolved["sim"]["warmup_ns"] == 1500.5


def test_summary_json_round_trips_into_a_bit_identical_run(tmp_path):
    out = tmp_path / "run"
    assert main(["run", "examples/incast-mix", *SETS, "--seed", "5", "--out", str(out), "--quiet", "--no-cache"]) == 0
    first = Result.read(out)
    recorded = json.loads((out / "summary.json").read_text())["provenance"]["config"]
    again = slingsim.run(recorded, cache=False, progress=False)
    assert _physics(again.summary) == _physics(first.summary)
    for name in TABLE_NAMES:
        assert _bits(getattr(again, name)) == _bits(getattr(first, name)), name


def test_parquet_metadata_round_trips_into_a_bit_identical_run(tmp_path):
    out = tmp_path / "run"
    assert main(["run", SMALL, *SETS, "--set", "routing.algorithm=valiant", "--out", str(out), "--quiet",
                 "--no-cache"]) == 0
    prov = read_provenance(out / "packets.parquet")
    assert prov["config"]["routing"]["algorithm"] == "valiant"
    again = slingsim.run(prov["config"], cache=False, progress=False)
    first = Result.read(out)
    assert _bits(again.packets) == _bits(first.packets) and _bits(again.links) == _bits(first.links)
    assert _physics(again.summary) == _physics(first.summary)


def test_a_sweep_records_what_varies_and_what_was_fixed(tmp_path, capsys):
    import pyarrow.parquet as pq

    from slingsim.figures import read_figure_provenance

    out = tmp_path / "sweep"
    assert main(["sweep-load", SMALL, "--loads", "0.1,0.3", *SETS, "--set", "routing.algorithm=valiant",
                 "--scheduler", "sync", "--out", str(out), "--quiet", "--no-cache"]) == 0
    table = pq.read_table(out / "sweep.parquet")
    assert table.column("load").to_pylist() == [0.1, 0.3]
    assert table.column("routing.algorithm").to_pylist() == ["valiant", "valiant"]
    prov = read_provenance(out / "sweep.parquet")
    assert [run["config"]["traffic"][0]["load"] for run in prov["runs"]] == [0.1, 0.3]
    assert all(run["config"]["routing"]["algorithm"] == "valiant" for run in prov["runs"])
    assert prov["command"].startswith("slingsim sweep-load examples/small-dragonfly --loads 0.1,0.3")
    assert json.loads((out / "provenance.json").read_text()) == prov
    figure = read_figure_provenance(out / "latency_vs_load.png")
    assert figure["commit"] == prov["commit"] and "config" not in figure["runs"][0]


def test_version_flag_and_attribute():
    done = subprocess.run([sys.executable, "-m", "slingsim.cli", "--version"], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.startswith(f"slingsim {slingsim.__version__} (commit ")


def test_engine_errors_are_config_errors_naming_the_field():
    with pytest.raises(slingsim.ConfigError, match="topology.groups") as info:
        slingsim.Simulation(SMALL, overrides=["topology.groups=0"])
    assert info.value.field == "topology.groups"
    with pytest.raises(slingsim.ConfigError):
        _core.Simulation('{"sim": {"seed": -1}}')
    with pytest.raises(FileNotFoundError):
        _core.dumpi_info("/nonexistent/trace.meta")
