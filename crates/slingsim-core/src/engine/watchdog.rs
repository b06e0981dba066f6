//! Deadlock watchdog (MODEL.md Sec. 1): if no packet has moved for
//! `sim.watchdog_ns` while packets are in the fabric, the run ends and
//! reports the buffers that hold them.

use super::{EndReason, Simulation};
use crate::event::Event;
use crate::network::End;
use serde_json::json;

/// At most this many stuck buffers are listed.
const MAX_REPORTED: usize = 50;

impl Simulation {
    pub(crate) fn on_watchdog(&mut self) {
        if self.pool.live() > 0 && self.now.saturating_sub(self.last_progress) >= self.watchdog {
            self.declare_deadlock();
            return;
        }
        let next = self.now + self.watchdog;
        if next <= self.end {
            self.events.push(next, Event::Watchdog);
        }
    }

    /// Ends the run and lists the queues that hold packets.
    pub(crate) fn declare_deadlock(&mut self) {
        let n = self.n_vcs;
        for (c, ch) in self.net.channels.iter().enumerate() {
            if self.tx[c].queued_packets == 0 {
                continue;
            }
            let at = match ch.src {
                End::Switch { switch, port } => format!("switch {switch} port {port}"),
                End::Endpoint(e) => format!("endpoint {e}"),
            };
            let to = match ch.dst {
                End::Switch { switch, port } => format!("switch {switch} port {port}"),
                End::Endpoint(e) => format!("endpoint {e}"),
            };
            let vcs: Vec<_> = (0..n)
                .filter(|&v| !self.queues[c * n + v].is_empty())
                .map(|v| json!({"vc": v, "credits_bytes": self.credits[c * n + v]}))
                .collect();
            self.stuck.push(json!({
                "channel": c,
                "kind": ch.kind.name(),
                "output": at,
                "to": to,
                "queued_packets": self.tx[c].queued_packets,
                "queued_bytes": self.tx[c].queued_bytes,
                "blocked_vcs": vcs,
            }));
            if self.stuck.len() >= MAX_REPORTED {
                break;
            }
        }
        self.finish(EndReason::Deadlock);
    }
}
