//! Golden outputs: the full summary of small fixed-seed scenarios, checked
//! in and compared field by field, so a change that alters a result shows
//! exactly which figures moved.
//!
//! Each `tests/golden/NAME.json` is a config; `tests/golden/NAME.summary.json`
//! is what the engine gave for it, plus a digest of every result table. A
//! change that alters a result regenerates the files with
//!
//! ```text
//! SLINGSIM_UPDATE_GOLDEN=1 cargo test --release -p slingsim-core --test engine golden::
//! ```
//!
//! and says in its commit message why the figures moved. Wall times and the
//! event count are not results (they measure the engine, not the network)
//! and are left out.

use serde_json::{json, Map, Value};
use slingsim_core::table::{Column, Table};
use slingsim_core::Simulation;
use std::path::{Path, PathBuf};

/// Summary keys that measure the engine rather than the simulated network.
const NOT_RESULTS: &[&str] = &["engine_wall_s", "build_s", "events"];

/// Differences listed before the rest are only counted.
const MAX_LISTED: usize = 40;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// The scenarios: every config in tests/golden.
fn scenarios() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir().join("golden"))
        .expect("tests/golden exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json") && !n.ends_with(".summary.json"))
        .map(|n| n.trim_end_matches(".json").to_string())
        .collect();
    names.sort();
    names
}

/// FNV-1a over a table's names and values (floats by their bits), so any
/// change to any row shows; with the row count.
fn digest(t: &Table) -> Value {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    };
    for (name, col) in &t.columns {
        eat(name.as_bytes());
        match col {
            Column::U64(v) => v.iter().for_each(|x| eat(&x.to_le_bytes())),
            Column::I64(v) => v.iter().for_each(|x| eat(&x.to_le_bytes())),
            Column::F64(v) => v.iter().for_each(|x| eat(&x.to_bits().to_le_bytes())),
            Column::Bool(v) => v.iter().for_each(|&x| eat(&[x as u8])),
            Column::Str(v) => v.iter().for_each(|x| eat(x.as_bytes())),
        }
    }
    json!({"rows": t.rows(), "fnv1a": format!("{h:016x}")})
}

/// Runs a scenario and returns what is compared: the summary without the
/// engine's own measurements, and the table digests.
fn outcome(name: &str) -> Value {
    let path = dir().join("golden").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = text.replace("$DATA", &dir().join("data").to_string_lossy());
    let mut sim = Simulation::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    sim.run();
    let mut summary = sim.summary();
    let obj = summary.as_object_mut().expect("the summary is an object");
    for k in NOT_RESULTS {
        obj.remove(*k);
    }
    let tables: Map<String, Value> = [
        ("packets", sim.packets_table()),
        ("links", sim.links_table()),
        ("flows", sim.flows_table()),
        ("nic", sim.nic_counters_table()),
        ("timeline", sim.timeline_table()),
        ("iterations", sim.iterations_table()),
    ]
    .iter()
    .map(|(k, t)| (k.to_string(), digest(t)))
    .collect();
    json!({"summary": summary, "tables": tables})
}

/// Every path at which `want` and `got` differ, with both values.
fn differences(path: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                match b.get(k) {
                    Some(vb) => differences(&format!("{path}.{k}"), va, vb, out),
                    None => out.push(format!("{path}.{k}: {va} -> (missing)")),
                }
            }
            for (k, vb) in b {
                if !a.contains_key(k) {
                    out.push(format!("{path}.{k}: (new) -> {vb}"));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                differences(&format!("{path}[{i}]"), va, vb, out);
            }
        }
        _ if want != got => out.push(format!("{path}: {want} -> {got}")),
        _ => {}
    }
}

#[test]
fn summaries_match_their_golden_files() {
    let update = std::env::var_os("SLINGSIM_UPDATE_GOLDEN").is_some();
    let names = scenarios();
    assert!(names.len() >= 6, "the golden scenarios are missing: {names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let got = outcome(name);
        let file = dir().join("golden").join(format!("{name}.summary.json"));
        if update {
            std::fs::write(&file, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_else(|_| panic!("{} is missing; run with SLINGSIM_UPDATE_GOLDEN=1", file.display()));
        let want: Value = serde_json::from_str(&text).unwrap();
        let mut diffs = Vec::new();
        differences(name, &want, &got, &mut diffs);
        if !diffs.is_empty() {
            let n = diffs.len();
            diffs.truncate(MAX_LISTED);
            failures.push(format!("{name}: {n} differences\n  {}", diffs.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "results changed (if on purpose: SLINGSIM_UPDATE_GOLDEN=1, and say why in the commit):\n{}", failures.join("\n"));
}

#[test]
fn every_scenario_is_deterministic() {
    // The golden comparison means something only if a rerun is bit-identical.
    for name in scenarios() {
        assert_eq!(outcome(&name), outcome(&name), "{name} differs between two runs");
    }
}
