//! Cassini's NIC features against [Roweth] Sec. IV-B, IV-C and V: matching
//! offload (Fig. 8), the unrestricted reliability model's result store,
//! and fences with transmit or delivery completion.

use serde_json::{json, Value};
use slingsim_core::Simulation;

/// A small Slingshot dragonfly (3 groups x 2 switches x 2 nodes) with the
/// given host and jobs.
fn run(host: Value, jobs: Value) -> Value {
    run_with(host, jobs, json!({}))
}

fn run_with(host: Value, jobs: Value, extra: Value) -> Value {
    let mut cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "nic": {"frame": "slingshot", "bandwidth_bps": 200e9},
        "routing": {"algorithm": "minimal"},
        "sim": {"max_time_ns": 1e8},
        "host": host,
        "job": jobs,
    });
    for (k, v) in extra.as_object().unwrap() {
        cfg[k] = v.clone();
    }
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.summary()
}

/// The Cassini host of the `slingshot-max` preset (python/slingsim/configs).
fn cassini() -> Value {
    json!({"inline_bytes": 96, "dma_read_ns": 250, "matching": {"location": "nic", "nic_message_ns": 10, "nic_attempts_hidden": 64}})
}

/// The RoCE host of the Malbec and Shandy presets: matching in software.
fn roce() -> Value {
    json!({"matching": {"location": "software", "software_attempt_ns": 10}})
}

/// Messages per second of a message-rate job with 16 pairs across two
/// nodes, each message passing `unmatched` posted receives.
fn message_rate(host: Value, unmatched: u32) -> f64 {
    let window = 64;
    let jobs = json!([{"name": "mr", "workload": "message-rate", "bytes": 8, "iterations": 4, "ppn": 16, "nodes": {"list": [0, 4]},
                       "params": {"window": window, "unmatched": unmatched}}]);
    let s = run(host, jobs);
    let j = &s["jobs"]["mr"];
    assert_eq!(j["finished"], true, "{j:#}");
    let m = &j["matching"];
    // Every data message passes exactly the unmatched receives; the
    // replies (one per window) find an empty list.
    let data = 16 * window * 4;
    assert_eq!(m["failed_attempts"].as_u64().unwrap(), data * unmatched as u64, "{m}");
    16.0 * window as f64 / (j["iteration_ns"]["mean"].as_f64().unwrap() * 1e-9)
}

#[test]
fn offloaded_matching_keeps_the_message_rate_to_64_attempts_and_software_matching_does_not() {
    let nic: Vec<f64> = [0, 16, 64, 256].iter().map(|&u| message_rate(cassini(), u)).collect();
    eprintln!("Cassini (nic) rates at 0, 16, 64, 256 attempts: {nic:?}");
    for (u, r) in [16, 64].iter().zip(&nic[1..3]) {
        assert!((r / nic[0] - 1.0).abs() < 0.03, "Cassini at {u} attempts: {r:.3e}/s against {:.3e}/s at 0", nic[0]);
    }
    assert!(nic[3] < 0.8 * nic[0], "256 attempts exceed what hides behind the message time: {:.3e} vs {:.3e}", nic[3], nic[0]);
    let sw: Vec<f64> = [0, 64].iter().map(|&u| message_rate(roce(), u)).collect();
    eprintln!("RoCE (software) rates at 0, 64 attempts: {sw:?}");
    assert!(sw[1] < 0.7 * sw[0], "software matching at 64 attempts: {:.3e}/s against {:.3e}/s at 0", sw[1], sw[0]);
    // With free matching (the engine's default) the list length changes nothing.
    let free: Vec<f64> = [0, 256].iter().map(|&u| message_rate(json!({}), u)).collect();
    assert_eq!(free[0], free[1]);
}
