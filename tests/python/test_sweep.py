"""Fanning runs out (serially here) and sweeping offered load."""
import pytest

import slingsim
from slingsim.config import ConfigError, load_config
from slingsim.sweep import LOAD_CURVE_COLUMNS, check_loads, configs_at_loads, run_many, sweep_load


def test_load_sweep_table_in_input_order(small_config):
    table = sweep_load(small_config, [0.3, 0.1], scheduler="sync", label="minimal")
    assert table.column_names == list(LOAD_CURVE_COLUMNS) + ["label"]
    assert table.column("load").to_pylist() == [0.3, 0.1]
    offered = table.column("offered_load").to_pylist()
    assert offered[0] > offered[1]


def test_run_many_keeps_input_order(small_config):
    configs = configs_at_loads(small_config, [0.2, 0.05])
    results = run_many(configs, scheduler="sync")
    assert [r.config["traffic"][0]["load"] for r in results] == [0.2, 0.05]
    assert all(isinstance(r, slingsim.Result) for r in results)


def test_local_thread_cluster_gives_the_same_results_as_serial(small_config):
    configs = configs_at_loads(small_config, [0.1, 0.2])
    serial = [r.summary["events"] for r in run_many(configs, scheduler="sync")]
    threaded = [r.summary["events"] for r in run_many(configs, workers=2)]
    assert threaded == serial


def test_named_source_is_the_only_one_swept():
    cfg = load_config("examples/incast-mix")
    configs = configs_at_loads(cfg, [0.7], source="victim")
    assert [s["load"] for s in configs[0]["traffic"]] == [0.7, 0.5]
    with pytest.raises(ConfigError, match="victim, aggressor"):
        configs_at_loads(cfg, [0.7], source="nobody")


def test_flow_sources_are_not_swept():
    cfg = load_config("examples/permutation-flows")
    with pytest.raises(ConfigError, match="flow_bytes"):
        configs_at_loads(cfg, [0.5])


@pytest.mark.parametrize("loads, message", [([-0.1], "negative"), (["x"], "not a number"), ([], "empty")])
def test_bad_loads_are_rejected(loads, message):
    with pytest.raises(ValueError, match=message):
        check_loads(loads)


def test_unknown_scheduler_is_explained(small_config):
    with pytest.raises(ValueError, match="tcp://host:port"):
        run_many([small_config], scheduler="bogus")


def test_an_existing_scheduler_is_used_by_address(small_config):
    """`scheduler="tcp://..."` sends the tasks to a running Dask scheduler and its workers."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        configs = configs_at_loads(small_config, [0.1, 0.2])
        remote = [r.summary["events"] for r in run_many(configs, scheduler=cluster.scheduler_address)]
    assert remote == [r.summary["events"] for r in run_many(configs, scheduler="sync")]


def test_configs_carrying_large_programs_run_without_a_dask_warning(small_config, recwarn):
    """A study's configs may hold whole MPI programs (megabytes); Dask's "large graph" warning about
    them is noise to the user, so the sweep does not let it through (threshold lowered to see it)."""
    import dask

    configs = configs_at_loads(small_config, [0.1, 0.2])
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "1B"}):
        run_many(configs, workers=1, cache=False)
    assert not [w for w in recwarn if "large graph" in str(w.message)]
