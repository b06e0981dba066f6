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
fn victim_and_incast(algorithm: &str, incast: bool) -> Value {
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

fn run(cfg: &Value) -> Value {
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    sim.summary()
}

fn victim_latency(s: &Value) -> f64 {
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
