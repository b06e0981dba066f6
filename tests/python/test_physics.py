"""Physics the engine must show (issue 2, "Must show"), checked through the Python API.

Most runs use the small balanced dragonfly (``examples/small-dragonfly``:
9 groups x 4 switches x 4 endpoints, one 200 Gb/s global link per group
pair, 100 Gb/s NICs), where every bound is known in closed form and a run
takes well under a second.
"""
import pytest

import slingsim

from conftest import SMALL

MEASURE = ["sim.warmup_ns=10000", "sim.duration_ns=30000"]
"""Window for load measurements: 10 us to fill the buffers, 30 us measured."""


def small_run(*overrides, preset=SMALL, seed=None, cache=True):
    """Summary of one run of ``preset`` with the measurement window and ``overrides``."""
    return slingsim.run(preset, overrides=[*MEASURE, *overrides], seed=seed, cache=cache).summary


def accepted(pattern, routing, load, *extra):
    """Accepted load of one source of ``pattern`` under ``routing`` at offered ``load``."""
    return small_run(f"traffic.0.pattern={pattern}", f"routing.algorithm={routing}",
                     f"traffic.0.load={load}", *extra)["accepted_load"]


# --- preset figures (MODEL.md Sec. 9) -------------------------------------

def test_malbec_figures():
    topo = slingsim.topology("slingshot-malbec")
    assert topo["switches"] == 32
    assert topo["endpoints"] == 512 and topo["nodes"] == 484
    assert topo["links"]["global"] == 6 * 16  # 16 links per pair of the 4 groups
    assert topo["global_bw_Bps"] == pytest.approx(4.8e12, rel=1e-9)  # 002 Sec. II-F


def test_shandy_figures():
    topo = slingsim.topology("slingshot-shandy")
    assert topo["switches"] == 128
    assert topo["endpoints"] == 2048 and topo["nodes"] == 1024
    assert topo["links"]["global"] == 224  # 28 group pairs x 8 links (000 Sec. II-G)
    assert topo["alltoall_peak_Bps"] == pytest.approx(12.8e12, rel=1e-9)  # 002 Sec. II-F
    assert topo["bisection_bw_Bps"] == pytest.approx(6.4e12, rel=1e-9)  # 000 Sec. II-G


def test_largest_slingshot_dragonfly_figures():
    topo = slingsim.topology("slingshot-max")
    assert topo["endpoints"] == 279_040  # 000 Sec. II-B
    assert topo["switches"] == 545 * 32
    assert topo["diameter"] == 3


def test_impossible_dragonfly_names_the_field():
    with pytest.raises(ValueError, match=r"topology\.global_ports_per_switch"):
        slingsim.topology("slingshot-malbec", ["topology.global_ports_per_switch=60"])
    with pytest.raises(ValueError, match=r"topology\."):
        slingsim.topology(SMALL, ["topology.groups=40"])  # 4 x 2 global ports cannot reach 39 groups


def test_unknown_routing_and_negative_load_name_the_field():
    with pytest.raises(ValueError, match=r"routing\.algorithm"):
        slingsim.run(SMALL, overrides=["routing.algorithm=shortest-ish"])
    with pytest.raises(ValueError, match=r"traffic.*load"):
        slingsim.run(SMALL, overrides=["traffic.uniform.load=-0.1"])


# --- zero-load latency -----------------------------------------------------

TERMINAL_NS = LOCAL_NS = 10 + 50  # propagation + FEC per traversal (docs/config.md defaults)
GLOBAL_NS = 100 + 50
SWITCH_NS = 290  # the mean fall-through; the test gives every output this one
ROCE_OVERHEAD = 62 + 20  # headers + preamble/gap, bytes


@pytest.mark.parametrize(
    "nodes, local_links, global_links",
    [([0, 1], 0, 0),     # two endpoints of switch 0
     ([0, 4], 1, 0),     # switch 0 to switch 1 of the same group
     ([0, 16], 0, 1),    # group 0 to group 1: the link joins their first switches
     ([0, 143], 2, 1)],  # first to last switch of the network: the 3-hop diameter
)
@pytest.mark.parametrize("payload", [64, 4096])
def test_zero_load_latency_matches_the_path(nodes, local_links, global_links, payload):
    """Cut-through: every link adds propagation + FEC, every switch its fall-through,
    and the packet is serialised once, at the slowest link (the 100 Gb/s NIC)."""
    summary = small_run(
        "switch.latency_spread_fraction=0",
        "traffic.0.pattern=permutation", f"traffic.0.nodes={{ list = {nodes} }}",
        "traffic.0.load=0.01", f"traffic.0.message_bytes={payload}", "sim.duration_ns=2000000",
    )
    switches = 1 + local_links + global_links
    serialization_ns = (payload + ROCE_OVERHEAD) * 8 / 100e9 * 1e9
    expected = (2 * TERMINAL_NS + local_links * LOCAL_NS + global_links * GLOBAL_NS
                + switches * SWITCH_NS + serialization_ns)
    assert summary["packets_delivered"] > 20
    assert summary["hops_mean"] == local_links + global_links
    assert summary["latency_ns"]["p50"] == pytest.approx(expected, rel=0.02)
    assert summary["latency_ns"]["mean"] == pytest.approx(expected, rel=0.02)


# --- load and saturation ---------------------------------------------------

@pytest.mark.parametrize("routing", ["minimal", "valiant", "ugal"])
def test_accepted_equals_offered_below_saturation(routing):
    summary = small_run(f"routing.algorithm={routing}", "traffic.0.load=0.3")
    assert summary["offered_load"] == pytest.approx(0.3, rel=0.05)
    assert summary["accepted_load"] == pytest.approx(summary["offered_load"], rel=0.03)
    figures = summary["traffic"]["uniform"]
    assert figures["accepted_load"] == pytest.approx(figures["offered_load"], rel=0.03)


def test_uniform_minimal_saturates_at_the_channel_load_bound():
    """With 100 Gb/s fabric links the global links, not injection, bound uniform traffic."""
    tapered = ["links.bandwidth_bps=100e9"]
    bound = slingsim.topology(SMALL, tapered)["uniform_minimal_saturation"]
    assert 0.3 < bound < 0.9
    got = accepted("uniform", "minimal", 1.0, *tapered)
    assert 0.85 * bound <= got <= 1.03 * bound


def test_group_adversarial_minimal_saturates_at_the_group_pair_links():
    """16 nodes of a group share one 200 Gb/s link to the next group: 1/8 of injection."""
    bound = slingsim.topology(SMALL)["adversarial_minimal_saturation"]
    assert bound == pytest.approx(0.125, rel=0.02)
    got = accepted("group_adversarial", "minimal", 0.5)
    assert 0.85 * bound <= got <= 1.03 * bound


def test_malbec_uniform_minimal_saturates_past_the_analytical_bound():
    """The channel-load bound of `slingsim topo` is where the busiest channel fills: up to it
    accepted load tracks offered load; well past it the network no longer keeps up.
    (On the presets several global links join two groups and minimal paths load them
    unevenly, so past the bound the unblocked flows still grow and saturation is gradual.)"""
    bound = slingsim.topology("slingshot-malbec")["uniform_minimal_saturation"]
    below = small_run(f"traffic.0.load={0.9 * bound}", preset="slingshot-malbec")
    assert below["accepted_load"] == pytest.approx(below["offered_load"], rel=0.02)
    full = small_run("traffic.0.load=1.0", preset="slingshot-malbec")
    assert bound <= full["accepted_load"] < 0.95 * full["offered_load"]


@pytest.mark.parametrize(
    "preset, groups, nodes, links_per_pair, node_bps",
    [("slingshot-malbec", 4, 484, 16, 100e9),      # one rail per node
     ("slingshot-shandy", 8, 1024, 8, 2 * 100e9)],  # two rails per node
)
def test_presets_group_adversarial_minimal_saturates_at_the_group_pair_links(preset, groups, nodes, links_per_pair, node_bps):
    """Group i sends everything to group i+1: once every group is overloaded, each delivers what
    its links to the next group carry. The analytical bound (first channel full) is below that cap."""
    link_bound = groups * links_per_pair * 200e9 / (nodes * node_bps)
    assert slingsim.topology(preset)["adversarial_minimal_saturation"] <= link_bound
    got = small_run("traffic.0.pattern=group_adversarial", "traffic.0.load=0.6", "routing.algorithm=minimal",
                    preset=preset)["accepted_load"]
    assert 0.85 * link_bound <= got <= 1.03 * link_bound


@pytest.mark.parametrize("pattern", ["uniform", "group_adversarial"])
def test_valiant_reaches_about_half_of_injection(pattern):
    got = accepted(pattern, "valiant", 1.0)
    assert 0.4 <= got <= 0.62


def test_ugal_tracks_minimal_on_uniform_traffic():
    minimal = small_run("routing.algorithm=minimal", "traffic.0.load=0.6")
    ugal = small_run("routing.algorithm=ugal", "traffic.0.load=0.6")
    assert ugal["accepted_load"] == pytest.approx(minimal["accepted_load"], rel=0.03)
    assert ugal["latency_ns"]["mean"] <= 1.3 * minimal["latency_ns"]["mean"]
    assert ugal["nonminimal_fraction"] < 0.3
    assert accepted("uniform", "ugal", 1.0) >= 0.9 * accepted("uniform", "minimal", 1.0)


def test_ugal_tracks_valiant_on_adversarial_traffic():
    valiant = accepted("group_adversarial", "valiant", 1.0)
    ugal = small_run("traffic.0.pattern=group_adversarial", "routing.algorithm=ugal", "traffic.0.load=1.0")
    assert ugal["accepted_load"] >= 0.85 * valiant
    assert ugal["nonminimal_fraction"] > 0.5


# --- determinism, conservation, flows --------------------------------------

def _without_timing(summary):
    """The summary without what differs between runs of one config: timings and when, how and where it ran."""
    return {k: v for k, v in summary.items()
            if k not in ("wall_s", "cpu_s", "build_s", "engine_wall_s", "provenance", "cached", "key")}


def test_same_seed_gives_identical_results():
    # Both runs simulate (no result store): the engine itself must be deterministic.
    first = small_run("traffic.victim.load=0.3", preset="examples/incast-mix", seed=5, cache=False)
    again = small_run("traffic.victim.load=0.3", preset="examples/incast-mix", seed=5, cache=False)
    other = small_run("traffic.victim.load=0.3", preset="examples/incast-mix", seed=6, cache=False)
    assert _without_timing(first) == _without_timing(again)
    assert _without_timing(first) != _without_timing(other)


@pytest.mark.parametrize("pattern", ["uniform", "group_adversarial"])
def test_bytes_are_conserved_even_when_saturated(pattern):
    summary = small_run(f"traffic.0.pattern={pattern}", "traffic.0.load=0.9")
    assert summary["bytes_conserved"] is True
    assert summary["bytes_injected"] == summary["bytes_delivered"] + summary["bytes_in_flight"]
    # Saturated: measured packets may still be queued when the drain time runs out.
    assert summary["end_reason"] in ("time_limit", "drain_limit")


def test_flows_complete_no_faster_than_line_rate():
    result = slingsim.run("examples/permutation-flows")
    assert result.summary["end_reason"] == "flows_done"
    flows = result.flows
    assert flows.num_rows == 144 and all(flows.column("completed").to_pylist())
    line_rate_ns = 64 * (4096 + ROCE_OVERHEAD) * 8 / 100e9 * 1e9  # 256 KiB = 64 packets at 100 Gb/s
    fct = flows.column("fct_ns").to_pylist()
    assert min(fct) >= line_rate_ns
    assert sorted(fct)[len(fct) // 2] <= 3 * line_rate_ns


def test_incast_without_congestion_control_hurts_the_victim():
    """Back-pressure from the incast spreads (tree saturation) and blocks unrelated traffic:
    the victim loses throughput; alone it gets what it offers. (Latency percentiles count
    delivered packets only, so the blocked ones show up as lost throughput.)"""
    mixed = small_run(preset="examples/incast-mix")["traffic"]
    alone = slingsim.run("examples/incast-mix", overrides=MEASURE, without=["aggressor"]).summary["traffic"]["victim"]
    assert mixed["aggressor"]["accepted_load"] == pytest.approx(1 / 72, rel=0.05)  # one NIC drains 72 senders
    assert alone["accepted_load"] == pytest.approx(alone["offered_load"], rel=0.05)
    assert mixed["victim"]["accepted_load"] < 0.9 * mixed["victim"]["offered_load"]


def test_shandy_nodes_inject_on_both_rails():
    """Each Shandy node has two NICs on different switches (000 Sec. III): every one of the
    2048 endpoint ports carries traffic and the load is counted per node over both rails."""
    import pyarrow.compute as pc

    result = slingsim.run("slingshot-shandy", overrides=["sim.warmup_ns=2000", "sim.duration_ns=10000"])
    links = result.links
    uplinks = links.filter(pc.greater_equal(links["src_endpoint"], 0))
    assert uplinks.num_rows == 2048
    assert pc.all(pc.greater(uplinks["bytes"], 0)).as_py()
    assert result.summary["accepted_load"] == pytest.approx(0.3, rel=0.05)
