//! The outstanding-packet limit (`nic.max_outstanding_packets`) and when a
//! NIC at the limit sends again (`nic.outstanding_release`): a sliding
//! window (`each`) costs a lone flow nothing once it covers the round trip;
//! blocks (`all`, Aries as [DeSensi19] Sec. 2.4 describes it) cost about
//! one round trip per limit's worth of packets.

use serde_json::{json, Value};
use slingsim_core::Simulation;

/// One flow of `packets` full packets from node 0 to node 17 (another group).
fn flow_time_ns(packets: u64, limit: u32, release: &str) -> f64 {
    let cfg = json!({
        "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4,
                     "local_links_per_pair": 1, "global_ports_per_switch": 1},
        "nic": {"max_outstanding_packets": limit, "outstanding_release": release},
        "sim": {"warmup_ns": 0, "duration_ns": 1_000_000},
        "traffic": [{"name": "f", "pattern": "incast", "nodes": {"list": [0, 17]}, "target": 1,
                     "flow_bytes": packets * 4096}]
    });
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    let s: Value = sim.summary();
    assert_eq!(s["end_reason"], "flows_done", "{s}");
    s["sim_time_ns"].as_f64().expect("a time")
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
    assert!(e.contains("outstanding_release") && e.contains("each") && e.contains("all"), "{e}");
}
