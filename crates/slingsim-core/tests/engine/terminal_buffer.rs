//! `switch.terminal_buffer_bytes`: the input buffer of a switch port facing
//! a NIC, sized apart from the ports facing other switches (as CODES sizes
//! its terminal VCs, `cn_vc_size`). It bounds what a NIC can push into its
//! switch while the output it needs is busy, and a buffer that cannot hold
//! one packet is refused.

use serde_json::{json, Value};
use slingsim_core::Simulation;

/// 5 groups of 4 switches with 4 nodes each; nodes 1-3 send to node 0, all
/// on switch 0, at line rate: three inputs feed one output.
fn local_incast(switch: Value) -> Value {
    json!({
        "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4,
                     "local_links_per_pair": 1, "global_ports_per_switch": 1},
        "routing": {"algorithm": "minimal"},
        "congestion": {"algorithm": "none"},
        "switch": switch,
        "sim": {"warmup_ns": 2000, "duration_ns": 20000, "drain_ns": 0},
        "traffic": [{"name": "incast", "pattern": "incast", "load": 1.0, "target": 0, "nodes": {"list": [0, 1, 2, 3]}}],
    })
}

fn packets_in_flight(cfg: &Value) -> u64 {
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    let s = sim.summary();
    assert_eq!(s["end_reason"], "time_limit", "the incast still runs at the end: {s}");
    s["packets_in_flight"].as_u64().unwrap()
}

#[test]
fn the_nic_facing_buffer_bounds_what_an_incast_holds_in_the_switch() {
    // A 4096 B packet is 4178 B on the wire (RoCE framing): each of the
    // three senders' ports holds as many whole packets as fit, and the
    // target's link carries about one more.
    let wire = 4178;
    for (switch, per_port) in [
        (json!({}), 131_072 / wire),
        (json!({"terminal_buffer_bytes": 65536}), 65_536 / wire),
        (json!({"terminal_buffer_bytes": 16384, "buffer_bytes": 1 << 20}), 16_384 / wire),
    ] {
        let n = packets_in_flight(&local_incast(switch.clone()));
        let full = 3 * per_port;
        assert!(n + 2 >= full && n <= full + 1, "{switch}: {n} packets in flight, the ports hold {full}");
    }
}

#[test]
fn a_terminal_buffer_below_one_packet_is_refused_naming_the_key() {
    for bytes in [4177, 0] {
        let err = Simulation::from_json(&local_incast(json!({"terminal_buffer_bytes": bytes})).to_string())
            .err()
            .expect("refused");
        let m = err.to_string();
        assert!(m.contains("switch.terminal_buffer_bytes"), "{m}");
    }
}
