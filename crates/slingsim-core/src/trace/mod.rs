//! MPI traces of real runs turned into programs of the MPI layer
//! ([`crate::mpi::Program`]), so a traced application can be replayed on a
//! simulated network.
//!
//! - [`dumpi`] reads DUMPI traces (SST's MPI tracer) natively: every record
//!   with its times and arguments;
//! - [`convert`] turns those records into a [`Program`]: communicators
//!   rebuilt across ranks, request handles mapped to request ids, counts to
//!   bytes, the time between calls to compute;
//! - [`matching`] pairs sends with receives statically, as MPI would;
//! - [`info`] summarises a program of any origin (DUMPI, or OTF2 read in
//!   Python) for `slingsim trace info`.
//!
//! `docs/traces.md` states the whole mapping and every warning.

pub mod convert;
pub mod dumpi;
pub mod info;
pub mod matching;

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::Result;
use crate::mpi::Program;

/// A trace as a program, with how often the traced run made each MPI call
/// (the program's operations lose that: local calls vanish, one call may
/// become several operations).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The trace's operations.
    pub program: Program,
    /// MPI call name -> number of recorded calls, all ranks together.
    pub calls: BTreeMap<String, u64>,
}

/// Reads a DUMPI trace (its `.meta` file or the directory holding it) as a program.
pub fn read_dumpi_trace(path: &Path) -> Result<Trace> {
    Ok(convert::to_program(&dumpi::read_dumpi(path)?))
}

/// A DUMPI trace's program as JSON text (the serde form of [`Program`]).
pub fn dumpi_program_json(path: &Path) -> Result<String> {
    let trace = read_dumpi_trace(path)?;
    Ok(serde_json::to_string(&trace.program).expect("a program serialises"))
}

/// The [`info::program_info`] summary of a DUMPI trace, with its call counts.
pub fn dumpi_info_json(path: &Path) -> Result<serde_json::Value> {
    let trace = read_dumpi_trace(path)?;
    Ok(info::program_info(&trace.program, Some(&trace.calls)))
}

/// Writes a program (the JSON text of [`Program`]) as a DUMPI trace
/// `dir/PREFIX.meta` + `dir/PREFIX-NNNN.bin`; returns what was written as
/// JSON: `meta` (the path), `calls` (MPI calls by name), `left_out`
/// (operations that are no MPI call, by kind).
pub fn write_dumpi_json(program_json: &str, dir: &Path, prefix: &str) -> Result<serde_json::Value> {
    let program: Program = serde_json::from_str(program_json).map_err(|e| crate::error::ConfigError::new("program", format!("not a program: {e}")))?;
    let w = dumpi::write::write_dumpi(&program, dir, prefix)?;
    Ok(serde_json::json!({"meta": w.meta.display().to_string(), "calls": w.calls, "left_out": w.left_out}))
}

/// A sample trace, for tests: the copies made for this project are in
/// `tests/data`; the third-party ones (SST's test trace, a BG/P run) only in
/// `../shared/traces` beside the repository, and the tests that read them are
/// `#[ignore]`d (scripts/test runs them when that folder is there). A trace
/// that is not found fails the test: it never passes by returning early.
#[cfg(test)]
pub(crate) fn sample_trace(name: &str) -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    [root.join("tests/data").join(name), root.join("../../../shared/traces").join(name)]
        .into_iter()
        .find(|d| d.is_dir())
        .unwrap_or_else(|| panic!("sample trace {name} is neither in tests/data nor in ../shared/traces"))
}
