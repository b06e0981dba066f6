//! Every topology family under every routing algorithm and several
//! patterns: runs end on their time limit (no deadlock), conserve bytes and
//! deliver traffic. Run with debug assertions (the test profile keeps them),
//! so the VC bound and the cabling checks of the engine are exercised.

use serde_json::{json, Value};
use slingsim_core::Simulation;

fn families() -> Vec<(&'static str, Value)> {
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

/// A link down from the start is out of the shortest-path tables, as the
/// fabric manager leaves it out of the routes it computes at bring-up:
/// even static minimal routing never sends a packet over it, so nothing
/// is lost or resent. The same link failing 1 ns into the run is still in
/// the tables, and minimal routing loses packets on it and resends them.
#[test]
fn graph_families_route_around_links_down_from_the_start() {
    // Switch 0's first switch-facing port in each family.
    let first_fabric_port = [("slimfly", 2), ("fitfly", 2), ("megafly", 3), ("fattree", 3), ("aries", 2)];
    for (name, topo) in families().into_iter().filter(|(n, _)| *n != "dragonfly") {
        let port = first_fabric_port.iter().find(|(n, _)| *n == name).unwrap().1;
        let run = |at_ns: f64| {
            let cfg = json!({
                "topology": topo,
                "routing": {"algorithm": "minimal"},
                "links": {"failed": [{"switch": 0, "port": port, "at_ns": at_ns}]},
                "nic": {"retry_timeout_ns": 4000},
                "sim": {"warmup_ns": 1000, "duration_ns": 6000, "drain_ns": 40000, "watchdog_ns": 20000},
                "traffic": [{"name": "t", "pattern": "uniform", "load": 0.3, "message_bytes": 2048}],
            });
            let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{name}: {e}"));
            sim.run();
            sim.summary()
        };
        let (down, later) = (run(0.0), run(1.0));
        for s in [&down, &later] {
            assert_eq!(s["bytes_conserved"], true, "{name}");
        }
        assert_eq!(down["e2e_retries"], 0, "{name}: routed over a link down from the start: {}", down["packets_lost"]);
        assert_eq!(down["packets_lost"], 0, "{name}");
        assert_eq!(down["measured_undelivered"], 0, "{name}");
        assert!(later["e2e_retries"].as_u64().unwrap() > 0, "{name}: a link failing during the run should lose packets under minimal routing");
    }
}

/// Links down from the start that cut switches with nodes apart are
/// refused at build, naming the key: no table can route between them.
#[test]
fn links_down_from_the_start_that_cut_a_graph_network_are_refused() {
    // A radix-4 fat tree's edge switch 0 has two up-links, ports 2 and 3.
    let cfg = json!({
        "topology": {"kind": "fattree", "radix": 4},
        "links": {"failed": [{"switch": 0, "port": 2}, {"switch": 0, "port": 3}]},
        "traffic": [{"name": "t", "pattern": "uniform", "load": 0.3}],
    });
    let e = Simulation::from_json(&cfg.to_string()).err().expect("a cut network is refused");
    let m = e.to_string();
    assert!(m.starts_with("links.failed") && m.contains("no longer reaches") && m.contains("at_ns > 0"), "{m}");
    // Failing the same links later is a run, which reports the cut.
    let mut later = cfg.clone();
    later["links"]["failed"] = json!([{"switch": 0, "port": 2, "at_ns": 100}, {"switch": 0, "port": 3, "at_ns": 100}]);
    later["sim"] = json!({"warmup_ns": 0, "duration_ns": 3000, "drain_ns": 3000});
    later["nic"] = json!({"retry_timeout_ns": 1000, "max_retries": 1});
    let mut sim = Simulation::from_json(&later.to_string()).unwrap();
    sim.run();
    assert!(sim.summary()["partition"]["parts"].as_array().is_some_and(|p| p.len() == 2), "{}", sim.summary()["partition"]);
}

/// The dragonfly leaves a global link down from the start out of its
/// routes (minimal, Valiant and the adaptive candidates take the pair's
/// other links), as the fabric manager would; a local link down from the
/// start stays in them (going around it needs two local hops in a group,
/// outside the minimal VC layout), so minimal routing loses packets on it
/// and resends them, as on any link failing during the run.
#[test]
fn the_dragonfly_routes_around_global_links_down_from_the_start() {
    // 5 groups of 4 switches, 2 endpoints each: ports 0-1 endpoints, 2-4
    // local, 5-6 global; 2 links per group pair.
    let run = |alg: &str, port: u32, at_ns: f64| {
        let cfg = json!({
            "topology": {"kind": "dragonfly", "groups": 5, "switches_per_group": 4, "endpoints_per_switch": 2, "global_ports_per_switch": 2},
            "routing": {"algorithm": alg},
            "links": {"failed": [{"switch": 0, "port": port, "at_ns": at_ns}]},
            "nic": {"retry_timeout_ns": 4000},
            "sim": {"warmup_ns": 1000, "duration_ns": 6000, "drain_ns": 40000, "watchdog_ns": 20000},
            "traffic": [{"name": "t", "pattern": "uniform", "load": 0.3, "message_bytes": 2048}],
        });
        let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{alg}: {e}"));
        sim.run();
        let s = sim.summary();
        assert_eq!(s["bytes_conserved"], true, "{alg}");
        assert_eq!(s["measured_undelivered"], 0, "{alg}");
        s["e2e_retries"].as_u64().unwrap()
    };
    for alg in ["minimal", "min-hash", "valiant", "ugal", "slingshot"] {
        assert_eq!(run(alg, 5, 0.0), 0, "{alg}: a packet went over a global link down from the start");
    }
    assert!(run("minimal", 5, 1.0) > 0, "a global link failing during the run stays in the routes");
    assert!(run("minimal", 2, 0.0) > 0, "a local link down from the start stays in the routes");
    // Both links from group 0 to group 1 (switch 0's global ports) down
    // from the start leave no route between the two groups: refused.
    let cut = json!({
        "topology": {"kind": "dragonfly", "groups": 5, "switches_per_group": 4, "endpoints_per_switch": 2, "global_ports_per_switch": 2},
        "links": {"failed": [{"switch": 0, "port": 5}, {"switch": 0, "port": 6}]},
        "traffic": [{"name": "t", "pattern": "uniform", "load": 0.3}],
    });
    let m = Simulation::from_json(&cut.to_string()).err().expect("a cut dragonfly is refused").to_string();
    assert!(m.starts_with("links.failed") && m.contains("from group 0 to group 1"), "{m}");
}
