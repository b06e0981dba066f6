//! The engine reaches congestion control only through its interface
//! (`congestion::CongestionControl`): no engine file outside
//! `src/congestion/` names an algorithm, so adding one is a new file in
//! `src/congestion/` plus its registration there.

use std::fs;
use std::path::Path;

/// The lines of `text` before its first test module.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().take_while(|(_, l)| !l.trim_start().starts_with("#[cfg(test)]"))
}

#[test]
fn no_engine_file_names_a_congestion_algorithm() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    // Config names and modules, in any case; the enum's variants as written.
    let names = ["dcqcn", "\"slingshot\"", "slingshot-endpoint", "slingshot_endpoint", "congestion::slingshot", "congestion::none"];
    let variants = ["CongestionKind", "Congestion::None", "Congestion::Dcqcn", "Congestion::Slingshot"];
    let mut found = Vec::new();
    let mut files = 0;
    for entry in fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        files += 1;
        let text = fs::read_to_string(&path).unwrap();
        for (i, line) in code_lines(&text) {
            let lower = line.to_lowercase();
            if names.iter().any(|n| lower.contains(&n.to_lowercase())) || variants.iter().any(|v| line.contains(v)) {
                found.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(files >= 10, "read only {files} engine files from {}", src.display());
    assert!(found.is_empty(), "engine files name a congestion algorithm:\n{}", found.join("\n"));
}
