//! Bad input and faults end in a clear error or an honest result: the
//! reproducers of the hardening issue, each a regression test. Every case
//! must finish well within its bound (the slowest takes milliseconds).

use serde_json::{json, Value};
use slingsim_core::Simulation;
use slingsim_core::units::Ps;
use std::time::{Duration, Instant};

fn small(extra: Value) -> Value {
    let mut cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "sim": {"warmup_ns": 1000, "duration_ns": 5000},
        "traffic": [{"name": "u", "pattern": "uniform", "load": 0.3}]
    });
    merge(&mut cfg, extra);
    cfg
}

fn merge(base: &mut Value, top: Value) {
    match (base, top) {
        (Value::Object(b), Value::Object(t)) => {
            for (k, v) in t {
                match b.get_mut(&k) {
                    Some(slot) if v.is_object() => merge(slot, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, t) => *b = t,
    }
}

/// The config is refused, naming `field`, in well under a second.
fn refused(cfg: Value, field: &str) -> String {
    let t0 = Instant::now();
    let e = Simulation::from_json(&cfg.to_string()).err().unwrap_or_else(|| panic!("accepted: {cfg}"));
    assert!(t0.elapsed() < Duration::from_secs(1));
    assert_eq!(e.field, field, "{e}");
    e.message
}

#[test]
fn absurd_rates_are_refused_with_their_range() {
    // A 1 b/s link once passed validation and then asked for 442 GB.
    let m = refused(small(json!({"links": {"bandwidth_bps": 1}, "sim": {"duration_ns": 2000}})), "links.bandwidth_bps");
    assert!(m.contains("1 Mb/s to 100 Tb/s"), "{m}");
    // 1e18 b/s made serialization free and stopped simulated time.
    refused(small(json!({"nic": {"bandwidth_bps": 1e18}})), "nic.bandwidth_bps");
}

#[test]
fn times_that_overflow_picoseconds_or_vanish_are_refused() {
    for (key, v) in [("duration_ns", 1e300), ("warmup_ns", 1e300), ("duration_ns", 1e-300), ("max_time_ns", 1e300)] {
        refused(small(json!({"sim": {key: v}})), &format!("sim.{key}"));
    }
    refused(small(json!({"traffic": [{"name": "u", "pattern": "uniform", "start_ns": 1e300}]})), "traffic[0].start_ns");
}

#[test]
fn a_bit_error_rate_link_level_retry_cannot_beat_is_refused() {
    // 9.9e-4 (under the old limit of 1e-3) replayed packets forever.
    let m = refused(small(json!({"links": {"bit_error_rate": 9.9e-4}})), "links.bit_error_rate");
    assert!(m.contains("at most"), "{m}");
    // A rate that retry gets through runs, and loses nothing.
    let mut sim = Simulation::from_json(&small(json!({"links": {"bit_error_rate": 1e-5}})).to_string()).unwrap();
    sim.run();
    let s = sim.summary();
    assert!(s["llr_replays"].as_u64().unwrap() > 0);
    assert_eq!(s["bytes_lost"], 0);
}

#[test]
fn a_watchdog_below_the_network_floor_is_refused() {
    // Below 1 ps it spun; at 1-10 ns it reported a deadlock of "0 stuck buffers".
    let m = refused(small(json!({"sim": {"watchdog_ns": 1e-4}})), "sim.watchdog_ns");
    assert!(m.contains("1 ps"), "{m}");
    for w in [1.0, 10.0] {
        let m = refused(small(json!({"sim": {"watchdog_ns": w}})), "sim.watchdog_ns");
        assert!(m.contains("at least"), "{m}");
    }
}

#[test]
fn processes_per_node_and_job_times_are_bounded() {
    let job = |extra: Value| {
        let mut j = json!({"name": "j", "workload": "allreduce", "nodes": {"count": 4}});
        merge(&mut j, extra);
        json!({"topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1}, "job": [j]})
    };
    refused(job(json!({"ppn": 100000})), "job[0].ppn");
    refused(job(json!({"burst_gap_ns": -5.0})), "job[0].burst_gap_ns");
    refused(job(json!({"compute_ns": f64::MAX})), "job[0].compute_ns");
}

#[test]
fn a_flow_source_load_is_checked_too() {
    // It was accepted unchecked: a flow source sends at line rate, but a
    // nonsense load is still refused.
    let m = refused(small(json!({"traffic": [{"name": "f", "pattern": "permutation", "flow_bytes": 4096, "load": -3.0}]})), "traffic[0].load");
    assert!(m.contains("(0, 1]"), "{m}");
}

/// Two groups joined by one global link, which fails 1 ns into the run
/// (down from the start, the build refuses the cut): a flow across loses
/// every byte.
fn cut_network(traffic: Value) -> Value {
    json!({
        "topology": {"groups": 2, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1,
                     "global_links_per_group_pair": 1},
        "links": {"failed": [{"switch": 0, "port": 3, "at_ns": 1}]},
        "nic": {"retry_timeout_ns": 2000, "max_retries": 2},
        "sim": {"max_time_ns": 1e6},
        "traffic": traffic,
        "job": []
    })
}

#[test]
fn flows_that_lost_bytes_are_not_reported_completed() {
    let cfg = cut_network(json!([{"name": "f", "pattern": "incast", "nodes": {"list": [0, 7]}, "target": 1, "flow_bytes": 20000}]));
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    sim.run();
    let s = sim.summary();
    assert_eq!(s["flows"]["count"], 1, "{s}");
    assert_eq!(s["flows"]["completed"], 0, "a flow that lost its bytes is not completed: {s}");
    assert_eq!(s["flows"]["lost"], 1, "{s}");
    assert_eq!(s["end_reason"], "flows_lost", "{s}");
    assert_eq!(s["bytes_lost"], 20000, "{s}");
    let flows = sim.flows_table();
    let completed = flows.columns.iter().find(|(n, _)| n == "completed").unwrap();
    assert!(matches!(&completed.1, slingsim_core::table::Column::Bool(v) if v == &vec![false]));
    // The run says the network is cut, and into which groups.
    let parts = s["partition"]["parts"].as_array().unwrap_or_else(|| panic!("no partition reported: {s}"));
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0]["groups"], json!([0]));
    assert_eq!(parts[1]["groups"], json!([1]));
}

#[test]
fn a_job_cut_off_from_its_peers_is_not_finished_and_says_what_it_lost() {
    let mut cfg = cut_network(json!([]));
    cfg["job"] = json!([{"name": "j", "workload": "alltoall", "bytes": 65536, "iterations": 2, "nodes": "all"}]);
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    sim.run();
    let s = sim.summary();
    let j = &s["jobs"]["j"];
    assert_eq!(j["finished"], false, "{j}");
    assert!(j["lost_bytes"].as_u64().unwrap() > 0, "{j}");
    assert!(j["lost_messages"].as_u64().unwrap() > 0, "{j}");
    assert_ne!(s["end_reason"], "jobs_done", "{s}");
    assert!(s["partition"].is_object(), "{s}");
}

#[test]
fn a_wall_time_limit_ends_a_long_run_promptly() {
    let cfg = small(json!({"sim": {"duration_ns": 1e9, "wall_limit_s": 0.2}}));
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    let t0 = Instant::now();
    sim.run();
    assert!(t0.elapsed() < Duration::from_secs(2), "took {:?}", t0.elapsed());
    let s = sim.summary();
    assert_eq!(s["end_reason"], "wall_limit", "{s}");
    assert!(s["sim_time_ns"].as_f64().unwrap() < 1e9);
}

#[test]
fn a_run_hands_back_control_in_slices() {
    // What the Python binding relies on to answer Ctrl-C.
    let cfg = small(json!({"sim": {"duration_ns": 1e9}}));
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    let t0 = Instant::now();
    let slice = sim.run_slice(Ps::MAX, Some(Duration::from_millis(20)));
    assert_eq!(slice, slingsim_core::Slice::Paused);
    assert!(t0.elapsed() < Duration::from_millis(500), "took {:?}", t0.elapsed());
    assert!(!sim.finished());
    assert!(sim.now() > Ps::ZERO);
}

#[test]
fn iterations_that_would_not_fit_in_memory_are_refused_before_they_are_written_out() {
    // 2e7 barrier iterations were once unrolled at build: 16 s and 8.8 GB
    // before a 50 us run.
    let job = json!([{"workload": "barrier", "nodes": {"count": 4}, "iterations": 20_000_000}]);
    let m = refused(small(json!({"traffic": [], "job": job})), "job[0].iterations");
    assert!(m.contains("repeat = true"), "{m}");
    let program = json!({"ranks": 2, "comms": [[0, 1]], "ops": [[{"op": "send", "comm": 0, "peer": 1, "tag": 0, "bytes": 8}], [{"op": "recv", "comm": 0, "peer": 0, "tag": 0, "bytes": 8}]]});
    let job = json!([{"workload": "program", "program": program, "nodes": {"count": 2}, "iterations": 4_000_000_000u32}]);
    refused(small(json!({"traffic": [], "job": job})), "job[0].iterations");
    // A job that fits still runs, with repeat for as long as the run lasts.
    let job = json!([{"workload": "barrier", "nodes": {"count": 4}, "iterations": 1, "repeat": true}]);
    Simulation::from_json(&small(json!({"traffic": [], "job": job, "sim": {"max_time_ns": 50_000}})).to_string()).unwrap().run();
}
