//! The MPI layer driven by the engine's clock: ranks run their programs,
//! post sends and receives, match messages and run collectives round by
//! round (MODEL.md Sec. 7). Messages between nodes travel as tracked
//! messages through the NIC and network; between ranks of one node they
//! arrive through memory after `mpi.memory_latency_ns` plus the copy time.
//!
//! Protocols: a message up to `mpi.eager_threshold_bytes` goes eagerly and
//! its send completes when the data has arrived (a Cassini-like NIC reports
//! a send complete on the target's acknowledgement, so a rank cannot pile
//! up unbounded eager sends behind a slow receiver); a larger one sends a
//! request to send, the receiver answers clear-to-send when a receive
//! matches, and the data follows; both sides complete when it has arrived. Posting a
//! send costs the rank the CPU time of its software layers
//! ([`crate::host`]: verbs, libfabric, MPI); between nodes the NIC then
//! takes `host.nic_send_latency_ns` (plus a DMA read above
//! `host.inline_bytes`) to put it on the wire, and the receiving NIC
//! `host.nic_recv_latency_ns` to hand it to the host; a receive completes
//! the receive side's CPU time after that, and after the walk over the
//! posted receives that matched it ([`crate::host::matching`]). One-sided
//! operations are in `rma.rs`.

mod collectives;
mod matching;
mod messages;
mod program;

use super::Simulation;
use crate::mpi::state::Blocked;

impl Simulation {
    /// True when jobs still have to finish but nothing can move them: no
    /// packet, ack or MPI message in flight, no rank computing, some waiting.
    pub(crate) fn mpi_stalled(&self) -> bool {
        self.mpi.jobs_left > 0
            && self.pool.live() == 0
            // An ack on its way may free a NIC held by its window or outstanding limit.
            && self.signals.pending() == 0
            && self.mpi.wires_live == 0
            && !self.mpi.ranks.iter().any(|r| r.blocked == Blocked::No)
            && self.mpi.ranks.iter().any(|r| r.blocked == Blocked::Wait)
    }

    /// Schedules every rank's start.
    pub(crate) fn mpi_schedule_starts(&mut self) {
        let noise = self.mpi.p().noise;
        if noise.is_some() {
            self.mpi.noise_rng = Some(crate::rng::Rng::new(self.cfg.sim.seed, 0x4015E));
        }
        for g in 0..self.mpi.ranks.len() as u32 {
            let start = self.mpi.jobs[self.mpi.ranks[g as usize].job as usize].start;
            if let (Some(d), Some(rng)) = (noise, self.mpi.noise_rng.as_mut()) {
                self.mpi.ranks[g as usize].next_detour = d.first(start, rng);
            }
            self.mpi.ranks[g as usize].ready_at = start;
            self.mpi.ranks[g as usize].pass_start = start;
            self.mpi_wake(g, start);
        }
    }
}
