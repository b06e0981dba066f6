//! Criterion benchmarks of the engine alone (no Python), so performance
//! claims about engine changes rest on a repeatable measurement.
//!
//! Run with `cargo bench -p slingsim-core --features bench` (about a minute on
//! 2 cores), or one group with e.g. `cargo bench -p slingsim-core --features
//! bench -- dragonfly_ugal`.
//!
//! Groups:
//! - `event_queue`: the timing-wheel `EventQueue` alone, events at random
//!   times up to 2 us ahead. `fill_drain_10k` pushes 10,000 events into an
//!   empty queue, then pops them all (elements: pushes + pops); `hold_10k`
//!   pops the earliest event and pushes it back a random time later, 1,000
//!   times, on a queue that stays at 10,000 pending events, the engine's
//!   steady state (elements: pop+push pairs).
//! - `dragonfly_minimal`: 9 groups x 4 switches x 4 endpoints (144 nodes),
//!   uniform random traffic at 50% load, minimal routing, 2 us warmup + 20 us.
//! - `dragonfly_ugal`: the same network, group-adversarial traffic at 40% load
//!   under UGAL: adds the per-packet path choice and longer paths.
//! - `malbec_uniform`: the 484-node Malbec system, uniform random traffic at
//!   50% load, 2 us warmup + 20 us: the larger network's working set.
//! - `dragonfly_1056_64b`: the 1056-node dragonfly with 64-byte packets (one
//!   per ns per link) at 38% load, 1 us warmup + 2 us: the cycle-level regime.
//! - `fattree_permutation_128`: a 128-endpoint fat tree, a permutation of
//!   2 MiB flows run to completion.
//!
//! The network groups time `Simulation::run` only (the build is done in the
//! untimed setup) and report packet-hops (packet transmissions over links)
//! per second. Runs are deterministic, so every iteration does the same work.
//!
//! Absolute figures depend on the machine and its load; compare them as
//! ratios between groups, or before/after a change, within one run on one
//! machine. `slingsim bench` (docs/benchmarks.md) measures the full-size
//! scenarios through Python.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, SamplingMode, Throughput};
use serde_json::{json, Value};
use slingsim_core::event::{Event, EventQueue};
use slingsim_core::ids::PacketId;
use slingsim_core::rng::Rng;
use slingsim_core::units::Ps;
use slingsim_core::Simulation;

/// Pending events in the event-queue benchmarks.
const QUEUE_EVENTS: u32 = 10_000;
/// Pop+push pairs per iteration of `hold_10k`.
const HOLD_OPS: u64 = 1_000;
/// Events are scheduled up to this far ahead (ps): 2 us, a few hops of
/// serialization and latency, so the wheel holds about one event per bucket.
const HORIZON_PS: u64 = 2_000_000;

/// A random time up to [`HORIZON_PS`] ahead.
fn ahead(rng: &mut Rng) -> Ps {
    Ps(rng.below(HORIZON_PS))
}

fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("event_queue");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));

    // Both directions count: 10,000 pushes and 10,000 pops.
    g.throughput(Throughput::Elements(2 * QUEUE_EVENTS as u64));
    g.bench_function("fill_drain_10k", |b| {
        let mut rng = Rng::new(1, 0);
        let offsets: Vec<Ps> = (0..QUEUE_EVENTS).map(|_| ahead(&mut rng)).collect();
        // One queue throughout, so its buckets keep their allocations as in
        // a long run; each fill starts at the time of the last event popped.
        let mut q = EventQueue::default();
        let mut now = Ps::ZERO;
        b.iter(|| {
            for (i, &dt) in offsets.iter().enumerate() {
                q.push(now + dt, Event::Arrive(PacketId(i as u32)));
            }
            while let Some((t, ev)) = q.pop() {
                now = t;
                black_box(ev);
            }
        });
    });

    g.throughput(Throughput::Elements(HOLD_OPS));
    g.bench_function("hold_10k", |b| {
        let mut rng = Rng::new(1, 1);
        let mut q = EventQueue::default();
        for i in 0..QUEUE_EVENTS {
            q.push(ahead(&mut rng), Event::Arrive(PacketId(i)));
        }
        b.iter(|| {
            for _ in 0..HOLD_OPS {
                let (t, ev) = q.pop().expect("the queue never drains");
                q.push(t + ahead(&mut rng), black_box(ev));
            }
        });
        assert_eq!(q.len(), QUEUE_EVENTS as usize);
    });
    g.finish();
}

/// The 144-node dragonfly of groups (b) and (c), without traffic.
fn small_dragonfly() -> Value {
    json!({
        "topology": {"groups": 9, "switches_per_group": 4, "endpoints_per_switch": 4,
                     "local_links_per_pair": 2, "global_ports_per_switch": 2},
        "routing": {"algorithm": "minimal"},
        "sim": {"warmup_ns": 2000, "duration_ns": 20000},
    })
}

/// Runs `cfg` once untimed, checks that it ran to its time limit with bytes
/// conserved, and returns its packet-hops (the same in every run: same seed).
fn packet_hops(name: &str, cfg: &str) -> u64 {
    let mut sim = Simulation::from_json(cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
    sim.run();
    let s = sim.summary();
    assert_eq!(s["bytes_conserved"], true, "{name}: {s}");
    assert!(s["end_reason"] == "time_limit" || s["end_reason"] == "flows_done", "{name}: {s}");
    let hops = s["packet_hops"].as_u64().expect("packet_hops");
    assert!(hops > 0, "{name}: no traffic moved");
    println!("{name}: {} events, {hops} packet-hops per run", s["events"]);
    hops
}

/// A group of one scenario: timed `run()` of a freshly built simulation.
fn bench_network(c: &mut Criterion, name: &str, cfg: Value, measurement: Duration) {
    let text = cfg.to_string();
    let hops = packet_hops(name, &text);
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(measurement)
        .throughput(Throughput::Elements(hops));
    g.bench_function("run", |b| {
        b.iter_batched(
            || Simulation::from_json(&text).expect("config checked above"),
            |mut sim| {
                sim.run();
                sim // dropped outside the timed section
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn dragonfly_minimal(c: &mut Criterion) {
    let mut cfg = small_dragonfly();
    cfg["traffic"] = json!([{"name": "u", "pattern": "uniform", "load": 0.5}]);
    bench_network(c, "dragonfly_minimal", cfg, Duration::from_secs(5));
}

fn dragonfly_ugal(c: &mut Criterion) {
    let mut cfg = small_dragonfly();
    cfg["routing"]["algorithm"] = json!("ugal");
    cfg["traffic"] = json!([{"name": "adv", "pattern": "group_adversarial", "load": 0.4}]);
    bench_network(c, "dragonfly_ugal", cfg, Duration::from_secs(5));
}

fn malbec_uniform(c: &mut Criterion) {
    // The topology of configs/slingshot-malbec.toml.
    let cfg = json!({
        "topology": {"kind": "dragonfly", "groups": 4, "switches_per_group": 8,
                     "endpoints_per_switch": 16, "local_links_per_pair": 4,
                     "global_ports_per_switch": 6, "nodes": 484},
        "nic": {"bandwidth_bps": 100e9},
        "links": {"bandwidth_bps": 200e9},
        "routing": {"algorithm": "minimal"},
        "sim": {"warmup_ns": 2000, "duration_ns": 20000},
        "traffic": [{"name": "u", "pattern": "uniform", "load": 0.5}],
    });
    bench_network(c, "malbec_uniform", cfg, Duration::from_secs(10));
}

fn dragonfly_1056_64b(c: &mut Criterion) {
    // python/slingsim/configs/bench/dragonfly-1056-64B.toml with a shorter
    // window: 64-byte packets, one per ns per link, the cycle-level regime.
    let cfg = json!({
        "topology": {"kind": "dragonfly", "groups": 33, "switches_per_group": 8, "endpoints_per_switch": 4,
                     "local_links_per_pair": 1, "global_ports_per_switch": 4, "global_links_per_group_pair": 1, "radix": 64},
        "nic": {"bandwidth_bps": 512e9, "mtu_payload": 64, "frame": "aries"},
        "links": {"bandwidth_bps": 512e9, "terminal_latency_ns": 1, "local_latency_ns": 10, "global_latency_ns": 100, "fec_latency_ns": 0},
        "switch": {"latency_ns": 3, "buffer_bytes": 81920, "speedup": 2.0},
        "sim": {"warmup_ns": 1000, "duration_ns": 2000},
        "traffic": [{"name": "uniform", "pattern": "uniform", "load": 0.38, "message_bytes": 48}],
    });
    bench_network(c, "dragonfly_1056_64b", cfg, Duration::from_secs(10));
}

fn fattree_permutation(c: &mut Criterion) {
    // python/slingsim/configs/bench/fattree-permutation-128.toml: 2 MiB
    // flows in a random permutation, run to completion.
    let cfg = json!({
        "topology": {"kind": "fattree", "radix": 8},
        "nic": {"bandwidth_bps": 100e9},
        "links": {"bandwidth_bps": 100e9},
        "sim": {"warmup_ns": 0, "duration_ns": 1e7, "max_time_ns": 1e7},
        "traffic": [{"name": "permutation", "pattern": "permutation", "flow_bytes": 2097152, "flows_per_node": 1}],
    });
    bench_network(c, "fattree_permutation_128", cfg, Duration::from_secs(5));
}

criterion_group!(
    benches,
    event_queue,
    dragonfly_minimal,
    dragonfly_ugal,
    malbec_uniform,
    dragonfly_1056_64b,
    fattree_permutation
);
criterion_main!(benches);
