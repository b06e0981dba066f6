//! The fixed sections of a DUMPI rank file, everything but the records.
//!
//! A file starts with an 8-byte magic and ends with an index: the same
//! magic followed by the offsets of the datatype-size table, the function
//! address table, the performance-counter labels, the header, the body (the
//! records), the footer and the key/value table, each a u64. Older tracers
//! wrote a shorter index without the first one to three offsets, which is
//! why the magic is looked for at several distances from the end.
//!
//! - header: version (3 bytes), start time (u64 s), host and user name
//!   (u16 length + bytes), then two u32-counted arrays of i32: the node's
//!   mesh coordinates and the mesh size (empty off Blue Gene);
//! - body: u32 CPU-time and u32 wall-time offsets in seconds (records store
//!   seconds as u16 relative to these), then the records;
//! - footer: u64 magic 0xf007fee7, then per call id (and the "all functions"
//!   total) the u32 number of calls, then the u32 number of ignored calls;
//! - datatype sizes: u32 count, then each predefined datatype's size in bytes.

use super::bytes::{corrupt, ByteReader};
use super::names::CALL_COUNT;
use crate::error::Result;

/// The 8 bytes a DUMPI file starts with (and its index too).
pub const MAGIC: u64 = 0xffaa_dd44_554d_5049;
const FOOTER_MAGIC: u64 = 0xf007_fee7;

/// Where the sections of a rank file are; 0 means absent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Index {
    /// Offset of each section (0: absent).
    pub datatype_sizes: u64,
    pub function_addresses: u64,
    pub perf_labels: u64,
    pub header: u64,
    pub body: u64,
    pub footer: u64,
    pub keyvals: u64,
}

/// The tracer's header of a rank file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// Version of the tracer that wrote the file (major, minor, patch).
    pub version: [u8; 3],
    /// Start of the run, seconds since the epoch.
    pub start_time: u64,
    /// Host the rank ran on.
    pub hostname: String,
    pub username: String,
    /// Coordinates of the rank's node in the machine mesh (Blue Gene).
    pub mesh_coords: Vec<i32>,
    /// Size of the machine mesh (Blue Gene).
    pub mesh_size: Vec<i32>,
}

impl Header {
    /// True when the file was written by tracer version `v` or later.
    pub fn at_least(&self, v: [u8; 3]) -> bool {
        self.version >= v
    }
}

/// The footer: how often each call was made and how often it went unrecorded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footer {
    /// Calls made, index = call id; the last entry is the total.
    pub called: Vec<u32>,
    /// Calls made but not recorded (tracing switched off), same indexing.
    pub ignored: Vec<u32>,
}

/// Checks the leading magic of a rank file.
pub fn check_magic(path: &str, data: &[u8]) -> Result<()> {
    let mut r = ByteReader::at(path, data, 0)?;
    let magic = r.u64("the leading magic")?;
    if magic != MAGIC {
        return Err(corrupt(path, 0, "not a DUMPI file (the leading magic is wrong)"));
    }
    Ok(())
}

/// Reads the index at the end of a rank file.
pub fn read_index(path: &str, data: &[u8]) -> Result<Index> {
    // Full index: magic + 7 offsets; older ones lack 1, 2 or 3 leading offsets.
    for missing in 0..=3u64 {
        let len = 8 * (8 - missing);
        if (data.len() as u64) < len {
            continue;
        }
        let mut r = ByteReader::at(path, data, data.len() as u64 - len)?;
        if r.u64("the index magic")? != MAGIC {
            continue;
        }
        let mut offsets = [0u64; 7];
        for slot in offsets.iter_mut().skip(missing as usize) {
            *slot = r.u64("an index offset")?;
        }
        let [datatype_sizes, function_addresses, perf_labels, header, body, footer, keyvals] = offsets;
        let index = Index { datatype_sizes, function_addresses, perf_labels, header, body, footer, keyvals };
        for (name, at) in [("header", header), ("body", body), ("footer", footer), ("datatype sizes", datatype_sizes)] {
            if at >= data.len() as u64 {
                return Err(corrupt(path, data.len() - len as usize, format!("the index puts the {name} at offset {at}, past the end of the file")));
            }
        }
        if body == 0 || header == 0 {
            return Err(corrupt(path, data.len() - len as usize, "the index has no body or header offset"));
        }
        return Ok(index);
    }
    Err(corrupt(path, data.len(), "no index at the end of the file (truncated or not a DUMPI file)"))
}

/// Reads the header at `index.header`.
pub fn read_header(path: &str, data: &[u8], index: &Index) -> Result<Header> {
    let mut r = ByteReader::at(path, data, index.header)?;
    let mut version = [0u8; 3];
    for v in version.iter_mut() {
        *v = r.u8("the header version")?;
    }
    let start_time = r.u64("the start time")?;
    let len = r.u16("the host name length")? as usize;
    let hostname = r.text(len, "the host name")?;
    let len = r.u16("the user name length")? as usize;
    let username = r.text(len, "the user name")?;
    let ints = |r: &mut ByteReader, what: &str| super::record::read_array(r, what, 4, |r| r.i32(what));
    let mesh_coords = ints(&mut r, "the mesh coordinates")?;
    let mesh_size = if mesh_coords.is_empty() { Vec::new() } else { ints(&mut r, "the mesh size")? };
    Ok(Header { version, start_time, hostname, username, mesh_coords, mesh_size })
}

/// Reads the footer at `index.footer`.
pub fn read_footer(path: &str, data: &[u8], index: &Index) -> Result<Footer> {
    let mut r = ByteReader::at(path, data, index.footer)?;
    if r.u64("the footer magic")? != FOOTER_MAGIC {
        return Err(corrupt(path, index.footer as usize, "the footer magic is wrong (corrupt file or index)"));
    }
    let entries = CALL_COUNT + 1;
    let called = (0..entries).map(|_| r.u32("the footer call counts")).collect::<Result<_>>()?;
    let ignored = (0..entries).map(|_| r.u32("the footer ignored counts")).collect::<Result<_>>()?;
    Ok(Footer { called, ignored })
}

/// Reads the sizes in bytes of the predefined datatypes (index = datatype id).
pub fn read_datatype_sizes(path: &str, data: &[u8], index: &Index) -> Result<Vec<u32>> {
    if index.datatype_sizes == 0 {
        return Ok(Vec::new());
    }
    let mut r = ByteReader::at(path, data, index.datatype_sizes)?;
    let n = r.count("the datatype sizes", 4)?;
    (0..n).map(|_| r.u32("a datatype size")).collect()
}

/// Number of performance counters a record with counter values carries.
pub fn read_perf_counter_count(path: &str, data: &[u8], index: &Index) -> Result<usize> {
    if index.perf_labels == 0 {
        return Ok(0);
    }
    let mut r = ByteReader::at(path, data, index.perf_labels)?;
    r.count("the performance counter labels", 2)
}

/// The body's time offsets (CPU, wall) in seconds and the offset of the first record.
pub fn read_body_start(path: &str, data: &[u8], index: &Index) -> Result<(u64, u64, usize)> {
    let mut r = ByteReader::at(path, data, index.body)?;
    let cpu = r.u32("the CPU time offset")? as u64;
    let wall = r.u32("the wall time offset")? as u64;
    Ok((cpu, wall, r.pos()))
}
