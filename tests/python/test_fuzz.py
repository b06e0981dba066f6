"""Property-based fuzzing (issue 15): generated configs, ``--set`` overrides, API
calls and damaged DUMPI traces must each end in a result or a clear error
(``ConfigError``, ``OSError``, or the CLI's ``error:`` line with exit status
2) within 10 s: no panic, no abort, no hang, no traceback.

Cases run in a child process (``fuzz_worker.py``) so a crash or a hang is
caught and named, not fatal to the test run. The default run tries a few
hundred cases with a fixed seed; the ``slow`` tests try
``SLINGSIM_FUZZ_CASES`` (default 2,000) cases split over the four kinds,
with a new random seed each run::

    SLINGSIM_FUZZ_CASES=100000 pytest -m slow tests/python/test_fuzz.py
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from engine_findings import known_finding
from fuzz_harness import Worker, check, slow_cases
from fuzz_strategies import (
    TINY_TOPOLOGY,
    TRACE,
    damage,
    fuzzed_config,
    override,
    run_calls,
    simulation_steps,
    toml_document,
    trace_damage,
)
from hypothesis import strategies as st

from slingsim.config import resolve

KINDS = 4
"""Fuzz tests per run (configs, overrides, API calls, traces): the slow cases are split over them."""


def fuzz_settings(examples: int, slow: bool = False):
    """Hypothesis settings of a fuzz test: ``examples`` cases, no deadline (each case has its
    own time bound), no example database; the default run is derandomized so it is repeatable."""
    return settings(max_examples=examples, deadline=None, database=None, derandomize=not slow,
                    suppress_health_check=list(HealthCheck), print_blob=True)


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    """One worker process for the module's cases, with a result store of its own."""
    store = tmp_path_factory.mktemp("fuzz-store")
    running = Worker({"SLINGSIM_CACHE": str(store), "SLINGSIM_PROGRESS": "0"})
    yield running
    running.close()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Where the cases' config files and trace copies are written."""
    return tmp_path_factory.mktemp("fuzz-cases")


LONGEST_NS = 1e7
"""Longest simulated time a case may ask for: 10 ms of the small dragonfly at full load take
seconds, and a user who asks for hours of simulated time gets a long run, not a hang."""


def skip_known_findings(config, overrides=()) -> None:
    """Leave out configs in a known engine finding's region (engine_findings.py: its own
    regression test shows it, and the fuzzer looks for new ones) and configs that ask for
    more simulated time than a case's time bound can hold."""
    try:
        resolved = resolve(config, overrides)
    except Exception:  # noqa: BLE001 - refused before the engine: nothing known to skip
        return
    assume(known_finding(resolved) is None)
    assume(simulated_ns(resolved) <= LONGEST_NS)


def simulated_ns(cfg) -> float:
    """The simulated time a config asks for at most: warmup, window and drain, or the time
    limit when jobs or flows run (numbers the engine would refuse count as 0)."""
    sim = cfg.get("sim") if isinstance(cfg.get("sim"), dict) else {}

    def number(key, default):
        value = sim.get(key, default)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0

    window = number("warmup_ns", 10_000) + number("duration_ns", 50_000) + number("drain_ns", number("duration_ns", 50_000))
    traffic = cfg.get("traffic") if isinstance(cfg.get("traffic"), list) else []
    runs_to_limit = bool(cfg.get("job")) or any(isinstance(t, dict) and "flow_bytes" in t for t in traffic)
    return max(window, number("max_time_ns", 1e7) if runs_to_limit else 0.0)


def config_case(worker, folder, cfg, command):
    """Write ``cfg`` as a TOML file extending the small dragonfly and run ``slingsim COMMAND`` on it."""
    path = folder / "case.toml"
    path.write_text(toml_document(cfg))
    skip_known_findings(path)
    case = {"kind": "cli", "argv": [command, str(path), "--json", "--no-cache", "--quiet"][: 3 if command == "topo"
                                                                                        else 5]}
    check(worker.run(case), case)


def override_case(worker, overrides):
    argv = ["run", "examples/small-dragonfly", "--no-cache", "--quiet", "--json",
            "--set", "sim.warmup_ns=200", "--set", "sim.duration_ns=500", "--set", "sim.max_time_ns=50000"]
    for text in overrides:
        argv += ["--set", text]
    skip_known_findings("examples/small-dragonfly", [a for a in argv[6:] if a != "--set"])
    case = {"kind": "cli", "argv": argv}
    check(worker.run(case), case)


def api_case(worker, steps):
    name, args, kwargs = steps[0]
    if args and isinstance(args[0], (str, dict)) and isinstance(kwargs.get("overrides"), list):
        skip_known_findings(args[0], kwargs["overrides"])
    case = {"kind": "api", "steps": steps}
    check(worker.run(case), case)


def trace_case(worker, folder, ops):
    """Damage a copy of the checked-in trace, then read it (``trace info``) and replay it."""
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        copy = Path(scratch) / "trace"
        shutil.copytree(TRACE, copy)
        damage(copy, ops)
        info = {"kind": "cli", "argv": ["trace", "info", str(copy), "--json"]}
        check(worker.run(info), info)
        config = Path(scratch) / "replay.toml"
        config.write_text(toml_document({"topology": TINY_TOPOLOGY, "sim": {"max_time_ns": 5e6}, "traffic": [],
                                         "job": [{"name": "app", "workload": "trace", "trace": "trace"}]},
                                        extends=""))
        replay = {"kind": "cli", "argv": ["run", str(config), "--json", "--no-cache", "--quiet"]}
        check(worker.run(replay), replay)


commands = st.sampled_from(["run", "run", "topo"])


@fuzz_settings(120)
@given(cfg=fuzzed_config(), command=commands)
def test_generated_config_files_end_in_a_result_or_a_clear_error(worker, folder, cfg, command):
    config_case(worker, folder, cfg, command)


@fuzz_settings(100)
@given(overrides=st.lists(override(), min_size=1, max_size=4))
def test_generated_overrides_end_in_a_result_or_a_clear_error(worker, overrides):
    override_case(worker, overrides)


@fuzz_settings(80)
@given(steps=st.one_of(simulation_steps(), run_calls()))
def test_api_calls_with_odd_arguments_end_in_a_result_or_a_clear_error(worker, steps):
    api_case(worker, steps)


@fuzz_settings(40)
@given(ops=trace_damage())
def test_damaged_traces_end_in_a_result_or_a_clear_error(worker, folder, ops):
    trace_case(worker, folder, ops)


@pytest.mark.slow
@fuzz_settings(slow_cases(KINDS), slow=True)
@given(cfg=fuzzed_config(), command=commands)
def test_many_generated_config_files(worker, folder, cfg, command):
    config_case(worker, folder, cfg, command)


@pytest.mark.slow
@fuzz_settings(slow_cases(KINDS), slow=True)
@given(overrides=st.lists(override(), min_size=1, max_size=4))
def test_many_generated_overrides(worker, overrides):
    override_case(worker, overrides)


@pytest.mark.slow
@fuzz_settings(slow_cases(KINDS), slow=True)
@given(steps=st.one_of(simulation_steps(), run_calls()))
def test_many_api_calls(worker, steps):
    api_case(worker, steps)


@pytest.mark.slow
@fuzz_settings(slow_cases(KINDS) // 2, slow=True)
@given(ops=trace_damage())
def test_many_damaged_traces(worker, folder, ops):
    trace_case(worker, folder, ops)
