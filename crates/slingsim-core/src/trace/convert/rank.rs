//! One rank's calls turned into operations: the dispatch, compute gaps,
//! point-to-point calls and completions. Collectives and one-sided calls
//! are in [`super::collectives`] and [`super::rma`].

use std::collections::HashMap;

use super::comms::{is_creation, CommTable, COMM_SELF, COMM_WORLD};
use super::datatypes::DatatypeSizes;
use super::requests::{is_null, Closed, RequestIds};
use super::rma::Window;
use super::warnings::Warnings;
use crate::mpi::{Op, ANY_SOURCE, PROC_NULL};
use crate::trace::dumpi::Call;

/// Warning: a completion of a handle no recorded call opened.
pub(super) const UNKNOWN_REQUEST: &str = "{n} completions of requests no recorded call opened, dropped (DUMPI does not record \
     MPI-3 nonblocking collectives such as MPI_Ibarrier or MPI_Iallreduce, so the waits on them name unknown requests)";
/// Warning: an operation on a communicator handle nothing rebuilt.
pub(super) const UNKNOWN_COMM: &str = "{n} operations on a communicator that was not rebuilt, dropped";

/// A point-to-point message as a call describes it.
pub(super) struct Message {
    /// Communicator id.
    pub comm: u32,
    /// Rank in the communicator, or ANY_SOURCE / PROC_NULL.
    pub peer: i32,
    pub tag: i32,
    pub bytes: u64,
}

/// Which fields of a call describe one side of a message.
pub(super) struct Side {
    /// Field names of the element count, datatype, peer and tag.
    pub count: &'static str,
    pub datatype: &'static str,
    pub peer: &'static str,
    pub tag: &'static str,
    /// The sending side (a negative peer is MPI_PROC_NULL) or the receiving one.
    pub sending: bool,
}

const SEND: Side = Side { count: "count", datatype: "datatype", peer: "dest", tag: "tag", sending: true };
const RECV: Side = Side { count: "count", datatype: "datatype", peer: "source", tag: "tag", sending: false };

/// Converts one rank's calls.
pub struct RankConverter<'a> {
    pub(super) rank: u32,
    pub(super) table: &'a CommTable,
    /// The rank's communicator handles -> communicator ids.
    pub(super) handles: HashMap<u16, u32>,
    pub(super) types: DatatypeSizes,
    pub(super) requests: RequestIds,
    pub(super) windows: HashMap<u16, Window>,
    pub(super) ops: Vec<Op>,
    pub(super) warnings: Warnings,
    last_stop_ns: Option<u64>,
}

impl<'a> RankConverter<'a> {
    /// A converter for world rank `rank` of a job whose communicators are `table`.
    pub fn new(rank: u32, table: &'a CommTable) -> RankConverter<'a> {
        RankConverter {
            rank,
            table,
            handles: HashMap::from([(COMM_WORLD, 0), (COMM_SELF, CommTable::self_comm(rank))]),
            types: DatatypeSizes::default(),
            requests: RequestIds::default(),
            windows: HashMap::new(),
            ops: Vec::new(),
            warnings: Warnings::default(),
            last_stop_ns: None,
        }
    }

    /// The rank's operations and what could not be converted.
    pub fn convert(mut self, calls: &[Call]) -> (Vec<Op>, Warnings) {
        if !calls.is_empty() && calls.iter().all(|c| c.wall.is_none()) {
            self.warnings.add("{n} ranks traced without wall-clock times (no compute between their calls)");
        }
        for (i, call) in calls.iter().enumerate() {
            self.compute_gap(call);
            self.call(i, call);
        }
        let open = self.requests.still_open() as u64;
        self.warnings.add_many("{n} nonblocking operations never completed by a recorded wait or test", open);
        (self.ops, self.warnings)
    }

    /// The time since the previous call ended, as computation.
    fn compute_gap(&mut self, call: &Call) {
        let Some(wall) = call.wall else { return };
        if let Some(prev) = self.last_stop_ns {
            if wall.start_ns > prev {
                self.ops.push(Op::Compute { ns: (wall.start_ns - prev) as f64 });
            }
        }
        self.last_stop_ns = Some(wall.stop_ns);
    }

    fn call(&mut self, i: usize, call: &Call) {
        match call.name {
            "MPI_Send" | "MPI_Bsend" | "MPI_Ssend" | "MPI_Rsend" => {
                if let Some(m) = self.message(call, &SEND) {
                    self.ops.push(Op::Send { comm: m.comm, peer: m.peer, tag: m.tag, bytes: m.bytes });
                }
            }
            "MPI_Recv" => {
                if let Some(m) = self.message(call, &RECV) {
                    self.ops.push(Op::Recv { comm: m.comm, peer: m.peer, tag: m.tag, bytes: m.bytes });
                }
            }
            "MPI_Isend" | "MPI_Ibsend" | "MPI_Issend" | "MPI_Irsend" => self.nonblocking(call, &SEND),
            "MPI_Irecv" => self.nonblocking(call, &RECV),
            "MPI_Send_init" | "MPI_Bsend_init" | "MPI_Ssend_init" | "MPI_Rsend_init" => self.persistent(call, &SEND),
            "MPI_Recv_init" => self.persistent(call, &RECV),
            "MPI_Start" => self.start(call.request("request").into_iter()),
            "MPI_Startall" => self.start(call.requests("requests").unwrap_or_default().iter().copied()),
            "MPI_Sendrecv" | "MPI_Sendrecv_replace" => self.sendrecv(call),
            "MPI_Wait" | "MPI_Waitall" | "MPI_Waitany" | "MPI_Waitsome" | "MPI_Test" | "MPI_Testall" | "MPI_Testany"
            | "MPI_Testsome" => self.completion(call),
            "MPI_Request_free" => {
                if let Some(h) = call.request("request") {
                    self.requests.forget(h);
                }
            }
            "MPI_Cancel" => self.warnings.add("{n} MPI_Cancel calls ignored (the cancelled operation is replayed)"),
            "MPI_Comm_free" | "MPI_Comm_disconnect" => {
                if let Some(h) = call.comm("comm") {
                    self.handles.remove(&h);
                }
            }
            name if is_creation(name) => self.creation(i, call),
            "MPI_Intercomm_create" | "MPI_Intercomm_merge" | "MPI_Comm_accept" | "MPI_Comm_connect" | "MPI_Comm_join"
            | "MPI_Comm_get_parent" => {
                self.warnings.add("{n} inter-communicator calls not rebuilt (their communicators are dropped)");
                for field in ["newcomm", "comm", "parent"] {
                    if let Some(h) = call.comm(field) {
                        self.handles.remove(&h);
                    }
                }
            }
            name if name.starts_with("MPI_Win_") || matches!(name, "MPI_Put" | "MPI_Get" | "MPI_Accumulate") => self.one_sided(call),
            name if name.starts_with("MPI_File_") => self.warnings.add("{n} MPI-IO calls ignored (file I/O is not modelled)"),
            name if super::collectives::is_collective(name) => self.collective(call),
            _ => {
                // Local calls (ranks, sizes, datatypes, groups, probes, timers) move no data.
                self.types.learn(call);
            }
        }
    }

    /// The communicator id of handle field `field`, counting a warning when unknown.
    pub(super) fn comm_id(&mut self, call: &Call, field: &str) -> Option<u32> {
        let id = call.comm(field).and_then(|h| self.handles.get(&h).copied());
        if id.is_none() {
            self.warnings.add(UNKNOWN_COMM);
        }
        id
    }

    /// Size of communicator `comm`.
    pub(super) fn comm_size(&self, comm: u32) -> usize {
        self.table.members[comm as usize].len()
    }

    /// Bytes of `count` elements of datatype field `field`.
    pub(super) fn bytes(&mut self, call: &Call, count: i32, field: &str) -> u64 {
        let size = call.datatype(field).and_then(|d| self.types.size(d));
        if size.is_none() {
            self.warnings.add("{n} counts of a datatype of unknown size, taken as 0 bytes");
        }
        count.max(0) as u64 * size.unwrap_or(0)
    }

    /// One side of a point-to-point call; None (with a warning) when it cannot be replayed.
    pub(super) fn message(&mut self, call: &Call, side: &Side) -> Option<Message> {
        let comm = self.comm_id(call, "comm")?;
        let raw = call.int(side.peer).unwrap_or(PROC_NULL);
        let peer = if side.sending {
            // Only MPI_PROC_NULL is a negative destination (-1 in MPICH, -2 in Open MPI).
            if raw < 0 { PROC_NULL } else { raw }
        } else {
            self.source(call, raw)
        };
        if peer >= self.comm_size(comm) as i32 {
            self.warnings.add("{n} point-to-point operations with a peer outside their communicator, dropped");
            return None;
        }
        let tag = call.int(side.tag).unwrap_or(0);
        let count = call.int(side.count).unwrap_or(0);
        let bytes = self.bytes(call, count, side.datatype);
        Some(Message { comm, peer, tag, bytes })
    }

    /// A receive's source. DUMPI stores MPI_ANY_SOURCE as -1 and
    /// MPI_PROC_NULL raw: -1 in MPICH (the same value), -2 in Open MPI.
    fn source(&mut self, call: &Call, raw: i32) -> i32 {
        match raw {
            -1 => match call.statuses("status").and_then(|s| s.first()) {
                Some(s) if s.source == -1 => PROC_NULL,
                Some(_) => ANY_SOURCE,
                None => {
                    self.warnings.add("{n} receives from source -1 taken as MPI_ANY_SOURCE (DUMPI stores MPICH's MPI_PROC_NULL as -1 too)");
                    ANY_SOURCE
                }
            },
            r if r < 0 => PROC_NULL,
            r => r,
        }
    }

    fn nonblocking(&mut self, call: &Call, side: &Side) {
        let Some(handle) = call.request("request") else { return };
        let Some(m) = self.message(call, side) else {
            // Already counted as dropped: its completion is dropped quietly.
            self.requests.open_dropped(handle);
            return;
        };
        let req = self.requests.open(handle);
        self.ops.push(if side.sending {
            Op::Isend { comm: m.comm, peer: m.peer, tag: m.tag, bytes: m.bytes, req }
        } else {
            Op::Irecv { comm: m.comm, peer: m.peer, tag: m.tag, bytes: m.bytes, req }
        });
    }

    fn persistent(&mut self, call: &Call, side: &Side) {
        let (Some(handle), Some(m)) = (call.request("request"), self.message(call, side)) else { return };
        let op = if side.sending {
            Op::Isend { comm: m.comm, peer: m.peer, tag: m.tag, bytes: m.bytes, req: 0 }
        } else {
            Op::Irecv { comm: m.comm, peer: m.peer, tag: m.tag, bytes: m.bytes, req: 0 }
        };
        self.requests.keep_persistent(handle, op);
    }

    fn start(&mut self, handles: impl Iterator<Item = u32>) {
        for h in handles {
            match self.requests.start(h) {
                Some(op) => self.ops.push(op),
                None => self.warnings.add("{n} MPI_Start calls on requests no recorded MPI_*_init made, dropped"),
            }
        }
    }

    /// MPI_Sendrecv: a nonblocking send and receive, then a wait on both.
    fn sendrecv(&mut self, call: &Call) {
        let replace = call.name == "MPI_Sendrecv_replace";
        let send = Side { count: if replace { "count" } else { "sendcount" }, datatype: if replace { "datatype" } else { "sendtype" }, peer: "dest", tag: "sendtag", sending: true };
        let recv = Side { count: if replace { "count" } else { "recvcount" }, datatype: if replace { "datatype" } else { "recvtype" }, peer: "source", tag: "recvtag", sending: false };
        let (Some(s), Some(r)) = (self.message(call, &send), self.message(call, &recv)) else { return };
        let (a, b) = (self.requests.take_id(), self.requests.take_id());
        self.ops.push(Op::Isend { comm: s.comm, peer: s.peer, tag: s.tag, bytes: s.bytes, req: a });
        self.ops.push(Op::Irecv { comm: r.comm, peer: r.peer, tag: r.tag, bytes: r.bytes, req: b });
        self.ops.push(Op::Wait { reqs: vec![a, b] });
        self.requests.release(a);
        self.requests.release(b);
    }

    /// A wait or test: one `wait` on the requests it completed.
    fn completion(&mut self, call: &Call) {
        let flag = call.int("flag").unwrap_or(1) != 0;
        let listed = call.requests("requests").unwrap_or_default();
        let pick = |indices: &[i32]| -> Vec<u32> {
            indices.iter().filter(|&&i| i >= 0 && (i as usize) < listed.len()).map(|&i| listed[i as usize]).collect()
        };
        let handles: Vec<u32> = match call.name {
            "MPI_Wait" | "MPI_Test" if flag => call.request("request").into_iter().collect(),
            "MPI_Waitall" | "MPI_Testall" if flag => listed.to_vec(),
            "MPI_Waitany" | "MPI_Testany" if flag => pick(&[call.int("index").unwrap_or(-1)]),
            "MPI_Waitsome" | "MPI_Testsome" => pick(call.ints("indices").unwrap_or_default()),
            _ => Vec::new(),
        };
        let mut reqs = Vec::new();
        for h in handles.into_iter().filter(|&h| !is_null(h)) {
            match self.requests.close(h) {
                Closed::Request(id) => reqs.push(id),
                Closed::Dropped => {}
                Closed::Unknown => self.warnings.add(UNKNOWN_REQUEST),
            }
        }
        if !reqs.is_empty() {
            self.ops.push(Op::Wait { reqs });
        }
    }

    /// A communicator creation: its collective cost on the parent, then the new handle.
    fn creation(&mut self, i: usize, call: &Call) {
        let parent = call.comm("oldcomm").or_else(|| call.comm("comm")).and_then(|h| self.handles.get(&h).copied());
        if let Some(parent) = parent {
            self.ops.push(super::collectives::creation_cost(parent));
        }
        if let Some(h) = call.comm("newcomm") {
            match self.table.made[self.rank as usize].get(&i).copied().flatten() {
                Some(id) => self.handles.insert(h, id),
                None => self.handles.remove(&h),
            };
        }
    }
}
