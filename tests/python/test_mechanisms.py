"""Issue 4 mechanisms beyond the ablations: end-to-end retry over a failed
link, lossy classes, the per-message routing API, the outstanding-packet
limit, and the config errors that guard them."""
import pytest

import slingsim
from slingsim import report

from conftest import SMALL

# Group 0 -> group 1 traffic crosses switch 0 port 10 (a global link).
ADVERSARIAL = ["sim.warmup_ns=2000", "sim.duration_ns=20000", "traffic.uniform.pattern=group_adversarial",
               "traffic.uniform.load=0.1"]
FAILED = ["links.failed=[{switch=0, port=10, at_ns=5000}]", "nic.retry_timeout_ns=5000"]


def test_adaptive_routing_and_end_to_end_retry_deliver_everything_over_a_failed_link():
    s = slingsim.run(SMALL, overrides=ADVERSARIAL + FAILED + ["routing.algorithm=slingshot"]).summary
    assert s["bytes_conserved"] and s["bytes_lost"] == 0
    assert s["packets_delivered"] > 0 and s["end_reason"] == "time_limit"


def test_static_routing_over_a_failed_link_reports_what_it_lost():
    s = slingsim.run(SMALL, overrides=ADVERSARIAL + FAILED + ["routing.algorithm=min-hash", "nic.max_retries=2"]).summary
    assert s["e2e_retries"] > 0
    assert s["bytes_lost"] > 0 and s["traffic"]["uniform"]["lost_bytes"] == s["bytes_lost"]
    assert s["bytes_conserved"], "injected = delivered + in flight + lost"


def test_random_failures_are_drawn_from_the_seed_listed_in_the_summary_and_shown_by_topo():
    # Drawn cables failing during the run: the same seed draws the same
    # ones, the summary lists them, and topo counts them.
    over = ADVERSARIAL + ["links.random_failures={count=3, at_ns=5000}", "nic.retry_timeout_ns=5000"]
    a = slingsim.run(SMALL, overrides=over).summary
    b = slingsim.run(SMALL, overrides=over).summary
    assert len(a["failed_links"]) == 3 and a["failed_links"] == b["failed_links"]
    assert all(f["kind"] == "global" and f["at_ns"] == 5000 for f in a["failed_links"])
    assert a["bytes_conserved"]
    t = slingsim.topology(SMALL, ["links.random_failures={count=3, at_ns=5000}"])
    assert t["links_failed"] == {"down_at_start": 0, "failing_later": 3}
    assert slingsim.run(SMALL, overrides=ADVERSARIAL).summary["failed_links"] is None
    first = a["failed_links"][0]
    text = report.summary_text(a, "run")
    assert f"failed links: 3: switch {first['switch']} port {first['port']} -> switch {first['to_switch']} (global, at 5,000 ns)" in text
    # The small dragonfly has one cable per group pair, so no reroute gets
    # around a failed one. On Malbec (16 per pair) the fabric manager takes
    # the drawn cables out of minimal routing's routes 2 us after they fail.
    malbec = ["sim.warmup_ns=2000", "sim.duration_ns=20000", 'routing.algorithm="minimal"',
              "links.random_failures={count=3, at_ns=5000}", "nic.retry_timeout_ns=5000"]
    stays = slingsim.run("slingshot-malbec", overrides=malbec).summary
    c = slingsim.run("slingshot-malbec", overrides=malbec + ["links.reroute_after_ns=2000"]).summary
    assert [f["rerouted_at_ns"] for f in c["failed_links"]] == [7000.0] * 3
    assert ", at 5,000 ns, rerouted at 7,000 ns)" in report.summary_text(c, "run")
    assert 0 < c["e2e_retries"] < stays["e2e_retries"]
    with pytest.raises(slingsim.ConfigError, match=r"links.reroute_after_ns: every global link from group \d+ to group \d+ is down from 5000 ns"):
        slingsim.run(SMALL, overrides=over + ["links.reroute_after_ns=2000"])


def test_a_lossy_class_drops_instead_of_back_pressure_and_counts_it():
    over = ["sim.warmup_ns=2000", "sim.duration_ns=10000", "traffic.uniform.pattern=incast", "traffic.uniform.load=0.5",
            'classes=[{name="udp", lossy=true}]', "qos.lossy_queue_bytes=16384"]
    s = slingsim.run(SMALL, overrides=over).summary
    assert s["congestion"]["lossy_drops"] > 0 and s["bytes_lost"] > 0
    assert s["bytes_conserved"]


def test_messages_pick_their_routing_mode_and_class_through_the_api():
    sim = slingsim.Simulation(SMALL, overrides=["sim.warmup_ns=0", "routing.algorithm=ugal",
                                                'classes=[{name="bulk"}, {name="fast", dscp=46, priority=3}]'])
    a = sim.send(0, 100, 8192, routing="valiant", traffic_class="fast")
    b = sim.send(1, 101, 8192, routing="minimal")
    sim.run_until(20_000)
    assert sim.flow_end_ns(a) is not None and sim.flow_end_ns(b) is not None
    flows = sim.result().flows.to_pylist()
    assert [f["source"] for f in flows] == ["api", "api"]
    summary = sim.summary()
    assert summary["traffic"]["api"]["packets_delivered"] == 4
    with pytest.raises(ValueError, match="routing"):
        sim.send(0, 1, 100, routing="teleport")
    with pytest.raises(ValueError, match="class"):
        sim.send(0, 1, 100, traffic_class="gold")
    with pytest.raises(ValueError, match="node"):
        sim.send(0, 10_000, 100)


def test_outstanding_packet_limit_caps_what_a_nic_has_in_flight():
    over = ["sim.warmup_ns=0", "traffic.uniform.flow_bytes=65536", "nic.max_outstanding_packets=1",
            "traffic.uniform.nodes={count=2}"]
    capped = slingsim.run(SMALL, overrides=over).summary
    free = slingsim.run(SMALL, overrides=over[:-2] + over[-1:]).summary
    # The run ends with the last delivery; each NIC's last ack may still be on its way.
    assert capped["congestion"]["acks"] >= capped["packets_delivered"] - 2
    assert capped["flows"]["fct_ns"]["mean"] > 3 * free["flows"]["fct_ns"]["mean"]


@pytest.mark.parametrize("override, field", [
    ("congestion.algorithm=tcp", "congestion.algorithm"),
    ('classes=[{name="a", min_share=0.7}, {name="b", dscp=1, min_share=0.5}]', "classes"),
    ('classes=[{name="a"}, {name="a", dscp=2}]', "classes[1].name"),
    ("traffic.uniform.class=gold", "traffic[0].class"),
    ("links.failed=[{switch=0, port=0}]", "links.failed[0].port"),
    ("congestion.kmax_bytes=10", "congestion.kmax_bytes"),
    ("congestion.forget_idle_flows=false", "congestion.forget_idle_flows"),  # SMALL runs no Slingshot control
    ("congestion.hop_hold_bytes=-1", "congestion.hop_hold_bytes"),
])
def test_bad_mechanism_configs_name_their_field(override, field):
    with pytest.raises(ValueError) as err:
        slingsim.run(SMALL, overrides=["sim.duration_ns=1000", override])
    assert field in str(err.value)


def test_acks_travel_as_packets_unless_instant():
    over = ["sim.warmup_ns=0", "traffic.uniform.flow_bytes=65536", "nic.max_outstanding_packets=4",
            "traffic.uniform.nodes={count=4}"]
    packets = slingsim.run(SMALL, overrides=over).summary
    instant = slingsim.run(SMALL, overrides=over + ["nic.acks=instant"]).summary
    kinds = packets["packets_by_kind"]
    assert kinds["data"] == packets["packets_injected"] and kinds["ack"] > 0 and kinds["cnp"] == 0
    assert packets["packets_conserved"] and packets["control_packets"]["ack"]["made"] == packets["packets_delivered"]
    # The acks' hops count; the data's do not change.
    assert packets["packet_hops"] > instant["packet_hops"]
    assert instant["packets_by_kind"]["ack"] == 0 and instant["congestion"]["acks"] > 0
    from slingsim.report import summary_text
    assert "packets injected by kind: data" in summary_text(dict(packets, wall_s=0.0), "run")
    assert "by kind" not in summary_text(dict(instant, wall_s=0.0), "run")


def test_an_unknown_ack_model_names_the_field():
    with pytest.raises(slingsim.ConfigError, match="nic.acks") as e:
        slingsim.run(SMALL, overrides=["nic.acks=sometimes"])
    assert "packets, instant" in str(e.value)


def test_hop_waits_say_where_packets_waited_and_print_as_a_table():
    """``sim.hop_waits`` through the Python API and the terminal summary: every measured packet
    passes one port into its NIC, and the table shows each place a packet left by."""
    s = slingsim.run(SMALL, overrides=["sim.hop_waits=true"]).summary
    t = s["traffic"]["uniform"]
    waits = t["hop_waits_ns"]
    # Measured packets only; those still on the wire into their NIC at the end have left the port too.
    measured = t["latency_ns"]["count"]
    assert measured <= waits["egress"]["count"] <= measured + t["undelivered_packets"]
    fabric = sum(waits[p]["count"] for p in ("ingress_local", "ingress_global", "transit_local", "transit_global"))
    assert fabric >= round(t["hops_mean"] * measured)
    text = report.summary_text(dict(s, wall_s=0.0), "run")
    assert "where packets waited (sim.hop_waits)" in text
    assert any(line.split()[:2] == ["uniform", "egress"] and line.split()[2] == "1.00" for line in text.splitlines())
    off = slingsim.run(SMALL).summary
    assert "hop_waits_ns" not in off and "where packets waited" not in report.summary_text(dict(off, wall_s=0.0), "run")
