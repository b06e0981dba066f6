"""`slingsim experiment --set` and `slingsim validate --set`: a mechanism changed in every run of a
study, or in the runs on one network family, and refused where it would change the set-up."""
import json

import pytest

from slingsim.api import resolved_config
from slingsim.cli import main
from slingsim.study_overrides import (
    TOPOLOGY_KINDS,
    parse_override,
    study_overrides,
    with_study_overrides,
)
from slingsim.sweep import run_summaries


@pytest.mark.parametrize("text, says", [
    ("routing.algorithm", "expected [KIND:]KEY=VALUE"),
    ("=ugal", "expected [KIND:]KEY=VALUE"),
    ("torus:nic.flit_bytes=8", "no network family 'torus'; choose one of: dragonfly"),
    ("topology.groups=3", "'topology' is part of its set-up"),
    ("aries:job.0.ranks=4", "'job' is part of its set-up"),
    ("traffic.0.load=0.5", "'traffic' is part of its set-up"),
    ("sim.duration_ns=10", "'sim' is part of its set-up"),
    ("nic=1", "'nic' is part of its set-up"),
])
def test_a_bad_override_is_refused_naming_what_is_allowed(text, says):
    with pytest.raises(ValueError, match=None) as err:
        parse_override(text)
    assert says in str(err.value)
    assert text in str(err.value)


def test_the_global_wiring_may_change_in_a_study_and_nothing_else_of_the_topology():
    """Which switches hold a dragonfly's global links is not in the papers, and moving them leaves
    every node on its switch, so a study may change it; the topology's shape stays refused."""
    assert parse_override('dragonfly:topology.cabling="spread"').assignment == 'topology.cabling="spread"'
    assert parse_override('topology.arrangement="round-robin"').kind is None
    with pytest.raises(ValueError, match="topology.arrangement and topology.cabling"):
        parse_override("topology.global_links_per_group_pair=4")
    shandy = resolved_config("slingshot-shandy")
    with study_overrides(['dragonfly:topology.cabling="spread"']):
        spread = with_study_overrides(shandy)
    assert spread["topology"]["cabling"] == "spread"
    assert {k: v for k, v in spread["topology"].items() if k != "cabling"} == \
        {k: v for k, v in shandy["topology"].items() if k != "cabling"}


def test_the_families_are_the_engines():
    """Each family a scoped override may name is one the engine builds, and the engine's list of
    families is this one (its error for an unknown kind lists them)."""
    with pytest.raises(ValueError) as err:
        resolved_config("slingshot-malbec", overrides=['topology.kind="torus"'])
    assert str(err.value).endswith("choose one of: " + ", ".join(TOPOLOGY_KINDS))


def test_a_scoped_override_changes_its_family_only():
    aries, slingshot = resolved_config("aries-crystal"), resolved_config("slingshot-malbec")
    assert aries["nic"]["outstanding_release"] == "all"
    with study_overrides(["aries:nic.outstanding_release=each", "routing.neighbour_load=false"]) as applied:
        changed_aries, changed_slingshot = with_study_overrides(aries), with_study_overrides(slingshot)
    assert changed_aries["nic"]["outstanding_release"] == "each"
    assert changed_slingshot["nic"] == slingshot["nic"]
    assert changed_aries["routing"]["neighbour_load"] is False
    assert changed_slingshot["routing"]["neighbour_load"] is False
    assert applied.changed == {"aries:nic.outstanding_release=each": 1, "routing.neighbour_load=false": 2}
    assert applied.unmatched() == []
    # outside the block nothing changes
    assert with_study_overrides(aries) == aries


def test_runs_of_a_study_take_the_override_and_are_stored_apart(small_config):
    """The override reaches the engine (Valiant routing sends every packet non-minimally) and the run is
    a different run for the result store (a study without it does not read it back)."""
    minimal = run_summaries([small_config], scheduler="sync")[0]
    with study_overrides(["routing.algorithm=valiant"]) as applied:
        valiant = run_summaries([small_config], scheduler="sync")[0]
    again = run_summaries([small_config], scheduler="sync")[0]
    assert applied.changed == {"routing.algorithm=valiant": 1}
    assert minimal["nonminimal_fraction"] == 0.0
    assert valiant["nonminimal_fraction"] > 0.5
    assert again["nonminimal_fraction"] == 0.0 and again["cached"]


def test_an_override_no_run_takes_is_an_error(tmp_path, capsys):
    """switch-latency runs Slingshot only: an Aries-only override changed nothing, and the command says so
    with status 2 rather than let the results pass for the changed study."""
    out = tmp_path / "sl"
    code = main(["experiment", "switch-latency", "--quick", "--quiet", "--json", "--no-cache", "--out", str(out),
                 "--set", "aries:nic.outstanding_release=each"])
    err = capsys.readouterr().err
    assert code == 2
    assert "no run of switch-latency was on a network of that family" in err


def test_a_bad_override_stops_the_command_before_it_runs(tmp_path, capsys):
    out = tmp_path / "never"
    code = main(["experiment", "switch-latency", "--quick", "--out", str(out), "--set", "topology.groups=3"])
    assert code == 2
    assert "'topology' is part of its set-up" in capsys.readouterr().err
    assert not out.exists()
    code = main(["validate", "--quick", "--only", "switch-latency", "--out", str(out), "--set", "fattree"])
    assert code == 2
    assert not out.exists()


def test_validate_says_when_no_recipe_took_an_override(tmp_path, capsys):
    out = tmp_path / "v"
    code = main(["validate", "--quick", "--only", "switch-latency", "--scheduler", "sync", "--quiet", "--json",
                 "--no-cache", "--out", str(out), "--set", "aries:nic.outstanding_release=each"])
    captured = capsys.readouterr()
    assert code == 2
    assert "no run of the recipes validated was on a network of that family" in captured.err
    assert json.loads(captured.out)["overrides"] == ["aries:nic.outstanding_release=each"]


def test_what_a_recipe_derives_from_a_preset_sees_the_override():
    """The incast's onset (when a victim may start) depends on the NICs' rate: inside a study that halves
    Aries' NIC rate, the recipe's own reading of the preset gives the later start."""
    from slingsim.config import load_config
    from slingsim.experiments.onset import victim_start_ns

    alone = victim_start_ns(load_config("aries-crystal"), 255, 131072)
    with study_overrides(["aries:nic.bandwidth_bps=40.8e9", "dragonfly:nic.bandwidth_bps=1e9"]) as applied:
        cfg = load_config("aries-crystal")
        slower = victim_start_ns(cfg, 255, 131072)
    assert cfg["nic"]["bandwidth_bps"] == 40.8e9
    assert slower == pytest.approx(2 * alone)
    assert applied.changed == {}  # counted where runs pass, not where presets are read


def test_a_misspelt_key_is_refused_naming_the_option(tmp_path, capsys):
    """A careless key is caught when the recipe reads its preset, with the option named, and nothing runs."""
    out = tmp_path / "never"
    code = main(["experiment", "congestion-heatmap", "--quick", "--quiet", "--out", str(out),
                 "--set", "aries:nic.outstanding_relase=each"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--set nic.outstanding_relase=each" in err and "outstanding_release" in err
    assert not out.exists()


def test_a_bad_mpi_value_is_refused_before_anything_runs(tmp_path, capsys):
    """[mpi] values are checked when a config is read, not when a run's jobs are built: a negative scaling
    factor stops the study with the option and the field named, and no run starts."""
    out = tmp_path / "never"
    code = main(["experiment", "app-aware-routing", "--quick", "--quiet", "--out", str(out),
                 "--set", "mpi.app_aware.stall_scale=-1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--set mpi.app_aware.stall_scale=-1" in err and "must be positive" in err
    assert "Compute Failed" not in err and not out.exists()
