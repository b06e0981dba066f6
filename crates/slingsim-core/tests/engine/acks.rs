//! Acks and CNPs as packets (issue 11, `nic.acks`): they take link
//! bandwidth, queue behind data on a loaded reverse path, are accounted
//! for like data, and the earlier instant model stays available by name.

use serde_json::{json, Value};
use slingsim_core::ids::NodeId;
use slingsim_core::Simulation;

/// 5 groups of 4 switches with 4 nodes each: node n sits on switch n / 4.
fn small_dragonfly() -> Value {
    json!({
        "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4,
                     "local_links_per_pair": 1, "global_ports_per_switch": 1},
        "sim": {"warmup_ns": 2000, "duration_ns": 20000}
    })
}

fn run(cfg: &Value) -> (Value, Simulation) {
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    (sim.summary(), sim)
}

/// Bytes sent on the terminal channel leaving endpoint `from` (its up-link)
/// and on the one reaching endpoint `to` (its down-link).
fn terminal_bytes(sim: &Simulation, from: i64, to: i64) -> (u64, u64) {
    let t = sim.links_table();
    let col = |name: &str| t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone()).unwrap();
    let (slingsim_core::table::Column::I64(src), slingsim_core::table::Column::I64(dst), slingsim_core::table::Column::U64(bytes)) =
        (col("src_endpoint"), col("dst_endpoint"), col("bytes"))
    else {
        panic!("links table columns changed type")
    };
    let up = (0..bytes.len()).filter(|&i| src[i] == from).map(|i| bytes[i]).sum();
    let down = (0..bytes.len()).filter(|&i| dst[i] == to).map(|i| bytes[i]).sum();
    (up, down)
}

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("a count, got {v}"))
}

/// One flow from node 0 to node 17 under Slingshot congestion control:
/// the receiver's up-link carries exactly its acks (44 B each in the
/// Slingshot frame), and the sender's down-link the acks that came back;
/// with instant acks both carry nothing.
#[test]
fn ack_bytes_appear_in_link_counts() {
    let mut cfg = small_dragonfly();
    cfg["nic"] = json!({"frame": "slingshot"});
    cfg["congestion"] = json!({"algorithm": "slingshot-endpoint"});
    cfg["traffic"] = json!([{"name": "f", "pattern": "incast", "nodes": {"list": [0, 17]}, "target": 1, "flow_bytes": 100_000}]);
    let (s, sim) = run(&cfg);
    assert_eq!(s["end_reason"], "flows_done", "{s}");
    let data = count(&s["packets_by_kind"]["data"]);
    assert_eq!(data, 25, "100 kB in 4 KiB packets");
    let acks = count(&s["packets_by_kind"]["ack"]);
    let ack = &s["control_packets"]["ack"];
    // The run ends when the last byte is in, before the last acks leave.
    assert_eq!(count(&ack["made"]), data, "{s}");
    assert_eq!(acks + count(&ack["queued_at_nic"]), data, "{s}");
    assert!(acks >= data - 2, "{s}");
    let (up, down) = terminal_bytes(&sim, 17, 0);
    assert_eq!(up, acks * 44, "the receiver sends nothing but acks");
    let (arrived, in_flight) = (count(&ack["arrived"]), count(&ack["in_flight"]));
    assert!(down >= arrived * 44 && down <= (arrived + in_flight) * 44, "the sender's down-link carried the acks that came back: {down} B, {ack}");
    // Node 0 and node 17 are one global hop apart: 3 links each way.
    assert!(count(&s["packet_hops"]) >= (data + arrived) * 3, "acks count in packet hops: {s}");

    cfg["nic"]["acks"] = json!("instant");
    let (s, sim) = run(&cfg);
    assert_eq!(s["packets_by_kind"]["ack"], 0);
    // All but those due within one path latency (1.35 us) of the end.
    assert!(count(&s["congestion"]["acks"]) >= data - 5, "instant acks still reach the sender: {s}");
    assert_eq!(terminal_bytes(&sim, 17, 0), (0, 0), "instant acks take no bandwidth");
}

/// A sender with 2 packets outstanding, from node 0 to node 4, gets its
/// acks back through the switch port feeding node 0; `loaded` has nodes
/// 8-15 (switches 2 and 3) all send 1 MB to node 0 meanwhile. Returns the
/// probe's flow completion time and the run's summary. `nic` and `classes`
/// are laid over the probe's config.
fn probe_fct(nic: Value, classes: Option<Value>, loaded: bool) -> (f64, Value) {
    let mut cfg = small_dragonfly();
    cfg["nic"] = json!({"max_outstanding_packets": 2});
    for (k, v) in nic.as_object().expect("nic keys") {
        cfg["nic"][k] = v.clone();
    }
    if let Some(c) = classes {
        cfg["classes"] = c;
    }
    cfg["sim"] = json!({"max_time_ns": 1e6});
    cfg["traffic"] = json!([{"name": "probe", "pattern": "incast", "nodes": {"list": [0, 4]}, "target": 1, "flow_bytes": 400_000}]);
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    if loaded {
        for n in 8..16 {
            sim.send_message(NodeId(n), NodeId(0), 1_000_000, None, None, None).unwrap();
        }
    }
    sim.run();
    let s = sim.summary();
    assert_eq!(s["end_reason"], "flows_done", "{s}");
    assert_eq!(s["packets_conserved"], true, "{s}");
    (s["traffic"]["probe"]["flows"]["fct_ns"]["max"].as_f64().unwrap(), s)
}

/// The probe of [`probe_fct`]: when eight other senders load the port
/// feeding node 0, acks as packets queue behind their data and the flow
/// slows down; instant acks do not notice (the forward path is quiet).
#[test]
fn a_loaded_reverse_path_slows_the_acks() {
    let fct = |acks: &str, loaded: bool| probe_fct(json!({"acks": acks}), None, loaded).0;
    let (packets_quiet, packets_loaded) = (fct("packets", false), fct("packets", true));
    let (instant_quiet, instant_loaded) = (fct("instant", false), fct("instant", true));
    // Measured: 107 us quiet with either model, 260 us loaded with packets.
    // On a quiet network an ack packet costs only its few bytes' serialization.
    assert!((packets_quiet / instant_quiet - 1.0).abs() < 0.05, "quiet: packets {packets_quiet} ns, instant {instant_quiet} ns");
    assert!((instant_loaded / instant_quiet - 1.0).abs() < 0.05, "instant: loaded {instant_loaded} ns, quiet {instant_quiet} ns");
    assert!(packets_loaded > 1.5 * instant_loaded, "acks as packets queue on the loaded reverse path: {packets_loaded} ns against {instant_loaded} ns");
}

/// The same loaded reverse path with the acks in a traffic class of their
/// own (`nic.ack_class`): they wait in their own virtual channels, not
/// behind the data queued for node 0, and the class arbitration lets the
/// lightly used class through first, so the probe runs about as fast as on
/// a quiet network. The loaded data still moves (the acks take little of
/// the link).
#[test]
fn acks_in_their_own_class_skip_the_data_queue() {
    let fct = |own: bool, loaded: bool| {
        let (nic, classes) = if own {
            (json!({"ack_class": "replies"}), Some(json!([{"name": "data"}, {"name": "replies", "dscp": 1}])))
        } else {
            (json!({}), None)
        };
        let (fct, s) = probe_fct(nic, classes, loaded);
        assert!(count(&s["control_packets"]["ack"]["arrived"]) > 0, "{s}");
        fct
    };
    let (shared_quiet, shared_loaded) = (fct(false, false), fct(false, true));
    let (own_quiet, own_loaded) = (fct(true, false), fct(true, true));
    assert!((own_quiet / shared_quiet - 1.0).abs() < 0.05, "quiet: own class {own_quiet} ns, shared {shared_quiet} ns");
    assert!(own_loaded < 1.2 * own_quiet, "acks in their own class pass the queued data: loaded {own_loaded} ns, quiet {own_quiet} ns");
    assert!(shared_loaded > 1.5 * own_loaded, "sharing the data's class they queue: {shared_loaded} ns against {own_loaded} ns");
}

/// `nic.ack_class` must name a lossless class of the config, with acks as
/// packets; each refusal names the field and the fix.
#[test]
fn ack_class_errors_name_the_field_and_the_fix() {
    let refuse = |nic: Value, classes: Value| {
        let mut cfg = small_dragonfly();
        cfg["nic"] = nic;
        cfg["classes"] = classes;
        cfg["traffic"] = json!([{"name": "u", "pattern": "uniform", "load": 0.1}]);
        Simulation::from_json(&cfg.to_string()).err().expect("refused")
    };
    let two = json!([{"name": "data"}, {"name": "replies", "dscp": 1}]);
    let e = refuse(json!({"ack_class": "acks"}), two.clone());
    assert_eq!(e.field, "nic.ack_class");
    assert!(e.message.contains("unknown traffic class \"acks\"; the config defines \"data\", \"replies\""), "{e}");
    let e = refuse(json!({"ack_class": "replies", "acks": "instant"}), two);
    assert_eq!(e.field, "nic.ack_class");
    assert!(e.message.contains("nic.acks = \"packets\""), "{e}");
    let e = refuse(json!({"ack_class": "drop"}), json!([{"name": "data"}, {"name": "drop", "dscp": 1, "lossy": true}]));
    assert_eq!(e.field, "nic.ack_class");
    assert!(e.message.contains("lossy"), "{e}");
}

/// Stopped in the middle of a congested run (no drain), acks and CNPs
/// are everywhere: queued at NICs, on wires, in switch queues, their tails
/// still arriving. Every one is accounted for.
#[test]
fn acks_and_cnps_are_conserved_mid_run() {
    for (cc, frame, kind) in [("slingshot-endpoint", "slingshot", "ack"), ("dcqcn", "roce", "cnp")] {
        let mut cfg = small_dragonfly();
        cfg["nic"] = json!({"frame": frame});
        cfg["congestion"] = json!({"algorithm": cc, "kmin_bytes": 2000, "kmax_bytes": 40000});
        cfg["sim"]["drain_ns"] = json!(0);
        cfg["traffic"] = json!([
            {"name": "victim", "pattern": "uniform", "load": 0.3, "nodes": {"count": 40}, "placement": "interleaved"},
            {"name": "aggressor", "pattern": "incast", "load": 0.8, "nodes": {"count": 30}, "target": 1}
        ]);
        let (s, _) = run(&cfg);
        assert_eq!(s["bytes_conserved"], true, "{cc}: {s}");
        assert_eq!(s["packets_conserved"], true, "{cc}: {s}");
        let c = &s["control_packets"][kind];
        assert!(count(&c["in_flight"]) > 0, "{cc}: the run stopped with {kind}s in the network: {c}");
        assert!(count(&c["arrived"]) > 0, "{cc}: {c}");
        assert_eq!(count(&s["packets_by_kind"][kind]), count(&c["injected"]));
    }
}

/// With lossy drops and a failed link, acks are lost and resent like data;
/// the books still balance, and a lost ack releases its sender's window
/// (the run completes its flows instead of stalling).
#[test]
fn lost_acks_are_accounted_for() {
    let cfg = json!({
        "topology": {"groups": 4, "switches_per_group": 4, "endpoints_per_switch": 2, "global_ports_per_switch": 3},
        "routing": {"algorithm": "minimal"},
        "congestion": {"algorithm": "slingshot-endpoint"},
        "links": {"failed": [{"switch": 0, "port": 3, "at_ns": 4000}]},
        "nic": {"retry_timeout_ns": 3000},
        "sim": {"seed": 17, "warmup_ns": 2000, "duration_ns": 20000},
        "classes": [{"name": "tc1", "dscp": 10}, {"name": "lossy", "dscp": 30, "lossy": true}],
        "qos": {"lossy_queue_bytes": 8192},
        "traffic": [
            {"name": "bulk", "pattern": "uniform", "load": 0.9, "nodes": {"count": 16}, "class": "lossy"},
            {"name": "flows", "pattern": "permutation", "flow_bytes": 200000, "nodes": {"count": 16}, "class": "tc1"}
        ]
    });
    let (s, _) = run(&cfg);
    assert_eq!(s["packets_conserved"], true, "{s}");
    assert_eq!(s["bytes_conserved"], true, "{s}");
    let ack = &s["control_packets"]["ack"];
    assert!(count(&ack["lost"]) > 0, "lossy drops hit acks too: {ack}");
    assert!(count(&s["e2e_retries"]) > 0, "{s}");
}

/// Acks as packets are as deterministic as data: same seed, same run.
#[test]
fn acks_as_packets_are_deterministic() {
    let mut cfg = small_dragonfly();
    cfg["congestion"] = json!({"algorithm": "slingshot-endpoint"});
    cfg["routing"] = json!({"algorithm": "slingshot"});
    cfg["traffic"] = json!([{"name": "u", "pattern": "uniform", "load": 0.6}]);
    let strip = |mut s: Value| {
        for k in ["engine_wall_s", "build_s"] {
            s.as_object_mut().unwrap().remove(k);
        }
        s
    };
    let (a, _) = run(&cfg);
    let (b, _) = run(&cfg);
    assert!(count(&a["packets_by_kind"]["ack"]) > 0);
    assert_eq!(strip(a), strip(b));
}

/// A bad `nic.acks` names the field and the valid choices.
#[test]
fn unknown_ack_model_names_the_field_and_choices() {
    let mut cfg = small_dragonfly();
    cfg["nic"] = json!({"acks": "eventually"});
    let e = Simulation::from_json(&cfg.to_string()).err().expect("refused");
    assert_eq!(e.field, "nic.acks");
    assert!(e.message.contains("unknown ack model \"eventually\"; choose one of: packets, instant"), "{e}");
}

/// [DeSensi19] Sec. 2.3: Aries counts a packet's latency from its request
/// to its response. On an idle network that is the one-way latency, the
/// response's own trip back and its serialization: more than twice the
/// one-way latency's path part, and the counters say so per NIC.
#[test]
fn the_nic_counts_request_to_response_latency() {
    let cfg = serde_json::json!({
        "topology": {"kind": "aries", "groups": 2, "rows": 2, "columns": 4, "endpoints_per_switch": 2, "global_ports_per_switch": 2},
        "nic": {"frame": "aries", "mtu_payload": 64, "max_outstanding_packets": 1024},
        "routing": {"algorithm": "adaptive-3"},
        "traffic": [{"name": "p", "pattern": "permutation", "nodes": {"list": [0, 15]}, "flow_bytes": 64000}]
    });
    let mut sim = slingsim_core::Simulation::from_json(&cfg.to_string()).unwrap();
    sim.run();
    let t = sim.nic_counters_table();
    let col = |name: &str| t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone()).unwrap();
    let (slingsim_core::table::Column::U64(resp), slingsim_core::table::Column::F64(rtt), slingsim_core::table::Column::F64(one_way)) =
        (col("responses"), col("mean_response_latency_ns"), col("mean_latency_ns"))
    else {
        panic!("column types")
    };
    // One response per packet of node 0, but for those still on their way
    // when the last data packet arrived and the run ended.
    assert!(resp[0] > 500 && resp[0] <= 1000, "{} responses", resp[0]);
    assert!(rtt[0] > 1.8 * one_way[0] && rtt[0] < 3.0 * one_way[0], "L {} ns against one way {} ns", rtt[0], one_way[0]);
    // Instant acks come back after the path's zero-load latency: about twice one way.
    let mut sim = slingsim_core::Simulation::from_json(&cfg.to_string().replace(r#""max_outstanding_packets":1024"#, r#""max_outstanding_packets":1024,"acks":"instant""#)).unwrap();
    sim.run();
    assert!(sim.summary()["control_packets"]["ack"]["made"] == 0);
}
