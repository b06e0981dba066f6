"""[DeSensi19] Table 1: an idle job's router counters grow with time, not with traffic of its own."""
import pyarrow as pa
import pytest

from slingsim.experiments import aries_idle_counters as m
from slingsim.experiments.allocation import shape
from slingsim.experiments.placement import NodeLayout


def test_the_idle_job_has_the_papers_shape_and_other_jobs_in_its_group():
    cfg, job, background = m.run_config(1e6)
    layout = NodeLayout(cfg["topology"])
    assert shape(layout, job) == m.JOB_SHAPE
    setup = m.check_setup(layout, job, background)
    assert setup["background_nodes_in_group"] > 0
    assert cfg["sim"]["warmup_ns"] == 0 and cfg["sim"]["duration_ns"] == 1e6
    ops = cfg["job"][0]["program"]["ops"]
    assert len(ops) == 16 and all(o[0] == {"op": "compute", "ns": 1e6} for o in ops)
    assert not any(op["op"] in ("send", "isend", "put") for rank in ops for op in rank)


def test_a_job_without_neighbours_is_refused():
    cfg, job, _ = m.run_config(1e6)
    with pytest.raises(RuntimeError, match="no other job"):
        m.check_setup(NodeLayout(cfg["topology"]), job, [])


def test_router_counters_count_links_into_and_out_of_the_routers():
    links = pa.table({"src_switch": [1, 2, 3, -1], "dst_switch": [2, 1, 1, 3], "bytes": [160, 17, 0, 32],
                      "stalled_ns": [5.0, 7.0, 11.0, 0.0]})
    got = m.router_counters(links, {1, 3}, 16)
    # Into 1 or 3: 17 B (2 flits), 0 B, 32 B (2 flits); out of 1 or 3: 5 + 11 ns.
    assert got == {"incoming_flits": 4.0, "stalled_ns": 16.0}


def _row(wait, flits, stalled):
    return {"wait_ms": wait, "incoming_flits": flits, "stalled_ns": stalled, "flits_per_s": flits / wait * 1e3,
            "stalled_cycles_per_s": stalled / wait * 1e3, "job_messages": 0}


def test_counters_proportional_to_time_are_what_the_paper_saw():
    k = m.key_figures([_row(2, 200, 50), _row(1, 100, 26)], {})
    assert k["counters_grow_with_time"] and k["rates_unchanged"] and k["job_sent_nothing"]
    assert k["flits_ratio"] == 2 and k["time_ratio"] == 2


def test_counters_that_do_not_follow_time_fail_the_check():
    k = m.key_figures([_row(1, 100, 20), _row(2, 110, 22)], {})
    assert k["counters_grow_with_time"] and not k["rates_unchanged"]
    k = m.key_figures([_row(1, 100, 20), _row(2, 100, 40)], {})
    assert not k["counters_grow_with_time"]


def test_a_wait_pools_its_counters_over_the_backgrounds():
    """Each background's counters less its own lead-in, summed, and the rates over the summed time: a
    background whose stalls are rare weighs as little as it counts."""
    nic = {"flit_bytes": 16, "bandwidth_bps": 128e9}  # one 16 B flit per ns
    quiet = ({"incoming_flits": 1100.0, "stalled_ns": 41.0, "measured_ns": 14e6, "job_messages": 0},
             {"incoming_flits": 100.0, "stalled_ns": 40.0, "measured_ns": 4e6, "job_messages": 0})
    busy = ({"incoming_flits": 5000.0, "stalled_ns": 3000.0, "measured_ns": 14e6, "job_messages": 0},
            {"incoming_flits": 1000.0, "stalled_ns": 1000.0, "measured_ns": 4e6, "job_messages": 0})
    row = m.pooled_row(10e6, [quiet, busy], nic)
    assert row["measured_ms"] == 20.0 and row["incoming_flits"] == 5000.0
    assert row["stalled_cycles"] == pytest.approx(2001.0)
    assert row["flits_per_s"] == pytest.approx(5000.0 / 0.02)
    assert m.row_of(10e6, *quiet, nic)["incoming_flits"] == 1000.0


def test_every_background_draw_shares_the_idle_jobs_group_and_differs():
    drawn = [m.run_config(1e6, seed) for seed in m.BACKGROUND_SEEDS]
    layout = NodeLayout(drawn[0][0]["topology"])
    assert all(job == drawn[0][1] for _, job, _ in drawn)  # one idle job, several neighbourhoods
    for _, job, background in drawn:
        assert m.check_setup(layout, job, background)["background_nodes_in_group"] > 0
    assert len({tuple(tuple(j["nodes"]["list"]) for j in bg) for _, _, bg in drawn}) == len(m.BACKGROUND_SEEDS)


@pytest.mark.slow
def test_quick_run_doubles_the_counters_with_the_wait(tmp_path):
    table = m.run_aries_idle_counters(tmp_path / "out", quick=True, workers=1, progress=False, cache=False)
    import json

    checks = json.loads(table.schema.metadata[b"slingsim.checks"])
    assert checks["setup_checked"] and checks["job_sent_nothing"]
    assert checks["counters_grow_with_time"] and checks["rates_unchanged"], checks


def test_a_waits_counters_are_its_run_less_the_lead_in():
    """The background starts with the run; a wait is read from the lead-in on, as its run's counters less
    those of the run that ends at the lead-in (the same background up to there)."""
    nic = {"flit_bytes": 16, "bandwidth_bps": 128e9}  # one 16 B flit per ns
    lead = {"incoming_flits": 100.0, "stalled_ns": 40.0, "measured_ns": 4e6, "job_messages": 0}
    run = {"incoming_flits": 1100.0, "stalled_ns": 240.0, "measured_ns": 14e6, "job_messages": 0}
    row = m.row_of(10e6, run, lead, nic)
    assert row["measured_ms"] == 10.0 and row["incoming_flits"] == 1000.0
    assert row["stalled_cycles"] == pytest.approx(200.0) and row["flits_per_s"] == pytest.approx(1e5)


class _Run:
    """What counters_at reads of a run: summary, config, links and link_snapshots."""

    def __init__(self, taken):
        self.summary = {"link_snapshots": {"asked_ns": [4e6], "taken_ns": taken}, "end_reason": "jobs_done",
                        "jobs": {"idle": {"messages": 0}}}
        self.config = {"nic": {"flit_bytes": 16}}
        self.links = pa.table({"src_switch": [1, 2, -1], "dst_switch": [2, 1, 1]})
        rows = 3 * len(taken)
        self.link_snapshots = pa.table({"t_ns": [t for t in taken for _ in range(3)], "channel": [0, 1, 2] * len(taken),
                                        "bytes": [160, 17, 32][:rows], "stalled_ns": [5.0, 7.0, 0.0][:rows]})


class _Layout:
    def switches(self, node):
        return [1]


def test_counters_at_read_the_links_at_that_time_and_refuse_a_time_not_read():
    got = m.counters_at(4e6, _Run([4e6]), [0], _Layout())
    # Into router 1: 17 B (2 flits) and 32 B (2 flits); out of it: 5 ns.
    assert got == {"incoming_flits": 4.0, "stalled_ns": 5.0, "measured_ns": 4e6, "job_messages": 0}
    with pytest.raises(RuntimeError, match="did not read its links at 4 ms"):
        m.counters_at(4e6, _Run([]), [0], _Layout())


def test_one_run_per_background_reads_the_lead_in_and_the_shorter_wait_on_the_way():
    cfg, _, _ = m.run_config(24e6, 1, read_at_ns=(4e6, 14e6))
    assert cfg["sim"]["link_snapshots_ns"] == [4e6, 14e6] and cfg["sim"]["duration_ns"] == 24e6
    assert "link_snapshots_ns" not in m.run_config(24e6, 1)[0]["sim"]
