//! The MPI layer against analytical times on an idle network, collectives'
//! byte counts, and runs that end as they should.

use serde_json::{json, Value};
use slingsim_core::Simulation;

/// A small dragonfly (3 groups x 2 switches x 2 nodes) with RoCE-free
/// defaults, and the given jobs and MPI settings.
fn run(jobs: Value, mpi: Value) -> Value {
    run_on_host(jobs, mpi, json!({}))
}

/// A host stack that costs nothing below MPI: messages take their packets' time.
fn bare_host() -> Value {
    json!({"verbs_overhead_ns": 0, "libfabric_overhead_ns": 0, "nic_send_latency_ns": 0, "nic_recv_latency_ns": 0, "eager_copies": false})
}

fn run_on_host(jobs: Value, mpi: Value, host: Value) -> Value {
    let cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "routing": {"algorithm": "minimal"},
        "sim": {"max_time_ns": 1e8},
        "mpi": mpi,
        "host": host,
        "job": jobs,
    });
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    sim.run();
    sim.summary()
}

#[test]
fn a_job_runs_to_completion() {
    let s = run(json!([{"name": "ar", "workload": "allreduce", "bytes": 8, "iterations": 5}]), json!({}));
    assert_eq!(s["end_reason"], "jobs_done", "{s:#}");
    let j = &s["jobs"]["ar"];
    assert_eq!(j["finished"], true);
    assert_eq!(j["iterations"], 5);
    // 12 ranks fold onto 8 (4 hand-ins), 3 doubling rounds of 8 ranks,
    // 4 hand-backs: 4 + 24 + 4 = 32 messages per iteration.
    assert_eq!(j["messages"], 32 * 5);
    assert_eq!(s["bytes_conserved"], true);
}

#[test]
fn pingpong_matches_latency_plus_serialization() {
    // Two nodes on different groups; every hop's latency is known.
    let jobs = json!([{"name": "pp", "workload": "pingpong", "bytes": 1000, "iterations": 4, "nodes": {"list": [0, 11]}}]);
    let s = run_on_host(jobs.clone(), json!({"send_overhead_ns": 0, "recv_overhead_ns": 0}), bare_host());
    let j = &s["jobs"]["pp"];
    let it = j["iteration_ns"]["mean"].as_f64().unwrap();
    let one_way = j["message_latency_ns"]["mean"].as_f64().unwrap();
    assert!((it - 2.0 * one_way).abs() / it < 0.02, "iteration {it} vs 2 x one-way {one_way}");
    // A one-packet message takes exactly its packet's latency (hops, switch
    // fall-through and serialization, checked by the engine's physics tests).
    let packet = s["traffic"]["pp"]["latency_ns"]["mean"].as_f64().unwrap();
    assert!((one_way - packet).abs() < 1e-6, "message {one_way} vs packet {packet}");
    // With overheads, each iteration grows by two sends and two receives.
    let s2 = run_on_host(jobs.clone(), json!({"send_overhead_ns": 500, "recv_overhead_ns": 300}), bare_host());
    let it2 = s2["jobs"]["pp"]["iteration_ns"]["mean"].as_f64().unwrap();
    assert!((it2 - it - 1600.0).abs() < 5.0, "{it2} - {it} should be 2 x (500 + 300)");
    // The default host stack adds, each way, the CPU time of verbs,
    // libfabric and MPI on both sides, the NIC's send and receive
    // latencies and the eager copy of 1000 B at 10 GB/s on both sides:
    // 2 x (2 x (100 + 100 + 50) + 450 + 400 + 2 x 100) ns per iteration.
    let s3 = run_on_host(jobs.clone(), json!({}), json!({}));
    let it3 = s3["jobs"]["pp"]["iteration_ns"]["mean"].as_f64().unwrap();
    assert!((it3 - it - 3100.0).abs() < 5.0, "{it3} - {it} should be 2 x 1550");
    // On bare verbs, MPI's and libfabric's CPU time and libfabric's eager
    // copies go: 2 x 2 x (100 + 50) + 2 x 2 x 100 ns.
    let s4 = run_on_host(jobs.clone(), json!({}), json!({"layer": "verbs"}));
    let it4 = s4["jobs"]["pp"]["iteration_ns"]["mean"].as_f64().unwrap();
    assert!((it3 - it4 - 1000.0).abs() < 5.0, "{it3} - {it4} should be 2 x 2 x (100 + 50 + 100)");
}

#[test]
fn payloads_above_the_inline_size_pay_a_dma_read() {
    // [Roweth] Fig. 7: latency is flat up to 96 B, written with the command;
    // above, the NIC reads the payload first.
    let time = |bytes: u64| {
        let jobs = json!([{"name": "pp", "workload": "pingpong", "bytes": bytes, "iterations": 2, "nodes": {"list": [0, 1]}}]);
        let s = run_on_host(jobs, json!({}), json!({"inline_bytes": 96, "dma_read_ns": 250}));
        s["jobs"]["pp"]["iteration_ns"]["mean"].as_f64().unwrap()
    };
    let (t96, t97) = (time(96), time(97));
    // Two messages per iteration, one more byte each on the wire.
    assert!((t97 - t96 - 500.0).abs() < 2.0, "96 B {t96} ns, 97 B {t97} ns");
    let bad = json!({"topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
                     "host": {"layer": "sockets"}});
    let e = Simulation::from_json(&bad.to_string()).err().unwrap().to_string();
    assert!(e.contains("host.layer") && e.contains("verbs, libfabric, mpi"), "{e}");
}

#[test]
fn unmatched_receive_stalls_with_a_report() {
    let program = json!({"ranks": 2, "comms": [[0, 1]], "ops": [[{"op": "recv", "comm": 0, "peer": 1, "tag": 0, "bytes": 8}], []]});
    let s = run(json!([{"name": "bad", "workload": "program", "program": program, "nodes": {"count": 2}}]), json!({}));
    assert_eq!(s["end_reason"], "jobs_stalled", "{s:#}");
    assert_eq!(s["jobs"]["bad"]["waiting_ranks"][0]["rank"], 0);
}

/// A sample trace: the project's own copies in `tests/data`, the
/// third-party ones in `../shared/traces` beside the repository (tests that
/// need those are ignored unless scripts/test finds them there).
fn sample(name: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    [root.join("tests/data").join(name), root.join("../../../shared/traces").join(name)]
        .into_iter()
        .find(|d| d.is_dir())
        .unwrap_or_else(|| panic!("sample trace {name} is neither in tests/data nor in ../shared/traces"))
        .to_string_lossy()
        .into_owned()
}

fn replay(name: &str, ppn: u32) -> Value {
    run(json!([{"name": "app", "workload": "trace", "trace": sample(name), "ppn": ppn}]), json!({}))
}

#[test]
fn dumpi_traces_replay_to_completion() {
    for (name, ranks, ppn) in [("dumpi-stencil3d-np8", 8, 1), ("dumpi-stencil3d-np16", 16, 2)] {
        check_replays(name, ranks, ppn);
    }
}

#[test]
#[ignore = "reads the third-party traces in ../shared/traces (scripts/test runs it when present)"]
fn third_party_dumpi_traces_replay_to_completion() {
    for (name, ranks, ppn) in [("dumpi-bgp-np7", 7, 1), ("dumpi-sstdumpi-testtrace", 4, 1)] {
        check_replays(name, ranks, ppn);
    }
}

fn check_replays(name: &str, ranks: u32, ppn: u32) {
    {
        let s = replay(name, ppn);
        assert_eq!(s["end_reason"], "jobs_done", "{name}: {:#}", s["jobs"]);
        let j = &s["jobs"]["app"];
        assert_eq!(j["ranks"], ranks, "{name}");
        assert_eq!(j["finished"], true, "{name}");
        assert_eq!(s["bytes_conserved"], true);
    }
}

#[test]
fn a_trace_with_unrecorded_calls_replays_and_says_so() {
    let s = replay("dumpi-nbc-np4", 1);
    let j = &s["jobs"]["app"];
    assert_eq!(j["finished"], true, "{j:#}");
    let warnings = j["warnings"].as_array().unwrap();
    assert!(!warnings.is_empty(), "{j:#}");
}

#[test]
fn compute_gaps_scale_and_drop() {
    let path = sample("dumpi-stencil3d-np8");
    let t = |scale: f64| {
        let s = run(json!([{"name": "app", "workload": "trace", "trace": path, "compute_scale": scale}]), json!({}));
        s["jobs"]["app"]["runtime_ns"].as_f64().unwrap()
    };
    let (none, one, two) = (t(0.0), t(1.0), t(2.0));
    assert!(none < one && one < two, "{none} {one} {two}");
}

#[test]
fn every_named_workload_runs_to_completion() {
    use slingsim_core::mpi::workloads::Workload;
    use slingsim_core::names::Named;
    let generated = Workload::REGISTRY.iter().filter(|(_, w)| !matches!(w, Workload::Trace | Workload::Program));
    for &(name, _) in generated {
        let mut job = json!({"name": "w", "workload": name, "bytes": 4096, "iterations": 2, "ppn": 2});
        // Shorter service times than the presets' so the test stays fast.
        if matches!(name, "sphinx" | "xapian" | "img-dnn") {
            job["params"] = json!({"service_mean_ns": 20_000.0});
        }
        // The multigrids size their messages from their grids, and small
        // grids keep them fast.
        if name == "amg" {
            job.as_object_mut().unwrap().remove("bytes");
            job["params"] = json!({"n": 6});
        }
        if name == "multigrid" {
            job.as_object_mut().unwrap().remove("bytes");
            job["params"] = json!({"box": 8});
        }
        let s = run(json!([job]), json!({}));
        assert_eq!(s["end_reason"], "jobs_done", "{name}: {:#}", s["jobs"]);
        assert_eq!(s["jobs"]["w"]["iterations"], 2, "{name}");
        assert_eq!(s["bytes_conserved"], true, "{name}");
    }
}

#[test]
fn a_run_can_stop_when_a_named_job_finishes() {
    let jobs = json!([
        {"name": "short", "workload": "barrier", "iterations": 2, "nodes": {"count": 4}},
        {"name": "long", "workload": "barrier", "iterations": 200, "nodes": {"count": 4}},
    ]);
    let cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "sim": {"stop_after_job": "short"},
        "job": jobs,
    });
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
    sim.run();
    let s = sim.summary();
    assert_eq!(s["end_reason"], "jobs_done");
    assert_eq!(s["jobs"]["short"]["finished"], true);
    assert_eq!(s["jobs"]["long"]["finished"], false);
    let bad = json!({"topology": cfg["topology"], "sim": {"stop_after_job": "nope"}, "job": cfg["job"]});
    let e = Simulation::from_json(&bad.to_string()).err().unwrap();
    assert_eq!(e.field, "sim.stop_after_job");
}

#[test]
fn allreduce_on_one_switch_takes_one_message_latency_per_round() {
    // Eight nodes on one switch: every pair is two terminal links and one
    // switch apart, so recursive doubling's 3 rounds take 3 one-way times
    // (with every output of the switch as fast as the others).
    let topo = json!({"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 8, "global_ports_per_switch": 1});
    let one = |jobs: Value| {
        let cfg = json!({"topology": topo, "switch": {"latency_spread_fraction": 0}, "mpi": {"send_overhead_ns": 0, "recv_overhead_ns": 0}, "job": jobs});
        let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
        sim.run();
        sim.summary()
    };
    let pp = one(json!([{"name": "j", "workload": "pingpong", "bytes": 8, "iterations": 3, "nodes": {"list": [0, 1]}}]));
    let latency = pp["jobs"]["j"]["message_latency_ns"]["mean"].as_f64().unwrap();
    let ar = one(json!([{"name": "j", "workload": "allreduce", "bytes": 8, "iterations": 3, "nodes": {"list": [0, 1, 2, 3, 4, 5, 6, 7]}}]));
    let it = ar["jobs"]["j"]["iteration_ns"]["mean"].as_f64().unwrap();
    assert!((it - 3.0 * latency).abs() < 0.01 * it, "allreduce {it} ns vs 3 x {latency} ns");
}

#[test]
fn an_inline_program_runs_its_iterations_and_a_trace_rejects_them() {
    let ping = json!({"ranks": 2, "comms": [[0, 1]], "ops": [
        [{"op": "send", "comm": 0, "peer": 1, "tag": 0, "bytes": 8}, {"op": "iteration_end"}],
        [{"op": "recv", "comm": 0, "peer": 0, "tag": 0, "bytes": 8}, {"op": "iteration_end"}]]});
    let once = run(json!([{"name": "p", "workload": "program", "program": ping, "nodes": {"count": 2}}]), json!({}));
    assert_eq!(once["jobs"]["p"]["iterations"], 1);
    let thrice = run(json!([{"name": "p", "workload": "program", "program": ping, "iterations": 3, "nodes": {"count": 2}}]), json!({}));
    assert_eq!(thrice["jobs"]["p"]["iterations"], 3);
    assert_eq!(thrice["jobs"]["p"]["messages"], 3);
    let cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "job": [{"name": "t", "workload": "trace", "trace": "nowhere", "iterations": 2}],
    });
    let err = Simulation::from_json(&cfg.to_string()).err().expect("iterations on a trace is refused").to_string();
    assert!(err.contains("iterations") && err.contains("as recorded"), "{err}");
}

#[test]
fn app_aware_routing_sends_small_messages_with_high_bias_and_counts_its_modes() {
    let jobs = json!([{"name": "pp", "workload": "pingpong", "bytes": 1024, "iterations": 10, "routing": "app-aware", "nodes": {"list": [0, 11]}}]);
    let s = run(jobs, json!({}));
    let j = &s["jobs"]["pp"];
    let (adaptive, high_bias) = (j["app_aware_messages"]["adaptive-0"].as_u64().unwrap(), j["app_aware_messages"]["adaptive-3"].as_u64().unwrap());
    assert_eq!(adaptive + high_bias, j["messages"].as_u64().unwrap());
    // 1 KiB messages: four go before each decision, with high bias (paper 004 Sec. 4.3).
    assert!(high_bias >= 3 * adaptive, "{adaptive} adaptive, {high_bias} high bias");
    // Each rank sends 10 messages and decides its 4th and 8th; a decision counts as a switch only
    // when it changes the rank's mode.
    let (decisions, switches) = (j["app_aware_decisions"]["decisions"].as_u64().unwrap(), j["app_aware_decisions"]["switches"].as_u64().unwrap());
    assert_eq!(decisions, 2 * 2, "{}", j["app_aware_decisions"]);
    assert!(switches <= decisions && adaptive <= decisions, "{}", j["app_aware_decisions"]);
    let plain = run(json!([{"name": "pp", "workload": "pingpong", "bytes": 1024, "iterations": 10, "nodes": {"list": [0, 11]}}]), json!({}));
    assert!(plain["jobs"]["pp"]["app_aware_messages"].is_null() && plain["jobs"]["pp"]["app_aware_decisions"].is_null());
}

#[test]
fn app_aware_settings_are_checked() {
    let cfg = |mpi: Value, routing: &str| {
        json!({
            "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
            "mpi": mpi,
            "job": [{"name": "pp", "workload": "pingpong", "routing": routing}],
        })
        .to_string()
    };
    let err = Simulation::from_json(&cfg(json!({"app_aware": {"stall_scale": 0.0}}), "app-aware")).err().unwrap().to_string();
    assert!(err.contains("mpi.app_aware.stall_scale"), "{err}");
    let err = Simulation::from_json(&cfg(json!({}), "app_aware")).err().unwrap().to_string();
    assert!(err.contains("job[0].routing") && err.contains("app-aware"), "{err}");
}

/// Host costs past any real host are refused with their range: 2e16 ns of
/// send overhead (found by the fuzz test under debug assertions) overflowed
/// the engine's picoseconds.
#[test]
fn mpi_costs_are_bounded() {
    let cfg = |mpi: Value| {
        json!({
            "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
            "mpi": mpi,
            "job": [{"name": "pp", "workload": "pingpong"}],
        })
        .to_string()
    };
    for (key, bad) in [("send_overhead_ns", 2e16), ("recv_overhead_ns", 2e9), ("memory_latency_ns", 1e7), ("memory_gbytes_per_s", 0.0), ("reduce_gbytes_per_s", -1.0)] {
        let err = Simulation::from_json(&cfg(json!({key: bad}))).err().unwrap_or_else(|| panic!("{key} = {bad} accepted")).to_string();
        assert!(err.contains(&format!("mpi.{key}")) && err.contains("between"), "{err}");
    }
    assert!(Simulation::from_json(&cfg(json!({"send_overhead_ns": 1e9, "reduce_gbytes_per_s": 0.0}))).is_ok());
}

#[test]
fn communication_time_runs_from_first_message_to_last_completion() {
    // Rank 0 computes 5 us, sends 8 B to rank 1, computes 3 us more; rank 1
    // only receives. [McGlohon19] Sec. 6.2: a rank's communication time runs
    // from its first message to its last; rank 1 sends nothing, so the job's
    // maximum is rank 0's: from the send (5 us in) to its completion.
    let program = json!({"ranks": 2, "comms": [[0, 1]], "ops": [
        [{"op": "compute", "ns": 5000.0}, {"op": "send", "comm": 0, "peer": 1, "tag": 0, "bytes": 8}, {"op": "compute", "ns": 3000.0}],
        [{"op": "recv", "comm": 0, "peer": 0, "tag": 0, "bytes": 8}]]});
    let s = run_on_host(json!([{"name": "p", "workload": "program", "program": program, "nodes": {"list": [0, 11]}}]),
                        json!({"send_overhead_ns": 0, "recv_overhead_ns": 0}), bare_host());
    let j = &s["jobs"]["p"];
    let latency = j["message_latency_ns"]["mean"].as_f64().unwrap();
    let span = j["max_comm_time_ns"].as_f64().unwrap();
    assert!((span - latency).abs() < 1e-6, "span {span} vs one message {latency}");
    // Time not computing (CODES' comm. time): rank 0 waits for its eager
    // send's delivery; rank 1 waits 5 us plus the message's latency.
    let runtime = j["runtime_ns"].as_f64().unwrap();
    assert!((runtime - (8000.0 + latency)).abs() < 1e-6, "{runtime}");
    let mean = j["mpi_time_ns"]["mean"].as_f64().unwrap();
    let max = j["mpi_time_ns"]["max"].as_f64().unwrap();
    assert!((max - (5000.0 + latency)).abs() < 1e-6 && (mean - (latency + 5000.0 + latency) / 2.0).abs() < 1e-6, "{j:#}");
    let fraction = j["mpi_time_fraction"].as_f64().unwrap();
    assert!((fraction - mean / runtime).abs() < 1e-12);
}

#[test]
fn an_aries_alltoall_takes_its_own_routing_mode() {
    // Cray MPICH on Aries: MPI_Alltoall's messages go ADAPTIVE_1 while the
    // job's other messages stay ADAPTIVE_0 ([DeSensi19] Sec. 2.2).
    let run = |a2a: &str| {
        let cfg = json!({
            "topology": {"kind": "aries", "groups": 2, "rows": 2, "columns": 4, "endpoints_per_switch": 2, "global_ports_per_switch": 2},
            "nic": {"frame": "aries", "mtu_payload": 64},
            "routing": {"algorithm": "adaptive-0"},
            "mpi": {"gni_a2a_routing": a2a},
            "job": [{"name": "a2a", "workload": "alltoall", "bytes": 4096, "iterations": 2, "nodes": {"count": 16}}],
        });
        let mut sim = Simulation::from_json(&cfg.to_string()).unwrap();
        sim.run();
        let s = sim.summary();
        assert_eq!(s["end_reason"], "jobs_done", "{s:#}");
        s["nonminimal_fraction"].as_f64().unwrap()
    };
    let (own, with_job, high) = (run("adaptive-1"), run("adaptive-0"), run("adaptive-3"));
    // No bias sends more of an idle network's traffic the long way than a growing one or a high one.
    assert!(own < with_job && high <= own, "adaptive-1 {own}, adaptive-0 {with_job}, adaptive-3 {high}");
    let bad = json!({"topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
                     "mpi": {"gni_a2a_routing": "sideways"}});
    let e = Simulation::from_json(&bad.to_string()).err().unwrap().to_string();
    assert!(e.contains("gni_a2a_routing") && e.contains("adaptive-1"), "{e}");
}

/// `ppn_copies`: each process slot of the job's nodes runs its own copy of
/// the pattern ([DeSensi20] Sec. III). An incast of 6 nodes x 3 processes
/// is then 3 incasts of 5 puts onto the 3 processes of node 0, all over
/// the network; without copies it is one incast of 17 puts onto rank 0,
/// 2 of them from node 0 itself, through memory.
#[test]
fn ppn_copies_run_the_pattern_once_per_process_slot() {
    let job = |copies: bool| json!([{"name": "inc", "workload": "incast", "bytes": 4096, "iterations": 2,
                                     "nodes": {"count": 6}, "ppn": 3, "ppn_copies": copies}]);
    let copies = run(job(true), json!({}));
    assert_eq!(copies["end_reason"], "jobs_done", "{copies:#}");
    let j = &copies["jobs"]["inc"];
    assert_eq!(j["messages"], 3 * 5 * 2, "{j}");
    assert_eq!(j["memory_messages"], 0, "{j}");
    let once = run(job(false), json!({}));
    let j = &once["jobs"]["inc"];
    assert_eq!(j["messages"], 17 * 2, "{j}");
    assert_eq!(j["memory_messages"], 2 * 2, "{j}");
    // Collectives run on each copy's own communicator.
    let a2a = run(json!([{"name": "a2a", "workload": "alltoall", "bytes": 1024, "iterations": 2,
                          "nodes": {"count": 6}, "ppn": 2, "ppn_copies": true}]), json!({}));
    assert_eq!(a2a["end_reason"], "jobs_done", "{a2a:#}");
    assert_eq!(a2a["jobs"]["a2a"]["memory_messages"], 0, "no copy has two processes on one node");
    // Only for named workloads.
    let cfg = json!({"topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
                     "job": [{"workload": "program", "ppn": 2, "ppn_copies": true,
                              "program": {"ranks": 2, "comms": [[0, 1]], "ops": [[], []]}}]});
    let e = Simulation::from_json(&cfg.to_string()).err().expect("refused");
    assert_eq!(e.field, "job[0].ppn_copies", "{e}");
}

/// `mpi.alltoall_throttle`: MPICH's medium-message alltoall waits for each
/// block of that many peers before the next. One peer at a time, each of
/// the 11 blocks takes at least its 4 KiB message's time on the NIC's
/// 100 Gb/s link (the default); every peer at once overlaps them. Both
/// move the same messages.
#[test]
fn the_alltoall_throttle_sets_how_many_peers_go_at_once() {
    let run_with = |throttle: u32| {
        let jobs = json!([{"name": "a2a", "workload": "alltoall", "bytes": 4096, "iterations": 2, "nodes": {"count": 12}}]);
        let s = run_on_host(jobs, json!({"alltoall_throttle": throttle}), bare_host());
        assert_eq!(s["end_reason"], "jobs_done", "{s:#}");
        assert_eq!(s["bytes_conserved"], true);
        let j = &s["jobs"]["a2a"];
        assert_eq!(j["messages"], 12 * 11 * 2, "throttle {throttle}");
        j["iteration_ns"]["mean"].as_f64().unwrap()
    };
    let (one, all, default) = (run_with(1), run_with(0), run_with(32));
    let wire_ns = 4096.0 * 8.0 / 100e9 * 1e9;
    assert!(one >= 11.0 * wire_ns, "one peer at a time: {one} ns against 11 x {wire_ns} ns");
    assert!(all < one, "every peer at once {all} ns, one at a time {one} ns");
    assert_eq!(all, default, "12 ranks: a throttle of 32 is one block too");
}

#[test]
fn rendezvous_times_show_a_late_receiver_as_match_wait() {
    // Rank 0 sends 64 KiB (above the 16 KiB eager threshold) at once;
    // rank 1 posts its receive after `delay` ns of compute. The request to
    // send waits at rank 1 for the receive, so the match wait is the delay
    // less the request's own time; the four stages add up to the time from
    // the send being posted to the data's arrival.
    let stages = |delay: f64| {
        let program = json!({"ranks": 2, "comms": [[0, 1]], "ops": [
            [{"op": "send", "comm": 0, "peer": 1, "tag": 0, "bytes": 65536}],
            [{"op": "compute", "ns": delay}, {"op": "recv", "comm": 0, "peer": 0, "tag": 0, "bytes": 65536}]]});
        let s = run_on_host(json!([{"name": "p", "workload": "program", "program": program, "nodes": {"list": [0, 11]}}]),
                            json!({"send_overhead_ns": 0, "recv_overhead_ns": 0}), bare_host());
        assert_eq!(s["end_reason"], "jobs_done", "{s:#}");
        let r = s["jobs"]["p"]["rendezvous"].clone();
        assert_eq!(r["messages"], 1, "{r:#}");
        let ns = |k: &str| r["mean_ns"][k].as_f64().unwrap();
        (ns("request"), ns("match_wait"), ns("clear_to_send"), ns("data"), s["jobs"]["p"]["runtime_ns"].as_f64().unwrap())
    };
    let (request, wait, cts, data, runtime) = stages(0.0);
    assert_eq!(wait, 0.0, "the receive was posted before the request arrived");
    assert!(request > 0.0 && cts > 0.0 && data > cts, "{request} {cts} {data}");
    assert!((request + cts + data - runtime).abs() < 1e-6, "stages {} against the run's {runtime}", request + cts + data);
    let (request2, wait2, cts2, data2, runtime2) = stages(20_000.0);
    assert!((wait2 - (20_000.0 - request2)).abs() < 1e-6, "match wait {wait2}, request {request2}");
    assert_eq!((request2, cts2, data2), (request, cts, data), "only the wait changes on an idle network");
    assert!((request2 + wait2 + cts2 + data2 - runtime2).abs() < 1e-6);
    // Eager messages have no rendezvous stages.
    let s = run(json!([{"name": "ar", "workload": "allreduce", "bytes": 8, "iterations": 2}]), json!({}));
    assert!(s["jobs"]["ar"]["rendezvous"].is_null());
}

#[test]
fn mpi_cpu_time_sums_each_ranks_message_costs_and_leaves_out_compute() {
    // Rank 0 computes 10 us, then sends three 1 KiB eager messages to rank
    // 1. With the layers below MPI free, each send costs the sender its
    // 50 ns and each receive the receiver its 70 ns; eager copies at 10
    // GB/s add 102.4 ns a side per message. Compute is not MPI work.
    let cpu = |host: Value| {
        let send = json!({"op": "send", "comm": 0, "peer": 1, "tag": 0, "bytes": 1024});
        let recv = json!({"op": "recv", "comm": 0, "peer": 0, "tag": 0, "bytes": 1024});
        let program = json!({"ranks": 2, "comms": [[0, 1]], "ops": [
            [{"op": "compute", "ns": 10_000.0}, send, send, send], [recv, recv, recv]]});
        let s = run_on_host(json!([{"name": "p", "workload": "program", "program": program, "nodes": {"list": [0, 11]}}]),
                            json!({"send_overhead_ns": 50, "recv_overhead_ns": 70, "memory_gbytes_per_s": 10}), host);
        assert_eq!(s["end_reason"], "jobs_done", "{s:#}");
        let j = s["jobs"]["p"].clone();
        let (mean, max) = (j["mpi_cpu_ns"]["mean"].as_f64().unwrap(), j["mpi_cpu_ns"]["max"].as_f64().unwrap());
        let fraction = j["mpi_cpu_fraction"].as_f64().unwrap();
        assert!((fraction - max / j["runtime_ns"].as_f64().unwrap()).abs() < 1e-12, "{j:#}");
        assert!(fraction > 0.0 && fraction < 0.1, "10 us of compute and a few hundred ns of MPI: {fraction}");
        (mean, max)
    };
    let (mean, max) = cpu(bare_host());
    assert!((max - 210.0).abs() < 1e-6 && (mean - 180.0).abs() < 1e-6, "sender 150 ns, receiver 210 ns: {mean} {max}");
    let mut copies = bare_host();
    copies["eager_copies"] = json!(true);
    let (mean, max) = cpu(copies);
    assert!((max - 3.0 * (70.0 + 102.4)).abs() < 1e-6, "receiver {max}");
    assert!((mean - 3.0 * (60.0 + 102.4)).abs() < 1e-6, "mean {mean}");
}

#[test]
fn a_late_rank_spreads_the_first_round_of_a_collective_only() {
    // Four ranks run one 8 B allreduce by recursive doubling: round 0 pairs
    // ranks 0-1 and 2-3, round 1 ranks 0-2 and 1-3. Rank 3 computes 10 us
    // first, so 0 and 1 finish round 0 about 10 us before 2 and 3; in round
    // 1 everyone waits for data that left after rank 3 did, so they finish
    // together again.
    let spread = |delay: f64| {
        let coll = json!({"op": "coll", "kind": "allreduce", "comm": 0, "bytes": 8});
        let ops: Vec<Value> = (0..4)
            .map(|r| if r == 3 { json!([{"op": "compute", "ns": delay}, coll]) } else { json!([coll]) })
            .collect();
        let program = json!({"ranks": 4, "comms": [[0, 1, 2, 3]], "ops": ops});
        let s = run(json!([{"name": "p", "workload": "program", "program": program, "nodes": {"list": [0, 3, 6, 9]}}]), json!({}));
        assert_eq!(s["end_reason"], "jobs_done", "{s:#}");
        s["jobs"]["p"]["collective_rounds"].clone()
    };
    let calm = spread(0.0);
    assert_eq!(calm["rounds"], 2, "{calm:#}");
    assert_eq!(calm["open_rounds"], 0);
    let late = spread(10_000.0);
    let (mean, max) = (late["spread_ns"]["mean"].as_f64().unwrap(), late["spread_ns"]["max"].as_f64().unwrap());
    // About the delay: ranks 0 and 1 finish round 0 one message after the
    // start, ranks 2 and 3 one message after rank 3's send at 10 us.
    assert!(max > 9_000.0 && max < 12_000.0, "{late:#}");
    assert!(calm["spread_ns"]["max"].as_f64().unwrap() < 1_000.0, "{calm:#}");
    assert!(mean < 0.6 * max, "round 1 closes together: {late:#}");
    // Point-to-point only: no collective rounds.
    let p2p = json!({"ranks": 2, "comms": [[0, 1]], "ops": [
        [{"op": "send", "comm": 0, "peer": 1, "tag": 0, "bytes": 8}], [{"op": "recv", "comm": 0, "peer": 0, "tag": 0, "bytes": 8}]]});
    let s = run(json!([{"name": "q", "workload": "program", "program": p2p, "nodes": {"list": [0, 11]}}]), json!({}));
    assert!(s["jobs"]["q"]["collective_rounds"].is_null());
}
