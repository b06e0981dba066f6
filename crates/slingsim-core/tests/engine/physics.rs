//! Whole-engine checks against physics: zero-load latency from hop counts,
//! conservation of bytes, determinism, throughput bounds.

use slingsim_core::ids::NodeId;
use serde_json::{json, Value};
use slingsim_core::routing::dragonfly::min_hops;
use slingsim_core::topology::Topology;
use slingsim_core::Simulation;

pub(crate) fn small_dragonfly() -> Value {
    json!({
        "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4,
                     "local_links_per_pair": 1, "global_ports_per_switch": 1},
        "links": {"terminal_latency_ns": 10, "local_latency_ns": 12, "global_latency_ns": 150, "fec_latency_ns": 100},
        "switch": {"latency_ns": 300},
        "sim": {"warmup_ns": 2000, "duration_ns": 20000}
    })
}

fn run(cfg: &Value) -> Value {
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    sim.summary()
}

/// One packet between two nodes on an idle network: its latency is the sum
/// of link latencies (propagation + FEC), switch fall-through latencies and
/// the serialization of its wire bytes on the slowest link (the 100 Gb/s NIC).
#[test]
fn zero_load_latency_matches_hop_count() {
    for (a, b) in [(0u32, 1u32), (0, 5), (0, 17), (3, 60), (21, 42)] {
        let mut cfg = small_dragonfly();
        cfg["traffic"] = json!([{"name": "probe", "pattern": "incast", "nodes": {"list": [a, b]},
                                 "target": 1, "flow_bytes": 1000}]);
        let sim = Simulation::from_json(&cfg.to_string()).unwrap();
        let net = sim.network();
        let (sa, sb) = (net.endpoint_switch[net.endpoint_of(NodeId(a), 0)], net.endpoint_switch[net.endpoint_of(NodeId(b), 0)]);
        let Topology::Dragonfly(df) = sim.topology() else { panic!("a dragonfly config builds a dragonfly") };
        let hops = min_hops(df, sa, sb) as f64;
        let globals = (df.group(sa) != df.group(sb)) as u32 as f64;
        let locals = hops - globals;
        let links = 2.0 * (10.0 + 100.0) + locals * (12.0 + 100.0) + globals * (150.0 + 100.0);
        let switches = (hops + 1.0) * 300.0;
        let ser = (1000.0 + 82.0) * 8.0 / 100.0; // ns at 100 Gb/s
        let want = links + switches + ser;
        let s = run(&cfg);
        let got = s["traffic"]["probe"]["flows"]["fct_ns"]["max"].as_f64().unwrap();
        assert!((got - want).abs() / want < 0.02, "{a}->{b}: {got} ns vs analytical {want} ns ({hops} hops)");
        assert_eq!(s["end_reason"], "flows_done");
    }
}

#[test]
fn bytes_are_conserved_mid_run() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "u", "pattern": "uniform", "load": 0.9}]);
    cfg["routing"] = json!({"algorithm": "ugal"});
    cfg["sim"]["drain_ns"] = json!(0); // stop at the window's end, packets still everywhere
    let s = run(&cfg);
    assert_eq!(s["bytes_conserved"], true, "{s}");
    assert!(s["bytes_in_flight"].as_u64().unwrap() > 0, "a loaded network holds packets at the end");
    assert_eq!(s["end_reason"], "time_limit");
}

#[test]
fn same_seed_same_result_other_seed_differs() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "u", "pattern": "uniform", "load": 0.5}]);
    cfg["routing"] = json!({"algorithm": "ugal"});
    let strip = |mut v: Value| {
        v.as_object_mut().unwrap().remove("engine_wall_s");
        v.as_object_mut().unwrap().remove("build_s");
        v
    };
    let a = strip(run(&cfg));
    let b = strip(run(&cfg));
    assert_eq!(a, b);
    cfg["sim"]["seed"] = json!(2);
    assert_ne!(a, strip(run(&cfg)));
}

#[test]
fn accepted_equals_offered_below_saturation() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "u", "pattern": "uniform", "load": 0.3}]);
    let s = run(&cfg);
    let (o, a) = (s["offered_load"].as_f64().unwrap(), s["accepted_load"].as_f64().unwrap());
    assert!((o - 0.3).abs() < 0.03, "offered {o}");
    assert!((a - o).abs() / o < 0.05, "accepted {a} vs offered {o}");
}

#[test]
fn valiant_takes_nonminimal_paths_and_minimal_never_does() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "u", "pattern": "uniform", "load": 0.2}]);
    let s = run(&cfg);
    assert_eq!(s["nonminimal_fraction"], 0.0);
    assert!(s["hops_mean"].as_f64().unwrap() <= 3.0);
    cfg["routing"] = json!({"algorithm": "valiant"});
    let s = run(&cfg);
    assert!(s["nonminimal_fraction"].as_f64().unwrap() > 0.9);
    assert!(s["hops_mean"].as_f64().unwrap() <= 5.0);
}

#[test]
fn incast_drains_at_the_ejection_line_rate() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "in", "pattern": "incast", "nodes": {"count": 9}, "flow_bytes": 100000}]);
    let s = run(&cfg);
    // 8 senders x 100 kB into one 100 Gb/s port: at least 64 us.
    let fct = s["traffic"]["in"]["flows"]["fct_ns"]["max"].as_f64().unwrap();
    let bound = 8.0 * 100_000.0 * (4178.0 / 4096.0) * 8.0 / 100.0;
    assert!(fct >= bound && fct < bound * 1.1, "fct {fct} vs line-rate bound {bound}");
    assert_eq!(s["bytes_conserved"], true);
}

/// PATH rail selection (paper 003 Sec. 4.3) takes the rail with the shorter
/// path, so packets cross fewer switch hops than with rails in turn; the
/// CONGESTION choice balances bytes across both rails.
#[test]
fn path_rail_selection_shortens_paths() {
    let mut cfg = small_dragonfly();
    cfg["topology"]["rails"] = json!(2);
    cfg["traffic"] = json!([{"name": "u", "pattern": "uniform", "load": 0.2}]);
    let hops = |sel: &str, cfg: &mut Value| {
        cfg["nic"] = json!({"rail_selection": sel});
        let s = run(cfg);
        assert_eq!(s["bytes_conserved"], true);
        s["hops_mean"].as_f64().unwrap()
    };
    let rr = hops("round-robin", &mut cfg);
    let path = hops("path", &mut cfg);
    let congestion = hops("congestion", &mut cfg);
    assert!(path < rr - 0.1, "path {path} vs round-robin {rr}");
    assert!(congestion > path, "congestion {congestion} ignores path length");
}

/// With `nic.rail_unit = "packet"` each packet picks its rail (paper 003
/// Sec. 4.3), so one large message from an idle node spreads over both
/// rails and arrives in about half the time it takes on one; its flow ends
/// once, when its last part is delivered, with every byte conserved. With
/// `path` selection the packets keep to the rail with the fewest hops.
#[test]
fn packet_rail_unit_spreads_a_message_over_the_rails() {
    let bytes = 1u64 << 20;
    let fct = |unit: &str, sel: &str, a: u32, b: u32| -> (f64, Value) {
        let mut cfg = small_dragonfly();
        cfg["topology"]["rails"] = json!(2);
        cfg["nic"] = json!({"rail_selection": sel, "rail_unit": unit});
        cfg["sim"] = json!({"max_time_ns": 1.0e6});
        cfg["traffic"] = json!([{"name": "one", "pattern": "incast", "nodes": {"list": [a, b]}, "target": 1, "flow_bytes": bytes}]);
        let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
        sim.run();
        let end = sim.flow_end(0).expect("the message is delivered").0 as f64 / 1e3;
        let s = sim.summary();
        assert_eq!(s["bytes_conserved"], true, "{unit} {sel}");
        assert_eq!(s["bytes_delivered"].as_u64(), Some(bytes), "{unit} {sel}");
        (end, s)
    };
    let wire_us = bytes as f64 * 8.0 / 100e9 * 1e6; // one 100 Gb/s rail
    for sel in ["round-robin", "congestion", "random"] {
        let (one, _) = fct("message", sel, 0, 17);
        let (spread, _) = fct("packet", sel, 0, 17);
        assert!(one > wire_us * 1e3, "{sel}: a message on one rail takes its wire time ({one} ns)");
        let ratio = spread / one;
        assert!((0.45..0.6).contains(&ratio), "{sel}: spread over two rails {spread} ns against {one} ns on one");
    }
    // Path: a pair whose rails differ in length keeps to the shorter one.
    let cfg = {
        let mut c = small_dragonfly();
        c["topology"]["rails"] = json!(2);
        c["traffic"] = json!([{"pattern": "uniform"}]);
        c
    };
    let sim = Simulation::from_json(&cfg.to_string()).unwrap();
    let (net, topo) = (sim.network(), sim.topology());
    let hops = |a: u32, b: u32, r: u32| {
        let (ea, eb) = (net.endpoint_of(NodeId(a), r), net.endpoint_of(NodeId(b), r));
        topo.distance(net.endpoint_switch[ea], net.endpoint_switch[eb])
    };
    let (a, b) = (0..80u32)
        .flat_map(|a| (0..80u32).map(move |b| (a, b)))
        .find(|&(a, b)| a != b && hops(a, b, 0) != hops(a, b, 1))
        .expect("some pair has rails of different lengths");
    let (_, s) = fct("packet", "path", a, b);
    let shorter = hops(a, b, 0).min(hops(a, b, 1)) as f64;
    assert_eq!(s["hops_mean"].as_f64(), Some(shorter), "path keeps every packet on the shorter rail");
}

/// Two 400 kB messages queued together at one NIC for two destinations:
/// first come first served, the first is in after one message's wire time
/// and the second after two; interleaved, both take turns, so each ends
/// near two wire times, the first only one packet ahead. Every byte is
/// delivered either way.
#[test]
fn interleaved_message_order_shares_the_link_packet_by_packet() {
    let bytes = 400_000u64;
    let ends = |order: &str| -> (f64, f64) {
        let mut cfg = small_dragonfly();
        cfg["nic"] = json!({"message_order": order});
        cfg["sim"] = json!({"max_time_ns": 1.0e6});
        // A one-byte message far from them, for the run to have a traffic source.
        cfg["traffic"] = json!([{"name": "other", "pattern": "incast", "nodes": {"list": [70, 71]}, "target": 1, "flow_bytes": 1}]);
        let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
        let a = sim.send_message(NodeId(0), NodeId(17), bytes, None, None, None).unwrap();
        let b = sim.send_message(NodeId(0), NodeId(33), bytes, None, None, None).unwrap();
        sim.run();
        let s = sim.summary();
        assert_eq!(s["bytes_conserved"], true, "{order}");
        assert_eq!(s["bytes_delivered"].as_u64(), Some(2 * bytes + 1), "{order}");
        let end = |f| sim.flow_end(f).expect("delivered").0 as f64 / 1e3;
        (end(a), end(b))
    };
    let wire_ns = bytes as f64 * 8.0 / 100e9 * 1e9;
    let (a, b) = ends("fifo");
    assert!(a < 1.2 * wire_ns && b > 1.9 * wire_ns, "fifo: {a} and {b} ns against {wire_ns} per message");
    let (a, b) = ends("interleaved");
    assert!(a > 1.9 * wire_ns && b > 1.9 * wire_ns && (b - a).abs() < 0.05 * wire_ns,
            "interleaved: {a} and {b} ns against {wire_ns} per message");
    let mut c = small_dragonfly();
    c["nic"] = json!({"message_order": "random"});
    let err = match Simulation::from_json(&c.to_string()) {
        Ok(_) => panic!("an unknown message order is refused"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("message order") && err.contains("interleaved"), "{err}");
}

/// An MPI job whose messages spread over two rails packet by packet
/// finishes: each message completes once, when both of its parts are in.
#[test]
fn an_mpi_job_finishes_with_its_messages_spread_over_the_rails() {
    for unit in ["message", "packet"] {
        let mut cfg = small_dragonfly();
        cfg["topology"]["rails"] = json!(2);
        cfg["nic"] = json!({"rail_selection": "congestion", "rail_unit": unit});
        cfg["sim"] = json!({"max_time_ns": 1.0e7});
        cfg["job"] = json!([{"name": "j", "workload": "alltoall", "bytes": 65536, "iterations": 2, "nodes": "all"}]);
        let s = run(&cfg);
        assert_eq!(s["end_reason"], "jobs_done", "{unit}: {s}");
        assert_eq!(s["jobs"]["j"]["finished"], true, "{unit}");
        assert_eq!(s["bytes_conserved"], true, "{unit}");
        assert_eq!(s["bytes_injected"], s["bytes_delivered"], "{unit}");
    }
}

#[test]
fn unknown_rail_selection_names_the_field() {
    let mut cfg = small_dragonfly();
    cfg["nic"] = json!({"rail_selection": "fastest"});
    cfg["traffic"] = json!([{"pattern": "uniform"}]);
    let e = Simulation::from_json(&cfg.to_string()).err().expect("rejected");
    assert_eq!(e.field, "nic.rail_selection");
}

/// PAR (progressive adaptive) diverts adversarial traffic like UGAL and
/// beats minimal routing's group-pair bound; its longest path (one local
/// hop, then a full Valiant path) fits its VCs, so nothing deadlocks.
#[test]
fn par_beats_minimal_on_adversarial_traffic() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "adv", "pattern": "group_adversarial", "load": 0.5}]);
    let accepted = |alg: &str, cfg: &mut Value| {
        cfg["routing"] = json!({"algorithm": alg});
        let s = run(cfg);
        assert_eq!(s["bytes_conserved"], true);
        // Minimal routing saturates below the offered load: its measured packets may not all drain.
        assert!(s["end_reason"] == "time_limit" || s["end_reason"] == "drain_limit", "{}", s["end_reason"]);
        (s["accepted_load"].as_f64().unwrap(), s["nonminimal_fraction"].as_f64().unwrap())
    };
    let (min, _) = accepted("minimal", &mut cfg);
    let (par, nm) = accepted("par", &mut cfg);
    assert!(par > 1.5 * min, "par {par} vs minimal {min}");
    assert!(nm > 0.3, "par sends adversarial traffic non-minimally ({nm})");
}

/// Poisson arrivals offer the same mean load as Bernoulli ones.
#[test]
fn poisson_process_offers_the_requested_load() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "p", "pattern": "uniform", "load": 0.4, "process": "poisson"}]);
    let s = run(&cfg);
    let o = s["offered_load"].as_f64().unwrap();
    assert!((o - 0.4).abs() < 0.04, "offered {o}");
    cfg["traffic"][0]["process"] = json!("bursty");
    let e = Simulation::from_json(&cfg.to_string()).err().expect("rejected");
    assert_eq!(e.field, "traffic[0].process");
}

/// Link-level retry: with a bit-error rate every packet still arrives, once;
/// replays cost time but lose nothing.
#[test]
fn link_level_retry_loses_nothing() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "f", "pattern": "permutation", "flow_bytes": 200000}]);
    let clean = run(&cfg);
    cfg["links"]["bit_error_rate"] = json!(2e-6);
    let noisy = run(&cfg);
    for s in [&clean, &noisy] {
        assert_eq!(s["end_reason"], "flows_done");
        assert_eq!(s["packets_delivered"], s["packets_injected"], "every packet arrives, none twice");
        assert_eq!(s["bytes_conserved"], true);
    }
    assert_eq!(clean["llr_replays"], 0);
    assert!(noisy["llr_replays"].as_u64().unwrap() > 100, "{}", noisy["llr_replays"]);
    let fct = |s: &Value| s["traffic"]["f"]["flows"]["fct_ns"]["mean"].as_f64().unwrap();
    assert!(fct(&noisy) > fct(&clean));
}

/// Lane degrade: a link on 3 of its 4 lanes carries 3/4 of the bandwidth.
#[test]
fn three_lane_link_carries_three_quarters() {
    // Node 0 on switch 0, node 2 on switch 1 of group 0: one local link between them.
    let mut cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "nic": {"bandwidth_bps": 200e9},
        "traffic": [{"name": "f", "pattern": "incast", "nodes": {"list": [0, 2]}, "target": 1, "flow_bytes": 2000000}]
    });
    let fct = |cfg: &Value| run(cfg)["traffic"]["f"]["flows"]["fct_ns"]["max"].as_f64().unwrap();
    let full = fct(&cfg);
    cfg["links"] = json!({"degraded": [{"switch": 0, "port": 2, "lanes": 3}]});
    let three = fct(&cfg);
    let ratio = full / three;
    assert!((ratio - 0.75).abs() < 0.02, "throughput ratio {ratio}");
    cfg["links"]["degraded"][0]["port"] = json!(40);
    let e = Simulation::from_json(&cfg.to_string()).err().expect("uncabled port rejected");
    assert_eq!(e.field, "links.degraded[0].port");
}

/// Slingshot framing carries more payload than RoCE for small messages,
/// by the ratio of wire sizes: (64 + 62 + 20) / (64 + 40) for 64 B payloads.
#[test]
fn slingshot_frames_carry_more_goodput_for_small_messages() {
    let goodput = |frame: &str| {
        let mut cfg = small_dragonfly();
        cfg["nic"] = json!({"frame": frame});
        cfg["traffic"] = json!([{"name": "p", "pattern": "permutation", "load": 0.9, "message_bytes": 64}]);
        run(&cfg)["bytes_delivered"].as_f64().unwrap()
    };
    let ratio = goodput("slingshot") / goodput("roce");
    let want = 146.0 / 104.0;
    assert!((ratio - want).abs() / want < 0.03, "goodput ratio {ratio} vs {want}");
}

/// NIC counters (paper 004 Sec. 2.3): flits and packets sent, stalls only
/// under back-pressure, cumulative latency / packets = mean network latency.
#[test]
fn nic_counters_see_back_pressure_only_under_incast() {
    use slingsim_core::table::Column;
    let counters = |cfg: &Value| {
        let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
        sim.run();
        let t = sim.flows_table();
        let col = |name: &str| -> Vec<f64> {
            match &t.columns.iter().find(|(n, _)| n == name).unwrap().1 {
                Column::U64(v) => v.iter().map(|&x| x as f64).collect(),
                Column::F64(v) => v.clone(),
                _ => unreachable!(),
            }
        };
        (col("packets_sent"), col("flits_sent"), col("stalled_ns"), col("mean_latency_ns"), sim.summary())
    };
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "f", "pattern": "permutation", "nodes": {"list": [0, 40]}, "flow_bytes": 409600}]);
    let (packets, flits, stalled, latency, s) = counters(&cfg);
    assert_eq!(packets, vec![100.0, 100.0]);
    assert_eq!(flits, vec![100.0 * (4178f64 / 16.0).ceil(); 2]);
    assert_eq!(stalled, vec![0.0, 0.0], "an isolated flow is never back-pressured");
    let net = s["traffic"]["f"]["network_latency_ns"]["mean"].as_f64().unwrap();
    assert!((latency[0] - net).abs() / net < 0.05, "{} vs {net}", latency[0]);
    cfg["traffic"] = json!([{"name": "f", "pattern": "incast", "nodes": {"count": 16}, "flow_bytes": 409600}]);
    let (_, _, stalled, _, _) = counters(&cfg);
    assert!(stalled.iter().sum::<f64>() > 0.0, "incast senders are held back by back-pressure");
}

/// Routing bias (paper 000 Sec. II-C, 004 Sec. 2.2): more bias toward
/// minimal paths gives a larger minimal fraction, monotonically.
#[test]
fn raising_the_bias_raises_the_minimal_fraction() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "u", "pattern": "uniform", "load": 0.6}]);
    let nonminimal = |cfg: &mut Value, routing: Value| {
        cfg["routing"] = routing;
        let s = run(cfg);
        assert_eq!(s["bytes_conserved"], true);
        s["nonminimal_fraction"].as_f64().unwrap()
    };
    let slingshot: Vec<f64> = [0, 16384, 65536, 262144]
        .iter()
        .map(|b| nonminimal(&mut cfg, json!({"algorithm": "slingshot", "bias_bytes": b})))
        .collect();
    assert!(slingshot.windows(2).all(|w| w[1] < w[0]), "slingshot: {slingshot:?}");
    let aries: Vec<f64> = ["adaptive-0", "adaptive-2", "adaptive-3"].iter().map(|a| nonminimal(&mut cfg, json!({"algorithm": a}))).collect();
    assert!(aries.windows(2).all(|w| w[1] < w[0]), "aries ADAPTIVE_0, _2, _3: {aries:?}");
    assert!(aries[0] > 0.05, "no bias: phantom congestion sends traffic the long way ({})", aries[0]);
}

/// IN_ORDER keeps every flow on one path, so its packets arrive in order;
/// adaptive routing under load reorders some.
#[test]
fn in_order_delivers_in_order() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([
        {"name": "f", "pattern": "permutation", "flow_bytes": 400000, "nodes": {"count": 40}},
        {"name": "bg", "pattern": "uniform", "load": 0.5}
    ]);
    let reordered = |cfg: &mut Value, alg: &str| {
        cfg["routing"] = json!({"algorithm": alg});
        cfg["sim"]["duration_ns"] = json!(60000);
        run(cfg)["packets_out_of_order"].as_u64().unwrap()
    };
    assert_eq!(reordered(&mut cfg, "in-order"), 0);
    assert!(reordered(&mut cfg, "adaptive-0") > 0);
}

/// A traffic source can pick its own routing mode; the VCs cover it.
#[test]
fn per_source_routing_mode() {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([
        {"name": "min", "pattern": "uniform", "load": 0.3, "nodes": {"fraction": 0.5}, "placement": "interleaved"},
        {"name": "val", "pattern": "uniform", "load": 0.3, "routing": "valiant"}
    ]);
    let s = run(&cfg);
    assert_eq!(s["traffic"]["min"]["nonminimal_fraction"], 0.0);
    assert!(s["traffic"]["val"]["nonminimal_fraction"].as_f64().unwrap() > 0.9);
    cfg["traffic"][1]["routing"] = json!("zigzag");
    assert_eq!(Simulation::from_json(&cfg.to_string()).err().unwrap().field, "traffic[1].routing");
}
