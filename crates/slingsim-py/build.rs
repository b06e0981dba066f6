//! Records the git commit the module is built from (`SLINGSIM_BUILD_COMMIT`),
//! so results say what produced them even when slingsim is installed from a
//! checkout into site-packages, where no git repository is at hand at run
//! time.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = match git(&["rev-parse", "HEAD"]) {
        Some(head) if !head.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty { format!("{head}-dirty") } else { head }
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=SLINGSIM_BUILD_COMMIT={commit}");
    // Rebuild the value when HEAD moves or the index changes (a commit, a checkout).
    for name in ["HEAD", "index", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--git-path", name]) {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(path) = git(&["rev-parse", "--git-path", &reference]) {
            println!("cargo:rerun-if-changed={}", Path::new(env!("CARGO_MANIFEST_DIR")).join(path).display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
