//! `switch.terminal_buffer_bytes`: the input buffer of a switch port facing
//! a NIC, sized apart from the ports facing other switches (as CODES sizes
//! its terminal VCs, `cn_vc_size`). It bounds what a NIC can push into its
//! switch while the output it needs is busy, and a buffer that cannot hold
//! one packet is refused.

use serde_json::{json, Value};
use slingsim_core::Simulation;

/// `link_stalls`' small dragonfly (node n on switch n / 4) with nodes 1-3
/// sending to node 0 at line rate: three inputs of switch 0 feed one output.
fn local_incast(switch: Value) -> Value {
    let incast = json!([{"name": "incast", "pattern": "incast", "load": 1.0, "target": 0, "nodes": {"list": [0, 1, 2, 3]}}]);
    let mut cfg = super::link_stalls::small_dragonfly(incast);
    cfg["switch"] = switch;
    cfg["sim"]["drain_ns"] = json!(0);
    cfg
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
