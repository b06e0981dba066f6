//! Native reader of DUMPI traces (the MPI tracer of Sandia's SST).
//!
//! A trace is a `.meta` text file and one binary file per rank. Each rank
//! file holds the records of that rank's MPI calls with their recorded
//! arguments and times, plus a header, a footer of per-call counts and a
//! table of datatype sizes (see [`sections`]). Handles (communicators,
//! requests, groups, datatypes) in the records are the rank's own: turning
//! them into a job-wide program is [`crate::trace::convert`]'s work.

pub mod bytes;
pub mod layouts;
pub mod meta;
pub mod names;
pub mod record;
pub mod sections;
pub mod write;

use std::path::{Path, PathBuf};

use bytes::ByteReader;
use record::{read_record, RecordContext};
use sections::{Footer, Header};

pub use meta::Meta;
pub use record::{Arg, Call, Datatype, Interval, Status};

use crate::error::{ConfigError, Result};

/// One rank's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankTrace {
    /// The `.bin` file.
    pub path: PathBuf,
    pub header: Header,
    /// Per-call counts kept by the tracer.
    pub footer: Footer,
    /// Sizes in bytes of the predefined datatypes, index = datatype id.
    pub datatype_sizes: Vec<u32>,
    /// The rank's calls in the order it made them.
    pub calls: Vec<Call>,
}

/// A whole DUMPI trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpiTrace {
    /// The `.meta` file.
    pub meta: Meta,
    /// Index = rank in MPI_COMM_WORLD.
    pub ranks: Vec<RankTrace>,
}

/// Reads a DUMPI trace given its `.meta` file or the directory holding it.
pub fn read_dumpi(path: &Path) -> Result<DumpiTrace> {
    let meta = meta::read_meta(&meta::find_meta(path)?)?;
    let ranks = (0..meta.ranks).map(|r| read_rank_file(&meta.rank_file(r))).collect::<Result<Vec<_>>>()?;
    Ok(DumpiTrace { meta, ranks })
}

/// Reads one rank's `.bin` file.
pub fn read_rank_file(path: &Path) -> Result<RankTrace> {
    let shown = path.display().to_string();
    let data = std::fs::read(path).map_err(|e| ConfigError::new(&shown, format!("cannot read the rank file: {e}")))?;
    parse_rank_bytes(path, &data)
}

/// Parses the bytes of the rank file at `path` (named in errors).
pub fn parse_rank_bytes(path: &Path, data: &[u8]) -> Result<RankTrace> {
    let shown = path.display().to_string();
    sections::check_magic(&shown, data)?;
    let index = sections::read_index(&shown, data)?;
    let header = sections::read_header(&shown, data, &index)?;
    let footer = sections::read_footer(&shown, data, &index)?;
    let datatype_sizes = sections::read_datatype_sizes(&shown, data, &index)?;
    let perf_counters = sections::read_perf_counter_count(&shown, data, &index)?;
    let (cpu_offset, wall_offset, first) = sections::read_body_start(&shown, data, &index)?;
    let ctx = RecordContext { header: &header, cpu_offset, wall_offset, perf_counters, datatype_sizes: &datatype_sizes };
    let calls = read_records(&shown, data, first, index.header as usize, &ctx)?;
    Ok(RankTrace { path: path.to_path_buf(), header, footer, datatype_sizes, calls })
}

/// Reads records from `first` up to the end-of-stream mark, which the
/// tracer writes just before the header at `header`.
fn read_records(path: &str, data: &[u8], first: usize, header: usize, ctx: &RecordContext) -> Result<Vec<Call>> {
    if header < first + 2 {
        return Err(bytes::corrupt(path, first, "the index puts the header before the records (corrupt index)"));
    }
    let end = header - 2;
    let mut r = ByteReader::at(path, data, first as u64)?.bounded(end, "the end-of-stream mark (the records are corrupt)");
    let mut calls = Vec::new();
    loop {
        let offset = r.pos();
        if offset == end {
            return check_end_mark(path, data, end).map(|_| calls);
        }
        let id = r.u16("a call id")?;
        calls.push(read_record(&mut r, ctx, id, offset)?);
    }
}

fn check_end_mark(path: &str, data: &[u8], end: usize) -> Result<()> {
    let mut r = ByteReader::at(path, data, end as u64)?;
    match r.u16("the end-of-stream mark")? {
        names::END_OF_STREAM => Ok(()),
        other => Err(r.error_at(end, format!("expected the end-of-stream mark {} before the header, found {other} (corrupt file or index)", names::END_OF_STREAM))),
    }
}

#[cfg(test)]
mod tests;
