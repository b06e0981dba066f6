"""Issue 15's Python-side reproducers, each a regression test: values JSON
cannot carry refused by name, tables not silently swapped for defaults, deep
keys, closed pipes, ``slingsim topo`` checking the whole config,
``slingsim.trace`` without its own import, and API calls with odd arguments."""
from __future__ import annotations

import math
import re
import subprocess
import sys

import pytest

import slingsim
from slingsim import api
from slingsim.cli import main
from slingsim.config import ConfigError, apply_overrides, resolve, to_json

SMALL = "examples/small-dragonfly"
TINY = ["sim.warmup_ns=500", "sim.duration_ns=1000"]


def cli_error(argv, capsys) -> str:
    """The one ``error:`` line of a command that must exit with status 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("text, shown", [("nan", "nan"), ("inf", "inf"), ("-inf", "-inf"), ("+inf", "inf")])
def test_nan_and_infinities_are_refused_by_key_not_by_json_position(text, shown, tmp_path, capsys):
    err = cli_error(["run", SMALL, "--set", f"sim.duration_ns={text}", "--no-cache"], capsys)
    assert err == (f"error: --set sim.duration_ns={text}: sim.duration_ns: {shown} is not a finite number; "
                   "give a finite number (docs/config.md gives each key's range)\n")
    path = tmp_path / "nan.toml"
    path.write_text(f'extends = "{SMALL}"\n[links]\nbit_error_rate = {text}\n')
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))}:3: links.bit_error_rate: {shown} is not a finite number"):
        api.resolved_config(path)


def test_nan_inside_lists_and_dicts_given_to_the_api_is_named():
    cfg = apply_overrides(slingsim.load_config(SMALL), ["links.failed=[{switch = 0, port = 9, at_ns = nan}]"])
    with pytest.raises(ConfigError, match=r"^override 'links.failed=.*': links.failed\[0\].at_ns: nan is not"):
        api.resolved_config(SMALL, ["links.failed=[{switch = 0, port = 9, at_ns = nan}]"])
    with pytest.raises(ConfigError, match=r"^links.failed\[0\].at_ns: nan is not a finite number"):
        api.resolved_config(cfg)
    with pytest.raises(ConfigError, match=r"sim.duration_ns: inf is not a finite number"):
        to_json({"sim": {"duration_ns": math.inf}})


@pytest.mark.parametrize("value", [2**64, 10**30, -(2**63) - 1])
def test_integers_outside_64_bits_are_refused_as_integers_not_described_as_floats(value, capsys):
    err = cli_error(["run", SMALL, "--set", f"topology.groups={value}"], capsys)
    assert f"topology.groups: {value} is out of range: a config's integers lie between -2^63 and 2^64 - 1" in err
    assert "floating point" not in err
    assert api.resolved_config(SMALL, [f"sim.seed={2**64 - 1}"])["sim"]["seed"] == 2**64 - 1


def test_a_deep_override_key_is_a_clear_error_not_a_recursion_error(capsys):
    err = cli_error(["run", SMALL, "--set", "a" + ".x" * 5000 + "=1"], capsys)
    assert "the key has 5001 parts; a config's keys sit at most 32 levels down" in err
    err = cli_error(["run", SMALL, "--set", "sim.seed=" + "[" * 5000 + "]" * 5000], capsys)
    assert "nested" in err and "recursion" not in err


def test_a_deeply_nested_toml_file_is_refused_with_its_name(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("a" + ".b" * 3000 + " = 1\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))}: a.b.b.b... is nested more than 32 levels deep"):
        slingsim.load_config(path)


@pytest.mark.parametrize("override", ["topology=[]", "sim=[]", "routing=[]", 'topology=["dragonfly", 2]',
                                      "nic=3", 'qos="x"', "traffic=[[]]", "traffic={}",
                                      "links.failed=[[0, 9, 0]]"])
def test_a_table_is_never_swapped_for_a_list_or_value_by_an_override(override, capsys):
    key = override.partition("=")[0]
    err = cli_error(["run", SMALL, "--set", override, "--no-cache"], capsys)
    assert err.startswith(f"error: --set {override}: {key}")
    assert "set its keys instead" in err or "give a list of tables" in err
    with pytest.raises(ConfigError, match=f"^override '{re.escape(override)}': {key}"):
        apply_overrides(slingsim.load_config(SMALL), [override])


@pytest.mark.parametrize("text, field", [("topology = []", "topology"), ('sim = "fast"', "sim"),
                                         ("traffic = [[1]]", "traffic[0]"), ("job = 1", "job")])
def test_a_table_is_never_swapped_for_a_list_or_value_by_a_toml_file(text, field, tmp_path):
    path = tmp_path / "swap.toml"
    path.write_text(f'extends = "{SMALL}"\n{text}\n')
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))}:2: {re.escape(field)}: holds a"):
        api.resolved_config(path)


def test_replacing_a_table_by_a_table_and_emptying_a_list_still_work():
    cfg = resolve(SMALL, ["topology={groups = 3, switches_per_group = 2, endpoints_per_switch = 2, "
                          "global_ports_per_switch = 1}", "traffic=[]", "job=[{workload = \"barrier\"}]"])
    assert cfg["topology"]["groups"] == 3 and cfg["traffic"] == []


def test_a_closed_pipe_ends_the_command_quietly():
    for argv in (["topo", "slingshot-malbec", "--json"], ["--help"], ["cache", "info"]):
        status, err = _closed_pipe_run(argv)
        assert status == (0 if argv == ["--help"] else 141) and err == "", (argv, status, err)  # argparse ignores it


def _closed_pipe_run(argv):
    """Run the CLI with its stdout a pipe whose reader has already gone; its status and stderr."""
    code = f"import sys; from slingsim.cli import main; sys.exit(main({argv!r}))"
    reader_gone = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader_gone.stdout.close()
    _, err = reader_gone.communicate(timeout=60)
    return reader_gone.returncode, err.decode()


def test_topo_checks_every_key_of_the_config_not_only_the_topology(capsys):
    err = cli_error(["topo", SMALL, "--set", "traffic.0.nodes={count = 2, foo = 1}"], capsys)
    assert "traffic[0].nodes" in err
    err = cli_error(["topo", SMALL, "--set", "traffic.0.load=7"], capsys)
    assert err.startswith("error: --set traffic.0.load=7: traffic[0].load: ")
    assert main(["topo", SMALL, "--set", "traffic=[]", "--json"]) == 0  # a topology alone is enough for topo


def test_slingsim_trace_works_after_import_slingsim_alone():
    done = subprocess.run([sys.executable, "-c", "import slingsim; print(slingsim.trace.info.__name__, "
                           "slingsim.trace.load.__name__)"], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["info", "load"], done.stderr


def test_simulation_calls_with_odd_arguments_are_refused_by_name():
    sim = api.Simulation(SMALL, TINY)
    for call, field in ((lambda: sim.run_until(math.nan), "t_ns"), (lambda: sim.run_until(-1), "t_ns"),
                        (lambda: sim.run_until("5"), "t_ns"), (lambda: sim.send(-1, 2, 10), "src"),
                        (lambda: sim.send(0, 2**40, 10), "dst"), (lambda: sim.send(0, 1, 1.5), "nbytes"),
                        (lambda: sim.send(0, 1, 8, routing=3), "routing"), (lambda: sim.flow_end_ns(None), "flow")):
        with pytest.raises(ConfigError) as caught:
            call()
        assert caught.value.field == field and str(caught.value).startswith(f"{field}: ")
    assert sim.run_until(math.inf) is True  # to the end


@pytest.mark.parametrize("kwargs, message", [
    ({"overrides": "sim.seed=3"}, "overrides: 'sim.seed=3' is one string; give a list"),
    ({"overrides": [3]}, "override 3: expected a key=value string"),
    ({"without": "uniform"}, "without: 'uniform' is one string"),
    ({"seed": -1}, "sim.seed: -1 is not an integer"),
    ({"seed": 1.5}, "sim.seed: 1.5 is not an integer"),
])
def test_run_with_odd_arguments_is_refused_by_name(kwargs, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("(", r"\(")):
        slingsim.run(SMALL, **kwargs)
    with pytest.raises(ConfigError, match="config: 3 is a int; give a preset name"):
        slingsim.run(3)


def test_a_source_renamed_to_a_number_is_still_addressed_and_listed(capsys):
    """Found by the fuzz tests: listing the known names failed on a name that is not a string."""
    err = cli_error(["run", SMALL, "--set", "traffic.0.name=0", "--set", "traffic.uniform.load=0.1"], capsys)
    assert "no traffic entry named 'uniform'; known names: 0" in err


@pytest.mark.parametrize("cfg, names, field", [
    ({"extends": "slingshot-malbec", "traffic": 5}, ["x"], "traffic: must be a list of tables"),
    ({"extends": "slingshot-malbec", "job": "abc"}, ["x"], "job: must be a list of tables"),
    ("slingshot-malbec", 3, "without: 3 is not a list of names"),
])
def test_without_on_a_spoiled_list_or_a_non_list_is_a_clear_error(cfg, names, field):
    # Found by the API fuzzer: a traffic list given as a number made `without` raise a TypeError.
    with pytest.raises(ConfigError, match=re.escape(field)):
        api.run_summary(cfg, without=names, cache=False)
