//! Writes a program of the MPI layer as a DUMPI trace, so other simulators
//! (SST, CODES) can replay a generated workload, and slingsim reads it back
//! as the same operations.
//!
//! Each operation becomes the MPI call the reader turns back into it
//! (docs/traces.md): `send`/`recv` MPI_Send/MPI_Recv, `isend`/`irecv`
//! MPI_Isend/MPI_Irecv, `wait` MPI_Wait (one request) or MPI_Waitall,
//! `coll` the blocking collective of its kind on MPI_COMM_WORLD, counts in
//! MPI_BYTE. Compute is the time between calls, which take no time
//! themselves: a generated trace has no measured call times, the replay
//! simulates them. Every rank starts with MPI_Init and ends with
//! MPI_Finalize. Request handles are the program's request ids plus 2 (a
//! handle of 0 or 1 is null to the reader).
//!
//! What has no MPI call is left out and counted (iteration marks, rank
//! timers); what the writer cannot express is an error naming the rank and
//! the operation: communicators other than the world (their creation calls
//! are not written), nonblocking collectives (DUMPI does not record MPI-3
//! calls), v-collectives, one-sided operations (their window calls are not
//! written), sizes over 2^31 - 1 bytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::layouts::{layout, FieldKind};
use super::names::{call_id, CALL_COUNT, END_OF_STREAM};
use super::sections::MAGIC;
use crate::error::{ConfigError, Result};
use crate::mpi::{Collective, Op, Program, ANY_SOURCE, ANY_TAG, PROC_NULL};

/// The communicator handle DUMPI gives MPI_COMM_WORLD.
const COMM_WORLD: u16 = 2;
/// DUMPI's id of MPI_BYTE (its predefined datatypes: 0 error, 1 null, 2-4
/// chars, 5 byte, ...).
const MPI_BYTE: u16 = 5;
/// Sizes of DUMPI's 28 predefined datatypes on x86-64, as the tracer writes
/// its table (index = datatype id).
const DATATYPE_SIZES: [u32; 28] = [0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 0, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20];
/// MPI_SUM, the reduction every written reduction uses.
const MPI_SUM: u8 = 3;
/// Tracer version written in the header (later than every layout change the reader knows).
const VERSION: [u8; 3] = [0, 7, 0];
/// Option mask of a record: wall-clock times only.
const WALL_TIMES: u8 = 0x08;
const FOOTER_MAGIC: u64 = 0xf007_fee7;

/// What writing a program produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    /// The `.meta` file.
    pub meta: PathBuf,
    /// MPI calls written, by name, all ranks together.
    pub calls: BTreeMap<String, u64>,
    /// Operations that are no MPI call and were left out, by kind.
    pub left_out: BTreeMap<String, u64>,
}

/// A value of one field of a record.
enum Value {
    Int(i32),
    Byte(u8),
    Datatype(u16),
    Comm(u16),
    Request(u32),
    Requests(Vec<u32>),
    Ints(Vec<i32>),
    Argc(u32),
    Statuses,
}

/// One rank's file as it is built.
struct RankFile {
    body: Vec<u8>,
    called: Vec<u32>,
    now_ns: u64,
}

impl RankFile {
    fn new() -> RankFile {
        RankFile { body: Vec::new(), called: vec![0; CALL_COUNT + 1], now_ns: 0 }
    }

    /// Appends one record of `name` at the current time with `values` in its layout order.
    fn record(&mut self, name: &str, values: &[(&str, Value)]) -> std::result::Result<(), String> {
        let id = call_id(name).ok_or_else(|| format!("{name} has no DUMPI call id"))?;
        let fields = layout(name).ok_or_else(|| format!("{name} has no known layout"))?;
        let seconds = self.now_ns / 1_000_000_000;
        if seconds > u16::MAX as u64 {
            return Err(format!("a call {seconds} s into the run is past what DUMPI's 16-bit seconds hold (65,535 s)"));
        }
        let mut b = Vec::with_capacity(32);
        b.extend_from_slice(&id.to_be_bytes());
        b.push(WALL_TIMES);
        for _ in 0..2 {
            // Start and stop: the call takes no time.
            b.extend_from_slice(&(seconds as u16).to_be_bytes());
            b.extend_from_slice(&((self.now_ns % 1_000_000_000) as u32).to_be_bytes());
        }
        let root = values.iter().find(|(n, _)| *n == "root").map(|(_, v)| v);
        let me = values.iter().find(|(n, _)| *n == "commrank").map(|(_, v)| v);
        let at_root = matches!((root, me), (Some(Value::Int(a)), Some(Value::Int(b))) if a == b);
        for f in fields {
            if f.root_only && !at_root {
                continue;
            }
            let v = values.iter().find(|(n, _)| *n == f.name).map(|(_, v)| v).ok_or_else(|| format!("{name}: no value for {}", f.name))?;
            match (f.kind, v) {
                (FieldKind::Int, Value::Int(x)) => b.extend_from_slice(&x.to_be_bytes()),
                (FieldKind::Op, Value::Byte(x)) => b.push(*x),
                (FieldKind::Datatype, Value::Datatype(x)) => b.extend_from_slice(&x.to_be_bytes()),
                (FieldKind::Comm, Value::Comm(x)) => b.extend_from_slice(&x.to_be_bytes()),
                (FieldKind::Request, Value::Request(x)) => b.extend_from_slice(&x.to_be_bytes()),
                (FieldKind::Requests, Value::Requests(xs)) => {
                    b.extend_from_slice(&(xs.len() as u32).to_be_bytes());
                    xs.iter().for_each(|x| b.extend_from_slice(&x.to_be_bytes()));
                }
                (FieldKind::Ints, Value::Ints(xs)) => {
                    b.extend_from_slice(&(xs.len() as u32).to_be_bytes());
                    xs.iter().for_each(|x| b.extend_from_slice(&x.to_be_bytes()));
                }
                (FieldKind::Argv, Value::Argc(n)) => b.extend_from_slice(&n.to_be_bytes()),
                // Statuses are not kept (the option mask says so): nothing is written.
                (FieldKind::Statuses, Value::Statuses) => {}
                _ => return Err(format!("{name}: field {} written with the wrong kind", f.name)),
            }
        }
        self.body.extend_from_slice(&b);
        self.called[id as usize] += 1;
        self.called[CALL_COUNT] += 1;
        Ok(())
    }

    /// The whole file: magic, body, end mark, header, footer, datatype
    /// sizes, index.
    fn finish(self) -> Vec<u8> {
        let mut f = Vec::with_capacity(self.body.len() + 3000);
        f.extend_from_slice(&MAGIC.to_be_bytes());
        let body = f.len() as u64;
        f.extend_from_slice(&0u32.to_be_bytes()); // CPU time offset, s
        f.extend_from_slice(&0u32.to_be_bytes()); // wall time offset, s
        f.extend_from_slice(&self.body);
        f.extend_from_slice(&END_OF_STREAM.to_be_bytes());
        let header = f.len() as u64;
        f.extend_from_slice(&VERSION);
        f.extend_from_slice(&0u64.to_be_bytes()); // start time
        for text in ["slingsim", "slingsim"] {
            f.extend_from_slice(&(text.len() as u16).to_be_bytes());
            f.extend_from_slice(text.as_bytes());
        }
        f.extend_from_slice(&0u32.to_be_bytes()); // no mesh coordinates
        let footer = f.len() as u64;
        f.extend_from_slice(&FOOTER_MAGIC.to_be_bytes());
        self.called.iter().for_each(|c| f.extend_from_slice(&c.to_be_bytes()));
        (0..=CALL_COUNT).for_each(|_| f.extend_from_slice(&0u32.to_be_bytes()));
        let datatypes = f.len() as u64;
        f.extend_from_slice(&(DATATYPE_SIZES.len() as u32).to_be_bytes());
        DATATYPE_SIZES.iter().for_each(|s| f.extend_from_slice(&s.to_be_bytes()));
        f.extend_from_slice(&MAGIC.to_be_bytes());
        for offset in [datatypes, 0, 0, header, body, footer, 0] {
            f.extend_from_slice(&offset.to_be_bytes());
        }
        f
    }
}

/// A count of bytes as a DUMPI `int` count of MPI_BYTE.
fn count(bytes: u64) -> std::result::Result<i32, String> {
    i32::try_from(bytes).map_err(|_| format!("{bytes} bytes are more than one DUMPI count of MPI_BYTE holds (2^31 - 1)"))
}

fn peer_value(peer: i32) -> i32 {
    match peer {
        PROC_NULL => -2, // Open MPI's MPI_PROC_NULL; the reader takes -2 as MPI_PROC_NULL on either side
        ANY_SOURCE => -1,
        p => p,
    }
}

fn tag_value(tag: i32) -> i32 {
    if tag == ANY_TAG {
        -1
    } else {
        tag
    }
}

/// The record(s) of one operation of world rank `rank`; Ok(false) for an
/// operation that is no MPI call.
fn write_op(file: &mut RankFile, rank: u32, size: u32, op: &Op) -> std::result::Result<bool, String> {
    use Value::*;
    let comm_of = |comm: u32| if comm == 0 { Ok(Comm(COMM_WORLD)) } else { Err(format!("communicator {comm}: only MPI_COMM_WORLD is written (the calls creating others are not)")) };
    match op {
        Op::Compute { ns } => {
            if ns.fract() != 0.0 || *ns < 0.0 {
                return Err(format!("compute of {ns} ns: a DUMPI trace keeps whole nanoseconds"));
            }
            file.now_ns += *ns as u64;
            Ok(true)
        }
        Op::Send { comm, peer, tag, bytes } => {
            let v = [("count", Int(count(*bytes)?)), ("datatype", Datatype(MPI_BYTE)), ("dest", Int(peer_value(*peer))), ("tag", Int(tag_value(*tag))), ("comm", comm_of(*comm)?)];
            file.record("MPI_Send", &v).map(|_| true)
        }
        Op::Recv { comm, peer, tag, bytes } => {
            let v = [("count", Int(count(*bytes)?)), ("datatype", Datatype(MPI_BYTE)), ("source", Int(peer_value(*peer))), ("tag", Int(tag_value(*tag))), ("comm", comm_of(*comm)?), ("status", Statuses)];
            file.record("MPI_Recv", &v).map(|_| true)
        }
        Op::Isend { comm, peer, tag, bytes, req } => {
            let v = [("count", Int(count(*bytes)?)), ("datatype", Datatype(MPI_BYTE)), ("dest", Int(peer_value(*peer))), ("tag", Int(tag_value(*tag))), ("comm", comm_of(*comm)?), ("request", Request(req + 2))];
            file.record("MPI_Isend", &v).map(|_| true)
        }
        Op::Irecv { comm, peer, tag, bytes, req } => {
            let v = [("count", Int(count(*bytes)?)), ("datatype", Datatype(MPI_BYTE)), ("source", Int(peer_value(*peer))), ("tag", Int(tag_value(*tag))), ("comm", comm_of(*comm)?), ("request", Request(req + 2))];
            file.record("MPI_Irecv", &v).map(|_| true)
        }
        Op::Wait { reqs } if reqs.len() == 1 => file.record("MPI_Wait", &[("request", Request(reqs[0] + 2)), ("status", Statuses)]).map(|_| true),
        Op::Wait { reqs } => {
            let v = [("count", Int(reqs.len() as i32)), ("requests", Requests(reqs.iter().map(|r| r + 2).collect())), ("statuses", Statuses)];
            file.record("MPI_Waitall", &v).map(|_| true)
        }
        Op::Coll { kind, comm, bytes, root, counts, req } => {
            if req.is_some() {
                return Err(format!("nonblocking {}: DUMPI does not record MPI-3 nonblocking collectives", kind.name()));
            }
            if counts.is_some() {
                return Err(format!("{} with per-rank counts: the writer writes regular collectives only", kind.name()));
            }
            let c = comm_of(*comm)?;
            let n = Int(count(*bytes)?);
            let root = Int(*root as i32);
            let me = Int(rank as i32);
            let (name, v): (&str, Vec<(&str, Value)>) = match kind {
                Collective::Barrier => ("MPI_Barrier", vec![("comm", c)]),
                Collective::Bcast => ("MPI_Bcast", vec![("count", n), ("datatype", Datatype(MPI_BYTE)), ("root", root), ("comm", c)]),
                Collective::Reduce => ("MPI_Reduce", vec![("count", n), ("datatype", Datatype(MPI_BYTE)), ("op", Byte(MPI_SUM)), ("root", root), ("comm", c)]),
                Collective::Allreduce => ("MPI_Allreduce", vec![("count", n), ("datatype", Datatype(MPI_BYTE)), ("op", Byte(MPI_SUM)), ("comm", c)]),
                Collective::Allgather | Collective::Alltoall => {
                    let name = if *kind == Collective::Allgather { "MPI_Allgather" } else { "MPI_Alltoall" };
                    (name, vec![("sendcount", n), ("sendtype", Datatype(MPI_BYTE)), ("recvcount", Int(count(*bytes)?)), ("recvtype", Datatype(MPI_BYTE)), ("comm", c)])
                }
                Collective::Gather => ("MPI_Gather", vec![("commrank", me), ("sendcount", n), ("sendtype", Datatype(MPI_BYTE)), ("root", root), ("comm", c), ("recvcount", Int(count(*bytes)?)), ("recvtype", Datatype(MPI_BYTE))]),
                Collective::Scatter => ("MPI_Scatter", vec![("commrank", me), ("recvcount", n), ("recvtype", Datatype(MPI_BYTE)), ("root", root), ("comm", c), ("sendcount", Int(count(*bytes)?)), ("sendtype", Datatype(MPI_BYTE))]),
                Collective::ReduceScatter => {
                    let blocks = vec![count(*bytes)?; size as usize];
                    ("MPI_Reduce_scatter", vec![("commsize", Int(size as i32)), ("recvcounts", Ints(blocks)), ("datatype", Datatype(MPI_BYTE)), ("op", Byte(MPI_SUM)), ("comm", c)])
                }
            };
            file.record(name, &v).map(|_| true)
        }
        Op::Put { .. } | Op::PutBurst { .. } | Op::Get { .. } | Op::FetchAdd { .. } | Op::Fence => Err("one-sided operations: the writer does not write their window calls".into()),
        Op::IterationEnd | Op::TimerStart | Op::TimerStop => Ok(false),
    }
}

/// Name of an operation that is no MPI call, for [`Written::left_out`].
fn kind_name(op: &Op) -> &'static str {
    match op {
        Op::IterationEnd => "iteration_end",
        Op::TimerStart => "timer_start",
        _ => "timer_stop",
    }
}

/// Writes `program` as the DUMPI trace `dir/PREFIX.meta` with one
/// `dir/PREFIX-NNNN.bin` per rank; `dir` is created if needed.
pub fn write_dumpi(program: &Program, dir: &Path, prefix: &str) -> Result<Written> {
    let shown = dir.display().to_string();
    if prefix.is_empty() || prefix.contains(['/', '\\']) {
        return Err(ConfigError::new("prefix", format!("{prefix:?} cannot name the trace's files; give a plain name such as \"amg\"")));
    }
    crate::mpi::validate::validate("program", program)?;
    std::fs::create_dir_all(dir).map_err(|e| ConfigError::new(&shown, format!("cannot create the directory: {e}")))?;
    let mut calls = BTreeMap::new();
    let mut left_out = BTreeMap::new();
    for (rank, ops) in program.ops.iter().enumerate() {
        let mut file = RankFile::new();
        let error = |i: usize, m: String| ConfigError::new(format!("program.ops[{rank}][{i}]"), m);
        file.record("MPI_Init", &[("argv", Value::Argc(0))]).map_err(|m| error(0, m))?;
        for (i, op) in ops.iter().enumerate() {
            if !write_op(&mut file, rank as u32, program.ranks, op).map_err(|m| error(i, m))? {
                *left_out.entry(kind_name(op).to_string()).or_insert(0) += 1;
            }
        }
        file.record("MPI_Finalize", &[]).map_err(|m| error(ops.len(), m))?;
        for (id, &n) in file.called.iter().enumerate().take(CALL_COUNT) {
            if n > 0 {
                *calls.entry(super::names::call_name(id as u16).expect("written ids are named").to_string()).or_insert(0) += n as u64;
            }
        }
        let path = dir.join(format!("{prefix}-{rank:04}.bin"));
        std::fs::write(&path, file.finish()).map_err(|e| ConfigError::new(path.display().to_string(), format!("cannot write the rank file: {e}")))?;
    }
    let meta = dir.join(format!("{prefix}.meta"));
    let text = format!("hostname=slingsim\nnumprocs={}\nusername=slingsim\nstartime=0\nfileprefix={prefix}\nversion={}\nsubversion={}\nsubsubversion={}\n", program.ranks, VERSION[0], VERSION[1], VERSION[2]);
    std::fs::write(&meta, text).map_err(|e| ConfigError::new(meta.display().to_string(), format!("cannot write the .meta file: {e}")))?;
    Ok(Written { meta, calls, left_out })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::config::JobConfig;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("slingsim-write-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn generated(workload: &str, ranks: u32, params: serde_json::Value) -> Program {
        let job: JobConfig = serde_json::from_value(serde_json::json!({"workload": workload, "iterations": 2, "params": params})).unwrap();
        crate::mpi::build::generated_program("job[0]", &job, ranks, 7).unwrap()
    }

    /// Writes `p`, reads it back and checks the operations are the same,
    /// iteration marks (no MPI call) aside.
    fn round_trip(name: &str, p: &Program) -> Written {
        let dir = temp(name);
        let written = write_dumpi(p, &dir, name).unwrap();
        let back = crate::trace::read_dumpi_trace(&dir).unwrap().program;
        let marks = |ops: &Vec<Op>| ops.iter().filter(|o| matches!(o, Op::IterationEnd)).count() as u64;
        let without: Vec<Vec<Op>> = p.ops.iter().map(|ops| ops.iter().filter(|o| !matches!(o, Op::IterationEnd)).cloned().collect()).collect();
        assert_eq!(back.ranks, p.ranks);
        // The reader adds every rank's MPI_COMM_SELF after the world.
        assert_eq!(back.comms[0], p.comms[0]);
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        for (r, (a, b)) in without.iter().zip(&back.ops).enumerate() {
            assert_eq!(a, b, "{name}: rank {r} reads back different operations");
        }
        assert_eq!(written.left_out.get("iteration_end").copied().unwrap_or(0), p.ops.iter().map(marks).sum::<u64>());
        std::fs::remove_dir_all(&dir).unwrap();
        written
    }

    #[test]
    fn amg_and_multigrid_read_back_as_the_same_operations() {
        let w = round_trip("amg", &generated("amg", 12, serde_json::json!({"n": 6})));
        assert!(w.calls["MPI_Isend"] > 0 && w.calls["MPI_Allreduce"] > 0 && w.calls["MPI_Init"] == 12, "{:?}", w.calls);
        round_trip("mg", &generated("multigrid", 8, serde_json::json!({"box": 8})));
    }

    #[test]
    fn other_workloads_and_every_collective_read_back() {
        round_trip("halo", &generated("halo3d", 8, serde_json::json!({})));
        round_trip("sweep", &generated("sweep3d", 6, serde_json::json!({})));
        for kind in [Collective::Barrier, Collective::Bcast, Collective::Reduce, Collective::Allreduce, Collective::Allgather, Collective::Alltoall, Collective::Gather, Collective::Scatter] {
            // A barrier moves no data; only rooted collectives keep a root.
            let bytes = if kind == Collective::Barrier { 0 } else { 64 };
            let root = matches!(kind, Collective::Bcast | Collective::Reduce | Collective::Gather | Collective::Scatter) as u32;
            let mut p = Program::new(3);
            for ops in p.ops.iter_mut() {
                ops.push(Op::Compute { ns: 1500.0 });
                ops.push(Op::Coll { kind, comm: 0, bytes, root, counts: None, req: None });
            }
            round_trip(kind.name(), &p);
        }
    }

    #[test]
    fn what_dumpi_cannot_hold_is_an_error_naming_the_operation() {
        let mut p = Program::new(2);
        p.ops[1] = vec![Op::Compute { ns: 10.0 }, Op::Put { comm: 0, peer: 0, bytes: 8, req: 0, completion: Default::default() }, Op::Wait { reqs: vec![0] }];
        let e = write_dumpi(&p, &temp("put"), "put").unwrap_err();
        assert_eq!(e.field, "program.ops[1][1]");
        assert!(e.message.contains("one-sided"), "{e}");
        let mut p = Program::new(1);
        p.ops[0] = vec![Op::Compute { ns: 0.5 }];
        assert!(write_dumpi(&p, &temp("half"), "half").unwrap_err().message.contains("whole nanoseconds"));
        assert_eq!(write_dumpi(&Program::new(1), &temp("bad"), "a/b").unwrap_err().field, "prefix");
    }
}
