//! One record of a rank's stream: an MPI call with its times and arguments.
//!
//! A record is a u16 call id, a u8 option mask, then what the mask says was
//! kept: a u16 thread id (bit 0x40), CPU times (0x04) and wall times (0x08)
//! as start and stop pairs of u16 seconds (relative to the body's offset)
//! and u32 nanoseconds, and performance-counter values (0x80, a u8 count
//! and a u64 pair per counter). The arguments follow in the call's layout;
//! statuses appear only when one of the bits 0x03 is set.

use super::bytes::ByteReader;
use super::layouts::{layout, Field, FieldKind};
use super::names::call_name;
use super::sections::Header;
use crate::error::Result;

const STATUSES_KEPT: u8 = 0x03;
const CPU_TIMES: u8 = 0x04;
const WALL_TIMES: u8 = 0x08;
const THREAD_ID: u8 = 0x40;
const PERF_COUNTERS: u8 = 0x80;

/// Start and end of a call, ns since the epoch of its clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// Entry into the call.
    pub start_ns: u64,
    /// Return from the call.
    pub stop_ns: u64,
}

/// A datatype argument: its id in the trace and, for predefined types, its
/// size in bytes from the file's datatype table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Datatype {
    /// The trace's datatype id (below 28: predefined, e.g. 9 = MPI_INT).
    pub id: u16,
    /// Bytes per element from the file's table; None for derived datatypes.
    pub size: Option<u32>,
}

/// A completed request's status as the tracer kept it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    /// Bytes received.
    pub bytes: i32,
    /// Rank the message came from.
    pub source: i32,
    pub cancelled: u8,
    pub error: u8,
    pub tag: i32,
}

/// A recorded argument value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Int(i32),
    /// A one-byte enumeration (thread level, assertion, lock type...).
    Byte(u8),
    /// A reduction op (3 = MPI_SUM).
    Op(u8),
    Datatype(Datatype),
    /// A communicator handle (2 = MPI_COMM_WORLD, 3 = MPI_COMM_SELF).
    Comm(u16),
    Group(u16),
    /// A window, info, file, errhandler or keyval handle.
    Handle(u16),
    Request(u32),
    Long(i64),
    /// None when the trace was written without statuses; empty for
    /// MPI_STATUS_IGNORE.
    Statuses(Option<Vec<Status>>),
    Ints(Vec<i32>),
    Requests(Vec<u32>),
    Datatypes(Vec<Datatype>),
    Bytes(Vec<u8>),
    Handles(Vec<u16>),
    Text(String),
    /// MPI_Init's argv.
    Texts(Vec<String>),
    /// MPI_Group_range_*'s (first, last, stride) triples.
    IntArrays(Vec<Vec<i32>>),
}

/// One recorded MPI call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// DUMPI call id.
    pub id: u16,
    /// MPI name, e.g. `MPI_Isend`.
    pub name: &'static str,
    /// Byte offset of the record in its file.
    pub offset: usize,
    /// Thread that made the call.
    pub thread: Option<u16>,
    /// CPU times of the call, when recorded.
    pub cpu: Option<Interval>,
    /// Wall-clock times of the call, when recorded.
    pub wall: Option<Interval>,
    /// Arguments in the call's layout order (root-only ones absent off the root).
    pub args: Vec<(&'static str, Arg)>,
}

impl Call {
    /// The argument called `name`.
    pub fn arg(&self, name: &str) -> Option<&Arg> {
        self.args.iter().find(|(n, _)| *n == name).map(|(_, a)| a)
    }

    /// An `int` argument.
    pub fn int(&self, name: &str) -> Option<i32> {
        match self.arg(name)? {
            Arg::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// A communicator argument (the rank's own handle).
    pub fn comm(&self, name: &str) -> Option<u16> {
        match self.arg(name)? {
            Arg::Comm(v) => Some(*v),
            _ => None,
        }
    }

    /// A group argument (the rank's own handle).
    pub fn group(&self, name: &str) -> Option<u16> {
        match self.arg(name)? {
            Arg::Group(v) => Some(*v),
            _ => None,
        }
    }

    /// A window, info, file, errhandler or keyval handle.
    pub fn handle(&self, name: &str) -> Option<u16> {
        match self.arg(name)? {
            Arg::Handle(v) => Some(*v),
            _ => None,
        }
    }

    /// A request argument (the rank's own handle).
    pub fn request(&self, name: &str) -> Option<u32> {
        match self.arg(name)? {
            Arg::Request(v) => Some(*v),
            _ => None,
        }
    }

    /// A datatype argument.
    pub fn datatype(&self, name: &str) -> Option<Datatype> {
        match self.arg(name)? {
            Arg::Datatype(v) => Some(*v),
            _ => None,
        }
    }

    /// An array of ints.
    pub fn ints(&self, name: &str) -> Option<&[i32]> {
        match self.arg(name)? {
            Arg::Ints(v) => Some(v),
            _ => None,
        }
    }

    /// An array of request handles.
    pub fn requests(&self, name: &str) -> Option<&[u32]> {
        match self.arg(name)? {
            Arg::Requests(v) => Some(v),
            _ => None,
        }
    }

    /// An array of datatypes.
    pub fn datatypes(&self, name: &str) -> Option<&[Datatype]> {
        match self.arg(name)? {
            Arg::Datatypes(v) => Some(v),
            _ => None,
        }
    }

    /// Statuses, when the trace kept them and the call did not ignore them.
    pub fn statuses(&self, name: &str) -> Option<&[Status]> {
        match self.arg(name)? {
            Arg::Statuses(Some(v)) => Some(v),
            _ => None,
        }
    }
}

/// What reading a record needs to know about its file.
pub struct RecordContext<'a> {
    /// The file's header (its tracer version decides a few layouts).
    pub header: &'a Header,
    /// Seconds added to every CPU time.
    pub cpu_offset: u64,
    /// Seconds added to every wall time.
    pub wall_offset: u64,
    /// Counters in a record that carries counter values.
    pub perf_counters: usize,
    /// Size of each predefined datatype, index = id.
    pub datatype_sizes: &'a [u32],
}

/// Reads the record of call `id` whose id field started at `offset` (the
/// reader stands just after the id).
pub fn read_record(r: &mut ByteReader, ctx: &RecordContext, id: u16, offset: usize) -> Result<Call> {
    let name = call_name(id).ok_or_else(|| {
        r.error_at(offset, format!("unknown call id {id} (corrupt file, or a call this DUMPI reader does not number)"))
    })?;
    let fields = layout(name).ok_or_else(|| {
        r.error_at(offset, format!("{name} record: this reader does not know the argument layout of {name}, so the trace cannot be read past it"))
    })?;
    let mask = r.u8("a record's option mask")?;
    let thread = if mask & THREAD_ID != 0 { Some(r.u16("a thread id")?) } else { None };
    let cpu = if mask & CPU_TIMES != 0 { Some(read_interval(r, ctx.cpu_offset, name)?) } else { None };
    let wall = if mask & WALL_TIMES != 0 { Some(read_interval(r, ctx.wall_offset, name)?) } else { None };
    if mask & PERF_COUNTERS != 0 {
        r.u8("a performance counter count")?;
        r.take(16 * ctx.perf_counters, "performance counter values")?;
    }
    let mut call = Call { id, name, offset, thread, cpu, wall, args: Vec::with_capacity(fields.len()) };
    for field in fields {
        if field.root_only && call.int("commrank") != call.int("root") {
            continue;
        }
        let arg = read_arg(r, ctx, &call, field, mask)?;
        call.args.push((field.name, arg));
    }
    Ok(call)
}

fn read_interval(r: &mut ByteReader, offset_s: u64, call: &str) -> Result<Interval> {
    let start_ns = read_time(r, offset_s, call)?;
    let stop_ns = read_time(r, offset_s, call)?;
    Ok(Interval { start_ns, stop_ns })
}

fn read_time(r: &mut ByteReader, offset_s: u64, call: &str) -> Result<u64> {
    let sec = r.u16("a time's seconds")? as u64 + offset_s;
    let at = r.pos();
    let nsec = r.u32("a time's nanoseconds")?;
    if nsec >= 1_000_000_000 {
        return Err(r.error_at(at, format!("{call} record: {nsec} nanoseconds is not a valid time (corrupt file)")));
    }
    Ok(sec * 1_000_000_000 + nsec as u64)
}

fn read_arg(r: &mut ByteReader, ctx: &RecordContext, call: &Call, field: &Field, mask: u8) -> Result<Arg> {
    let what = format!("{} argument `{}`", call.name, field.name);
    let what = what.as_str();
    let datatype = |id: u16| Datatype { id, size: ctx.datatype_sizes.get(id as usize).copied() };
    // Two fields were written as a single int before tracer version 0.6.8/0.6.9.
    let old_single = (call.name == "MPI_Type_struct" && field.name == "indices" && !ctx.header.at_least([0, 6, 9]))
        || (call.name == "MPI_Cart_get" && field.name == "coords" && !ctx.header.at_least([0, 6, 8]));
    if old_single {
        return Ok(Arg::Ints(vec![r.i32(what)?]));
    }
    Ok(match field.kind {
        FieldKind::Int => Arg::Int(r.i32(what)?),
        FieldKind::Byte => Arg::Byte(r.u8(what)?),
        FieldKind::Op => Arg::Op(r.u8(what)?),
        FieldKind::Datatype => Arg::Datatype(datatype(r.u16(what)?)),
        FieldKind::Comm => Arg::Comm(r.u16(what)?),
        FieldKind::Group => Arg::Group(r.u16(what)?),
        FieldKind::Handle => Arg::Handle(r.u16(what)?),
        FieldKind::Request => Arg::Request(r.u32(what)?),
        FieldKind::Long => Arg::Long(r.u64(what)? as i64),
        FieldKind::Statuses if mask & STATUSES_KEPT == 0 => Arg::Statuses(None),
        FieldKind::Statuses => Arg::Statuses(Some(read_statuses(r, ctx, what)?)),
        FieldKind::Ints => Arg::Ints(read_array(r, what, 4, |r| r.i32(what))?),
        FieldKind::Requests => Arg::Requests(read_array(r, what, 4, |r| r.u32(what))?),
        FieldKind::Datatypes => Arg::Datatypes(read_array(r, what, 2, |r| Ok(datatype(r.u16(what)?)))?),
        FieldKind::Bytes => Arg::Bytes(read_array(r, what, 1, |r| r.u8(what))?),
        FieldKind::Handles => Arg::Handles(read_array(r, what, 2, |r| r.u16(what))?),
        FieldKind::Text => Arg::Text(read_text(r, what)?),
        FieldKind::Argv => Arg::Texts(read_argv(r, ctx, what)?),
        FieldKind::IntArrays => Arg::IntArrays(read_array(r, what, 4, |r| read_array(r, what, 4, |r| r.i32(what)))?),
    })
}

pub(super) fn read_array<T>(r: &mut ByteReader, what: &str, element_bytes: usize, mut item: impl FnMut(&mut ByteReader) -> Result<T>) -> Result<Vec<T>> {
    let n = r.count(what, element_bytes)?;
    (0..n).map(|_| item(r)).collect()
}

fn read_text(r: &mut ByteReader, what: &str) -> Result<String> {
    let n = r.count(what, 1)?;
    r.text(n, what)
}

fn read_statuses(r: &mut ByteReader, ctx: &RecordContext, what: &str) -> Result<Vec<Status>> {
    // The status tag was not written before tracer version 0.6.3.
    let has_tag = ctx.header.at_least([0, 6, 3]);
    read_array(r, what, if has_tag { 14 } else { 10 }, |r| {
        Ok(Status {
            bytes: r.i32(what)?,
            source: r.i32(what)?,
            cancelled: r.u8(what)?,
            error: r.u8(what)?,
            tag: if has_tag { r.i32(what)? } else { -1 },
        })
    })
}

fn read_argv(r: &mut ByteReader, ctx: &RecordContext, what: &str) -> Result<Vec<String>> {
    let argc = r.count(what, 4)?;
    // Before tracer version 0.6.2 the argument count was written twice.
    if !ctx.header.at_least([0, 6, 2]) {
        r.i32(what)?;
    }
    (0..argc).map(|_| read_text(r, what)).collect()
}
