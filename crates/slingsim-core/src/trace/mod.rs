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

pub mod dumpi;

/// The sample traces of `/work/shared/traces` (beside the repository), for tests.
#[cfg(test)]
pub(crate) fn sample_trace(name: &str) -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces").join(name);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: sample trace {} not found", dir.display());
        None
    }
}
