//! Run-time state of jobs and ranks: requests, running collectives, and the
//! matching queues of MPI's two-sided semantics (a receive takes the first
//! message, in arrival order, whose communicator, source and tag fit; the
//! messages of one sender to one receiver are matched in the order sent).

use super::collectives::Round;
use super::op::{ANY_SOURCE, ANY_TAG};
use crate::metrics::Histogram;
use crate::units::Ps;
use std::collections::{BTreeMap, HashMap, VecDeque};

/// Tag space of point-to-point messages vs collectives' internal ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    PointToPoint,
    Collective,
    /// An MPI_Alltoall's messages: Cray MPICH routes them apart on Aries
    /// (`mpi.gni_a2a_routing`).
    Alltoall,
}

/// What a message carries to its receiver, used for matching.
#[derive(Clone, Copy, Debug)]
pub struct Envelope {
    /// Sender and receiver as global rank indices.
    pub src: u32,
    pub dst: u32,
    pub comm: u32,
    /// Sender's rank within `comm`.
    pub src_in_comm: i32,
    pub tag: i32,
    pub ctx: Context,
    pub bytes: u64,
    /// Per (sender, receiver) sequence number: messages match in this order.
    pub seq: u64,
    /// Sender's request slot (completed by a rendezvous' data).
    pub send_req: u32,
    /// Rendezvous (a request to send) rather than eager data.
    pub rendezvous: bool,
    /// When the sender posted it.
    pub posted: Ps,
    /// When a rendezvous message's stages ended, so far.
    pub stages: super::rendezvous_times::Stamps,
}

/// A posted receive.
#[derive(Clone, Copy, Debug)]
pub struct PostedRecv {
    pub comm: u32,
    pub peer: i32,
    pub tag: i32,
    pub ctx: Context,
    pub req: u32,
}

impl PostedRecv {
    /// True if `e` matches this receive.
    pub fn matches(&self, e: &Envelope) -> bool {
        self.ctx == e.ctx && self.comm == e.comm && (self.peer == ANY_SOURCE || self.peer == e.src_in_comm) && (self.tag == ANY_TAG || self.tag == e.tag)
    }
}

/// Who is told when a request completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// The rank's program (a user request or a blocking call).
    Program,
    /// A round of the rank's running collective of this index.
    Collective(u32),
    /// One put of the rank's put burst of this index ([`PutBurstRun`]).
    Burst(u32),
}

/// One request of a rank.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    pub done: bool,
    /// When it completed (a receive completes after the receive overhead).
    pub done_at: Ps,
    pub owner: Owner,
    /// Point-to-point user receive: record its message latency.
    pub timed_recv: bool,
}

/// A collective a rank is running.
#[derive(Clone, Debug)]
pub struct CollRun {
    /// Context its messages travel in.
    pub ctx: Context,
    pub comm: u32,
    pub tag: i32,
    pub rounds: Vec<Round>,
    pub round: usize,
    /// Requests of the current round not yet complete.
    pub pending: u32,
    /// The request the program waits on.
    pub req: u32,
    pub live: bool,
    /// When the current round's last request completed (plus reductions).
    pub ready: Ps,
    /// The first round has been posted.
    pub started: bool,
}

/// Stores `run` in the first entry of `runs` that `done` says is over, or
/// in a new one; returns its index. A rank's collectives and put bursts
/// reuse their finished entries this way.
pub fn reuse_or_push<T>(runs: &mut Vec<T>, run: T, done: impl Fn(&T) -> bool) -> u32 {
    match runs.iter().position(done) {
        Some(i) => {
            runs[i] = run;
            i as u32
        }
        None => {
            runs.push(run);
            (runs.len() - 1) as u32
        }
    }
}

/// A put burst a rank is posting or waiting for (`Op::PutBurst`); over
/// once nothing is left to post or to complete.
#[derive(Clone, Copy, Debug)]
pub struct PutBurstRun {
    /// The request the program waits on.
    pub slot: u32,
    pub comm: u32,
    pub peer: i32,
    pub bytes: u64,
    pub completion: super::op::Completion,
    /// Each put waits for the one before it to complete (MPI_Win_flush
    /// after every MPI_Put).
    pub flush_each: bool,
    /// Puts still to post, and posted puts not yet complete.
    pub to_post: u32,
    pub pending: u32,
    /// When the latest completed put completed.
    pub last: Ps,
}

impl PutBurstRun {
    /// Every put posted and complete (the entry may be reused).
    pub fn over(&self) -> bool {
        self.to_post == 0 && self.pending == 0
    }
}

/// A one-sided operation the CPU has posted, as its NIC holds it.
#[derive(Clone, Copy, Debug)]
pub struct RmaOp {
    pub kind: RmaKind,
    /// Target (global rank), payload, request slot.
    pub dst: u32,
    pub bytes: u64,
    pub slot: u32,
    /// When the CPU's command was written.
    pub posted: Ps,
}

/// The kinds of one-sided operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmaKind {
    Put(super::op::Completion),
    Get,
    FetchAdd,
}

/// What waits in a NIC's command queue behind a fence.
#[derive(Clone, Copy, Debug)]
pub enum Held {
    Op(RmaOp),
    Fence,
}

/// What a rank is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocked {
    /// Runs its next operation when the clock reaches `ready_at`.
    No,
    /// Waits for requests to complete.
    Wait,
    /// Its program is over.
    Done,
}

/// One rank (an MPI process).
#[derive(Clone, Debug)]
pub struct Rank {
    pub job: u32,
    /// Rank in the job's world.
    pub world: u32,
    pub node: u32,
    pub pc: usize,
    pub blocked: Blocked,
    pub ready_at: Ps,
    /// A wake-up event is pending at this time (NEVER if none).
    pub wake_at: Ps,
    pub reqs: Vec<Request>,
    pub free_reqs: Vec<u32>,
    /// Program request id -> live slot.
    pub req_ids: HashMap<u32, u32>,
    /// Slots the program waits on.
    pub waiting: Vec<u32>,
    pub colls: Vec<CollRun>,
    /// Collectives started per communicator (their tag).
    pub coll_seq: HashMap<u32, i32>,
    pub posted: Vec<PostedRecv>,
    /// One-sided operations the NIC has issued that have not completed,
    /// and those it holds behind a fence ([`Held`]).
    pub rma_in_flight: u32,
    pub rma_held: VecDeque<Held>,
    /// Put bursts the rank is posting or waiting for, and the one it is
    /// posting now (its program goes on once the last put is posted; a
    /// burst that flushes each put is never posting: its program goes on
    /// after the first, and each completion posts the next).
    pub bursts: Vec<PutBurstRun>,
    pub posting: Option<u32>,
    /// The 8-byte integer fetch-and-adds at this rank add to.
    pub amo_value: u64,
    /// Until when this rank's CPU is busy with MPI work. One core runs a
    /// rank's MPI layer, so its work queues here: posting sends (the
    /// software layers' send time and the eager copy), completing receives
    /// (their receive time and copy) and, with software matching, walking
    /// the posted receives ([`crate::host::matching`]). Compute is not
    /// counted: a rank's receives complete during its compute as if its
    /// MPI progressed there.
    pub cpu_busy: Ps,
    /// The MPI work this rank's CPU has done: the sum of every cost queued
    /// at `cpu_busy`, without host noise's detours (`detoured`) and without
    /// the time the CPU stood idle between them.
    pub cpu_work: Ps,
    pub unexpected: Vec<(Envelope, Ps)>,
    /// Next sequence number to each receiver, and expected from each sender.
    pub send_seq: HashMap<u32, u64>,
    pub recv_seq: HashMap<u32, u64>,
    /// Envelopes that arrived ahead of an earlier one from the same sender.
    pub early: BTreeMap<(u32, u64), (Envelope, Ps)>,
    pub iteration: u32,
    pub timer: Ps,
    /// When the current pass through the program began (repeating jobs).
    pub pass_start: Ps,
    /// When the rank first posted a message (a send, a collective's send or
    /// a one-sided operation; `Ps::MAX`: never) and when the last of its
    /// requests completed: [McGlohon19] Sec. 6.2's communication time of a
    /// rank runs from the first to the last.
    pub first_message: Ps,
    pub last_completion: Ps,
    /// When the rank reached the end of its program (`Ps::MAX`: not yet).
    pub done_at: Ps,
    /// When its CPU's next detour begins (`Ps::MAX`: no host noise), and
    /// the time detours held the rank up ([`crate::host::noise`]).
    pub next_detour: Ps,
    pub detoured: Ps,
}

impl Rank {
    pub fn new(job: u32, world: u32, node: u32) -> Rank {
        Rank {
            job,
            world,
            node,
            pc: 0,
            blocked: Blocked::No,
            ready_at: Ps::ZERO,
            wake_at: Ps::MAX,
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            req_ids: HashMap::new(),
            waiting: Vec::new(),
            colls: Vec::new(),
            coll_seq: HashMap::new(),
            posted: Vec::new(),
            cpu_busy: Ps::ZERO,
            cpu_work: Ps::ZERO,
            rma_in_flight: 0,
            rma_held: VecDeque::new(),
            bursts: Vec::new(),
            posting: None,
            amo_value: 0,
            unexpected: Vec::new(),
            send_seq: HashMap::new(),
            recv_seq: HashMap::new(),
            early: BTreeMap::new(),
            iteration: 0,
            timer: Ps::ZERO,
            pass_start: Ps::ZERO,
            first_message: Ps::MAX,
            last_completion: Ps::ZERO,
            done_at: Ps::MAX,
            next_detour: Ps::MAX,
            detoured: Ps::ZERO,
        }
    }

    /// A new request slot.
    pub fn open(&mut self, owner: Owner, timed_recv: bool) -> u32 {
        let r = Request { done: false, done_at: Ps::ZERO, owner, timed_recv };
        match self.free_reqs.pop() {
            Some(i) => {
                self.reqs[i as usize] = r;
                i
            }
            None => {
                self.reqs.push(r);
                (self.reqs.len() - 1) as u32
            }
        }
    }

    /// True when every request the program waits on is done.
    pub fn wait_satisfied(&self) -> bool {
        self.waiting.iter().all(|&s| self.reqs[s as usize].done)
    }

    /// Frees the slots of a satisfied wait.
    pub fn release_waiting(&mut self) {
        for s in std::mem::take(&mut self.waiting) {
            self.free_reqs.push(s);
        }
    }
}

/// One job at run time.
#[derive(Clone, Debug)]
pub struct Job {
    pub name: String,
    /// Traffic source its packets are counted under.
    pub source: u16,
    pub first_rank: u32,
    pub ranks: u32,
    pub ppn: u32,
    pub nodes: Vec<u32>,
    pub program: super::Program,
    /// For each communicator, the rank within it of each world rank (-1:
    /// not a member).
    pub comm_rank: Vec<Vec<i32>>,
    pub alg: u8,
    /// Routing chosen per message by application-aware routing (paper 004),
    /// how many network messages went with each of its two modes, how many
    /// of them it decided (the rest went with high bias below its
    /// threshold), and in how many decisions a rank changed mode.
    pub app_aware: bool,
    pub mode_messages: [u64; 2],
    pub mode_decisions: u64,
    pub mode_switches: u64,
    pub class: u8,
    pub repeat: bool,
    pub start: Ps,
    pub end: Ps,
    pub ranks_done: u32,
    /// Latest mark of each iteration over the ranks.
    pub iteration_marks: Vec<Ps>,
    pub ranks_at_mark: Vec<u32>,
    /// Network latency (ps) summed over the job's measured packets
    /// delivered since its last iteration completed, and how many; and
    /// per completed iteration, their mean (None: no packet), as NIC
    /// latency counters read once per iteration would give it.
    pub packet_latency_since: (u128, u64),
    pub iteration_packet_latency: Vec<Option<f64>>,
    /// The job's stopping rule, the iteration after which its ranks stop
    /// once the rule is met (the one the furthest rank was in), and the
    /// median interval it last checked.
    pub stop: Option<super::stop_rule::StopRule>,
    pub stop_after: Option<u32>,
    /// Iterations the job had run when its rule was met.
    pub stop_met_at: Option<u32>,
    pub stop_interval: Option<super::stop_rule::MedianInterval>,
    /// Point-to-point message latency (send posted to receive complete),
    /// and the rank timers' distribution.
    pub message_latency: Histogram,
    pub timed: Histogram,
    /// Per iteration, the first timer start and the last timer stop over
    /// the job's ranks: the span the ranks' timed work covers together,
    /// where ranks that start at different times make any one rank's span
    /// too short.
    pub timed_windows: Vec<(Ps, Ps)>,
    /// Messages and bytes the ranks sent (user point-to-point, one-sided,
    /// and collectives' internal messages), network or memory.
    pub messages: u64,
    pub bytes: u64,
    pub collective_messages: u64,
    pub memory_messages: u64,
    /// Programs run through (repeating jobs).
    pub passes: u64,
    /// Waits on request ids no operation opened (traces whose tracer did
    /// not record the call that opened them).
    pub unknown_waits: u64,
    /// Network messages that lost bytes (end-to-end retries exhausted) and
    /// the bytes lost: such a message never arrives, so whatever waits on
    /// it waits for good and the job does not finish.
    pub lost_messages: u64,
    pub lost_bytes: u64,
    /// Two-sided messages matched at the job's ranks, and the posted
    /// receives their walks passed over (failed match attempts).
    pub matched_messages: u64,
    pub failed_match_attempts: u64,
    /// Where the job's rendezvous messages spent their time.
    pub rendezvous: super::rendezvous_times::RendezvousTimes,
    /// How far apart the ranks finish each round of the job's collectives.
    pub round_spread: super::round_spread::RoundSpread,
    /// The run ends once every job with this set has finished.
    pub ends_run: bool,
}

/// A message of the MPI layer on its way.
#[derive(Clone, Copy, Debug)]
pub enum Wire {
    /// Eager data or a rendezvous request to send.
    Envelope(Envelope),
    /// Clear to send: the receiver matched a rendezvous.
    ClearToSend { env: Envelope, recv_req: u32 },
    /// Rendezvous data.
    Data { env: Envelope, recv_req: u32 },
    /// One-sided put data to `dst`; completes `req` of `src`. `op` is the
    /// operation's run-wide id (the result store's key).
    Put { src: u32, dst: u32, req: u32, op: u64, completion: super::op::Completion },
    /// The target NIC's response to a put with a completion.
    PutAck { src: u32, req: u32, op: u64 },
    /// Get request to the target, then its data back.
    GetRequest { src: u32, dst: u32, bytes: u64, req: u32, op: u64 },
    GetData { src: u32, req: u32, op: u64 },
    /// A fetch-and-add request and its response; `sent` is when the
    /// initiator last sent the request, from which its retry timer runs;
    /// `resent`: its NIC's retry sent it; `ran`: the operation has run at
    /// the target already (a response was lost).
    AmoRequest { src: u32, dst: u32, req: u32, op: u64, sent: Ps, resent: bool, ran: bool },
    AmoResponse { src: u32, req: u32, op: u64, sent: Ps },
}

impl Wire {
    /// The context of the message this belongs to (none for one-sided operations).
    /// True for what a NIC sends on its own (responses, and requests its
    /// retry resends): no CPU command, so no host send latency.
    pub fn from_nic(&self) -> bool {
        matches!(self, Wire::PutAck { .. } | Wire::AmoResponse { .. } | Wire::AmoRequest { resent: true, .. })
    }

    pub fn context(&self) -> Option<Context> {
        match self {
            Wire::Envelope(env) | Wire::ClearToSend { env, .. } | Wire::Data { env, .. } => Some(env.ctx),
            _ => None,
        }
    }
}
