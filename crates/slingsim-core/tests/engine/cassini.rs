//! Cassini's NIC features against [Roweth] Sec. IV-B, IV-C and V: matching
//! offload (Fig. 8), the unrestricted reliability model's result store,
//! and fences with transmit or delivery completion.

use serde_json::{json, Value};
use slingsim_core::Simulation;

/// A small Slingshot dragonfly (3 groups x 2 switches x 2 nodes) with the
/// given host and jobs.
fn run(host: Value, jobs: Value) -> Value {
    run_with(host, jobs, json!({}))
}

fn run_with(host: Value, jobs: Value, extra: Value) -> Value {
    let mut cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "nic": {"frame": "slingshot", "bandwidth_bps": 200e9},
        "routing": {"algorithm": "minimal"},
        "sim": {"max_time_ns": 1e8},
        "host": host,
        "job": jobs,
    });
    for (k, v) in extra.as_object().unwrap() {
        cfg[k] = v.clone();
    }
    let mut sim = Simulation::from_json(&cfg.to_string()).unwrap_or_else(|e| panic!("{e}"));
    sim.run();
    sim.summary()
}

/// The Cassini host of the `slingshot-max` preset (python/slingsim/configs).
fn cassini() -> Value {
    json!({"inline_bytes": 96, "dma_read_ns": 250, "matching": {"location": "nic", "nic_message_ns": 10, "nic_attempts_hidden": 64}})
}

/// The RoCE host of the Malbec and Shandy presets: matching in software.
fn roce() -> Value {
    json!({"matching": {"location": "software", "software_attempt_ns": 10}})
}

/// Messages per second of a message-rate job with 16 pairs across two
/// nodes, each message passing `unmatched` posted receives.
fn message_rate(host: Value, unmatched: u32) -> f64 {
    let window = 64;
    let jobs = json!([{"name": "mr", "workload": "message-rate", "bytes": 8, "iterations": 4, "ppn": 16, "nodes": {"list": [0, 4]},
                       "params": {"window": window, "unmatched": unmatched}}]);
    let s = run(host, jobs);
    let j = &s["jobs"]["mr"];
    assert_eq!(j["finished"], true, "{j:#}");
    let m = &j["matching"];
    // Every data message passes exactly the unmatched receives; the
    // replies (one per window) find an empty list.
    let data = 16 * window * 4;
    assert_eq!(m["failed_attempts"].as_u64().unwrap(), data * unmatched as u64, "{m}");
    16.0 * window as f64 / (j["iteration_ns"]["mean"].as_f64().unwrap() * 1e-9)
}

#[test]
fn offloaded_matching_keeps_the_message_rate_to_64_attempts_and_software_matching_does_not() {
    let nic: Vec<f64> = [0, 16, 64, 256].iter().map(|&u| message_rate(cassini(), u)).collect();
    eprintln!("Cassini (nic) rates at 0, 16, 64, 256 attempts: {nic:?}");
    for (u, r) in [16, 64].iter().zip(&nic[1..3]) {
        assert!((r / nic[0] - 1.0).abs() < 0.03, "Cassini at {u} attempts: {r:.3e}/s against {:.3e}/s at 0", nic[0]);
    }
    assert!(nic[3] < 0.8 * nic[0], "256 attempts exceed what hides behind the message time: {:.3e} vs {:.3e}", nic[3], nic[0]);
    let sw: Vec<f64> = [0, 64].iter().map(|&u| message_rate(roce(), u)).collect();
    eprintln!("RoCE (software) rates at 0, 64 attempts: {sw:?}");
    assert!(sw[1] < 0.7 * sw[0], "software matching at 64 attempts: {:.3e}/s against {:.3e}/s at 0", sw[1], sw[0]);
    // With free matching (the engine's default) the list length changes nothing.
    let free: Vec<f64> = [0, 256].iter().map(|&u| message_rate(json!({}), u)).collect();
    assert_eq!(free[0], free[1]);
}

/// Rank 0 writes `puts` puts of 8 bytes to rank 1, a fence between each
/// two when `fenced`, then waits for them all; 5 iterations. Returns the
/// mean iteration and the mean one-way network latency of the packets.
fn write_fence_write(puts: u32, fenced: bool, completion: &str) -> (f64, f64) {
    let mut ops = Vec::new();
    for req in 0..puts {
        if fenced && req > 0 {
            ops.push(json!({"op": "fence"}));
        }
        ops.push(json!({"op": "put", "comm": 0, "peer": 1, "bytes": 8, "req": req, "completion": completion}));
    }
    ops.push(json!({"op": "wait", "reqs": (0..puts).collect::<Vec<_>>()}));
    ops.push(json!({"op": "iteration_end"}));
    // The target takes no part; it only marks the iterations.
    let program = json!({"ranks": 2, "comms": [[0, 1]], "ops": [ops, [{"op": "iteration_end"}]]});
    let jobs = json!([{"name": "rma", "workload": "program", "program": program, "iterations": 5, "nodes": {"list": [0, 4]}}]);
    let s = run(cassini(), jobs);
    let j = &s["jobs"]["rma"];
    assert_eq!(j["finished"], true, "{s:#}");
    (j["iteration_ns"]["mean"].as_f64().unwrap(), s["traffic"]["rma"]["network_latency_ns"]["mean"].as_f64().unwrap())
}

#[test]
fn each_fence_costs_a_round_trip_between_the_nics_and_delivery_completion_more() {
    let (free, one_way) = write_fence_write(4, false, "transmit");
    let (fenced, _) = write_fence_write(4, true, "transmit");
    let (delivered, _) = write_fence_write(4, true, "delivery");
    // Three fences, each holding the next put until the one ahead has
    // reached the target NIC and its response is back: a round trip
    // between the NICs, less the 250 ns of CPU (verbs, libfabric, MPI by
    // default) that separate two posts anyway.
    let per_fence = (fenced - free) / 3.0;
    let expected = 2.0 * one_way - 250.0;
    eprintln!("unfenced {free:.0} ns, fenced {fenced:.0} ns, delivery {delivered:.0} ns; {per_fence:.0} ns per fence, one-way {one_way:.0} ns");
    assert!((per_fence / expected - 1.0).abs() < 0.05, "{per_fence} ns per fence against a round trip less the post gap of {expected} ns");
    // Delivery completion holds every put's response until its data is in
    // the root complex (250 ns assumed): the three fences and the wait for
    // the last put each pay it.
    let extra = delivered - fenced;
    assert!((extra - 4.0 * 250.0).abs() < 20.0, "delivery completion adds {extra} ns over 4 puts");
}

#[test]
fn a_fence_behind_a_put_without_completion_is_refused() {
    let program = json!({"ranks": 2, "comms": [[0, 1]], "ops": [[{"op": "put", "comm": 0, "peer": 1, "bytes": 8, "req": 0}, {"op": "fence"}], []]});
    let cfg = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
        "job": [{"workload": "program", "program": program}],
    });
    let e = Simulation::from_json(&cfg.to_string()).err().expect("refused");
    assert_eq!(e.field, "job[0].program.ops[0][0].completion", "{e}");
}

/// Three initiators in group 1 each run 40 fetch-and-adds, one at a time,
/// on rank 0 in group 0, in a lossy class. For the first 30 us three nodes
/// of each group overload the global link toward the other group, so
/// requests and responses are dropped there. Returns the summary's
/// `reliability`.
fn amo_counter_under_loss(amo_model: &str) -> Value {
    let mut ops: Vec<Vec<Value>> = vec![vec![json!({"op": "iteration_end"})]];
    for _ in 0..3 {
        ops.push(vec![json!({"op": "fetch_add", "comm": 0, "peer": 0, "req": 0}), json!({"op": "wait", "reqs": [0]}), json!({"op": "iteration_end"})]);
    }
    let program = json!({"ranks": 4, "comms": [[0, 1, 2, 3]], "ops": ops});
    // Group 0 is nodes 0-7, group 1 nodes 8-15.
    let jobs = json!([{"name": "amo", "workload": "program", "program": program, "iterations": 40, "nodes": {"list": [0, 8, 9, 10]}, "class": "lossy"}]);
    let mut host = cassini();
    host["reliability"] = json!({"amo": amo_model});
    let noise = |name: &str, nodes: [u32; 4]| json!({"name": name, "pattern": "incast", "nodes": {"list": nodes}, "target": 0, "load": 0.9, "class": "lossy", "stop_ns": 30000});
    let extra = json!({
        "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 4, "global_ports_per_switch": 1},
        "classes": [{"name": "tc", "dscp": 0}, {"name": "lossy", "dscp": 30, "lossy": true}],
        "qos": {"lossy_queue_bytes": 8192},
        "nic": {"frame": "slingshot", "bandwidth_bps": 200e9, "retry_timeout_ns": 3000},
        "traffic": [noise("to_group1", [11, 1, 2, 3]), noise("to_group0", [4, 12, 13, 14])],
    });
    let s = run_with(host, jobs, extra);
    assert_eq!(s["jobs"]["amo"]["finished"], true, "{:#}", s["jobs"]);
    s["reliability"].clone()
}

#[test]
fn a_lost_amo_response_is_answered_from_the_result_store_and_never_runs_twice() {
    let r = amo_counter_under_loss("unrestricted");
    eprintln!("unrestricted: {r}");
    let n = |k: &str| r[k].as_u64().unwrap();
    assert_eq!(n("amo_ops"), 120);
    assert!(n("amo_lost_requests") > 0 && n("amo_lost_responses") > 0, "the scenario must lose both: {r}");
    // A resend after a lost request finds the store empty and runs; one
    // after a lost response finds the result.
    assert_eq!(n("result_store_hits"), n("amo_lost_responses"), "{r}");
    assert_eq!(n("amo_runs"), 120, "each AMO ran once: {r}");
    assert_eq!((n("reexecutions"), n("correctness_violations")), (0, 0));
    assert_eq!(n("result_store_entries_left"), 0, "entries are released on completion");
    assert!(n("result_store_max_entries") >= 1);
    // Forcing the restricted model on a non-idempotent AMO replays it.
    let r = amo_counter_under_loss("restricted");
    eprintln!("restricted: {r}");
    let n = |k: &str| r[k].as_u64().unwrap();
    assert!(n("amo_lost_responses") > 0);
    assert_eq!(n("result_store_hits"), 0);
    assert_eq!(n("reexecutions"), n("amo_lost_responses"));
    assert_eq!(n("correctness_violations"), n("amo_lost_responses"), "each replayed AMO added twice: {r}");
    assert_eq!(n("amo_runs"), 120 + n("correctness_violations"));
}

#[test]
fn unrestricted_puts_hold_a_result_store_entry_until_their_response_is_back() {
    let ops = json!([
        {"op": "put", "comm": 0, "peer": 1, "bytes": 8, "req": 0, "completion": "transmit"},
        {"op": "put", "comm": 0, "peer": 1, "bytes": 8, "req": 1, "completion": "transmit"},
        {"op": "wait", "reqs": [0, 1]},
        {"op": "iteration_end"}
    ]);
    let program = json!({"ranks": 2, "comms": [[0, 1]], "ops": [ops, [{"op": "iteration_end"}]]});
    let jobs = json!([{"name": "rma", "workload": "program", "program": program, "iterations": 3, "nodes": {"list": [0, 4]}}]);
    let mut host = cassini();
    host["reliability"] = json!({"put": "unrestricted"});
    let r = run(host, jobs)["reliability"].clone();
    assert_eq!((r["unrestricted_runs"].as_u64(), r["result_store_stored"].as_u64()), (Some(6), Some(6)), "{r}");
    // The two puts of an iteration overlap in flight; none is left at the end.
    assert_eq!((r["result_store_max_entries"].as_u64(), r["result_store_entries_left"].as_u64()), (Some(2), Some(0)), "{r}");
    let r = run(cassini(), json!([{"name": "rma", "workload": "program", "program": program, "iterations": 3, "nodes": {"list": [0, 4]}}]))["reliability"].clone();
    assert_eq!((r["restricted_runs"].as_u64(), r["result_store_stored"].as_u64()), (Some(6), Some(0)), "Cassini's default for puts: {r}");
}

/// Ranks 1-3 each write to rank 0 either `count` puts written out one by
/// one and a wait on them all (or, with `flush_each`, a wait on each put
/// before the next), or one `put_burst` (with `flush_each` as given) and a
/// wait on it; 3 iterations. Returns the summary.
fn incast_of_puts(count: u32, burst: bool, completion: &str, flush_each: bool) -> serde_json::Value {
    let sender = |_| {
        let mut ops = Vec::new();
        if burst {
            ops.push(json!({"op": "put_burst", "comm": 0, "peer": 0, "bytes": 1000, "count": count, "req": 7, "completion": completion, "flush_each": flush_each}));
            ops.push(json!({"op": "wait", "reqs": [7]}));
        } else if flush_each {
            for req in 0..count {
                ops.push(json!({"op": "put", "comm": 0, "peer": 0, "bytes": 1000, "req": req, "completion": completion}));
                ops.push(json!({"op": "wait", "reqs": [req]}));
            }
        } else {
            for req in 0..count {
                ops.push(json!({"op": "put", "comm": 0, "peer": 0, "bytes": 1000, "req": req, "completion": completion}));
            }
            ops.push(json!({"op": "wait", "reqs": (0..count).collect::<Vec<_>>()}));
        }
        ops.push(json!({"op": "iteration_end"}));
        ops
    };
    let ops: Vec<_> = std::iter::once(vec![json!({"op": "iteration_end"})]).chain((1..4).map(sender)).collect();
    let program = json!({"ranks": 4, "comms": [[0, 1, 2, 3]], "ops": ops});
    let jobs = json!([{"name": "rma", "workload": "program", "program": program, "iterations": 3, "nodes": {"list": [0, 4, 8, 9]}}]);
    run(cassini(), jobs)
}

/// One `put_burst` of `count` puts (flushing each or not) against the same
/// puts written out, for `completion`: the same job, event for event.
/// Returns the burst's summary.
fn burst_matches_written_out(count: u32, completion: &str, flush_each: bool) -> serde_json::Value {
    let (one, many) = (incast_of_puts(count, true, completion, flush_each), incast_of_puts(count, false, completion, flush_each));
    let (a, b) = (&one["jobs"]["rma"], &many["jobs"]["rma"]);
    assert_eq!(a["finished"], true, "{one:#}");
    for key in ["iteration_times_ns", "messages", "bytes", "end_ns"] {
        assert_eq!(a[key], b[key], "{completion}: {key}");
    }
    assert_eq!(a["messages"], 3 * 3 * count as u64);
    assert_eq!(one["packet_hops"], many["packet_hops"], "{completion}");
    one
}

/// A burst that flushes each put (GPCNeT's put incast, MPI_Put then
/// MPI_Win_flush) runs as its puts written out with a wait after each,
/// and slower than the burst that posts them all.
#[test]
fn a_flushed_put_burst_runs_exactly_as_put_and_wait_written_out() {
    for completion in ["arrival", "transmit", "delivery"] {
        let one = burst_matches_written_out(40, completion, true);
        let posted = incast_of_puts(40, true, completion, false);
        let end = |x: &serde_json::Value| x["jobs"]["rma"]["end_ns"].as_f64().unwrap();
        assert!(end(&one) > 1.5 * end(&posted), "{completion}: one put at a time waits a round each: {} against {}", end(&one), end(&posted));
    }
}

#[test]
fn a_put_burst_runs_exactly_as_its_puts_written_out() {
    for completion in ["arrival", "transmit", "delivery"] {
        burst_matches_written_out(50, completion, false);
    }
    // An empty burst completes at once.
    let empty = incast_of_puts(0, true, "arrival", false);
    assert_eq!(empty["jobs"]["rma"]["finished"], true);
    assert_eq!(empty["jobs"]["rma"]["messages"], 0);
}
