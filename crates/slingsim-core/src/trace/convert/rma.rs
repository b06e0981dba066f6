//! One-sided (RMA) calls turned into `put` and `get` operations.
//!
//! MPI_Win_create ties a window to a communicator (an allgather of 8 bytes
//! per rank, the exchange of window addresses). MPI_Put and MPI_Accumulate
//! become `put`s, MPI_Get a `get`, each opening a request; the window's
//! synchronisation that completes them (MPI_Win_fence, _complete, _unlock,
//! _free) becomes a `wait` on the window's open requests, and a fence or
//! free a barrier as well. Lock, post, start, wait and test are counted in
//! the warnings and otherwise not replayed.

use super::collectives::CREATION_BYTES;
use super::rank::RankConverter;
use crate::mpi::op::Completion;
use crate::mpi::{Collective, Op};
use crate::trace::dumpi::Call;

/// A window: its communicator and its operations not yet completed.
#[derive(Clone, Debug, Default)]
pub struct Window {
    comm: u32,
    open: Vec<u32>,
}

impl RankConverter<'_> {
    /// An MPI_Win_* call, MPI_Put, MPI_Get or MPI_Accumulate.
    pub(super) fn one_sided(&mut self, call: &Call) {
        let Some(win) = call.handle("win") else { return };
        match call.name {
            "MPI_Win_create" => {
                let Some(comm) = self.comm_id(call, "comm") else { return };
                self.windows.insert(win, Window { comm, open: Vec::new() });
                self.ops.push(Op::Coll { kind: Collective::Allgather, comm, bytes: CREATION_BYTES, root: 0, counts: None, req: None });
            }
            "MPI_Put" | "MPI_Accumulate" | "MPI_Get" => self.access(call, win),
            "MPI_Win_fence" | "MPI_Win_free" => {
                self.complete_window(win);
                if let Some(w) = self.windows.get(&win) {
                    let comm = w.comm;
                    self.ops.push(Op::Coll { kind: Collective::Barrier, comm, bytes: 0, root: 0, counts: None, req: None });
                }
                if call.name == "MPI_Win_free" {
                    self.windows.remove(&win);
                }
            }
            "MPI_Win_complete" | "MPI_Win_unlock" => self.complete_window(win),
            "MPI_Win_lock" | "MPI_Win_post" | "MPI_Win_start" | "MPI_Win_wait" | "MPI_Win_test" => {
                self.warnings.add("{n} RMA synchronisation calls (MPI_Win_lock/post/start/wait/test) not replayed");
            }
            _ => {}
        }
    }

    fn access(&mut self, call: &Call, win: u16) {
        let Some(comm) = self.windows.get(&win).map(|w| w.comm) else {
            self.warnings.add("{n} one-sided operations on a window no recorded MPI_Win_create made, dropped");
            return;
        };
        let peer = call.int("targetrank").unwrap_or(-1);
        if peer < 0 || peer as usize >= self.comm_size(comm) {
            self.warnings.add("{n} point-to-point operations with a peer outside their communicator, dropped");
            return;
        }
        let bytes = self.bytes(call, call.int("origincount").unwrap_or(0), "origintype");
        let req = self.requests.take_id();
        self.ops.push(match call.name {
            "MPI_Get" => Op::Get { comm, peer, bytes, req },
            _ => Op::Put { comm, peer, bytes, req, completion: Completion::Arrival },
        });
        if let Some(w) = self.windows.get_mut(&win) {
            w.open.push(req);
        }
    }

    /// Waits for every operation open on window `win`.
    fn complete_window(&mut self, win: u16) {
        let Some(w) = self.windows.get_mut(&win) else { return };
        let reqs = std::mem::take(&mut w.open);
        for &r in &reqs {
            self.requests.release(r);
        }
        if !reqs.is_empty() {
            self.ops.push(Op::Wait { reqs });
        }
    }
}
