"""Fragmented allocations, the background of other jobs and the Piz Daint and Cori presets ([DeSensi19] Sec. 5)."""
import json
import subprocess

import pytest

from slingsim.config import load_config
from slingsim.experiments.allocation import BACKGROUND_MIX, Shape, background_jobs, fragmented, shape
from slingsim.experiments.placement import NodeLayout


@pytest.fixture(scope="module")
def daint():
    return NodeLayout(load_config("aries-daint")["topology"])


@pytest.fixture(scope="module")
def cori():
    return NodeLayout(load_config("aries-cori")["topology"])


def test_the_papers_job_shapes_are_drawn_exactly(daint, cori):
    # [DeSensi19] Sec. 5.1: 1024 nodes on 257 routers over 6 groups (Daint), 64 on 33 over 5 (Cori).
    for layout, (n, r, g) in ((daint, (1024, 257, 6)), (cori, (64, 33, 5))):
        for seed in (0, 1, 7):
            nodes = fragmented(layout, n, r, g, seed)
            assert shape(layout, nodes) == Shape(n, r, g)
            assert nodes == sorted(set(nodes)) and all(0 <= x < layout.nodes for x in nodes)


def test_an_allocation_is_seeded_and_avoids_excluded_nodes(cori):
    a = fragmented(cori, 64, 33, 5, seed=3)
    assert a == fragmented(cori, 64, 33, 5, seed=3)
    assert a != fragmented(cori, 64, 33, 5, seed=4)
    b = fragmented(cori, 64, 33, 5, seed=3, exclude=a)
    assert not set(a) & set(b)


def test_impossible_shapes_are_refused_with_the_fix(cori):
    with pytest.raises(ValueError, match="ask for at least 16 routers"):
        fragmented(cori, 64, 10, 5, seed=0)
    with pytest.raises(ValueError, match="groups"):
        fragmented(cori, 64, 33, 40, seed=0)
    with pytest.raises(ValueError, match="routers"):
        fragmented(cori, 64, 33, 0, seed=0)


def test_background_fills_the_asked_share_of_free_nodes_in_the_asked_groups(cori):
    job = fragmented(cori, 64, 33, 5, seed=1)
    groups = {cori.group(n) for n in job}
    jobs = background_jobs(cori, job, 0.5, seed=2, groups=groups)
    used = [n for j in jobs for n in j["nodes"]["list"]]
    free = len(groups) * cori.per_group - len(job)
    assert len(used) == len(set(used)) and not set(used) & set(job)
    assert {cori.group(n) for n in used} <= groups
    assert 0.5 * free - 16 <= len(used) <= 0.5 * free
    assert all(j["repeat"] for j in jobs)
    assert {j["workload"] for j in jobs} <= {w.workload for w in BACKGROUND_MIX}
    assert jobs == background_jobs(cori, job, 0.5, seed=2, groups=groups)
    with pytest.raises(ValueError, match="occupancy"):
        background_jobs(cori, job, 1.5, seed=2)


def test_the_background_mix_offers_about_one_percent_of_a_node(cori):
    # Per node: halo3d 6 faces, milc 8 neighbours, alltoall to up to 127 peers, bcast the buffer once.
    per_iteration = {"halo3d": 6, "milc": 8, "alltoall": 127, "bcast": 1, "allreduce": 1}
    node_bytes_per_ns = 81.6 / 8
    for w in BACKGROUND_MIX:
        load = per_iteration[w.workload] * w.bytes / w.compute_ns / node_bytes_per_ns
        assert load < 0.02, (w, load)


@pytest.mark.parametrize("preset,groups,nodes", [("aries-daint", 20, 7680), ("aries-cori", 34, 13056)])
def test_the_aries_system_presets_describe_themselves(preset, groups, nodes):
    out = subprocess.run(["slingsim", "topo", preset, "--json"], capture_output=True, text=True, check=True)
    topo = json.loads(out.stdout)
    assert topo["kind"] == "aries" and topo["groups"] == groups and topo["nodes"] == nodes
    assert topo["switches"] == groups * 96


def test_background_problems_name_what_keeps_it_from_the_job(cori):
    from slingsim.experiments.allocation import background_problems

    job = fragmented(cori, 64, 33, 5, seed=1)
    groups = {cori.group(n) for n in job}
    good = background_jobs(cori, job, 0.5, seed=2, groups=groups)
    assert background_problems(cori, job, good) == []
    assert background_problems(cori, job, []) == ["the background is empty: raise its occupancy"]
    on_job = [{"name": "x", "nodes": {"list": job[:2]}}]
    assert any("2 of the job's nodes" in p for p in background_problems(cori, job, on_job))
    elsewhere = background_jobs(cori, job, 0.1, seed=2, groups=set(range(34)) - groups)
    problems = background_problems(cori, job, elsewhere)
    assert any("outside the job's groups" in p for p in problems)
    assert any("misses the job's groups" in p for p in problems)
