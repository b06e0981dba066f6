//! One-sided operations in the NIC ([Roweth] Sec. IV-B, IV-C): puts, gets
//! and fetch-and-adds, the fences that order them, the completions that
//! release fences, and the reliability models that decide what a retried
//! request does at its target.
//!
//! A fence is a command in the NIC's queue: the rank goes on posting, and
//! the NIC holds every one-sided operation posted after the fence until
//! those before it have completed, that is until their responses are back
//! at the initiator's NIC (a put's completion response, a get's data, an
//! AMO's result). A put's response leaves the target NIC once its data is
//! there (transmit completion) or once the data has also reached the
//! target's PCIe root complex (delivery completion,
//! `host.delivery_complete_ns` later). Responses are made by the NICs:
//! they pay no host send latency; the initiator's CPU sees a completion
//! `host.nic_recv_latency_ns` after its NIC, but a fence is released by
//! the NIC itself.

use super::Simulation;
use crate::host::reliability::{Arrival, OpKey};
use crate::host::ReliabilityModel;
use crate::mpi::op::{Completion, PROC_NULL};
use crate::mpi::state::{Held, Owner, RmaKind, RmaOp, Wire};
use crate::units::Ps;

/// Payload of a fetch-and-add request (the operand) and of its response
/// (the old value).
pub const AMO_BYTES: u64 = 8;

impl Simulation {
    /// Rank `g` posts a one-sided operation on `peer` of `comm`, its
    /// command written at `at`; returns its request slot, which tells
    /// `owner` when it completes. Behind a fence the NIC holds it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn mpi_rma_post(&mut self, g: u32, comm: u32, peer: i32, bytes: u64, kind: RmaKind, at: Ps, owner: Owner) -> u32 {
        let slot = self.mpi.ranks[g as usize].open(owner, false);
        if peer == PROC_NULL {
            self.mpi_complete(g, slot, self.clock.now);
            return slot;
        }
        let dst = self.mpi_peer(g, comm, peer);
        let rt = &mut self.mpi;
        let r = &mut rt.ranks[g as usize];
        r.first_message = r.first_message.min(self.clock.now);
        let job = &mut rt.jobs[r.job as usize];
        job.messages += 1;
        job.bytes += bytes;
        let op = RmaOp { kind, dst, bytes, slot, posted: at };
        if r.rma_held.is_empty() {
            self.mpi_rma_issue(g, op, Ps::ZERO);
        } else {
            r.rma_held.push_back(Held::Op(op));
        }
        slot
    }

    /// A fence: later operations wait for those in flight.
    pub(super) fn mpi_fence(&mut self, g: u32) {
        let r = &mut self.mpi.ranks[g as usize];
        if r.rma_in_flight > 0 || !r.rma_held.is_empty() {
            r.rma_held.push_back(Held::Fence);
        }
    }

    /// The NIC issues `op` of rank `g`, not before `not_before`.
    fn mpi_rma_issue(&mut self, g: u32, op: RmaOp, not_before: Ps) {
        let rt = &mut self.mpi;
        rt.ranks[g as usize].rma_in_flight += 1;
        let id = rt.next_op;
        rt.next_op += 1;
        let (src, dst, req) = (g, op.dst, op.slot);
        let (size, wire) = match op.kind {
            RmaKind::Put(completion) => (op.bytes, Wire::Put { src, dst, req, op: id, completion }),
            RmaKind::Get => (rt.p().control_bytes, Wire::GetRequest { src, dst, bytes: op.bytes, req, op: id }),
            RmaKind::FetchAdd => {
                rt.amo_ops += 1;
                (AMO_BYTES, Wire::AmoRequest { src, dst, req, op: id, sent: op.posted, resent: false, ran: false })
            }
        };
        self.mpi_ship_after(g, dst, size, wire, op.posted, not_before);
    }

    /// One of rank `g`'s operations completed at its NIC at `t`: when none
    /// is left in flight, the operations held behind fences go out, up to
    /// the next fence that still has something to wait for.
    fn mpi_rma_landed(&mut self, g: u32, t: Ps) {
        let r = &mut self.mpi.ranks[g as usize];
        r.rma_in_flight -= 1;
        loop {
            let r = &mut self.mpi.ranks[g as usize];
            match r.rma_held.front().copied() {
                Some(Held::Fence) if r.rma_in_flight == 0 => {
                    r.rma_held.pop_front();
                }
                Some(Held::Op(op)) => {
                    r.rma_held.pop_front();
                    self.mpi_rma_issue(g, op, t);
                }
                _ => return,
            }
        }
    }

    /// What message `id` does when it reaches its destination's NIC at
    /// `t` (or, between ranks of a node, its memory): responses release
    /// fences, an AMO runs in the NIC. Returns true when the message is
    /// consumed there and the host has nothing to do with it.
    pub(super) fn mpi_at_nic(&mut self, id: u32, t: Ps) -> bool {
        let w = self.mpi.wires[id as usize];
        let models = self.mpi.p().host.reliability;
        let here = self.mpi.ranks[w.to as usize].node;
        let there = self.mpi.ranks[w.from as usize].node;
        match w.wire {
            Wire::Put { src, dst, req, op, completion } => {
                let key = OpKey { node: here, op };
                self.mpi_run_idempotent(key, models.put);
                let delay = match completion {
                    Completion::Arrival => {
                        self.mpi.store.release(key);
                        self.mpi_rma_landed(src, t);
                        return false; // the put completes when the host has it, as before
                    }
                    Completion::Transmit => Ps::ZERO,
                    Completion::Delivery => self.mpi.p().host.delivery_complete,
                };
                self.mpi.take_wire(id);
                self.mpi_ship(dst, src, 0, Wire::PutAck { src, req, op }, t + delay);
                true
            }
            Wire::AmoRequest { src, dst, req, op, sent, ran, .. } => {
                self.mpi.take_wire(id);
                let key = OpKey { node: here, op };
                // A hit answers from the store; otherwise the NIC adds 1
                // to the target's integer (the old value rides the response).
                if self.mpi.store.arrive(key, models.amo, ran, false) == Arrival::Execute {
                    let r = &mut self.mpi.ranks[dst as usize];
                    let old = r.amo_value;
                    r.amo_value += 1;
                    self.mpi.amo_runs += 1;
                    if models.amo == ReliabilityModel::Unrestricted {
                        self.mpi.store.store(key, old);
                    }
                }
                self.mpi_ship(dst, src, AMO_BYTES, Wire::AmoResponse { src, req, op, sent }, t);
                true
            }
            Wire::PutAck { src, op, .. } | Wire::GetData { src, op, .. } | Wire::AmoResponse { src, op, .. } => {
                self.mpi.store.release(OpKey { node: there, op });
                self.mpi_rma_landed(src, t);
                false
            }
            _ => false,
        }
    }

    /// An idempotent operation (put, get) runs at its target: under the
    /// unrestricted model its result is kept until it completes.
    pub(super) fn mpi_run_idempotent(&mut self, key: OpKey, model: ReliabilityModel) {
        if self.mpi.store.arrive(key, model, false, true) == Arrival::Execute && model == ReliabilityModel::Unrestricted {
            self.mpi.store.store(key, 0);
        }
    }

    /// True when packet `h` belongs to a fetch-and-add request or
    /// response: if it is lost, the initiator recovers by resending its
    /// request when its retry timer expires, rather than the packet's own
    /// NIC resending it.
    pub(crate) fn mpi_recovers_by_request(&self, h: crate::ids::PacketId) -> bool {
        // Only a data packet's message is an MPI message (an ack's fields mean other things).
        if !self.mpi.active() || self.pool.hot(h).kind != crate::packet::PacketKind::Data {
            return false;
        }
        let msg = self.pool.cold(h).msg;
        if msg == crate::network::NONE {
            return false;
        }
        let flow = self.nics.messages[msg as usize].flow;
        let id = self.flows.records[flow as usize].mpi;
        id != crate::network::NONE && matches!(self.mpi.wires[id as usize].wire, Wire::AmoRequest { .. } | Wire::AmoResponse { .. })
    }

    /// Fetch-and-add request or response `id` was lost: the initiator's
    /// retry timer, running since it sent the request, expires and its NIC
    /// resends the request. After a lost request the operation has not run
    /// (the resend is as safe as the first); after a lost response it has,
    /// and the target's reliability model decides what the resend does.
    /// Returns false for any other message.
    pub(super) fn mpi_amo_lost(&mut self, id: u32) -> bool {
        let w = self.mpi.wires[id as usize];
        let (src, target, req, op, sent, ran) = match w.wire {
            Wire::AmoRequest { src, dst, req, op, sent, ran, .. } => {
                self.mpi.store.lost_requests += 1;
                (src, dst, req, op, sent, ran)
            }
            Wire::AmoResponse { src, req, op, sent } => {
                self.mpi.store.lost_responses += 1;
                (src, w.from, req, op, sent, true)
            }
            _ => return false,
        };
        self.mpi.take_wire(id);
        let at = self.clock.now.max(sent + self.reliability.retry_timeout);
        self.mpi_ship(src, target, AMO_BYTES, Wire::AmoRequest { src, dst: target, req, op, sent: at, resent: true, ran }, at);
        true
    }
}
