//! Slingshot congestion management in the switches ([Roweth] Sec. II-E,
//! issue 11): the egress switch acks every data packet back to the
//! flow's ingress switch, which holds congesting flows in flow queues at
//! the ingress port, so a victim that shares links and virtual channels
//! with an incast upstream of the congested port is not slowed.

use serde_json::{json, Value};
use slingsim_core::Simulation;

/// 5 groups of 4 switches with 4 nodes each: node n sits on switch n / 4.
/// The victim's senders (nodes 6, 10, 14) sit on switches 1-3 beside the
/// aggressors and send to node 1 on switch 0, beside the incast target
/// (node 0): victim and incast packets cross the same links 1-3 -> 0, in
/// the same virtual channel.
pub(super) fn victim_and_incast(algorithm: &str, incast: bool) -> Value {
    let mut traffic = vec![json!({"name": "victim", "pattern": "incast", "nodes": {"list": [6, 10, 14, 1]}, "target": 3,
                                  "load": 0.2, "message_bytes": 4096})];
    if incast {
        traffic.push(json!({"name": "incast", "pattern": "incast",
                            "nodes": {"list": [0, 4, 5, 7, 8, 9, 11, 12, 13, 15, 16, 17, 18, 19]}, "target": 0,
                            "flow_bytes": 4_000_000}));
    }
    json!({
        "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4,
                     "local_links_per_pair": 1, "global_ports_per_switch": 1},
        "congestion": {"algorithm": algorithm},
        "routing": {"algorithm": "slingshot"},
        "sim": {"warmup_ns": 30_000, "duration_ns": 100_000},
        "traffic": traffic,
    })
}

pub(super) fn run(cfg: &Value) -> Value {
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    sim.summary()
}

pub(super) fn victim_latency(s: &Value) -> f64 {
    s["traffic"]["victim"]["latency_ns"]["mean"].as_f64().expect("victim latency")
}

#[test]
fn a_victim_sharing_links_with_an_incast_is_not_slowed() {
    let alone = victim_latency(&run(&victim_and_incast("slingshot", false)));
    let s = run(&victim_and_incast("slingshot", true));
    assert_eq!(s["packets_conserved"], true, "{s}");
    let with = victim_latency(&s);
    assert!(with < 1.5 * alone, "victim {with:.0} ns beside the incast, {alone:.0} ns alone");
    let c = &s["congestion"];
    assert!(c["marked_acks"].as_u64().unwrap() > 100, "the incast port marked acks: {c}");
    assert!(c["packets_held_at_ingress"].as_u64().unwrap() > 100, "congesting packets waited at their ingress ports: {c}");
    // The mechanism is what protects the victim: with back-pressure alone
    // the incast fills the shared buffers and the victim crawls.
    let none = victim_latency(&run(&victim_and_incast("none", true)));
    assert!(none > 10.0 * alone, "without congestion control the victim takes {none:.0} ns");
}

#[test]
fn fabric_acks_are_packets_counted_like_data() {
    let s = run(&victim_and_incast("slingshot", true));
    let by_kind = &s["packets_by_kind"];
    let control = &s["control_packets"]["fabric_ack"];
    let made = control["made"].as_u64().unwrap();
    let data = by_kind["data"].as_u64().unwrap();
    let delivered = s["packets_delivered"].as_u64().unwrap();
    // One ack per data packet that left its egress port: at least every
    // delivered one, at most every injected one.
    assert!(made >= delivered && made <= data, "{made} acks for {delivered} delivered of {data} data packets");
    assert_eq!(by_kind["fabric_ack"].as_u64().unwrap(), made);
    assert_eq!(by_kind["ack"], 0, "the NICs send no acks of their own");
    let arrived = control["arrived"].as_u64().unwrap();
    assert_eq!(made, arrived + control["in_flight"].as_u64().unwrap() + control["lost"].as_u64().unwrap(), "{control}");
    assert_eq!(s["congestion"]["fabric_acks"].as_u64().unwrap(), arrived);
    // They load the reverse links: switch 0 sends nothing else out.
    assert!(s["packet_hops"].as_u64().unwrap() > data * 2 + arrived, "acks count in packet hops: {s}");
}

#[test]
fn congesting_flows_stay_within_their_fair_share() {
    let s = run(&victim_and_incast("slingshot", true));
    let c = &s["congestion"];
    let bytes = c["max_flow_fabric_bytes"].as_u64().unwrap();
    let share = c["fair_share_bdp_bytes"].as_u64().unwrap();
    // 13 flows into one 12.5 GB/s port over a ~1.1 us fabric round trip:
    // a fair share below one packet, so the share reported is one full
    // packet (4,178 B of RoCE frame), and no congesting flow may hold more.
    assert!((4_000..4_500).contains(&share), "{c}");
    assert!(bytes > 0 && bytes <= share, "{c}");
    let endpoint = run(&victim_and_incast("slingshot-endpoint", true));
    assert_eq!(endpoint["congestion"]["algorithm"], "slingshot-endpoint");
    assert!(endpoint["packets_by_kind"]["ack"].as_u64().unwrap() > 0, "the endpoint variant acks from the NIC");
    assert_eq!(endpoint["packets_by_kind"]["fabric_ack"], 0);
}

#[test]
fn switch_side_control_needs_acks_as_packets() {
    let mut cfg = victim_and_incast("slingshot", true);
    cfg["nic"] = json!({"acks": "instant"});
    let e = Simulation::from_json(&cfg.to_string()).err().expect("refused").to_string();
    assert!(e.contains("nic.acks") && e.contains("slingshot-endpoint"), "{e}");
    cfg["congestion"]["algorithm"] = json!("slingshot-endpoint");
    assert!(Simulation::from_json(&cfg.to_string()).is_ok());
}

#[test]
fn same_config_same_result() {
    let cfg = victim_and_incast("slingshot", true);
    let (mut a, mut b) = (run(&cfg), run(&cfg));
    for s in [&mut a, &mut b] {
        s.as_object_mut().unwrap().remove("engine_wall_s");
        s.as_object_mut().unwrap().remove("build_s");
    }
    assert_eq!(a, b);
}

/// One flow at line rate from node 0 (group 0) to node 16 (group 1),
/// whose one minimal global link is tapered to a quarter of the NIC's
/// rate, so adaptive routing must send most of it through other groups
/// (the shape of [DeSensi20] Fig. 14's bisection jobs on tapered
/// Malbec); `hold` sets `congestion.hold_uncongested_flows`.
fn lone_long_flow(hold: bool) -> Value {
    json!({
        "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4,
                     "local_links_per_pair": 1, "global_ports_per_switch": 1},
        "links": {"global_bandwidth_bps": 50e9},
        "congestion": {"algorithm": "slingshot", "hold_uncongested_flows": hold},
        "routing": {"algorithm": "slingshot"},
        "sim": {"warmup_ns": 20_000, "duration_ns": 60_000},
        "traffic": [{"name": "lone", "pattern": "incast", "nodes": {"list": [0, 16]}, "target": 1,
                     "load": 1.0, "message_bytes": 4096}],
    })
}

#[test]
fn an_uncongested_flow_on_a_long_path_runs_at_full_speed() {
    let accepted = |s: &Value| s["traffic"]["lone"]["accepted_load"].as_f64().expect("accepted load");
    let free = run(&lone_long_flow(false));
    let held = run(&lone_long_flow(true));
    // Offered load counts both nodes, the target sending nothing: 0.5 is line rate.
    eprintln!("lone flow over a tapered link: {:.3} of its offered 0.5 unwindowed, {:.3} held to its minimal path's window", accepted(&free), accepted(&held));
    // [Roweth] Sec. II-E: flows that congest nothing run at full speed.
    assert!(accepted(&free) > 0.45, "{}", free["traffic"]["lone"]);
    assert_eq!(free["congestion"]["marked_acks"], 0);
    assert!(free["nonminimal_fraction"].as_f64().unwrap() > 0.5, "most of it goes around the tapered link");
    // A window of the minimal path's bandwidth-delay product holds a flow
    // whose packets go further or queue.
    assert!(accepted(&held) < 0.9 * accepted(&free), "held {} against {}", accepted(&held), accepted(&free));
}

/// The golden `incast-slingshot` scenario's shape: a uniform victim beside
/// a 32-node incast at half line rate each, 60 us, every flow unwindowed
/// until cut; `notify` sets `congestion.notify_at_enqueue`.
fn onset(notify: bool) -> Value {
    json!({
        "topology": {"groups": 4, "switches_per_group": 4, "endpoints_per_switch": 4, "global_ports_per_switch": 3},
        "routing": {"algorithm": "slingshot"}, "nic": {"frame": "slingshot"},
        "congestion": {"algorithm": "slingshot", "notify_at_enqueue": notify},
        "sim": {"seed": 3, "warmup_ns": 5000, "duration_ns": 60000},
        "traffic": [{"name": "victim", "pattern": "uniform", "load": 0.1, "message_bytes": 256, "nodes": {"count": 24}, "placement": "interleaved"},
                    {"name": "aggressor", "pattern": "incast", "load": 0.5, "nodes": {"count": 32}, "target": 0}],
    })
}

#[test]
fn a_congested_port_cuts_a_new_source_as_its_packet_joins_the_queue() {
    let early = run(&onset(true));
    let late = run(&onset(false));
    let (e, l) = (victim_latency(&early), victim_latency(&late));
    let fabric = |s: &Value| s["congestion"]["fabric_bytes"].as_u64().unwrap();
    eprintln!("victim beside the incast's onset: {e:.0} ns with early acks, {l:.0} ns without; in the fabric {} and {} B", fabric(&early), fabric(&late));
    assert!(early["congestion"]["early_acks"].as_u64().unwrap() > 0, "{}", early["congestion"]);
    assert_eq!(late["congestion"]["early_acks"], 0);
    // Without them, unwindowed sources learn of the congestion only from
    // packets that waited through the queue, and the onset grows.
    assert!(e < 0.5 * l, "victim {e:.0} ns with early acks, {l:.0} ns without");
    assert!(fabric(&early) < fabric(&late) / 2, "{} B against {} B in the fabric", fabric(&early), fabric(&late));
    assert_eq!(early["packets_conserved"], true);
}
