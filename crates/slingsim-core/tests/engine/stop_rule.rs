//! A job's statistical stopping rule ([DeSensi20] Sec. II-B): at least 200
//! iterations, then stop once the median's 95% confidence interval lies
//! within 5% of it; the ranks stop together, so nothing is left undone.

use serde_json::{json, Value};
use slingsim_core::Simulation;

/// A small dragonfly (3 groups x 2 switches x 2 nodes) running `jobs`.
fn run(jobs: Value) -> Value {
    run_beside(jobs, json!([]))
}

/// [`run`] beside synthetic traffic sources `traffic`.
fn run_beside(jobs: Value, traffic: Value) -> Value {
    let cfg = json!({
        "traffic": traffic,
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "routing": {"algorithm": "minimal"},
        "sim": {"max_time_ns": 1e9},
        "job": jobs,
    });
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    sim.run();
    sim.summary()
}

fn error(jobs: Value) -> String {
    let cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "job": jobs,
    });
    match Simulation::from_json(&cfg.to_string()) {
        Ok(_) => panic!("{jobs} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_steady_victim_stops_just_after_the_papers_minimum() {
    let s = run(json!([{"name": "v", "workload": "allreduce", "bytes": 8, "nodes": {"count": 8}, "stop_rule": "paper"}]));
    assert_eq!(s["end_reason"], "jobs_done", "{s:#}");
    assert_eq!(s["bytes_conserved"], true);
    let j = &s["jobs"]["v"];
    assert_eq!(j["finished"], true);
    let rule = &j["stop_rule"];
    assert_eq!(rule["met"], true, "{rule}");
    assert_eq!(rule["met_after_iterations"], 200, "an idle network repeats itself: the rule holds at once");
    // The ranks finish the iteration the furthest of them was in and stop.
    let n = j["iterations"].as_u64().unwrap();
    assert!((201..=203).contains(&n), "{n} iterations");
    assert_eq!(j["ranks_done"], 8);
    let median = rule["median_ns"].as_f64().unwrap();
    let ci = rule["ci95_ns"].as_array().unwrap();
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    assert!(lo >= 0.95 * median && hi <= 1.05 * median, "{lo} {median} {hi}");
    assert_eq!((rule["min_iterations"].as_u64(), rule["ci_fraction"].as_f64()), (Some(200), Some(0.05)));
}

#[test]
fn a_victim_that_never_settles_runs_to_its_cap_and_says_so() {
    // A ping-pong beside random (Poisson) traffic on the same nodes: its
    // times vary from iteration to iteration, and an interval of 0.01% of
    // the median is more than 60 of them can give.
    let s = run_beside(
        json!([{"name": "v", "workload": "pingpong", "bytes": 2048, "nodes": {"list": [0, 11]},
                "iterations": 60, "stop_rule": {"min_iterations": 20, "ci_fraction": 0.0001}}]),
        json!([{"name": "noise", "pattern": "uniform", "load": 0.6, "process": "poisson", "message_bytes": 1024, "nodes": {"list": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}}]),
    );
    assert_eq!(s["bytes_conserved"], true);
    let j = &s["jobs"]["v"];
    assert_eq!(j["finished"], true, "{j:#}");
    assert_eq!(j["iterations"], 60);
    assert_eq!(j["stop_rule"]["met"], false, "{}", j["stop_rule"]);
    assert_eq!(j["stop_rule"]["met_after_iterations"], Value::Null);
    let m = j["stop_rule"]["median_ns"].as_f64().unwrap();
    let ci = j["stop_rule"]["ci95_ns"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() < m * 0.9999 || ci[1].as_f64().unwrap() > m * 1.0001, "{ci:?} around {m}");
    // The same run with the paper's 5% settles before its cap.
    let s = run_beside(
        json!([{"name": "v", "workload": "pingpong", "bytes": 2048, "nodes": {"list": [0, 11]},
                "iterations": 60, "stop_rule": {"min_iterations": 20}}]),
        json!([{"name": "noise", "pattern": "uniform", "load": 0.6, "process": "poisson", "message_bytes": 1024, "nodes": {"list": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}}]),
    );
    assert_eq!(s["jobs"]["v"]["stop_rule"]["met"], true, "{}", s["jobs"]["v"]["stop_rule"]);
}

#[test]
fn a_minimum_time_keeps_the_job_running() {
    // An 8 B allreduce on 8 nodes takes about 6.5 us: 2 ms needs about 300 iterations.
    let s = run(json!([{"name": "v", "workload": "allreduce", "bytes": 8, "nodes": {"count": 8},
                        "stop_rule": {"min_time_ns": 2_000_000}}]));
    let j = &s["jobs"]["v"];
    let met = j["stop_rule"]["met_after_iterations"].as_u64().unwrap();
    assert!(met > 200, "{met}");
    let first_met_end: f64 = j["iteration_times_ns"].as_array().unwrap()[..met as usize].iter().map(|t| t.as_f64().unwrap()).sum();
    assert!(first_met_end >= 2_000_000.0, "{first_met_end}");
}

#[test]
fn jobs_without_a_rule_report_none() {
    let s = run(json!([{"name": "v", "workload": "allreduce", "bytes": 8, "iterations": 3}]));
    assert!(s["jobs"]["v"].get("stop_rule").is_none());
    assert_eq!(s["jobs"]["v"]["iterations"], 3);
}

#[test]
fn bad_rules_name_the_field_and_the_fix() {
    let e = error(json!([{"workload": "allreduce", "stop_rule": "always"}]));
    assert!(e.contains("job[0].stop_rule") && e.contains("paper"), "{e}");
    let e = error(json!([{"workload": "allreduce", "stop_rule": "paper", "iterations": 50}]));
    assert!(e.contains("job[0].iterations") && e.contains("200"), "{e}");
    let e = error(json!([{"workload": "allreduce", "stop_rule": "paper", "repeat": true}]));
    assert!(e.contains("job[0].stop_rule") && e.contains("repeat"), "{e}");
    let e = error(json!([{"workload": "allreduce", "stop_rule": {"ci_fraction": 0}}]));
    assert!(e.contains("job[0].stop_rule.ci_fraction"), "{e}");
}
