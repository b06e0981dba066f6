//! `switch.vc_priority`: which hop class a per-output switch serves first
//! (other simulators' router arbitration, kept to compare with their
//! results; docs/model.md, "VC priority"). Under saturating uniform
//! traffic on a small dragonfly, serving the fewest hops first must make
//! packets that travel far wait longer than with no priority, and serving
//! the most hops first must make them wait less. The tiled model refuses
//! the option.

use serde_json::{json, Value};
use slingsim_core::table::Column;
use slingsim_core::Simulation;

fn config(priority: &str) -> Value {
    json!({
        "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4, "global_ports_per_switch": 1},
        "routing": {"algorithm": "minimal"},
        "switch": {"vc_priority": priority},
        "sim": {"seed": 11, "warmup_ns": 5000, "duration_ns": 25000, "packet_sample_every": 1},
        "traffic": [{"name": "uniform", "pattern": "uniform", "load": 0.95}]
    })
}

/// Mean latency (ns) of the packets that took `long` switch hops or more
/// (every packet is sampled).
fn far_latency(priority: &str, long: u64) -> f64 {
    let mut sim = Simulation::from_json(&config(priority).to_string()).expect("valid config");
    sim.run();
    assert_eq!(sim.summary()["bytes_conserved"], true);
    let t = sim.packets_table();
    let col = |name: &str| &t.columns.iter().find(|(n, _)| n == name).expect("packets table column").1;
    let (Column::U64(hops), Column::F64(lat)) = (col("hops"), col("latency_ns")) else { panic!("packets table types") };
    let far: Vec<f64> = hops.iter().zip(lat).filter(|(h, _)| **h >= long).map(|(_, l)| *l).collect();
    assert!(far.len() > 100, "too few packets to compare: {}", far.len());
    far.iter().sum::<f64>() / far.len() as f64
}

#[test]
fn serving_fewest_hops_first_delays_far_packets_and_most_hops_first_speeds_them() {
    let far_none = far_latency("none", 3);
    let far_fewest = far_latency("fewest-hops", 3);
    let far_most = far_latency("most-hops", 3);
    // Packets that cross three links or more wait at every later hop behind
    // fresher ones under fewest-hops, and pass them under most-hops.
    assert!(far_fewest > 1.05 * far_none, "far packets: fewest-hops {far_fewest} ns, none {far_none} ns");
    assert!(far_most < far_none / 1.05, "far packets: most-hops {far_most} ns, none {far_none} ns");
}

#[test]
fn the_tiled_model_refuses_a_vc_priority() {
    let mut cfg = config("fewest-hops");
    cfg["switch"]["model"] = json!("tiled");
    let err = Simulation::from_json(&cfg.to_string()).err().expect("refused").to_string();
    assert!(err.contains("switch.vc_priority") && err.contains("per-output"), "{err}");
}

#[test]
fn an_unknown_vc_priority_names_the_valid_ones() {
    let err = Simulation::from_json(&config("oldest").to_string()).err().expect("refused").to_string();
    assert!(err.contains("fewest-hops") && err.contains("most-hops") && err.contains("none"), "{err}");
}
