//! `nic.node_injection_bps`: the most a node sends over all its rails
//! together. Its packets still cross each rail at the rail's rate, but the
//! node hands them out no faster than this, as CODES hands a node's data to
//! its NICs at one link's rate ([McGlohon19] Sec. 6.5). Rails woken
//! together take turns.

use serde_json::{json, Value};
use slingsim_core::ids::NodeId;
use slingsim_core::Simulation;

/// `physics`' small dragonfly with two 100 Gb/s rails per node, each message
/// spread over both packet by packet, and the node's rate `node_bps` (None:
/// the rails' own rates only).
fn two_rails(node_bps: Option<f64>) -> Value {
    let mut cfg = super::physics::small_dragonfly();
    cfg["topology"]["rails"] = json!(2);
    cfg["nic"] = json!({"rail_selection": "congestion", "rail_unit": "packet"});
    if let Some(bps) = node_bps {
        cfg["nic"]["node_injection_bps"] = json!(bps);
    }
    cfg["sim"] = json!({"max_time_ns": 1.0e6});
    // A one-byte message far from the senders, for the run to have a traffic source.
    cfg["traffic"] = json!([{"name": "other", "pattern": "incast", "nodes": {"list": [38, 39]}, "target": 1, "flow_bytes": 1}]);
    cfg
}

/// The delivery times (ns) of messages of `bytes` each, queued together at
/// node 0 for `to`, every byte checked delivered.
fn ends(node_bps: Option<f64>, bytes: u64, to: &[u32]) -> Vec<f64> {
    let mut sim = Simulation::from_json(&two_rails(node_bps).to_string()).expect("valid config");
    let flows: Vec<_> = to.iter().map(|&b| sim.send_message(NodeId(0), NodeId(b), bytes, None, None, None).unwrap()).collect();
    sim.run();
    let s = sim.summary();
    assert_eq!(s["bytes_conserved"], true, "{node_bps:?}");
    assert_eq!(s["bytes_delivered"].as_u64(), Some(bytes * to.len() as u64 + 1), "{node_bps:?}");
    flows.iter().map(|&f| sim.flow_end(f).expect("delivered").0 as f64 / 1e3).collect()
}

#[test]
fn a_node_sends_no_faster_than_its_injection_rate_over_all_its_rails() {
    // 1 MiB on the wire (RoCE framing) at 100 Gb/s: one rail's time.
    let bytes = 1u64 << 20;
    let one_rail_ns = bytes as f64 * (4178.0 / 4096.0) * 8.0 / 100.0;
    let free = ends(None, bytes, &[17])[0];
    let at_one_link = ends(Some(100e9), bytes, &[17])[0];
    let at_one_and_a_half = ends(Some(150e9), bytes, &[17])[0];
    // Unheld, the two rails carry it in about half a rail's time.
    assert!((0.45..0.6).contains(&(free / one_rail_ns)), "unheld: {free} ns against {one_rail_ns}");
    // Held to one link's rate, it takes a rail's time though both rails carry it.
    assert!((1.0..1.1).contains(&(at_one_link / one_rail_ns)), "100 Gb/s: {at_one_link} ns against {one_rail_ns}");
    // 150 Gb/s is more than one rail can carry: both rails share it.
    let ratio = at_one_and_a_half / one_rail_ns;
    assert!((0.66..0.75).contains(&ratio), "150 Gb/s: {at_one_and_a_half} ns, {ratio} of one rail's time");
}

#[test]
fn rails_held_by_their_node_take_turns() {
    // Two messages queued together, each spread over both rails, the node
    // at one link's rate. With the rails in turn the first is in after one
    // message's time and the second after two; if one rail always went
    // first it would send its parts of both before the other rail sent the
    // first message's other half, and the first would end at 1.5.
    let bytes = 400_000u64;
    let one_ns = bytes as f64 * (4178.0 / 4096.0) * 8.0 / 100.0;
    let e = ends(Some(100e9), bytes, &[17, 33]);
    assert!(e[0] < 1.15 * one_ns, "first message {} ns against {one_ns} per message", e[0]);
    assert!((1.9..2.15).contains(&(e[1] / one_ns)), "second message {} ns against {one_ns} per message", e[1]);
}

#[test]
fn a_node_rate_out_of_range_is_refused_naming_the_key() {
    for bps in [10.0, 1e15] {
        let err = Simulation::from_json(&two_rails(Some(bps)).to_string()).err().expect("refused");
        assert_eq!(err.field, "nic.node_injection_bps", "{err}");
        assert!(err.to_string().contains("bits/s"), "{err}");
    }
}
