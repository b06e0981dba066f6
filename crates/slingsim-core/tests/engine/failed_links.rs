//! Failed links (`links.failed`, `links.random_failures`): what routing
//! knows of them, what the build refuses, and how drawn failures are chosen.

use serde_json::{json, Value};
use slingsim_core::Simulation;

use super::families::families;

/// Runs `topology` under `alg` (uniform 2 KiB messages at 30% load) with
/// `links` for `duration_ns` after 1 us of warm-up, and checks that every
/// byte is accounted for, every measured packet arrived (lost ones are
/// resent after 4 us) and nothing deadlocked.
fn run(what: &str, topology: &Value, alg: &str, links: Value, duration_ns: f64) -> Value {
    let cfg = json!({
        "topology": topology,
        "routing": {"algorithm": alg},
        "links": links,
        "nic": {"retry_timeout_ns": 4000},
        "sim": {"warmup_ns": 1000, "duration_ns": duration_ns, "drain_ns": 60000, "watchdog_ns": 20000},
        "traffic": [{"name": "t", "pattern": "uniform", "load": 0.3, "message_bytes": 2048}],
    });
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{what}: {e}"));
    sim.run();
    let s = sim.summary();
    assert_eq!(s["bytes_conserved"], true, "{what}");
    assert_eq!(s["measured_undelivered"], 0, "{what}: {}", s["end_reason"]);
    assert!(s["deadlock"].is_null(), "{what}");
    s
}

/// The number of packets end-to-end retry resent in a run.
fn resent(s: &Value) -> u64 {
    s["e2e_retries"].as_u64().unwrap()
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
        let failed = |at_ns: f64| run(name, &topo, "minimal", json!({"failed": [{"switch": 0, "port": port, "at_ns": at_ns}]}), 6000.0);
        let (down, later) = (failed(0.0), failed(1.0));
        assert_eq!(down["e2e_retries"], 0, "{name}: routed over a link down from the start: {}", down["packets_lost"]);
        assert_eq!(down["packets_lost"], 0, "{name}");
        assert!(resent(&later) > 0, "{name}: a link failing during the run should lose packets under minimal routing");
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

/// The dragonfly leaves links down from the start out of its routes, as
/// the fabric manager would: minimal, Valiant and the adaptive candidates
/// take a group pair's other global links and a switch pair's other
/// parallel local links, so no packet is lost or resent. The same links
/// failing during the run stay in the routes. Where no parallel link is
/// left the build refuses: going around takes a path outside local,
/// global, local.
#[test]
fn the_dragonfly_routes_around_links_down_from_the_start() {
    // 5 groups of 4 switches, 2 endpoints each, 2 parallel local links per
    // switch pair: ports 0-1 endpoints, 2-7 local (2-3 to the group's next
    // switch), 8-9 global; 2 global links per group pair.
    let topology = json!({"kind": "dragonfly", "groups": 5, "switches_per_group": 4, "endpoints_per_switch": 2,
                          "local_links_per_pair": 2, "global_ports_per_switch": 2});
    let resent_with = |alg: &str, port: u32, at_ns: f64| resent(&run(alg, &topology, alg, json!({"failed": [{"switch": 0, "port": port, "at_ns": at_ns}]}), 6000.0));
    for alg in ["minimal", "min-hash", "valiant", "ugal", "slingshot"] {
        assert_eq!(resent_with(alg, 8, 0.0), 0, "{alg}: a packet went over a global link down from the start");
        assert_eq!(resent_with(alg, 2, 0.0), 0, "{alg}: a packet went over a local link down from the start");
    }
    assert!(resent_with("minimal", 8, 1.0) > 0, "a global link failing during the run stays in the routes");
    assert!(resent_with("minimal", 2, 1.0) > 0, "a local link failing during the run stays in the routes");
    let refused = |failed: Value, says: &str| {
        let cfg = json!({"topology": topology, "links": {"failed": failed}, "traffic": [{"name": "t", "pattern": "uniform", "load": 0.3}]});
        let m = Simulation::from_json(&cfg.to_string()).err().expect("refused").to_string();
        assert!(m.starts_with("links.failed") && m.contains(says), "{m}");
    };
    // Both links from group 0 to group 1 (switch 0's global ports).
    refused(json!([{"switch": 0, "port": 8}, {"switch": 0, "port": 9}]), "from group 0 to group 1");
    // Both local links from switch 0 to switch 1.
    refused(json!([{"switch": 0, "port": 2}, {"switch": 0, "port": 3}]), "every local link from switch 0 to switch 1");
}

/// A 5-group dragonfly, 4 switches of 2 endpoints each, 2 global ports per
/// switch (2 links per group pair, 20 global cables), with `links`.
fn drawn(links: Value, seed: u64) -> Result<Value, String> {
    let cfg = json!({
        "topology": {"kind": "dragonfly", "groups": 5, "switches_per_group": 4, "endpoints_per_switch": 2, "global_ports_per_switch": 2},
        "links": links,
        "sim": {"seed": seed, "warmup_ns": 0, "duration_ns": 2000, "drain_ns": 20000},
        "traffic": [{"name": "t", "pattern": "uniform", "load": 0.2, "message_bytes": 1024}],
    });
    let mut sim = Simulation::from_json(&cfg.to_string()).map_err(|e| e.to_string())?;
    sim.run();
    Ok(sim.summary())
}

/// `links.random_failures` draws its cables from the seed: the same seed
/// the same cables, of the kind asked, never one `links.failed` lists, and
/// the summary lists every failed cable.
#[test]
fn random_failures_draw_cables_of_their_kind_from_the_seed() {
    let links = json!({"failed": [{"switch": 0, "port": 5}], "random_failures": {"count": 3, "kind": "global"}});
    let a = drawn(links.clone(), 1).unwrap();
    let again = drawn(links.clone(), 1).unwrap();
    let other = drawn(links.clone(), 2).unwrap();
    let list = a["failed_links"].as_array().unwrap_or_else(|| panic!("no failed_links: {}", a["failed_links"]));
    assert_eq!(list.len(), 4, "the listed cable and three drawn: {list:?}");
    assert!(list.iter().all(|l| l["kind"] == "global" && l["at_ns"] == 0.0), "{list:?}");
    assert_eq!(list.iter().filter(|l| l["switch"] == 0 && l["port"] == 5).count(), 1, "the listed cable is not drawn again: {list:?}");
    assert_eq!(a["failed_links"], again["failed_links"], "same seed, same cables");
    assert_ne!(a["failed_links"], other["failed_links"], "another seed draws other cables");
    // Down from the start, they are routed around: nothing lost or resent.
    assert_eq!(a["e2e_retries"], 0, "{}", a["e2e_retries"]);
    // A fraction of the 20 global cables, failing later.
    let later = drawn(json!({"random_failures": {"fraction": 0.25, "at_ns": 500}}), 1).unwrap();
    let list = later["failed_links"].as_array().unwrap();
    assert_eq!(list.len(), 5, "{list:?}");
    assert!(list.iter().all(|l| l["at_ns"] == 500.0), "{list:?}");
    // Local cables only: 5 groups x 6 pairs of switches = 30.
    let local = drawn(json!({"random_failures": {"count": 2, "kind": "local", "at_ns": 100}}), 1).unwrap();
    assert!(local["failed_links"].as_array().unwrap().iter().all(|l| l["kind"] == "local"));
    assert!(drawn(json!({}), 1).unwrap()["failed_links"].is_null());
}

/// Each mistake in `links.random_failures` is refused naming its key.
#[test]
fn random_failures_refuse_what_they_cannot_draw() {
    let refused = |rf: Value, field: &str, says: &str| {
        let m = drawn(json!({"random_failures": rf}), 1).expect_err("refused");
        assert!(m.starts_with(field) && m.contains(says), "{m}");
    };
    refused(json!({"count": 21}), "links.random_failures.count", "20 global switch-to-switch cables");
    refused(json!({"count": 2, "fraction": 0.1}), "links.random_failures", "either count");
    refused(json!({"kind": "global"}), "links.random_failures", "either count");
    refused(json!({"count": 0}), "links.random_failures.count", "1 or more");
    refused(json!({"fraction": 1.5}), "links.random_failures.fraction", "(0, 1]");
    refused(json!({"fraction": 0.01}), "links.random_failures.fraction", "draws no cable");
    refused(json!({"count": 1, "kind": "optical"}), "links.random_failures.kind", "unknown cable kind \"optical\"; choose one of: global, local, any");
    refused(json!({"count": 1, "at_ns": -1.0}), "links.random_failures.at_ns", "between 0");
    refused(json!({"count": 1, "every": 2}), "links.random_failures", "unknown field");
    // All 20 global cables down from the start leave no route between groups.
    refused(json!({"count": 20}), "links.random_failures", "no route joins them (with the cables links.failed lists and those drawn with sim.seed = 1)");
}

/// With `links.reroute_after_ns` the fabric manager takes a link failing
/// during the run out of the routes that long after it fails: packets first
/// routed from then on leave it out, so only those under way before are
/// lost and resent. Without it the link stays in the routes to the end.
#[test]
fn the_fabric_manager_reroutes_links_failing_during_the_run() {
    // Two cables each: two up-links of an edge switch; a global link from
    // group 0 to group 1 and one to group 2; two links of a Slim Fly switch.
    let cases = [
        ("fattree", json!({"kind": "fattree", "radix": 6}), [(0, 3), (0, 4)]),
        ("dragonfly", json!({"kind": "dragonfly", "groups": 5, "switches_per_group": 4, "endpoints_per_switch": 2, "global_ports_per_switch": 2}), [(0, 5), (1, 5)]),
        ("slimfly", json!({"kind": "slimfly", "q": 5, "endpoints_per_switch": 2, "radix": 16}), [(0, 2), (0, 3)]),
    ];
    for (name, topo, cables) in cases {
        let failed: Vec<Value> = cables.iter().map(|&(s, p)| json!({"switch": s, "port": p, "at_ns": 2000})).collect();
        let stays = run(name, &topo, "minimal", json!({"failed": failed}), 15000.0);
        let rerouted = run(name, &topo, "minimal", json!({"failed": failed, "reroute_after_ns": 1000}), 15000.0);
        assert!(resent(&stays) > 0, "{name}: minimal routing loses packets on a failed link in its routes");
        assert!(resent(&rerouted) * 4 < resent(&stays), "{name}: rerouted at 3 us, {} resent against {}", resent(&rerouted), resent(&stays));
        assert!(stays["failed_links"].as_array().unwrap().iter().all(|f| f["rerouted_at_ns"].is_null()), "{name}");
        assert!(rerouted["failed_links"].as_array().unwrap().iter().all(|f| f["rerouted_at_ns"] == 3000.0), "{name}");
    }
    // A failure the fabric manager cannot route around is refused.
    let cut = json!({
        "topology": {"kind": "dragonfly", "groups": 5, "switches_per_group": 4, "endpoints_per_switch": 2, "global_ports_per_switch": 2},
        "links": {"failed": [{"switch": 0, "port": 5, "at_ns": 100}, {"switch": 0, "port": 6, "at_ns": 200}], "reroute_after_ns": 50},
        "traffic": [{"name": "t", "pattern": "uniform", "load": 0.3}],
    });
    let m = Simulation::from_json(&cut.to_string()).err().expect("refused").to_string();
    assert!(m.starts_with("links.reroute_after_ns") && m.contains("from group 0 to group 1 is down from 200 ns"), "{m}");
}
