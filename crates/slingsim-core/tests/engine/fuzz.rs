//! Property tests of the config and trace readers: generated configs and
//! corrupted traces must end in a result or a clear error, never a panic,
//! and a run must end within its wall-clock bound. The default run tries a
//! few hundred cases; `PROPTEST_CASES=100000 cargo test --release --test
//! fuzz` tries many more (the hardening issue's long run).

use proptest::prelude::*;
use serde_json::{json, Value};
use slingsim_core::trace::dumpi::{parse_rank_bytes, read_dumpi};
use slingsim_core::Simulation;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Cases of each property in the default run.
const DEFAULT_CASES: u32 = 96;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_CASES);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// Every key a config may set, by section (the ones a careless user types).
const KEYS: &[&str] = &[
    "topology.kind", "topology.groups", "topology.switches_per_group", "topology.endpoints_per_switch",
    "topology.local_links_per_pair", "topology.global_ports_per_switch", "topology.global_links_per_group_pair",
    "topology.taper", "topology.cabling", "topology.radix", "topology.nodes", "topology.rails", "topology.q", "topology.planes",
    "nic.bandwidth_bps", "nic.node_injection_bps", "nic.mtu_payload", "nic.frame", "nic.rail_selection", "nic.rail_unit", "nic.flit_bytes", "switch.arbitration",
    "nic.max_outstanding_packets", "nic.outstanding_release", "nic.retry_timeout_ns", "nic.max_retries",
    "links.bandwidth_bps", "links.terminal_latency_ns", "links.local_latency_ns", "links.global_latency_ns",
    "links.fec_latency_ns", "links.bit_error_rate", "links.failed", "links.degraded", "links.random_failures",
    "links.random_failures.count", "links.random_failures.fraction", "links.random_failures.kind", "links.random_failures.at_ns", "links.reroute_after_ns",
    "switch.latency_ns", "switch.buffer_bytes", "switch.terminal_buffer_bytes", "switch.speedup",
    "routing.algorithm", "routing.ugal_threshold_bytes", "routing.bias_bytes", "routing.neighbour_load",
    "routing.neighbour_load_refresh_ns", "routing.minimal_paths", "nic.acks",
    "congestion.algorithm", "congestion.flow_memory_ns", "congestion.port_threshold_bytes", "congestion.min_window_bytes", "congestion.max_window_bytes", "congestion.hop_hold_bytes", "congestion.hop_hold_cut_flows_only", "congestion.kmin_bytes",
    "congestion.kmax_bytes", "congestion.pmax", "congestion.g",
    "sim.seed", "sim.warmup_ns", "sim.duration_ns", "sim.max_time_ns", "sim.watchdog_ns", "sim.drain_ns",
    "sim.packet_sample_every", "sim.timeline_bin_ns", "sim.hop_waits",
    "traffic.0.pattern", "traffic.0.load", "traffic.0.message_bytes", "traffic.0.flow_bytes",
    "traffic.0.flows_per_node", "traffic.0.nodes", "traffic.0.placement", "traffic.0.target", "traffic.0.process",
    "traffic.0.start_ns", "traffic.0.stop_ns", "traffic.0.routing", "traffic.0.class",
    "classes", "job", "mpi.eager_threshold_bytes", "mpi.send_overhead_ns",
];

/// Values of every shape and magnitude a config might hold.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|v| json!(v)),
        any::<u64>().prop_map(|v| json!(v)),
        (0u32..4).prop_map(|v| json!(v)),
        prop_oneof![Just(0.0), Just(-1.0), Just(1e-300), Just(1e300), Just(0.5), Just(1e18), Just(f64::MAX)].prop_map(|v: f64| json!(v)),
        any::<f64>().prop_filter("JSON holds finite numbers", |v| v.is_finite()).prop_map(|v| json!(v)),
        prop_oneof![
            Just("uniform"), Just("incast"), Just("minimal"), Just("ugal"), Just("slingshot"), Just("dcqcn"),
            Just("all"), Just(""), Just("fattree"), Just("aries"), Just("adaptive-3"), Just("random"),
            Just("one-global-hop"), Just("spread"), Just("local"),
        ]
        .prop_map(|s: &str| json!(s)),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec((prop_oneof![Just("count"), Just("list"), Just("name"), Just("x")], inner), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

/// Mostly values a config could hold (numbers of every magnitude, the
/// names of choices), sometimes anything: most spoiled configs then still
/// build and run, and the run is what is tested.
fn plausible() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (0u32..70).prop_map(|v| json!(v)),
        3 => (-4i32..17, 1u32..10).prop_map(|(e, m)| json!(m as f64 * 10f64.powi(e))),
        1 => (0.0f64..1.0).prop_map(|v| json!(v)),
        2 => value(),
    ]
}

/// A small, valid config to spoil.
fn base() -> Value {
    json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "sim": {"warmup_ns": 500, "duration_ns": 3000, "max_time_ns": 100000, "wall_limit_s": 2.0},
        "traffic": [{"name": "u", "pattern": "uniform", "load": 0.3}]
    })
}

/// Sets dotted `key` (a number means a list index) in `cfg` to `v`.
fn set(cfg: &mut Value, key: &str, v: Value) {
    let mut node = cfg;
    let parts: Vec<&str> = key.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        node = match part.parse::<usize>() {
            Ok(idx) if node.is_array() => {
                let list = node.as_array_mut().unwrap();
                if idx >= list.len() {
                    return;
                }
                &mut list[idx]
            }
            _ => {
                if !node.is_object() {
                    return;
                }
                let map = node.as_object_mut().unwrap();
                if last {
                    map.insert(part.to_string(), v);
                    return;
                }
                map.entry(part.to_string()).or_insert_with(|| json!({}))
            }
        };
        if last {
            *node = v;
            return;
        }
    }
}

/// Builds and runs `cfg` if it is valid; panics (failing the property) only
/// on a panic inside the engine or a run past its wall bound.
fn build_and_run(cfg: &Value) {
    let Ok(mut sim) = Simulation::from_json(&cfg.to_string()) else { return };
    let t0 = Instant::now();
    sim.run();
    let s = sim.summary();
    // The base's wall limit holds unless a case replaced it; a run never
    // takes much past its bound.
    assert!(t0.elapsed() < Duration::from_secs(20), "ran {:?}: {cfg}", t0.elapsed());
    assert_ne!(s["end_reason"], "running", "{cfg}");
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn spoiled_configs_end_in_a_result_or_an_error(edits in prop::collection::vec((0..KEYS.len(), plausible()), 1..3)) {
        let mut cfg = base();
        for (k, v) in edits {
            set(&mut cfg, KEYS[k], v);
        }
        build_and_run(&cfg);
    }

    /// GPCNeT's victims with spoiled repetition: rings, untimed and timed
    /// iterations of any size end in a result or a named error.
    #[test]
    fn spoiled_gpcnet_victims_end_in_a_result_or_an_error(
        workload in prop_oneof![Just("gpcnet-rr-latency"), Just("gpcnet-rr-bandwidth"), Just("gpcnet-allreduce")],
        rings in plausible(), warmup in plausible(), iterations in plausible(), count in 0u32..14,
    ) {
        let mut cfg = base();
        cfg["traffic"] = json!([]);
        cfg["sim"]["max_time_ns"] = json!(2_000_000);
        cfg["job"] = json!([{"name": "v", "workload": workload, "nodes": {"count": count}, "iterations": iterations,
                             "params": {"rings": rings, "warmup_iterations": warmup}}]);
        build_and_run(&cfg);
    }

    #[test]
    fn arbitrary_json_never_panics_the_reader(v in value()) {
        let _ = slingsim_core::Config::from_json(&v.to_string());
    }
}

/// The project's own sample trace (checked in).
fn stencil() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dumpi-stencil3d-np8")
}

/// A damaged copy of the trace in a fresh directory: rank `rank`'s file
/// mangled by `edit`.
fn damaged(tag: u64, rank: usize, edit: impl Fn(&mut Vec<u8>)) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("slingsim-fuzz-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(stencil()).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let bins: Vec<&PathBuf> = files.iter().filter(|p| p.extension().is_some_and(|e| e == "bin")).collect();
    for path in &files {
        let mut bytes = std::fs::read(path).unwrap();
        if bins.get(rank % bins.len()) == Some(&path) {
            edit(&mut bytes);
        }
        std::fs::write(dir.join(path.file_name().unwrap()), bytes).unwrap();
    }
    dir
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn corrupt_rank_files_are_refused_or_read(at in 0usize..20_000, mask in 1u8..=255, cut in prop::option::of(0usize..20_000)) {
        let path = stencil().join("dumpi-2026.11.22.02.43.02-0003.bin");
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        bytes[at % n] ^= mask;
        if let Some(c) = cut {
            bytes.truncate(c % n);
        }
        let _ = parse_rank_bytes(&path, &bytes);
    }

    #[test]
    fn corrupt_traces_replay_or_are_refused(seed in any::<u64>(), rank in 0usize..8, at in 0usize..20_000, mask in 1u8..=255, cut in prop::option::of(0usize..20_000)) {
        let dir = damaged(seed, rank, |b| {
            let n = b.len();
            b[at % n] ^= mask;
            if let Some(c) = cut {
                b.truncate(c % n);
            }
        });
        if read_dumpi(&dir).is_ok() {
            let cfg = json!({
                "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
                "sim": {"max_time_ns": 1e7, "wall_limit_s": 2.0},
                "job": [{"name": "t", "workload": "trace", "trace": dir.to_string_lossy(), "nodes": {"count": 8}, "compute_scale": 0.0}]
            });
            build_and_run(&cfg);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
