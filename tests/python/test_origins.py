"""Errors point at what the user wrote: the file and line that set a refused
field (through ``extends``, in arrays of tables by position or by name), the
``--set`` or ``seed`` that set it, or that it was left at its default; from
the API (``ConfigError``) and from the CLI (``error: ...``, exit status 2)."""
from __future__ import annotations

import pytest

from slingsim import api
from slingsim.cli import main
from slingsim.config import ConfigError
from slingsim.origins import field_name, parse_field
from slingsim.toml_lines import key_lines

SHORT = '[sim]\nwarmup_ns = 1000\nduration_ns = 2000\n'


@pytest.fixture
def mix(tmp_path):
    """A config extending the small dragonfly with two named sources, the second overloaded (line 13)."""
    path = tmp_path / "mix.toml"
    path.write_text(
        'extends = "examples/small-dragonfly"\n'  # 1
        + SHORT                                     # 2-4
        + '\n[[traffic]]\n'                        # 5-6
        'name = "a"\n'                              # 7
        'nodes = { count = 8 }\n'                   # 8
        '\n[[traffic]]\n'                          # 9-10
        'name = "b"\n'                              # 11
        'nodes = { count = 8 }\n'                   # 12
        'load = 7\n'                                # 13
    )
    return path


def refused(*args, **kwargs) -> ConfigError:
    """The error building a simulation of the config raises."""
    with pytest.raises(ConfigError) as caught:
        api.Simulation(*args, **kwargs)
    return caught.value


def test_a_field_set_in_the_users_file_is_named_with_its_line(mix):
    err = refused(mix)
    assert str(err).startswith(f"{mix}:13: traffic[1].load: ")
    assert (err.field, err.origin, err.file, err.line) == ("traffic[1].load", f"{mix}:13", mix, 13)


def test_a_field_set_by_the_file_an_extends_chain_reaches_is_named_there(tmp_path):
    (tmp_path / "base.toml").write_text('extends = "examples/small-dragonfly"\n' + SHORT + '[nic]\nmtu_payload = 0\n')
    (tmp_path / "child.toml").write_text('extends = "base"\n[sim]\nseed = 3\n')
    err = refused(tmp_path / "child.toml")
    assert str(err).startswith(f"{tmp_path / 'base.toml'}:6: nic.mtu_payload: ")
    preset = refused("examples/small-dragonfly", ["topology.radix=8"])
    assert preset.field == "topology.global_ports_per_switch"
    assert preset.file.name == "small-dragonfly.toml" and preset.line == 16


def test_entries_of_arrays_of_tables_are_found_after_sources_are_dropped(mix):
    # Without "a", "b" is traffic[0] for the engine; the line is still b's own.
    err = refused(mix, without=["a"])
    assert err.field == "traffic[0].load" and err.line == 13


def test_jobs_are_located_by_position_and_dotted_and_inline_keys_too(tmp_path):
    path = tmp_path / "jobs.toml"
    path.write_text(
        'extends = "examples/small-dragonfly"\ntraffic = []\n'  # 1-2
        '[[job]]\nname = "x"\nworkload = "barrier"\nnodes = { count = 4 }\n'  # 3-6
        '[[job]]\nname = "y"\nworkload = "barrier"\n'  # 7-9
        'nodes.count = 100000\n'  # 10
    )
    err = refused(path)
    assert err.field.startswith("job[1].nodes") and err.line == 10, err


def test_a_field_set_by_an_override_names_the_override(mix):
    err = refused(mix, ["traffic.b.load=9"])
    assert str(err).startswith("override 'traffic.b.load=9': traffic[1].load: ")
    assert err.origin == "override 'traffic.b.load=9'" and err.file is None


def test_a_field_left_at_its_default_says_so(tmp_path):
    path = tmp_path / "wide.toml"
    path.write_text('[topology]\nendpoints_per_switch = 60\n[[traffic]]\nload = 0.1\n')
    err = refused(path)
    assert err.field == "topology.global_ports_per_switch" and err.origin == "default"
    assert str(err).endswith("(not set in the config: this is its default)")


def test_a_refused_seed_names_the_seed():
    with pytest.raises(ConfigError, match=r"sim.seed: 18446744073709551616 is not an integer from 0 to 2\^64 - 1"):
        api.resolved_config("examples/small-dragonfly", seed=2**64)


def test_a_dict_config_gets_no_place_but_loses_the_engines_json_position():
    err = refused({"topology": {"groups": 4}, "sim": {"foo": 1}, "traffic": [{"load": 0.1}]})
    assert err.field == "sim.foo" and err.origin is None
    assert " at line " not in str(err) and "column" not in str(err)


def test_the_cli_prints_the_place_without_a_traceback(mix, capsys):
    assert main(["run", str(mix), "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {mix}:13: traffic[1].load: ") and "Traceback" not in err
    assert main(["run", str(mix), "--set", "traffic.b.load=9", "--no-cache"]) == 2
    assert capsys.readouterr().err.startswith("error: --set traffic.b.load=9: traffic[1].load: ")
    assert main(["topo", str(mix), "--set", "sim.bogus=1"]) == 2
    assert capsys.readouterr().err.startswith("error: --set sim.bogus=1: sim.bogus: unknown field")


def test_the_cli_names_the_sweeps_loads_for_a_load_it_set(capsys, tmp_path):
    argv = ["sweep-load", "examples/small-dragonfly", "--loads", "0.1,1.5", "--set", "sim.duration_ns=1000",
            "--scheduler", "sync", "--no-cache", "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("error: --loads 0.1,1.5: traffic[0].load: ")


def test_field_paths_convert_both_ways():
    assert parse_field("traffic[1].nodes.count") == ("traffic", 1, "nodes", "count")
    assert field_name(("links", "failed", 0, "port")) == "links.failed[0].port"


def test_key_lines_follow_headers_arrays_of_tables_dotted_and_inline_keys():
    text = (
        '# comment\n'                                   # 1
        '[topology]\n'                                  # 2
        'groups = 9  # trailing\n'                      # 3
        '"quoted.key" = 1\n'                            # 4
        '[[traffic]]\n'                                 # 5
        'nodes = { count = 8 }\n'                       # 6
        '[[traffic]]\n'                                 # 7
        'list = [\n  1,\n  """two\nlines""",\n  { k = 3 },\n]\n'  # 8-13
        'after = 1\n'                                   # 14
        '[traffic.nodes]\n'                             # 15
        'count = 3\n'                                   # 16
        '[links]\nfailed = [{ switch = 0 },\n  { port = 2 }]\n'  # 17-19
    )
    lines = key_lines(text)
    expected = {
        ("topology", "groups"): 3, ("topology", "quoted.key"): 4, ("traffic", 0): 5,
        ("traffic", 0, "nodes", "count"): 6, ("traffic", 1): 7, ("traffic", 1, "list", 1): 10,
        ("traffic", 1, "list", 2, "k"): 12, ("traffic", 1, "after"): 14, ("traffic", 1, "nodes", "count"): 16,
        ("links", "failed", 1, "port"): 19,
    }
    assert {key: lines.get(key) for key in expected} == expected


def test_key_lines_never_raise_on_what_they_do_not_follow():
    assert key_lines("a = 1\n???") == {("a",): 1}
