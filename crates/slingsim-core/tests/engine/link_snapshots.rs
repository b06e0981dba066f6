//! Link counters read on the way (`sim.link_snapshots_ns`, the
//! `link_snapshots` table): reading them leaves the run as it was, and what
//! a reading gives is what the links table of a run ending then gives, a
//! transmission counted ahead of a start at or after the reading left out.

use serde_json::{json, Value};
use slingsim_core::table::{Column, Table};
use slingsim_core::Simulation;

/// An incast under minimal routing and no congestion control: the tree
/// behind node 0 fills, so outputs stall and the stall counters move.
fn incast(duration_ns: f64, snapshots: &[f64]) -> Value {
    let senders: Vec<u32> = (16..80).collect();
    json!({
        "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4,
                     "local_links_per_pair": 1, "global_ports_per_switch": 1},
        "routing": {"algorithm": "minimal"},
        "congestion": {"algorithm": "none"},
        "sim": {"warmup_ns": 2000, "duration_ns": duration_ns, "link_snapshots_ns": snapshots},
        "traffic": [{"name": "incast", "pattern": "incast", "target": 0, "load": 0.3,
                     "nodes": {"list": std::iter::once(0).chain(senders).collect::<Vec<_>>()}},
                    {"name": "rest", "pattern": "uniform", "load": 0.2}],
    })
}

fn run(cfg: &Value) -> Simulation {
    let mut sim = Simulation::from_json(&cfg.to_string()).expect("valid config");
    sim.run();
    sim
}

fn u64s(t: &Table, name: &str) -> Vec<u64> {
    match t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c) {
        Some(Column::U64(v)) => v.clone(),
        other => panic!("column {name}: {other:?}"),
    }
}

fn f64s(t: &Table, name: &str) -> Vec<f64> {
    match t.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c) {
        Some(Column::F64(v)) => v.clone(),
        other => panic!("column {name}: {other:?}"),
    }
}

/// The summary without what differs by design: wall-clock times and the
/// snapshots' own entry.
fn comparable(mut s: Value) -> Value {
    for k in ["engine_wall_s", "build_s", "link_snapshots"] {
        s.as_object_mut().unwrap().remove(k);
    }
    s
}

#[test]
fn reading_the_links_on_the_way_leaves_the_run_as_it_was() {
    let (plain, read) = (run(&incast(20_000.0, &[])), run(&incast(20_000.0, &[5_000.0, 9_000.0, 15_000.0])));
    assert_eq!(comparable(plain.summary()), comparable(read.summary()));
    for col in ["bytes"] {
        assert_eq!(u64s(&plain.links_table(), col), u64s(&read.links_table(), col));
    }
    assert_eq!(f64s(&plain.links_table(), "stalled_ns"), f64s(&read.links_table(), "stalled_ns"));
    assert_eq!(read.summary()["link_snapshots"], json!({"asked_ns": [5000.0, 9000.0, 15000.0], "taken_ns": [5000.0, 9000.0, 15000.0]}));
    assert!(plain.summary().get("link_snapshots").is_none());
    assert_eq!(plain.link_snapshots_table().rows(), 0);
}

/// Fixed-size flows into node 0 from 64 nodes, no offered load: the run's
/// window ends at `sim.max_time_ns`, as in a run of MPI jobs.
fn incast_flows(max_time_ns: f64, snapshots: &[f64]) -> Value {
    let mut cfg = incast(10_000.0, snapshots);
    cfg["sim"]["warmup_ns"] = json!(0.0);
    cfg["sim"]["max_time_ns"] = json!(max_time_ns);
    let nodes: Vec<u32> = std::iter::once(0).chain(16..80).collect();
    cfg["traffic"] = json!([{"name": "incast", "pattern": "incast", "target": 0, "flow_bytes": 200_000,
                             "nodes": {"list": nodes}}]);
    cfg
}

#[test]
fn a_reading_is_the_links_table_of_a_run_that_ends_then() {
    let long = run(&incast_flows(40_000.0, &[12_000.0]));
    let short = run(&incast_flows(12_000.0, &[]));
    assert_eq!(short.summary()["end_reason"], "max_time");
    let snap = long.link_snapshots_table();
    let channels = short.links_table().rows();
    assert_eq!(snap.rows(), channels);
    assert!(f64s(&snap, "t_ns").iter().all(|&t| t == 12_000.0));
    assert_eq!(u64s(&snap, "channel"), (0..channels as u64).collect::<Vec<_>>());
    assert_eq!(u64s(&snap, "bytes"), u64s(&short.links_table(), "bytes"));
    let (a, b) = (f64s(&snap, "stalled_ns"), f64s(&short.links_table(), "stalled_ns"));
    assert!(b.iter().sum::<f64>() > 0.0, "the incast should stall some outputs");
    assert_eq!(a, b);
    // Counters only grow: the run's end has at least what the reading had.
    let end = long.links_table();
    assert!(u64s(&end, "bytes").iter().zip(u64s(&snap, "bytes")).all(|(e, s)| *e >= s));
}

#[test]
fn a_time_the_run_does_not_reach_is_not_read_and_the_summary_says_so() {
    let sim = run(&incast(5_000.0, &[4_000.0, 1e9]));
    let taken = &sim.summary()["link_snapshots"]["taken_ns"];
    assert_eq!(taken, &json!([4000.0]));
    assert!(f64s(&sim.link_snapshots_table(), "t_ns").iter().all(|&t| t == 4_000.0));
}

#[test]
fn times_out_of_order_or_out_of_range_are_refused_by_name() {
    for (times, field) in [(json!([5000.0, 5000.0]), "sim.link_snapshots_ns[1]"),
                           (json!([5000.0, 4000.0]), "sim.link_snapshots_ns[1]"),
                           (json!([-1.0]), "sim.link_snapshots_ns[0]")] {
        let mut cfg = incast(10_000.0, &[]);
        cfg["sim"]["link_snapshots_ns"] = times;
        let err = Simulation::from_json(&cfg.to_string()).err().expect("refused").to_string();
        assert!(err.contains(field), "{err}");
    }
}


#[test]
fn with_offered_load_a_reading_leaves_out_what_starts_after_it() {
    // Uniform traffic at 0.2 beside the incast: a cut-through transmission
    // decided before 12 us to start after it is counted when decided; the
    // reading leaves it out, as the run whose window ends at 12 us does
    // (before this, one link read a packet more from 11.70 us on).
    let long = run(&incast(20_000.0, &[12_000.0]));
    let short = run(&incast(10_000.0, &[]));
    let snap = long.link_snapshots_table();
    assert_eq!(u64s(&snap, "bytes"), u64s(&short.links_table(), "bytes"));
    assert_eq!(f64s(&snap, "stalled_ns"), f64s(&short.links_table(), "stalled_ns"));
}
