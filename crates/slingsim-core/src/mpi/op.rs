//! The MPI operation format: what a rank's program is made of. Generated
//! workloads, collectives and trace readers (DUMPI natively, OTF2 through
//! Python) all produce this one format, so replay has one interpreter.
//!
//! Ranks, peers and roots are ranks *within the communicator* the operation
//! names, as in MPI; communicator 0 is the job's world. Requests are small
//! integers local to a rank: an `Isend`, `Irecv` or nonblocking collective
//! opens request `req`, a `Wait` closes the ones it lists. An id may be
//! reused once closed (DUMPI traces reuse handles), and a `Wait` refers to
//! the live request of that id.

use serde::{Deserialize, Serialize};

/// `peer` of a receive that matches any source (MPI_ANY_SOURCE).
pub const ANY_SOURCE: i32 = -1;
/// `tag` of a receive that matches any tag (MPI_ANY_TAG).
pub const ANY_TAG: i32 = -1;
/// `peer` of an operation with MPI_PROC_NULL: it completes at once and moves no data.
pub const PROC_NULL: i32 = -2;

/// A collective operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Collective {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Allgather,
    Alltoall,
    Gather,
    Scatter,
    ReduceScatter,
}

impl Collective {
    /// Every collective, in a fixed order.
    pub const ALL: [Collective; 9] = [
        Collective::Barrier,
        Collective::Bcast,
        Collective::Reduce,
        Collective::Allreduce,
        Collective::Allgather,
        Collective::Alltoall,
        Collective::Gather,
        Collective::Scatter,
        Collective::ReduceScatter,
    ];

    /// Name in configs and results.
    pub fn name(self) -> &'static str {
        match self {
            Collective::Barrier => "barrier",
            Collective::Bcast => "bcast",
            Collective::Reduce => "reduce",
            Collective::Allreduce => "allreduce",
            Collective::Allgather => "allgather",
            Collective::Alltoall => "alltoall",
            Collective::Gather => "gather",
            Collective::Scatter => "scatter",
            Collective::ReduceScatter => "reduce_scatter",
        }
    }

    /// Parses a name of [`Collective::name`].
    pub fn parse(s: &str) -> Option<Collective> {
        Collective::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// One operation of a rank's program.
///
/// `bytes` of a collective: the buffer for bcast, reduce and allreduce; what
/// each rank contributes for allgather and gather; what each rank receives
/// for scatter and reduce_scatter; what each rank sends to each other rank
/// for alltoall. `counts`, when present (the v-variants of traces: bytes to
/// each rank of the communicator), overrides `bytes` per peer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// Local work (computation, or a trace's gap between calls), ns.
    Compute { ns: f64 },
    /// Blocking send (MPI_Send and its buffered/ready/synchronous forms).
    Send { comm: u32, peer: i32, tag: i32, bytes: u64 },
    /// Blocking receive.
    Recv { comm: u32, peer: i32, tag: i32, bytes: u64 },
    /// Nonblocking send opening request `req`.
    Isend { comm: u32, peer: i32, tag: i32, bytes: u64, req: u32 },
    /// Nonblocking receive opening request `req`.
    Irecv { comm: u32, peer: i32, tag: i32, bytes: u64, req: u32 },
    /// Waits until every listed request has completed (wait, waitall, and
    /// the requests a waitany/waitsome/test call was seen to complete).
    Wait { reqs: Vec<u32> },
    /// A collective over `comm`; blocking unless `req` is given.
    Coll {
        kind: Collective,
        comm: u32,
        #[serde(default)]
        bytes: u64,
        #[serde(default)]
        root: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        counts: Option<Vec<u64>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        req: Option<u32>,
    },
    /// One-sided put of `bytes` into rank `peer`'s memory (no matching at
    /// the target). With `completion = "arrival"` (the default) it
    /// completes when the data has arrived and returns no response; with
    /// `transmit` or `delivery` the target NIC returns a response when the
    /// data has reached that point ([`Completion`]), and the put completes
    /// when the response is in.
    Put {
        comm: u32,
        peer: i32,
        bytes: u64,
        req: u32,
        #[serde(default, skip_serializing_if = "Completion::is_arrival")]
        completion: Completion,
    },
    /// `count` puts of `bytes` each to rank `peer`, posted one after
    /// another as a loop of MPI_Put calls would post them: each costs the
    /// CPU its send overhead, and the rank goes on past this operation
    /// once it has posted the last. Request `req` completes when all have
    /// completed (as MPI_Win_flush would return), so a `Wait` on it ends
    /// a burst. A burst of 10^6 messages ([DeSensi20] Fig. 12) is one
    /// operation, not 10^6. With `flush_each`, each put waits for the one
    /// before it to complete, as a loop of MPI_Put and MPI_Win_flush posts
    /// them (GPCNeT's put incast, one iteration per message); the rank
    /// still goes on at once, to its wait on `req`.
    PutBurst {
        comm: u32,
        peer: i32,
        bytes: u64,
        count: u32,
        req: u32,
        #[serde(default, skip_serializing_if = "Completion::is_arrival")]
        completion: Completion,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        flush_each: bool,
    },
    /// One-sided get of `bytes` from rank `peer`: a request goes out, the
    /// target's NIC returns the data; completes when the data has arrived.
    Get { comm: u32, peer: i32, bytes: u64, req: u32 },
    /// One-sided fetch-and-add of an 8-byte integer at rank `peer`: the
    /// request carries the operand, the target NIC adds it and returns the
    /// old value ([Roweth] Sec. IV-B's fetching AMO). It must run once and
    /// once only, so by default it uses the unrestricted reliability model
    /// (`host.reliability.amo`); completes when the response is in.
    FetchAdd { comm: u32, peer: i32, req: u32 },
    /// A fence in the NIC's command stream ([Roweth] Sec. IV-C): the
    /// one-sided operations the rank posts after it are not issued until
    /// those before it have completed (their responses are back). The rank
    /// does not wait: the NIC holds the operations, in hardware.
    Fence,
    /// Marks the end of one iteration of an iterated workload: the job's
    /// iteration time is the latest of its ranks' marks.
    IterationEnd,
    /// Starts this rank's timer; the next `TimerStop` records the time
    /// since into the job's `timed` distribution (the request latency of a
    /// client-server service, for example).
    TimerStart,
    TimerStop,
}

/// When a put counts as complete at its target, and so when its
/// response leaves ([Roweth] Sec. IV-C).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Completion {
    /// At the target NIC, with no response: the put completes when its
    /// data has arrived (the model before completions were modelled; it
    /// cannot release a fence).
    #[default]
    Arrival,
    /// FI_TRANSMIT_COMPLETE: the response leaves once the data has reached
    /// the point of global ordering in the target NIC, on the NIC's side of
    /// the host interface; enough where there is one path.
    Transmit,
    /// FI_DELIVERY_COMPLETE: the response waits until the data has reached
    /// the point of ordering in the target node's PCIe root complex
    /// (`host.delivery_complete_ns` more); needed with several paths.
    Delivery,
}

impl Completion {
    /// True for the default, which configs and traces need not write.
    pub fn is_arrival(&self) -> bool {
        *self == Completion::Arrival
    }
}

/// The programs of one job's ranks and the communicators they use.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Program {
    /// Number of ranks.
    pub ranks: u32,
    /// Members of each communicator as ranks of the world (communicator 0
    /// is the world: 0..ranks), in communicator rank order.
    pub comms: Vec<Vec<u32>>,
    /// Each rank's operations.
    pub ops: Vec<Vec<Op>>,
    /// What the source of the program (a trace reader) could not represent,
    /// stated rather than dropped silently.
    #[serde(default)]
    pub warnings: Vec<String>,
}

impl Program {
    /// Rank within communicator `comm` of world rank `world` (None: not a member or no such communicator).
    pub fn rank_in(&self, comm: u32, world: usize) -> Option<usize> {
        self.comms.get(comm as usize)?.iter().position(|&r| r as usize == world)
    }

    /// An empty program of `ranks` ranks with the world communicator.
    pub fn new(ranks: u32) -> Program {
        Program { ranks, comms: vec![(0..ranks).collect()], ops: vec![Vec::new(); ranks as usize], warnings: Vec::new() }
    }
}
