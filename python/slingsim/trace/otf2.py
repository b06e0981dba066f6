"""OTF2 traces of MPI runs as slingsim MPI programs.

:func:`read_otf2` turns the events of an OTF2 archive (Score-P's format, read
through the ``otf2`` package) into the program format of
``crates/slingsim-core/src/mpi/op.rs``, following the same conventions as the
DUMPI reader so that both give one operation list for one run:

- communicator 0 is MPI_COMM_WORLD; the others are numbered in order of
  creation, rank 0's creations first, then rank 1's, and so on, one id per
  distinct member list (members in communicator rank order);
- request ids are per rank, the lowest id not held by an open request;
- each MPI_Wait*/MPI_Test* call becomes one ``wait`` listing the requests it
  completed (in the order the trace records the completions); MPI_Sendrecv
  becomes ``isend`` + ``irecv`` + ``wait``;
- the time from one MPI call's Leave to the next call's Enter becomes a
  ``compute`` op (gaps of zero or less are dropped);
- a call that creates a communicator becomes an ``allgather`` of 8 bytes per
  rank on the parent communicator (the exchange of color and key that
  MPI_Comm_split needs);
- whatever the trace holds that the format cannot express is counted in the
  program's ``warnings``.

OTF2 records what happened, not the arguments of a call: a receive's peer,
tag and size are those of the message it matched (never MPI_ANY_SOURCE), and a
receive's communicator is known only once it completes.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

ANY_SOURCE = -1
ANY_TAG = -1
_UNDEFINED_U32 = 0xFFFFFFFF

_CREATION_BYTES = 8
"""Bytes each rank contributes to the allgather standing for a communicator creation."""

_COMM_CREATING_CALLS = frozenset({
    "MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_dup", "MPI_Comm_dup_with_info",
    "MPI_Comm_create", "MPI_Comm_create_group", "MPI_Cart_create", "MPI_Cart_sub",
    "MPI_Graph_create", "MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent",
})
"""Intra-communicator creations. Inter-communicator ones (MPI_Intercomm_*) are
not rebuilt, as in the DUMPI reader: they count in the warnings."""

_SENDRECV_CALLS = frozenset({"MPI_Sendrecv", "MPI_Sendrecv_replace"})

_LOCAL_CALL_PREFIXES = (
    "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_free", "MPI_Comm_group", "MPI_Comm_get",
    "MPI_Comm_set", "MPI_Comm_test_inter", "MPI_Comm_compare", "MPI_Comm_remote",
    "MPI_Wtime", "MPI_Wtick", "MPI_Init", "MPI_Finalize", "MPI_Initialized",
    "MPI_Finalized", "MPI_Abort", "MPI_Cart_coords", "MPI_Cart_rank", "MPI_Cart_shift",
    "MPI_Cart_get", "MPI_Cartdim_get", "MPI_Cart_map", "MPI_Dims_create", "MPI_Topo_test",
    "MPI_Graph_get", "MPI_Graphdims_get", "MPI_Graph_neighbors", "MPI_Group_", "MPI_Type_",
    "MPI_Get_", "MPI_Op_", "MPI_Error", "MPI_Errhandler", "MPI_Info_", "MPI_Keyval",
    "MPI_Attr_", "MPI_Pack", "MPI_Unpack", "MPI_Address", "MPI_Buffer_", "MPI_Alloc_mem",
    "MPI_Free_mem", "MPI_Query_thread", "MPI_Is_thread_main", "MPI_Pcontrol",
    "MPI_Request_free", "MPI_Request_get_status", "MPI_Status_", "MPI_Test_cancelled",
    "MPI_Wait", "MPI_Test",
)
"""Calls that move no data (or, for Wait/Test, whose ops come from completions):
they need no operation of their own."""


def read_otf2(path):
    """Reads an OTF2 trace (its ``.otf2`` anchor file or the directory holding it).

    Returns ``(program, calls)``: the program as a dict of the serde form of
    ``Program`` and the number of Enter events of each MPI region (e.g.
    ``calls["MPI_Isend"]``). Raises ``ValueError`` naming the path when the
    trace is missing or cannot be read, ``ImportError`` when the ``otf2``
    package is not installed.
    """
    anchor = _anchor_file(Path(path))
    _check_files_end_whole(anchor)
    otf2 = _otf2_package()
    import _otf2  # the compiled half of the otf2 package; it raises _otf2.Error

    unreadable = (_otf2.Error, otf2.error.Error, EOFError, _NotAnMpiTrace)
    try:
        with otf2.reader.open(str(anchor)) as trace:
            job = _Job(trace.definitions, _uses_scorep_byte_counts(trace, _otf2))
            for location, event in trace.events:
                job.handle(location, event)
    except unreadable as err:
        raise ValueError(f"{anchor}: not a readable OTF2 trace ({err})") from err
    return job.program(), dict(job.calls)


def _anchor_file(path):
    """The anchor file of the trace at `path`, or ValueError naming what is wrong."""
    if path.is_dir():
        anchors = sorted(path.glob("*.otf2"))
        if len(anchors) != 1:
            found = "no" if not anchors else f"{len(anchors)}"
            raise ValueError(f"{path}: expected one OTF2 anchor file (*.otf2), found {found}")
        return anchors[0]
    if not path.is_file():
        raise ValueError(f"{path}: no such OTF2 trace")
    return path


_END_OF_FILE_RECORD = 0x01
"""The byte an OTF2 writer puts last in every definition and event file."""


def _check_files_end_whole(anchor):
    """ValueError naming the first definition or event file cut short.

    The otf2 library reads a file in whole chunks; past the end of a truncated
    file it reads whatever its buffer holds, so it may or may not notice. Every
    file an OTF2 writer closes ends with the end-of-file record, which a cut
    almost never leaves in place.
    """
    files = [anchor.with_suffix(".def")]
    archive = anchor.with_suffix("")
    if archive.is_dir():
        files += sorted(p for p in archive.iterdir() if p.suffix in (".def", ".evt"))
    for file in files:
        if not file.is_file():
            continue
        with open(file, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            last = None
            if size:
                handle.seek(size - 1)
                last = handle.read(1)[0]
        if last != _END_OF_FILE_RECORD:
            raise ValueError(f"{file}: truncated OTF2 file (it does not end with the "
                             "end-of-file record); copy or record the trace again")


class _NotAnMpiTrace(Exception):
    """A readable OTF2 archive that holds no MPI run."""


def _otf2_package():
    try:
        import otf2
    except ImportError as err:
        raise ImportError(
            "reading OTF2 traces needs the otf2 package: pip install 'otf2>=3.2' (a dependency of slingsim; a Python without its wheels must build it from source)"
        ) from err
    return otf2


def _uses_scorep_byte_counts(trace, _otf2):
    """Whether collective sizes follow Score-P's counting (see `_collective_bytes`).

    Score-P writes its name as the archive's creator; other writers (such as a
    converter from DUMPI) are taken to record each rank's buffer sizes.
    """
    return _otf2.Reader_GetCreator(trace.handle).startswith("Score-P")


class _Job:
    """Builds the program of every rank from the trace's events, in trace order."""

    def __init__(self, defs, scorep_bytes):
        import otf2

        self._otf2 = otf2
        self.scorep_bytes = scorep_bytes
        self.ticks_per_second = defs.clock_properties.timer_resolution
        self.warnings = Counter()
        self.calls = Counter()
        world = _world_locations(defs, otf2)
        if world is None:
            raise _NotAnMpiTrace("no MPI ranks defined (no MPI COMM_LOCATIONS group)")
        self.rank_of = {location: r for r, location in enumerate(world)}
        self.world = tuple(range(len(world)))
        self.world_def = _world_comm(defs, self)
        self.ranks = [_Rank(self, r) for r in self.world]
        self._creatable = _creatable_comms(defs, self)
        self.created_events = set()
        self.unranked_calls = 0

    def handle(self, location, event):
        kind = type(event).__name__
        if kind == "Enter" and _is_mpi(event.region):
            self.calls[event.region.name] += 1
        rank = self.rank_of.get(location)
        if rank is None:
            if kind == "Enter" and _is_mpi(event.region):
                self.unranked_calls += 1
            return
        handler = getattr(self.ranks[rank], "on_" + kind, None)
        if handler is not None:
            handler(event)

    def warn(self, template, count=1):
        """Counts one more (or `count` more) of what `template` describes; {n} is the count."""
        self.warnings[template] += count

    def members(self, comm, rank):
        """World ranks of `comm` (an OTF2 Comm definition) seen from `rank`."""
        group = getattr(comm, "group", None)
        if group is None:
            self.warn("{n} operations on inter-communicators represented on MPI_COMM_WORLD")
            return self.world
        if group.group_type == self._otf2.GroupType.COMM_SELF:
            return (rank,)
        return tuple(self.rank_of[location] for location in group.members)

    def created_comm(self, rank):
        """The communicator definition created by `rank`'s next creating call, or None."""
        pending = self._creatable[rank]
        return pending.pop(0) if pending else None

    def program(self):
        for rank in self.ranks:
            rank.finish_trace()
        if self.unranked_calls:
            self.warn("{n} MPI calls on locations outside MPI_COMM_WORLD not represented",
                      self.unranked_calls)
        ids = self._number_comms()
        for rank in self.ranks:
            for op in rank.ops:
                if "comm" in op:
                    op["comm"] = ids[op["comm"]]
        comms = sorted(ids, key=ids.get)
        return {
            "ranks": len(self.world),
            "comms": [list(members) for members in comms],
            "ops": [rank.ops for rank in self.ranks],
            "warnings": [t.format(n=n) for t, n in sorted(self.warnings.items())],
        }

    def _number_comms(self):
        """Communicator ids: world, then creations rank by rank, then any other use."""
        ids = {self.world: 0}
        for rank in self.ranks:
            for members in rank.created:
                ids.setdefault(members, len(ids))
        for rank in self.ranks:
            for op in rank.ops:
                if "comm" in op:
                    ids.setdefault(op["comm"], len(ids))
        return ids


def _world_locations(defs, otf2):
    """Locations of the MPI ranks, index = rank in MPI_COMM_WORLD."""
    for group in defs.groups:
        if (group.group_type == otf2.GroupType.COMM_LOCATIONS
                and group.paradigm == otf2.Paradigm.MPI):
            return list(group.members)
    return None


def _world_comm(defs, job):
    """The Comm definition of MPI_COMM_WORLD (by name, else the first over every rank)."""
    comms = list(defs.comms)
    for comm in comms:
        if comm.name == "MPI_COMM_WORLD":
            return comm
    for comm in comms:
        group = getattr(comm, "group", None)
        if group is not None and len(group.members) == len(job.world):
            return comm
    return None


def _creatable_comms(defs, job):
    """Per rank, the communicators it belongs to that some call created, in definition order.

    Without CommCreate events (OTF2 3) a trace does not say which communicator
    a creating call made; the k-th creating call of a rank is taken to make the
    k-th of these. World and self communicators (a COMM_SELF group, or one
    member under a name containing SELF) are not creations.
    """
    per_rank = [[] for _ in job.world]
    for comm in defs.comms:
        group = getattr(comm, "group", None)
        if comm is job.world_def or group is None:
            continue
        if group.group_type == job._otf2.GroupType.COMM_SELF:
            continue
        members = job.members(comm, 0)
        if len(members) == 1 and "SELF" in comm.name.upper():
            continue
        for r in members:
            per_rank[r].append(comm)
    return per_rank


def _is_mpi(region):
    return region.name.startswith("MPI_") or str(region.paradigm) == "Paradigm.MPI"


def _tag(value):
    """An OTF2 tag (u32) as the format's i32."""
    return value - (1 << 32) if value >= 1 << 31 else value


class _RequestIds:
    """One rank's request ids: each open request holds the lowest id no other holds."""

    def __init__(self):
        self._open = {}

    def open(self, trace_id):
        held = set(self._open.values())
        rid = next(i for i in range(len(held) + 1) if i not in held)
        self._open[trace_id] = rid
        return rid

    def close(self, trace_id):
        """Our id of the trace's request `trace_id`, freed; None if it was not open."""
        return self._open.pop(trace_id, None)

    def is_open(self, trace_id):
        return trace_id in self._open


class _Call:
    """An MPI call between its Enter and Leave, collecting what it does."""

    def __init__(self, name, frame, enter_time):
        self.name = name
        self.frame = frame
        self.enter_time = enter_time
        self.ops = []
        self.completed = []
        self.parent = None


class _Rank:
    """One rank's program, built from its location's events."""

    def __init__(self, job, rank):
        self.job = job
        self.rank = rank
        self.ops = []
        self.created = []
        self.requests = _RequestIds()
        self.stack = []
        self.call = None
        self.last_leave = None
        self.open_irecvs = {}
        self.open_collectives = {}
        self.measurement_off = False

    # -- regions --------------------------------------------------------------

    def on_Enter(self, event):
        frame = [event.region]
        self.stack.append(frame)
        if not _is_mpi(event.region):
            return
        if self.call is not None:
            self.job.warn("{n} MPI calls entered before the previous call left: "
                          "the previous call taken as ended there")
            self._end_call(event.time)
        self._add_compute(event.time)
        self.call = _Call(event.region.name, frame, event.time)

    def on_Leave(self, event):
        at = next((i for i in range(len(self.stack) - 1, -1, -1)
                   if self.stack[i][0] is event.region), None)
        if at is None:
            self.job.warn("{n} Leave events without an Enter ignored")
            return
        if at != len(self.stack) - 1:
            self.job.warn("{n} Leave events out of nesting order")
        frame = self.stack.pop(at)
        if self.call is not None and self.call.frame is frame:
            self._end_call(event.time)

    def on_MeasurementOnOff(self, event):
        off = event.measurement_mode == self.job._otf2.MeasurementMode.OFF
        if self.measurement_off and not off:
            self.job.warn("{n} intervals with measurement off: calls in them are missing "
                          "and their time counts as compute")
        self.measurement_off = off

    def _add_compute(self, enter_time):
        if self.last_leave is not None and enter_time > self.last_leave:
            ns = (enter_time - self.last_leave) * 1e9 / self.job.ticks_per_second
            self.ops.append({"op": "compute", "ns": ns})

    # -- point to point -------------------------------------------------------

    def on_MpiSend(self, event):
        self._emit(self._message("send", event.communicator, event.receiver, event))

    def on_MpiRecv(self, event):
        self._emit(self._message("recv", event.communicator, event.sender, event))

    def on_MpiIsend(self, event):
        op = self._message("isend", event.communicator, event.receiver, event)
        op["req"] = self._open_request(event.request_id)
        self._emit(op)

    def on_MpiIrecvRequest(self, event):
        op = {"op": "irecv", "comm": self.job.world, "peer": ANY_SOURCE, "tag": ANY_TAG,
              "bytes": 0, "req": self._open_request(event.request_id)}
        self.open_irecvs[event.request_id] = op
        self._emit(op)

    def on_MpiIrecv(self, event):
        op = self.open_irecvs.pop(event.request_id, None)
        if op is None:
            self.job.warn("{n} receives completed without their MPI_Irecv in the trace")
            self._complete(event.request_id)
            return
        op.update(self._message("irecv", event.communicator, event.sender, event))
        self._complete(event.request_id)

    def on_MpiIsendComplete(self, event):
        self._complete(event.request_id)

    def on_MpiRequestCancelled(self, event):
        self.job.warn("{n} cancelled requests kept as if completed")
        self._complete(event.request_id)

    def _message(self, op, comm, peer, event):
        return {"op": op, "comm": self.job.members(comm, self.rank), "peer": peer,
                "tag": _tag(event.msg_tag), "bytes": event.msg_length}

    # -- collectives ----------------------------------------------------------

    def on_MpiCollectiveEnd(self, event):
        op = self._collective(event)
        if op is not None:
            self._emit(op)

    def on_NonBlockingCollectiveRequest(self, event):
        op = {"op": "coll", "kind": None, "comm": self.job.world, "bytes": 0, "root": 0,
              "req": self._open_request(event.request_id)}
        self.open_collectives[event.request_id] = op
        self._emit(op)

    def on_NonBlockingCollectiveComplete(self, event):
        op = self.open_collectives.pop(event.request_id, None)
        done = self._collective(event)
        if op is not None and done is not None:
            op.update({k: v for k, v in done.items() if k != "op"})
            self._complete(event.request_id)
            return
        if op is None:
            self.job.warn("{n} completions of requests not opened in the trace ignored")
        self.requests.close(event.request_id)

    def on_CommCreate(self, event):
        self.created.append(self.job.members(event.communicator, self.rank))
        self.job.created_events.add(self.rank)

    def _collective(self, event):
        """The coll op of a collective's end, or None (a communicator's creation or
        destruction, or a collective the format lacks)."""
        name = str(event.collective_op).split(".")[-1]
        members = self.job.members(event.communicator, self.rank)
        if name in ("CREATE_HANDLE", "CREATE_HANDLE_AND_ALLOCATE"):
            if self.call is not None:
                self.call.parent = members
            return None
        if name in ("DESTROY_HANDLE", "DESTROY_HANDLE_AND_DEALLOCATE"):
            return None
        kind = _COLLECTIVE_KINDS.get(name)
        if kind is None:
            self.job.warn("{n} " + name + " collectives not represented")
            return None
        if name in _APPROXIMATED:
            self.job.warn("{n} " + name + " collectives replayed as " + _APPROXIMATED[name])
        root = 0 if event.root == _UNDEFINED_U32 else event.root
        me = members.index(self.rank) if self.rank in members else 0
        nbytes = _collective_bytes(name, event.size_sent, event.size_received, len(members),
                                   me, self.job.scorep_bytes)
        return {"op": "coll", "kind": kind, "comm": members, "bytes": nbytes, "root": root}

    # -- requests and calls ---------------------------------------------------

    def _open_request(self, trace_id):
        if self.requests.is_open(trace_id):
            self.job.warn("{n} requests reopened before completing: the earlier one dropped")
            self.requests.close(trace_id)
        return self.requests.open(trace_id)

    def _complete(self, trace_id):
        rid = self.requests.close(trace_id)
        if rid is None:
            self.job.warn("{n} completions of requests not opened in the trace ignored")
            return
        if self.call is None:
            self.ops.append({"op": "wait", "reqs": [rid]})
            self.job.warn("{n} completions outside any MPI call made waits of their own")
        else:
            self.call.completed.append(rid)

    def _emit(self, op):
        if self.call is None:
            self.job.warn("{n} MPI events outside any MPI call kept in trace order")
            self.ops.append(op)
        else:
            self.call.ops.append(op)

    def _end_call(self, leave_time):
        call, self.call = self.call, None
        self.last_leave = leave_time
        ops = call.ops
        if call.name in _SENDRECV_CALLS:
            ops = self._as_sendrecv(ops)
        self.ops.extend(ops)
        if call.completed:
            self.ops.append({"op": "wait", "reqs": call.completed})
        if call.name in _COMM_CREATING_CALLS:
            self._create_comm(call)
        elif not ops and not call.completed and not call.name.startswith(_LOCAL_CALL_PREFIXES):
            self.job.warn("{n} " + call.name + " calls not represented (no operation recorded)")

    def _as_sendrecv(self, ops):
        """MPI_Sendrecv's blocking send and receive as isend + irecv + wait."""
        sends = [op for op in ops if op["op"] == "send"]
        recvs = [op for op in ops if op["op"] == "recv"]
        if len(sends) + len(recvs) != len(ops):
            return ops
        out = []
        for op in sends + recvs:
            op = dict(op, op="i" + op["op"])
            op["req"] = self.requests.open(("sendrecv", len(out)))
            out.append(op)
        reqs = [self.requests.close(("sendrecv", i)) for i in range(len(out))]
        return out + [{"op": "wait", "reqs": reqs}]

    def _create_comm(self, call):
        comm = None if self.rank in self.job.created_events else self.job.created_comm(self.rank)
        if comm is not None:
            self.created.append(self.job.members(comm, self.rank))
        parent = call.parent
        if parent is None and comm is not None and comm.parent is not None:
            parent = self.job.members(comm.parent, self.rank)
        if parent is None:
            parent = self.job.world
            self.job.warn("{n} communicator creations with no parent in the trace "
                          "represented on MPI_COMM_WORLD")
        self.ops.append({"op": "coll", "kind": "allgather", "comm": parent,
                         "bytes": _CREATION_BYTES, "root": 0})

    def finish_trace(self):
        if self.call is not None:
            self.job.warn("{n} MPI calls still open at the end of the trace")
            self._end_call(self.call.enter_time)
        open_regions = len(self.stack)
        if open_regions:
            self.job.warn("{n} Enter events without a matching Leave", open_regions)
        if self.open_irecvs:
            self.job.warn("{n} MPI_Irecv never completed: peer, tag and size unknown",
                          len(self.open_irecvs))
        if self.open_collectives:
            self.job.warn("{n} nonblocking collectives never completed not represented",
                          len(self.open_collectives))
        self.ops = [op for op in self.ops if not (op["op"] == "coll" and op["kind"] is None)]


_COLLECTIVE_KINDS = {
    "BARRIER": "barrier", "BCAST": "bcast", "REDUCE": "reduce", "ALLREDUCE": "allreduce",
    "ALLGATHER": "allgather", "ALLTOALL": "alltoall", "GATHER": "gather",
    "SCATTER": "scatter", "REDUCE_SCATTER": "reduce_scatter",
    "REDUCE_SCATTER_BLOCK": "reduce_scatter",
    "GATHERV": "gather", "SCATTERV": "scatter", "ALLGATHERV": "allgather",
    "ALLTOALLV": "alltoall", "ALLTOALLW": "alltoall",
    "SCAN": "allreduce", "EXSCAN": "allreduce",
}
_APPROXIMATED = {
    "GATHERV": "gather with the rank's own size (OTF2 keeps no per-peer counts)",
    "SCATTERV": "scatter with the rank's own size (OTF2 keeps no per-peer counts)",
    "ALLGATHERV": "allgather with the rank's own size (OTF2 keeps no per-peer counts)",
    "ALLTOALLV": "alltoall with the rank's mean size per peer (OTF2 keeps no per-peer counts)",
    "ALLTOALLW": "alltoall with the rank's mean size per peer (OTF2 keeps no per-peer counts)",
    "SCAN": "allreduce of the same buffer",
    "EXSCAN": "allreduce of the same buffer",
}


def _collective_bytes(name, sent, received, size, me, scorep):
    """`bytes` of a coll op from one rank's sizeSent/sizeReceived of collective
    `name` (an OTF2 CollectiveOp name) on `size` ranks, `me` its rank there.

    op.rs wants the buffer of bcast/reduce/allreduce (and of a scan, replayed as
    an allreduce), each rank's contribution to (all)gather, what each receives
    of scatter/reduce_scatter, what each sends to each peer of alltoall.
    Writers other than Score-P (a conversion from DUMPI) record exactly these,
    the call's count x datatype size. Score-P counts as if every peer were
    reached directly: allreduce, allgather and alltoall send and receive
    size x that, a bcast root sends size x the buffer, a reduce_scatter
    receives size x the block, a scan sends (size - me) x the buffer.
    """
    if name == "BARRIER":
        return 0
    if not scorep:
        return received if name in ("SCATTER", "SCATTERV", "REDUCE_SCATTER",
                                    "REDUCE_SCATTER_BLOCK") else sent
    size = max(size, 1)
    if name == "BCAST":
        return received if received else sent // size
    if name in ("REDUCE", "GATHER", "GATHERV"):
        return sent
    if name in ("SCATTER", "SCATTERV"):
        return received
    if name in ("REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK"):
        return received // size
    if name == "SCAN":
        return received // (me + 1)
    if name == "EXSCAN":
        return sent // (size - 1 - me) if me < size - 1 else received // max(me, 1)
    return sent // size  # allreduce, allgather(v), alltoall(v/w)
