//! Runs a resolved JSON config and prints the summary: handy for profiling
//! the engine without Python (`cargo run --profile profiling --example run_json -- cfg.json`);
//! `--summary` after the config prints the whole summary as JSON.

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_json CONFIG.json");
    let text = std::fs::read_to_string(&path).expect("readable config");
    let mut sim = slingsim_core::Simulation::from_json(&text).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let t = std::time::Instant::now();
    sim.run();
    let wall = t.elapsed().as_secs_f64();
    let s = sim.summary();
    let hops = s["packet_hops"].as_f64().unwrap();
    println!(
        "wall {wall:.3}s events {} hops {hops} -> {:.2} M hops/s; end {}, latency mean {} ns, non-minimal {}",
        s["events"],
        hops / wall / 1e6,
        s["end_reason"],
        s["latency_ns"]["mean"],
        s["nonminimal_fraction"]
    );
    if std::env::args().nth(2).as_deref() == Some("--summary") {
        println!("{s:#}");
    }
}
