//! Background traffic as [McGlohon19] Sec. 6.1.3 runs it: every node sends
//! a message to a random node of its set at a fixed mean interval, and the
//! message size sets the intensity.

use serde_json::{json, Value};
use slingsim_core::table::Column;
use slingsim_core::Simulation;

fn config(process: &str, interval_ns: f64, message_bytes: u64) -> Value {
    json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "sim": {"warmup_ns": 0, "duration_ns": 1_000_000, "drain_ns": 200_000},
        "traffic": [{"name": "background", "pattern": "uniform", "process": process,
                     "interval_ns": interval_ns, "message_bytes": message_bytes}],
    })
}

fn run(cfg: &Value) -> Value {
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    sim.summary()
}

#[test]
fn the_interval_and_message_size_set_the_offered_load() {
    // 12 nodes, 100 Gb/s NICs, RoCE framing: 12,500 B in 4 packets of at
    // most 4,096 B carry 4 x 82 B of headers, 12,828 B on the wire every
    // 10 us: 10.26% of the injection bandwidth.
    let expected = 12_828.0 * 8.0 / (100e9 * 10e-6);
    for process in ["periodic", "poisson", "bernoulli"] {
        let s = run(&config(process, 10_000.0, 12_500));
        let offered = s["offered_load"].as_f64().unwrap();
        let tolerance = if process == "periodic" { 0.01 } else { 0.06 };
        assert!((offered / expected - 1.0).abs() < tolerance, "{process}: offered {offered} expected {expected}");
        assert_eq!(s["bytes_conserved"], true);
    }
}

#[test]
fn periodic_messages_are_exactly_one_interval_apart() {
    // 1 ms at one message per node every 100 us: each of the 12 nodes sends
    // 10 (its first at a random phase inside the first interval).
    let s = run(&config("periodic", 100_000.0, 1_000));
    let packets = s["packets_injected"].as_u64().unwrap();
    assert_eq!(packets, 12 * 10, "{s:#}");
}

/// Creation times (ns) of every delivered packet.
fn created_ns(process: &str) -> Vec<f64> {
    let mut cfg = config(process, 100_000.0, 1_000);
    cfg["sim"]["packet_sample_every"] = json!(1);
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    let t = sim.packets_table();
    let Column::F64(created) = &t.columns.iter().find(|(n, _)| n == "created_ns").expect("created_ns").1 else { panic!("type") };
    created.clone()
}

#[test]
fn aligned_periodic_nodes_send_in_lockstep() {
    // `periodic-aligned`: every node's messages at 0, 100, 200 ... us, as
    // CODES' synthetic ranks start together; `periodic` starts each node at
    // its own phase. 12 nodes x 10 messages of one packet each.
    let aligned = created_ns("periodic-aligned");
    assert_eq!(aligned.len(), 12 * 10);
    assert!(aligned.iter().all(|t| (t / 100_000.0 - (t / 100_000.0).round()).abs() < 1e-9), "{aligned:?}");
    let phased = created_ns("periodic");
    assert_eq!(phased.len(), 12 * 10);
    let on_the_grid = phased.iter().filter(|t| (*t / 100_000.0 - (*t / 100_000.0).round()).abs() < 1e-9).count();
    assert!(on_the_grid < 12, "random phases put {on_the_grid} packets on the interval grid");
}

#[test]
fn an_interval_too_short_for_the_message_is_refused() {
    let e = Simulation::from_json(&config("periodic", 1_000.0, 1_000_000).to_string()).err().expect("refused");
    assert_eq!(e.field, "traffic[0].interval_ns");
    assert!(e.message.contains("lengthen the interval"), "{e}");
    let mut cfg = config("periodic", 1_000.0, 1_000);
    cfg["traffic"][0]["flow_bytes"] = json!(1000);
    let e = Simulation::from_json(&cfg.to_string()).err().expect("refused");
    assert_eq!(e.field, "traffic[0].interval_ns");
    let e = Simulation::from_json(&config("periodic", -5.0, 1_000).to_string()).err().expect("refused");
    assert_eq!(e.field, "traffic[0].interval_ns");
    assert!(e.message.contains("between 1e-3 ns"), "{e}");
}
