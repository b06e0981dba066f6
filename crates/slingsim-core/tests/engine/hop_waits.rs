//! Where packets wait (`sim.hop_waits`): every switch output a measured
//! data packet leaves by is counted once, in its place on the path, and
//! the waits are part of the packet's time in the network.

use super::congestion_management::{run, victim_and_incast};
use serde_json::{json, Value};

const PLACES: [&str; 6] = ["ingress_local", "ingress_global", "transit_local", "transit_global", "egress", "ingress_held"];

fn count(w: &Value, place: &str) -> u64 {
    w[place]["count"].as_u64().unwrap()
}

/// Total wait (ns) recorded at `place`.
fn total(w: &Value, place: &str) -> f64 {
    w[place]["mean"].as_f64().unwrap_or(0.0) * count(w, place) as f64
}

/// An all-to-all job on 12 nodes of 3 groups under Slingshot's congestion
/// management, run to its end with everything measured.
fn alltoall(bytes: u64, waits: bool) -> Value {
    let mut sim = json!({"warmup_ns": 0, "duration_ns": 1e7, "max_time_ns": 1e8});
    if waits {
        sim["hop_waits"] = json!(true);
    }
    let cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "sim": sim,
        "congestion": {"algorithm": "slingshot"},
        "job": [{"name": "a2a", "workload": "alltoall", "bytes": bytes, "iterations": 2, "nodes": {"list": (0..12).collect::<Vec<u32>>()}}],
    });
    run(&cfg)
}

#[test]
fn every_output_a_packet_leaves_by_is_counted_once_in_its_place() {
    let s = alltoall(32_768, true);
    assert_eq!(s["end_reason"], "jobs_done", "{}", s["end_reason"]);
    let t = &s["traffic"]["a2a"];
    let w = &t["hop_waits_ns"];
    let delivered = t["packets_delivered"].as_u64().unwrap();
    assert!(delivered > 100, "{t}");
    // One output into a NIC per packet; one output per switch-to-switch hop.
    assert_eq!(count(w, "egress"), delivered, "{w}");
    let hops = (t["hops_mean"].as_f64().unwrap() * delivered as f64).round() as u64;
    let fabric: u64 = PLACES[..4].iter().map(|p| count(w, p)).sum();
    assert_eq!(fabric, hops, "{w}");
    // Slingshot's switches admit every data packet at its first switch once.
    assert_eq!(count(w, "ingress_held"), delivered, "{w}");
    // A packet's first fabric hop leaves its first switch: at most one ingress wait per packet.
    assert!(count(w, "ingress_local") + count(w, "ingress_global") <= delivered, "{w}");
    assert!(count(w, "ingress_global") > 0 && count(w, "transit_local") > 0, "three groups take global and later local hops: {w}");
    // Waiting is part of the time in the network.
    let waited: f64 = PLACES.iter().map(|p| total(w, p)).sum();
    let in_network = t["network_latency_ns"]["mean"].as_f64().unwrap() * delivered as f64;
    assert!(waited > 0.0, "32 KiB to every peer queues somewhere: {w}");
    assert!(waited < in_network, "waits {waited:.0} ns, network time {in_network:.0} ns");
    // The run's own entry merges every source.
    assert_eq!(s["hop_waits_ns"]["egress"]["count"], w["egress"]["count"]);
}

#[test]
fn a_lone_ping_pong_waits_nowhere() {
    let cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "sim": {"warmup_ns": 0, "duration_ns": 1e7, "hop_waits": true},
        "job": [{"name": "pp", "workload": "pingpong", "bytes": 8, "iterations": 5, "nodes": {"list": [0, 11]}}],
    });
    let s = run(&cfg);
    let w = &s["traffic"]["pp"]["hop_waits_ns"];
    assert_eq!(count(w, "egress"), 10, "{w}");
    for p in PLACES {
        let max = w[p]["max"].as_f64().unwrap_or(0.0);
        assert!(max < 1.0, "one packet at a time never queues: {p} waited {max} ns");
    }
}

/// Total wait per delivered packet of `source`, and the mean wait at `place`.
fn per_packet(s: &Value, source: &str) -> f64 {
    let w = &s["traffic"][source]["hop_waits_ns"];
    PLACES.iter().map(|p| total(w, p)).sum::<f64>() / count(w, "egress").max(1) as f64
}

#[test]
fn an_incast_saturates_the_tree_and_congestion_management_holds_it_at_its_ingress() {
    let with = |algorithm: &str| {
        let mut cfg = victim_and_incast(algorithm, true);
        cfg["sim"]["hop_waits"] = json!(true);
        cfg["sim"]["warmup_ns"] = json!(0); // the incast's messages start at once
        run(&cfg)
    };
    let (none, managed) = (with("none"), with("slingshot"));
    // Without congestion control the full port into the target stalls the
    // outputs before it: the incast's packets wait longest upstream, at
    // their first switch, not at the port itself (tree saturation).
    let w = &none["traffic"]["incast"]["hop_waits_ns"];
    let mean = |p: &str| w[p]["mean"].as_f64().unwrap();
    assert!(mean("egress") > 1_000.0, "{w}");
    assert!(mean("ingress_local") > mean("egress"), "{w}");
    // The victim waits behind them; with Slingshot's congestion management it hardly waits.
    let (slow, fast) = (per_packet(&none, "victim"), per_packet(&managed, "victim"));
    assert!(slow > 10.0 * fast, "victim waits {slow:.0} ns per packet without congestion control, {fast:.0} ns with it");
    // With it, the incast's packets wait where their first switch holds
    // them, before any output (none held without it: not counted).
    let m = &managed["traffic"]["incast"]["hop_waits_ns"];
    let held = m["ingress_held"]["mean"].as_f64().unwrap();
    for p in &PLACES[..5] {
        if let Some(x) = m[*p]["mean"].as_f64() {
            assert!(held > x, "held {held:.0} ns at the ingress, {p} {x:.0} ns: {m}");
        }
    }
    assert_eq!(w["ingress_held"]["count"], 0, "{w}");
}

#[test]
fn off_by_default_and_then_not_reported() {
    let s = alltoall(1_024, false);
    assert!(s.get("hop_waits_ns").is_none());
    assert!(s["traffic"]["a2a"].get("hop_waits_ns").is_none());
}
