"""The fuzz harness itself: it must see a crash, a hang and a traceback for what they are,
and carry on with a fresh worker after each."""
from __future__ import annotations

import pytest

from fuzz_harness import Worker, case_text, verdict


@pytest.fixture(scope="module")
def worker():
    running = Worker()
    yield running
    running.close()


def test_an_abort_is_a_crash_and_the_next_case_gets_a_new_worker(worker):
    outcome = worker.run({"kind": "probe", "do": "abort"})
    assert "crash" in outcome and "died with status" in verdict(outcome)
    fine = worker.run({"kind": "cli", "argv": ["--version"]})
    assert fine["exit"] == 0 and verdict(fine) is None


def test_a_case_past_its_time_bound_is_a_hang(worker):
    outcome = worker.run({"kind": "probe", "do": "sleep"}, seconds=0.5)
    assert verdict(outcome) == "no answer within 0.5 s (hang)"


def test_an_unclear_exception_is_a_traceback_and_clear_errors_pass(worker):
    assert "not a clear error" in verdict(worker.run({"kind": "probe", "do": "raise"}))
    refused = worker.run({"kind": "cli", "argv": ["run", "no-such-preset"]})
    assert refused["exit"] == 2 and verdict(refused) is None
    api = worker.run({"kind": "api", "steps": [("resolved_config", ("no-such-preset",), {})]})
    assert api["error"][0] == "ConfigError" and verdict(api) is None


def test_cli_outcomes_that_are_not_allowed():
    assert "traceback" in verdict({"exit": 1, "stderr": "Traceback (most recent call last):"})
    assert "without an error" in verdict({"exit": 2, "stderr": "oops"})
    assert "exit status 1" in verdict({"exit": 1, "stderr": "error: disk full"})
    assert verdict({"exit": 3, "stderr": "deadlock"}) is None


def test_cases_read_as_reproducers():
    assert case_text({"kind": "cli", "argv": ["run", "x", "--set", "a=[1, 2]"]}) == "slingsim run x --set 'a=[1, 2]'"
    assert case_text({"kind": "api", "steps": [("Simulation", ("x",), {"seed": 2})]}) == "Simulation('x', seed=2)"
