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
        let c = &self.clock;
        if self.pool.live() > 0 && c.now.saturating_sub(c.last_progress) >= c.watchdog {
            self.declare_deadlock();
            return;
        }
        if self.mpi_stalled() {
            self.finish(EndReason::JobsStalled);
            return;
        }
        let next = self.clock.now + self.clock.watchdog;
        if next <= self.clock.end {
            self.events.push(next, Event::Watchdog);
        }
    }

    /// Ends the run and lists the queues that hold packets.
    pub(crate) fn declare_deadlock(&mut self) {
        let n = self.vcs.n_vcs;
        for c in self.net.channels.ids() {
            self.channels.absorb(c, self.clock.now); // report the credits as they stand
        }
        for (c, ch) in self.net.channels.iter_ids() {
            let t = &self.channels.tx[c];
            if t.queued_packets == 0 {
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
                .filter(|&v| self.switches.queues_of(c, t.queues).any(|q| q.vc as usize == v))
                .map(|v| json!({"vc": v, "credits_bytes": self.channels.credits(c, v)}))
                .collect();
            self.stuck.push(json!({
                "channel": c,
                "kind": ch.kind.name(),
                "output": at,
                "to": to,
                "queued_packets": t.queued_packets,
                "queued_bytes": t.queued_bytes,
                "blocked_vcs": vcs,
            }));
            if self.stuck.len() >= MAX_REPORTED {
                break;
            }
        }
        self.report_stuck_acks();
        self.finish(EndReason::Deadlock);
    }

    /// Adds the NICs whose acks or CNPs wait to leave: they hold packets
    /// too, and a sender waiting for them cannot move.
    fn report_stuck_acks(&mut self) {
        for (e, q) in self.nics.ack_queue.iter_ids() {
            if q.is_empty() || self.stuck.len() >= MAX_REPORTED {
                continue;
            }
            let ch = self.net.endpoint_up[e];
            let bytes: u64 = q.iter().map(|&h| self.pool.hot(h).wire as u64).sum();
            let vcs: Vec<_> = (0..self.vcs.n_vcs).map(|v| json!({"vc": v, "credits_bytes": self.channels.credits(ch, v)})).collect();
            self.stuck.push(json!({
                "channel": ch,
                "kind": "nic_ack_queue",
                "output": format!("endpoint {e}"),
                "to": "its switch",
                "queued_packets": q.len(),
                "queued_bytes": bytes,
                "blocked_vcs": vcs,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ids::ChannelId;
    use crate::network::End;
    use crate::Simulation;
    use crate::units::Ps;

    /// A fabric channel whose downstream buffer never frees (its credits are
    /// taken away) stops every packet routed through it: the watchdog must
    /// end the run and name that channel, not hang.
    #[test]
    fn a_starved_channel_is_reported() {
        let cfg = r#"{
            "topology": {"groups": 2, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1},
            "sim": {"watchdog_ns": 20000, "max_time_ns": 1000000},
            "traffic": [{"name": "f", "pattern": "incast", "nodes": {"list": [0, 7]}, "target": 1, "flow_bytes": 100000}]
        }"#;
        let mut sim = Simulation::from_json(cfg).unwrap();
        // Starve every switch-to-switch channel on VC 0.
        let starved: Vec<ChannelId> = sim.net.channels.ids().filter(|&c| matches!(sim.net.channels[c].dst, End::Switch { .. }) && matches!(sim.net.channels[c].src, End::Switch { .. })).collect();
        for &c in &starved {
            sim.channels.set_credits(c, 0, 0);
        }
        sim.run();
        let s = sim.summary();
        assert_eq!(s["end_reason"], "deadlock", "{s}");
        let stuck = s["deadlock"]["stuck_buffers"].as_array().unwrap();
        assert!(!stuck.is_empty());
        for b in stuck {
            assert!(starved.contains(&ChannelId(b["channel"].as_u64().unwrap() as u32)), "{b}");
            assert!(b["output"].as_str().unwrap().starts_with("switch"));
        }
        assert!(s["sim_time_ns"].as_f64().unwrap() < 1_000_000.0);
    }

    /// A true deadlock: Valiant routing with every hop on one virtual
    /// channel (the hop-indexed scheme collapsed) and small buffers under
    /// heavy adversarial load closes cycles of full buffers. The watchdog
    /// must fire, name buffers, and not before its interval.
    #[test]
    #[cfg_attr(debug_assertions, ignore = "breaks the VC scheme on purpose, which switch_send's debug assertion reports first")]
    fn a_broken_virtual_channel_scheme_deadlocks_and_is_reported() {
        let cfg = r#"{
            "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4, "global_ports_per_switch": 1},
            "routing": {"algorithm": "valiant"},
            "switch": {"buffer_bytes": 21000},
            "sim": {"warmup_ns": 0, "duration_ns": 2000000, "watchdog_ns": 100000},
            "traffic": [{"name": "a", "pattern": "uniform", "load": 1.0}]
        }"#;
        // With the hop-indexed scheme the same traffic runs to its end ...
        let mut sound = Simulation::from_json(cfg).unwrap();
        sound.run_until(Ps(400_000_000));
        assert_ne!(sound.summary()["end_reason"], "deadlock");
        // ... and on one virtual channel it deadlocks.
        let mut sim = Simulation::from_json(cfg).unwrap();
        let one = super::super::VcLayout { hop_vcs: 1, n_vcs: 1 };
        sim.vcs = one;
        sim.channels.vcs = one;
        sim.run();
        let s = sim.summary();
        assert_eq!(s["end_reason"], "deadlock", "{s}");
        let stuck = s["deadlock"]["stuck_buffers"].as_array().unwrap();
        assert!(!stuck.is_empty(), "{s}");
        assert!(s["sim_time_ns"].as_f64().unwrap() >= 100_000.0, "fired before its interval: {}", s["sim_time_ns"]);
    }

    /// A healthy, busy network never looks stuck, with the shortest
    /// watchdog its config allows.
    #[test]
    fn a_healthy_network_never_trips_the_shortest_watchdog() {
        let base = r#"{
            "topology": {"groups": 5, "switches_per_group": 4, "endpoints_per_switch": 4, "global_ports_per_switch": 1},
            "routing": {"algorithm": "ugal"},
            "sim": {"warmup_ns": 1000, "duration_ns": 30000, "watchdog_ns": WATCHDOG},
            "traffic": [{"name": "a", "pattern": "group_adversarial", "load": 0.9}]
        }"#;
        let e = Simulation::from_json(&base.replace("WATCHDOG", "5")).err().expect("a 5 ns watchdog is refused");
        assert_eq!(e.field, "sim.watchdog_ns");
        let floor: f64 = e.message.split("at least ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        let mut sim = Simulation::from_json(&base.replace("WATCHDOG", &floor.to_string())).unwrap();
        sim.run();
        assert_ne!(sim.summary()["end_reason"], "deadlock");
    }
}
