//! Stalled time per switch output (`links` table, `stalled_ns`): the time
//! an output had packets waiting and every one lacked credits of the next
//! buffer, the back-pressure Aries' tile counters count ([DeSensi19]
//! Sec. 2.3, Table 1). It grows behind a congested link, stays zero on an
//! idle network and never exceeds the measured window.

use serde_json::{json, Value};
use slingsim_core::table::Column;
use slingsim_core::Simulation;

/// 5 groups of 4 switches with 4 nodes each: node n sits on switch n / 4.
pub(crate) fn small_dragonfly(traffic: Value) -> Value {
    json!({
        "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4,
                     "local_links_per_pair": 1, "global_ports_per_switch": 1},
        "routing": {"algorithm": "minimal"},
        "congestion": {"algorithm": "none"},
        "sim": {"warmup_ns": 2000, "duration_ns": 30000},
        "traffic": traffic,
    })
}

/// (stalled ns, kind, destination endpoint) of every channel after the run.
fn stalls(cfg: &Value) -> (Vec<(f64, String, i64)>, f64) {
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    let window = sim.summary()["measured_ns"].as_f64().expect("measured window");
    let t = sim.links_table();
    let col = |name: &str| t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone()).unwrap();
    let (Column::F64(stalled), Column::Str(kind), Column::I64(dst)) = (col("stalled_ns"), col("kind"), col("dst_endpoint")) else {
        panic!("links table columns changed type")
    };
    (stalled.into_iter().zip(kind).zip(dst).map(|((s, k), d)| (s, k, d)).collect(), window)
}

#[test]
fn an_incast_stalls_the_outputs_feeding_its_target_and_an_idle_network_none() {
    // Every node of groups 1-4 sends to node 0 at 30% of its line rate:
    // 48 times what node 0's link takes, so the tree behind it fills.
    let senders: Vec<u32> = (16..80).collect();
    let mut nodes = vec![0u32];
    nodes.extend(&senders);
    let incast = json!([{"name": "incast", "pattern": "incast", "load": 0.3, "target": 0, "nodes": {"list": nodes}}]);
    let (rows, window) = stalls(&small_dragonfly(incast));
    let total: f64 = rows.iter().map(|r| r.0).sum();
    assert!(total > 0.0, "an incast stalls outputs: {rows:?}");
    assert!(rows.iter().all(|r| r.0 >= 0.0 && r.0 <= window + 1e-6), "a stall lies inside the window");
    // The global links into group 0 carry the tree: some run stalled most of the window.
    let global_max = rows.iter().filter(|r| r.1 == "global").map(|r| r.0).fold(0.0, f64::max);
    assert!(global_max > 0.5 * window, "a global link into the target's group stalls: {global_max} of {window} ns");
    // The output to the target itself never waits for credits (a NIC takes everything).
    assert!(rows.iter().filter(|r| r.2 == 0).all(|r| r.0 == 0.0));

    let light = json!([{"name": "u", "pattern": "uniform", "load": 0.02}]);
    let (rows, _) = stalls(&small_dragonfly(light));
    let total: f64 = rows.iter().map(|r| r.0).sum();
    assert_eq!(total, 0.0, "2% uniform load never fills a buffer");
}
