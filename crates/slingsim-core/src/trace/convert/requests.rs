//! One rank's request handles mapped to the program's request ids.
//!
//! A traced handle is the MPI library's: MPICH hands every send that
//! completed at once the same handle, so several live requests can share a
//! handle, and handles are reused once freed. Each nonblocking call opens a
//! fresh id (the lowest one no open request holds) queued under its handle;
//! a completion of that handle closes the oldest id queued under it.
//! Persistent requests (MPI_*_init) keep their handle's operation so each
//! MPI_Start opens it anew.

use std::collections::{BTreeSet, HashMap, VecDeque};

use crate::mpi::Op;

/// DUMPI's handles of MPI_REQUEST_NULL (and of an invalid request).
pub fn is_null(handle: u32) -> bool {
    handle <= 1
}

/// What closing a handle found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// The oldest open request under the handle.
    Request(u32),
    /// A request whose operation was dropped from the program.
    Dropped,
    /// No request is open under the handle.
    Unknown,
}

/// One rank's open requests.
#[derive(Clone, Debug, Default)]
pub struct RequestIds {
    /// Per handle, the open requests oldest first (None: an operation that
    /// was dropped from the program, whose completion is dropped too).
    open: HashMap<u32, VecDeque<Option<u32>>>,
    held: BTreeSet<u32>,
    persistent: HashMap<u32, Op>,
}

impl RequestIds {
    /// A fresh id, held until released.
    pub fn take_id(&mut self) -> u32 {
        let id = (0..).find(|i| !self.held.contains(i)).expect("fewer than 2^32 open requests");
        self.held.insert(id);
        id
    }

    /// Releases an id taken with [`RequestIds::take_id`].
    pub fn release(&mut self, id: u32) {
        self.held.remove(&id);
    }

    /// Opens a request under `handle` and returns its id.
    pub fn open(&mut self, handle: u32) -> u32 {
        let id = self.take_id();
        self.open.entry(handle).or_default().push_back(Some(id));
        id
    }

    /// Notes a request under `handle` whose operation the program leaves out.
    pub fn open_dropped(&mut self, handle: u32) {
        self.open.entry(handle).or_default().push_back(None);
    }

    /// Closes the oldest request open under `handle`.
    pub fn close(&mut self, handle: u32) -> Closed {
        let Some(queue) = self.open.get_mut(&handle) else { return Closed::Unknown };
        let oldest = queue.pop_front().flatten();
        if queue.is_empty() {
            self.open.remove(&handle);
        }
        match oldest {
            Some(id) => {
                self.release(id);
                Closed::Request(id)
            }
            None => Closed::Dropped,
        }
    }

    /// Requests opened but never completed by a recorded call.
    pub fn still_open(&self) -> usize {
        self.open.values().flatten().filter(|r| r.is_some()).count()
    }

    /// MPI_Request_free: the handle is gone but its operation still runs,
    /// so its id stays held (it is never waited for).
    pub fn forget(&mut self, handle: u32) {
        if let Some(queue) = self.open.get_mut(&handle) {
            queue.pop_front();
            if queue.is_empty() {
                self.open.remove(&handle);
            }
        } else {
            self.persistent.remove(&handle);
        }
    }

    /// Stores the operation of a persistent request (its `req` is replaced at each start).
    pub fn keep_persistent(&mut self, handle: u32, op: Op) {
        self.persistent.insert(handle, op);
    }

    /// The operation of persistent request `handle`, opened as a new request.
    pub fn start(&mut self, handle: u32) -> Option<Op> {
        let mut op = self.persistent.get(&handle)?.clone();
        let id = self.open(handle);
        match &mut op {
            Op::Isend { req, .. } | Op::Irecv { req, .. } => *req = id,
            _ => {}
        }
        Some(op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_handle_queues_its_requests() {
        // MPICH: six immediately-completed sends all under handle 8, then a
        // Waitall listing 8 six times.
        let mut r = RequestIds::default();
        let recv = r.open(2);
        let sends: Vec<u32> = (0..6).map(|_| r.open(8)).collect();
        assert_eq!((recv, sends.clone()), (0, vec![1, 2, 3, 4, 5, 6]));
        let closed: Vec<Closed> = (0..6).map(|_| r.close(8)).collect();
        assert_eq!(closed, sends.iter().map(|&id| Closed::Request(id)).collect::<Vec<_>>());
        assert_eq!(r.close(8), Closed::Unknown);
        r.open_dropped(8);
        assert_eq!(r.close(8), Closed::Dropped);
        // Ids are reused once closed: the lowest free one first.
        assert_eq!(r.open(9), 1);
        r.forget(2);
        assert_eq!(r.open(3), 2);
    }

    #[test]
    fn persistent_requests_open_at_each_start() {
        let mut r = RequestIds::default();
        r.keep_persistent(5, Op::Isend { comm: 0, peer: 1, tag: 0, bytes: 8, req: 0 });
        let first = r.start(5).unwrap();
        assert_eq!(r.close(5), Closed::Request(0));
        let again = r.start(5).unwrap();
        assert_eq!(first, again);
        assert!(r.start(6).is_none());
    }
}
