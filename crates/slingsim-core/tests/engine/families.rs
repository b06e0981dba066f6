//! Every topology family under every routing algorithm and several
//! patterns: runs end on their time limit (no deadlock), conserve bytes and
//! deliver traffic. Run with debug assertions (the test profile keeps them),
//! so the VC bound and the cabling checks of the engine are exercised.

use serde_json::{json, Value};
use slingsim_core::Simulation;

pub(crate) fn families() -> Vec<(&'static str, Value)> {
    vec![
        ("dragonfly", json!({"kind": "dragonfly", "groups": 5, "switches_per_group": 4, "endpoints_per_switch": 2, "global_ports_per_switch": 1})),
        ("slimfly", json!({"kind": "slimfly", "q": 5, "endpoints_per_switch": 2, "radix": 16})),
        ("fitfly", json!({"kind": "fitfly", "q": 5, "planes": 2, "endpoints_per_switch": 2, "radix": 16})),
        ("megafly", json!({"kind": "megafly", "groups": 4, "leaves_per_group": 3, "spines_per_group": 3, "endpoints_per_switch": 3, "global_ports_per_switch": 2, "radix": 8})),
        ("fattree", json!({"kind": "fattree", "radix": 6})),
        ("aries", json!({"kind": "aries", "groups": 3, "rows": 2, "columns": 3, "row_links": 1, "column_links": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 2, "radix": 16})),
    ]
}

#[test]
fn every_family_routing_and_pattern_runs_clean() {
    for (name, topo) in families() {
        for alg in ["minimal", "valiant", "ugal", "par", "minimal-adaptive", "slingshot", "adaptive-0", "adaptive-1", "adaptive-3", "min-hash", "nmin-hash", "in-order"] {
            for pattern in ["uniform", "group_adversarial", "permutation", "bisection"] {
                let cfg = json!({
                    "topology": topo,
                    "routing": {"algorithm": alg},
                    "nic": {"rail_selection": "path"},
                    "sim": {"warmup_ns": 1000, "duration_ns": 6000, "watchdog_ns": 20000},
                    "traffic": [{"name": "t", "pattern": pattern, "load": 0.9, "message_bytes": 2048}],
                });
                let mut sim = match Simulation::from_json(&cfg.to_string()) {
                    Ok(s) => s,
                    Err(e) => panic!("{name}/{alg}/{pattern}: {e}"),
                };
                sim.run();
                let s = sim.summary();
                let what = format!("{name}/{alg}/{pattern}");
                // Saturated runs may end with measured packets still queued (drain limit).
                assert!(s["end_reason"] == "time_limit" || s["end_reason"] == "drain_limit", "{what}: {} {}", s["end_reason"], s["deadlock"]);
                assert_eq!(s["bytes_conserved"], true, "{what}");
                assert!(s["packets_delivered"].as_u64().unwrap() > 0, "{what}");
                if ["minimal", "minimal-adaptive", "min-hash", "in-order"].contains(&alg) {
                    assert_eq!(s["nonminimal_fraction"], 0.0, "{what}");
                }
            }
        }
    }
}
