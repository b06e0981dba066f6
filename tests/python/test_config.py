"""Config loading, presets, ``extends``, overrides, dropping sources, and their errors."""
import json

import pytest

from slingsim.api import resolved_config
from slingsim.config import (
    ConfigError,
    apply_overrides,
    available_presets,
    deep_merge,
    load_config,
    parse_value,
    resolve,
    to_json,
    without,
)


def test_every_preset_loads_with_a_named_uniform_source():
    presets = available_presets()
    for name in ("slingshot-malbec", "slingshot-shandy", "slingshot-max", "examples/small-dragonfly"):
        assert name in presets
    for name in presets:
        cfg = load_config(name)
        assert cfg["topology"]["kind"] in ("dragonfly", "slimfly", "fitfly", "megafly", "fattree", "aries")
        assert all("name" in src for src in cfg["traffic"])
        assert "extends" not in cfg


def test_preset_values_match_the_systems():
    malbec = load_config("slingshot-malbec")["topology"]
    assert (malbec["groups"], malbec["switches_per_group"], malbec["nodes"]) == (4, 8, 484)
    shandy = load_config("slingshot-shandy")["topology"]
    assert (shandy["rails"], shandy["nodes"], shandy["global_links_per_group_pair"]) == (2, 1024, 8)
    assert load_config("slingshot-max")["nic"]["bandwidth_bps"] == 200e9
    # The ConnectX-5 systems serve their messages in turn; the resolved
    # config of the others keeps the engine's first come first served.
    order = {name: resolved_config(name)["nic"]["message_order"] for name in ("slingshot-shandy", "slingshot-malbec", "slingshot-max")}
    assert order == {"slingshot-shandy": "interleaved", "slingshot-malbec": "interleaved", "slingshot-max": "fifo"}


def test_slingshot_presets_hold_congesting_flows_at_every_hop_with_a_one_packet_floor():
    # The floor is one full packet of each preset's frame: a smaller one paces
    # the flow below a packet, a larger one holds two (docs/model.md,
    # "Holding at every hop").
    full_packet = {"slingshot": 4096 + 40, "roce": 4096 + 82}
    for name in ("slingshot-shandy", "slingshot-malbec", "slingshot-max"):
        cfg = resolved_config(name)
        assert cfg["congestion"]["algorithm"] == "slingshot"
        assert cfg["congestion"]["hop_hold_bytes"] == cfg["congestion"]["port_threshold_bytes"] == 16384
        assert cfg["congestion"]["min_window_bytes"] == full_packet[cfg["nic"]["frame"]], name
    assert resolved_config("aries-crystal")["congestion"]["hop_hold_bytes"] == 0


def test_preset_name_with_toml_suffix_and_file_path_both_load(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('[topology]\ngroups = 5\n[[traffic]]\npattern = "uniform"\n')
    assert load_config(str(path))["topology"]["groups"] == 5
    assert load_config("slingshot-malbec.toml") == load_config("slingshot-malbec")


def test_unnamed_sources_get_default_names(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text('[[traffic]]\nload = 0.1\n[[traffic]]\nname = "b"\n[[traffic]]\nload = 0.2\n')
    assert [s["name"] for s in load_config(str(path))["traffic"]] == ["traffic0", "b", "traffic2"]


def test_unknown_preset_lists_the_presets():
    with pytest.raises(ConfigError, match="slingshot-malbec"):
        load_config("slingshot-nope")


def test_extends_deep_merges_with_child_winning():
    cfg = load_config("examples/incast-mix")
    base = load_config("examples/small-dragonfly")
    assert cfg["topology"] == base["topology"]
    assert [s["name"] for s in cfg["traffic"]] == ["victim", "aggressor"]
    merged = deep_merge({"a": {"x": 1, "y": 2}, "l": [1]}, {"a": {"y": 3}, "l": [2]})
    assert merged == {"a": {"x": 1, "y": 3}, "l": [2]}


def test_extends_a_relative_file_and_detects_cycles(tmp_path):
    (tmp_path / "base.toml").write_text("[sim]\nseed = 5\nwarmup_ns = 1\n")
    (tmp_path / "child.toml").write_text('extends = "base.toml"\n[sim]\nwarmup_ns = 2\n')
    assert load_config(str(tmp_path / "child.toml"))["sim"] == {"seed": 5, "warmup_ns": 2}
    (tmp_path / "a.toml").write_text('extends = "b"\n')
    (tmp_path / "b.toml").write_text('extends = "a"\n')
    with pytest.raises(ConfigError, match="cycle"):
        load_config(str(tmp_path / "a.toml"))


def test_invalid_toml_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[topology\n")
    with pytest.raises(ConfigError, match="broken.toml"):
        load_config(str(path))


@pytest.mark.parametrize(
    "text, value",
    [("true", True), ("3", 3), ("0.5", 0.5), ("100e9", 100e9), ('"x y"', "x y"),
     ("[1, 2]", [1, 2]), ("ugal", "ugal"), ("{ count = 4 }", {"count": 4}), ("2024-01-02", "2024-01-02")],
)
def test_override_values_are_toml(text, value):
    assert parse_value(text) == value


def test_overrides_address_tables_and_sources_by_name_or_position():
    cfg = load_config("examples/incast-mix")
    out = apply_overrides(cfg, [
        "routing.algorithm=ugal", "traffic.victim.load=0.4", "traffic.1.target=3", "sim.seed=9",
    ])
    assert out["routing"]["algorithm"] == "ugal"
    assert out["traffic"][0]["load"] == 0.4
    assert out["traffic"][1]["target"] == 3
    assert out["sim"]["seed"] == 9
    assert cfg["traffic"][0]["load"] == 0.2, "overrides must not touch the input"


@pytest.mark.parametrize(
    "override, message",
    [
        ("traffic.nobody.load=0.1", "victim, aggressor"),
        ("job.0.nodes=4", "no [[job]] entries"),
        ("traffic.7.load=0.1", "0..1"),
        ("traffic.load=0.1", "by name or position"),
        ("sim.seed.x=1", None),
        ("routing.algorithm", "key=value"),
        ("=3", "key=value"),
    ],
)
def test_bad_overrides_explain_the_fix(override, message):
    cfg = apply_overrides(load_config("examples/incast-mix"), ["sim.seed=1"])
    with pytest.raises(ConfigError) as err:
        apply_overrides(cfg, [override])
    if message:
        assert message in str(err.value)


def test_without_drops_named_sources_and_rejects_unknown_names():
    cfg = load_config("examples/incast-mix")
    assert [s["name"] for s in without(cfg, ["aggressor"])["traffic"]] == ["victim"]
    assert len(cfg["traffic"]) == 2
    jobs = dict(cfg, job=[{"name": "lammps"}])
    assert without(jobs, ["lammps"])["job"] == []
    with pytest.raises(ConfigError, match="victim, aggressor"):
        without(cfg, ["nobody"])


def test_resolve_combines_everything_and_to_json_round_trips():
    cfg = resolve("examples/incast-mix", ["traffic.victim.load=0.3"], ["aggressor"], seed=4)
    assert cfg["sim"]["seed"] == 4
    assert [s["name"] for s in cfg["traffic"]] == ["victim"]
    assert json.loads(to_json(cfg)) == cfg
    with pytest.raises(ConfigError, match="sim.seed"):
        resolve("examples/incast-mix", seed=-1)
