//! A DUMPI trace turned into a [`Program`] of the MPI layer.
//!
//! First the communicators are rebuilt across ranks ([`comms`]), then each
//! rank's calls become operations ([`rank`]): point-to-point calls keep
//! their communicator, peer and tag, with counts turned into bytes
//! ([`datatypes`]); request handles become request ids ([`requests`]);
//! every wait or test becomes one `wait` on the requests it completed;
//! collectives become `coll` ops ([`collectives`]); the wall-clock time
//! from the end of one call to the start of the next becomes `compute`.
//! Whatever cannot be expressed is counted in the program's warnings
//! ([`warnings`]). `docs/traces.md` has the full table.

pub mod collectives;
pub mod comms;
pub mod datatypes;
pub mod groups;
pub mod rank;
pub mod requests;
pub mod rma;
pub mod warnings;

use std::collections::BTreeMap;

use crate::mpi::Program;
use crate::trace::dumpi::DumpiTrace;
use crate::trace::Trace;

/// Converts a DUMPI trace; never fails: what cannot be converted is in the
/// program's warnings.
pub fn to_program(trace: &DumpiTrace) -> Trace {
    let mut table = comms::rebuild(trace);
    let mut warnings = std::mem::take(&mut table.warnings);
    let mut ops = Vec::with_capacity(trace.ranks.len());
    for (r, rank) in trace.ranks.iter().enumerate() {
        let (rank_ops, rank_warnings) = rank::RankConverter::new(r as u32, &table).convert(&rank.calls);
        ops.push(rank_ops);
        warnings.merge(rank_warnings);
    }
    let mut calls: BTreeMap<String, u64> = BTreeMap::new();
    for call in trace.ranks.iter().flat_map(|r| &r.calls) {
        *calls.entry(call.name.to_string()).or_insert(0) += 1;
    }
    let program = Program { ranks: trace.ranks.len() as u32, comms: table.members, ops, warnings: warnings.lines() };
    Trace { program, calls }
}

#[cfg(test)]
mod tests;
