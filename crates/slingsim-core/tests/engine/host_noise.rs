//! Host noise ([DeSensi19] Sec. 3.3): detours of the ranks' CPUs make a
//! ping-pong's time vary while its packets' latency does not, and lengthen
//! compute by what falls inside it.

use serde_json::{json, Value};
use slingsim_core::Simulation;

/// Two groups of a small dragonfly running `jobs`, with `[host.noise]` = `noise`.
fn run(jobs: Value, noise: Value) -> Value {
    let cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "routing": {"algorithm": "minimal"},
        "sim": {"max_time_ns": 1e9},
        "host": {"noise": noise},
        "job": jobs,
    });
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    sim.run();
    sim.summary()
}

fn pingpong() -> Value {
    json!([{"name": "pp", "workload": "pingpong", "bytes": 8, "iterations": 400, "nodes": {"list": [0, 11]}}])
}

fn qcd(times: &[f64]) -> f64 {
    let mut v = times.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    (q(0.75) - q(0.25)) / (q(0.75) + q(0.25))
}

fn times(s: &Value) -> Vec<f64> {
    s["jobs"]["pp"]["iteration_times_ns"].as_array().unwrap().iter().map(|t| t.as_f64().unwrap()).collect()
}

#[test]
fn detours_spread_a_pingpongs_time_but_not_its_packets_latency() {
    let quiet = run(pingpong(), json!({}));
    let noisy = run(pingpong(), json!({"interval_ns": 5_000, "duration_ns": 1_000}));
    for s in [&quiet, &noisy] {
        assert_eq!(s["bytes_conserved"], true);
        assert_eq!(s["jobs"]["pp"]["finished"], true);
    }
    assert!(quiet["jobs"]["pp"].get("host_noise").is_none(), "no noise, no report");
    assert_eq!(qcd(&times(&quiet)), 0.0, "an idle network repeats itself");
    let q = qcd(&times(&noisy));
    assert!(q > 0.02, "QCD of the noisy ping-pong's time: {q}");
    let mean = |s: &Value| s["jobs"]["pp"]["iteration_ns"]["mean"].as_f64().unwrap();
    assert!(mean(&noisy) > mean(&quiet) * 1.02, "{} vs {}", mean(&noisy), mean(&quiet));
    // The NIC and the network are untouched: every packet takes the same time.
    let latency = |s: &Value, k: &str| s["traffic"]["pp"]["latency_ns"][k].as_f64().unwrap();
    assert_eq!(latency(&noisy, "mean"), latency(&quiet, "mean"));
    assert_eq!(latency(&noisy, "max"), latency(&quiet, "max"));
    let held = noisy["jobs"]["pp"]["host_noise"]["detoured_ns"].as_f64().unwrap();
    let slower = (mean(&noisy) - mean(&quiet)) * 400.0;
    assert!(held > 0.0 && held >= 0.5 * slower, "detours held the ranks {held} ns; the run is {slower} ns slower");
}

#[test]
fn a_detour_inside_compute_lengthens_it_by_its_duration() {
    // Compute of 100 us per iteration, a 10 us detour every 100 us exactly:
    // each compute phase takes one detour (or, straddling two periods, still one).
    let jobs = json!([{"name": "c", "workload": "allreduce", "bytes": 8, "iterations": 20, "compute_ns": 100_000, "nodes": {"count": 2}}]);
    let quiet = run(jobs.clone(), json!({}));
    let noisy = run(jobs, json!({"interval_ns": 100_000, "duration_ns": 10_000, "process": "periodic"}));
    let mean = |s: &Value| s["jobs"]["c"]["iteration_ns"]["mean"].as_f64().unwrap();
    let extra = mean(&noisy) - mean(&quiet);
    assert!((9_000.0..=21_000.0).contains(&extra), "each iteration {extra} ns longer");
}

#[test]
fn noise_is_deterministic_and_checked() {
    let noise = json!({"interval_ns": 3_000, "duration_ns": 500});
    assert_eq!(times(&run(pingpong(), noise.clone())), times(&run(pingpong(), noise)));
    let cfg = json!({"topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
                     "host": {"noise": {"interval_ns": 1000, "duration_ns": 1000}}, "job": pingpong()});
    let e = Simulation::from_json(&cfg.to_string()).err().expect("a CPU always in detours is refused").to_string();
    assert!(e.contains("host.noise.duration_ns"), "{e}");
    let cfg = json!({"topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
                     "host": {"noise": {"interval_ns": 1000, "duration_ns": 10, "process": "bursty"}}, "job": pingpong()});
    let e = Simulation::from_json(&cfg.to_string()).err().expect("an unknown process is refused").to_string();
    assert!(e.contains("poisson") && e.contains("periodic"), "{e}");
}

#[test]
fn detours_delay_a_collectives_rounds_and_its_receive_completions() {
    // Eight ranks on one node: no packet enters the network, and all the
    // time that is not memory latency is the CPU's per-message cost of the
    // alltoall's sends and receives (10 us in verbs and in libfabric, so 20 us per message
    // on each side). Detours of 10 us every 100 us take 10% of each CPU, so
    // they must lengthen that work by about a ninth, not only delay the
    // start of each call.
    let jobs = json!([{"name": "a2a", "workload": "alltoall", "bytes": 64, "iterations": 20, "ppn": 8, "nodes": {"list": [0]}}]);
    let run_with = |noise: Value| {
        let cfg = json!({
            "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
            "sim": {"max_time_ns": 1e9},
            "host": {"noise": noise, "verbs_overhead_ns": 10_000, "libfabric_overhead_ns": 10_000},
            "job": jobs.clone(),
        });
        let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
        sim.run();
        sim.summary()
    };
    let quiet = run_with(json!({}));
    let noisy = run_with(json!({"interval_ns": 100_000, "duration_ns": 10_000, "process": "periodic"}));
    for s in [&quiet, &noisy] {
        assert_eq!(s["jobs"]["a2a"]["finished"], true);
        assert_eq!(s["traffic"]["a2a"]["packets_delivered"], 0, "one node: nothing crosses the network");
    }
    let mean = |s: &Value| s["jobs"]["a2a"]["iteration_ns"]["mean"].as_f64().unwrap();
    let cpu = quiet["jobs"]["a2a"]["mpi_cpu_ns"]["max"].as_f64().unwrap() / 20.0;
    assert!(cpu > 0.8 * mean(&quiet), "the quiet alltoall is CPU-bound: {cpu} of {} ns per call", mean(&quiet));
    let extra = mean(&noisy) - mean(&quiet);
    assert!(extra > 0.08 * cpu, "detours on 10% of the CPU lengthen {cpu} ns of CPU work per call by {extra} ns");
    let held = noisy["jobs"]["a2a"]["host_noise"]["detoured_ns_per_rank"].as_f64().unwrap() / 20.0;
    assert!(held > 0.08 * cpu, "each rank was held {held} ns per call");
}
