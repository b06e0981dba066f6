//! The outstanding-packet limit (`nic.max_outstanding_packets`) and when a
//! NIC at the limit sends again (`nic.outstanding_release`): a sliding
//! window (`each`) costs a lone flow nothing once it covers the round trip;
//! blocks (`all`, Aries as [DeSensi19] Sec. 2.4 describes it) cost about
//! one round trip per limit's worth of packets; blocks per message
//! (`message`) cost a lone message the same, and let another message of
//! the NIC use the slots a waiting one has freed.

use serde_json::{json, Value};
use slingsim_core::Simulation;

/// One flow of `packets` full packets from node 0 to node 17 (another group).
fn flow_time_ns(packets: u64, limit: u32, release: &str) -> f64 {
    flows_time_ns(1, packets, limit, release)
}

#[test]
fn a_window_that_covers_the_round_trip_costs_nothing_when_sliding() {
    let free = flow_time_ns(64, 0, "each");
    assert_eq!(flow_time_ns(64, 16, "each"), free);
    // A limit the flow never reaches changes nothing in either mode.
    assert_eq!(flow_time_ns(64, 1024, "all"), free);
}

#[test]
fn blocks_pay_about_one_round_trip_per_limit() {
    let one_way = flow_time_ns(1, 0, "each");
    let sliding = flow_time_ns(64, 16, "each");
    let blocks = flow_time_ns(64, 16, "all");
    // Four blocks of 16: the NIC waits after each of the first three until
    // the block's last packet is answered: its way there (one full packet's
    // one-way latency) and its ack's way back (shorter: the ack is small).
    let paid = blocks - sliding;
    assert!(paid > 3.0 * 1.2 * one_way && paid < 3.0 * 2.0 * one_way, "paid {paid} ns for 3 pauses, one way {one_way} ns");
}

#[test]
fn an_unknown_release_is_refused_with_its_key() {
    let cfg = json!({"nic": {"outstanding_release": "some"}, "traffic": [{"name": "u", "pattern": "uniform", "load": 0.1}]});
    let e = Simulation::from_json(&cfg.to_string()).err().expect("refused").to_string();
    assert!(e.contains("outstanding_release") && e.contains("each") && e.contains("all") && e.contains("message"), "{e}");
}

/// `flows` flows of `packets` full packets each from node 0 to node 17
/// (another group), all starting at once: that many messages in node 0's
/// NIC together. The time the last one ends.
fn flows_time_ns(flows: u32, packets: u64, limit: u32, release: &str) -> f64 {
    let cfg = json!({
        "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4,
                     "local_links_per_pair": 1, "global_ports_per_switch": 1},
        "nic": {"max_outstanding_packets": limit, "outstanding_release": release},
        "sim": {"warmup_ns": 0, "duration_ns": 1_000_000},
        "traffic": [{"name": "f", "pattern": "incast", "nodes": {"list": [0, 17]}, "target": 1,
                     "flow_bytes": packets * 4096, "flows_per_node": flows}]
    });
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    let s: Value = sim.summary();
    assert_eq!(s["end_reason"], "flows_done", "{s}");
    assert_eq!(s["bytes_lost"], 0, "{s}");
    s["sim_time_ns"].as_f64().expect("a time")
}

#[test]
fn a_lone_message_pays_the_same_blocks_per_message_as_per_nic() {
    assert_eq!(flows_time_ns(1, 64, 16, "message"), flows_time_ns(1, 64, 16, "all"));
}

#[test]
fn blocks_per_message_let_another_message_use_the_freed_slots() {
    let sliding = flows_time_ns(2, 64, 16, "each");
    let per_nic = flows_time_ns(2, 64, 16, "all");
    let per_message = flows_time_ns(2, 64, 16, "message");
    // Per NIC, the NIC idles for a round trip after every 16 packets of
    // either message; per message, one message's wait is the other's turn.
    assert!(per_message < per_nic, "per message {per_message} ns, per NIC {per_nic} ns");
    assert!(per_message >= sliding, "per message {per_message} ns, sliding {sliding} ns");
    // Each message still pays its own blocks: above the sliding window.
    assert!(per_message > sliding, "per message {per_message} ns, sliding {sliding} ns");
}

#[test]
fn a_synthetic_message_above_the_limit_is_refused_with_blocks_per_message() {
    let cfg = json!({"nic": {"max_outstanding_packets": 16, "outstanding_release": "message"},
                     "traffic": [{"name": "u", "pattern": "uniform", "load": 0.1, "message_bytes": 17 * 4096}]});
    let e = Simulation::from_json(&cfg.to_string()).err().expect("refused").to_string();
    assert!(e.contains("message_bytes") && e.contains("17 packets") && e.contains("flow_bytes"), "{e}");
    // At the limit, or as a flow source, it runs.
    let ok = json!({"nic": {"max_outstanding_packets": 16, "outstanding_release": "message"},
                    "traffic": [{"name": "u", "pattern": "uniform", "load": 0.1, "message_bytes": 16 * 4096}]});
    assert!(Simulation::from_json(&ok.to_string()).is_ok());
}
