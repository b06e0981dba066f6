//! Reliability (paper 000 Sec. II-F, 002 Sec. II-B and IV-B): link-level
//! retry replays a corrupted packet from the link's replay buffer (nothing
//! is lost, a link round trip is); a failed link loses what is sent on it
//! and the source NIC's end-to-end retry resends it after a timeout, giving
//! up after `nic.max_retries`; a lossy class drops a packet whose output
//! queue is full. Every lost byte is counted against its source and flow.

use crate::ids::{ChannelId, EndpointId, Id, PacketId};
use super::Simulation;
use crate::congestion::CongestionControl;
use crate::event::Event;
use crate::network::NONE;
use crate::packet::{PacketKind, FLAG_ECN, FLAG_MEASURED, FLAG_NONMINIMAL, FLAG_SWITCH_MADE};
use crate::rng::Rng;
use crate::units::Ps;

/// Retry policy and what was lost.
pub(crate) struct Reliability {
    /// Bit-error rate of every link and the stream deciding corruptions.
    pub bit_error_rate: f64,
    pub error_rng: Rng,
    /// End-to-end retry: time before a lost packet is resent, and how often.
    pub retry_timeout: Ps,
    pub max_retries: u8,
    pub retries: u64,
    pub packets_lost: u64,
    pub bytes_lost: u64,
    pub lossy_drops: u64,
}

impl Reliability {
    /// Link-level and end-to-end retry as `[links]` and `[nic]` set them,
    /// nothing lost yet.
    pub(crate) fn new(cfg: &crate::config::Config) -> Reliability {
        Reliability {
            bit_error_rate: cfg.links.bit_error_rate,
            error_rng: Rng::new(cfg.sim.seed, 0x11E5),
            retry_timeout: crate::units::ns_to_ps(cfg.nic.retry_timeout_ns),
            max_retries: cfg.nic.max_retries as u8,
            retries: 0,
            packets_lost: 0,
            bytes_lost: 0,
            lossy_drops: 0,
        }
    }
}

impl Simulation {
    /// Link-level retry: a packet of `wire` bytes is corrupted with
    /// probability 1 - (1 - BER)^(8 wire); the receiver asks for it again
    /// and the sender replays it from its replay buffer, which costs a link
    /// round trip plus a new serialization each time. Returns the delay the
    /// replays add (0 on a clean link); nothing is lost.
    #[inline(always)]
    pub(crate) fn link_retry_delay(&mut self, ch: ChannelId, wire: u32, ser: Ps) -> Ps {
        if self.reliability.bit_error_rate == 0.0 {
            return Ps::ZERO;
        }
        self.replay_corrupted(ch, wire, ser)
    }

    /// The replays of a packet on a link with bit errors (see [`Self::link_retry_delay`]).
    fn replay_corrupted(&mut self, ch: ChannelId, wire: u32, ser: Ps) -> Ps {
        let r = &mut self.reliability;
        let p_bad = 1.0 - (1.0 - r.bit_error_rate).powf(8.0 * wire as f64);
        let latency = self.channels.tx[ch].latency();
        let mut delay = Ps::ZERO;
        while r.error_rng.unit() < p_bad {
            delay += ser + latency * 2;
            self.channels.replays[ch.index()] += 1;
        }
        delay
    }

    /// A packet of a lossy class found its output queue full: it is
    /// dropped, its input buffer space returns upstream.
    pub(crate) fn drop_lossy(&mut self, h: PacketId) {
        // Dropped as it is routed: committed here to nothing yet.
        self.hop_forget(h, None);
        let p = *self.pool.hot(h);
        let back = self.clock.now + self.channels.tx[p.in_ch].latency();
        if p.flags & FLAG_SWITCH_MADE == 0 && self.channels.send_back(p.in_ch, p.in_vc, p.wire, back, self.clock.now) {
            self.schedule_try(p.in_ch, back);
        }
        self.admitted_packet_lost(h);
        self.reliability.lossy_drops += 1;
        self.pool.free(h);
        self.account_loss(h);
    }

    /// Packet `h`, committed to channel `ch` at `at`, meets a failed link:
    /// it is lost on the wire. The transmitter keeps its credits (nothing
    /// arrives downstream), the input buffer frees, and the source NIC's
    /// end-to-end retry timer will resend it.
    pub(crate) fn lose_on_failed_link(&mut self, h: PacketId, ch: ChannelId, at: Ps) {
        self.hop_forget(h, Some(ch));
        let p = *self.pool.hot(h);
        // Failed links are switch-to-switch: the packet sits in a switch input buffer.
        let back = at + self.channels.tx[p.in_ch].latency();
        if p.flags & FLAG_SWITCH_MADE == 0 && self.channels.send_back(p.in_ch, p.in_vc, p.wire, back, self.clock.now) {
            self.schedule_try(p.in_ch, back);
        }
        let t = &mut self.channels.tx[ch];
        t.busy_until = t.busy_until.max(at);
        if p.kind == PacketKind::FabricAck {
            // No NIC keeps a copy to resend: the ack is simply lost.
            self.pool.free(h);
            self.account_loss(h);
            return;
        }
        self.admitted_packet_lost(h);
        self.pool.hot_mut(h).ch = ChannelId::NONE;
        let timer = (self.pool.cold(h).injected + self.reliability.retry_timeout).max(at + Ps(1));
        self.events.push(timer, Event::Retry(h));
    }

    /// The retry timer of lost packet `h` expired: resend it from its
    /// source NIC, or give it up after `nic.max_retries` attempts.
    pub(crate) fn on_retry(&mut self, h: PacketId) {
        // A lost fetch-and-add response is recovered by the initiator
        // resending its request (the MPI layer's `rma.rs`), not by the
        // target resending the response: give the packet up.
        if self.pool.cold(h).retries >= self.reliability.max_retries || self.mpi_recovers_by_request(h) {
            self.pool.free(h);
            self.account_loss(h);
            return;
        }
        self.reliability.retries += 1;
        let c = self.pool.cold_mut(h);
        c.retries += 1;
        c.mark = 0;
        c.mark_flows = 0;
        let q = self.pool.hot_mut(h);
        q.hops = 0;
        q.clear_via();
        q.global_link = NONE;
        q.flags &= !(FLAG_NONMINIMAL | FLAG_ECN);
        q.in_ch = ChannelId::NONE;
        let src = q.src;
        self.nics.retry_queue[src].push_back(h);
        let ch = self.net.endpoint_up[src];
        let at = self.clock.now.max(self.channels.tx[ch].busy_until);
        self.schedule_try(ch, at);
    }

    /// Resends the first lost packet waiting at NIC `e`, if its class has
    /// credits at the switch; false if it must wait.
    pub(crate) fn nic_resend(&mut self, e: EndpointId, ch: ChannelId) -> bool {
        let h = *self.nics.retry_queue[e].front().expect("caller checked");
        let (wire, class) = {
            let p = self.pool.hot(h);
            (p.wire, p.class)
        };
        if !self.channels.has_credits(ch, self.vcs.first_of(class), wire, self.clock.now) {
            self.wait_for_credit(ch);
            return true;
        }
        self.nics.retry_queue[e].pop_front();
        if self.pool.hot(h).kind == PacketKind::Data {
            // The NIC counters count requests (data), as on Aries.
            for c in self.counters_of(e, NONE) {
                c.packets += 1;
            }
        }
        self.inject(h, ch);
        self.nic_next(e, ch);
        true
    }

    /// Counts the payload of the packet in (freed) slot `h` as lost, for
    /// its source and its flow (a flow whose every byte is delivered or
    /// lost completes), and releases what its source NIC held for it. An
    /// ack or CNP is handed to [`Self::control_lost`].
    pub(crate) fn account_loss(&mut self, h: PacketId) {
        let (p, c) = (*self.pool.hot(h), *self.pool.cold(h));
        if p.kind != PacketKind::Data {
            self.control_lost(h);
            return;
        }
        if p.flags & FLAG_MEASURED != 0 && c.injected < self.clock.window_end {
            self.measure.measured_outstanding -= 1;
            self.check_drained();
        }
        let r = &mut self.reliability;
        r.packets_lost += 1;
        r.bytes_lost += c.payload as u64;
        self.measure.stats[c.source as usize].lost_bytes += c.payload as u64;
        self.release_outstanding(p.src, c.msg, self.nics.serial_of(c.msg));
        self.cc.on_loss(p.src, p.dst, p.wire);
        self.wake_nic(p.src);
        if c.msg != NONE {
            let now = self.clock.now;
            let m = &mut self.nics.messages[c.msg as usize];
            let flow = m.flow;
            self.flows.records[flow as usize].lost_bytes += c.payload as u64;
            m.to_deliver -= c.payload as u64;
            if m.to_deliver == 0 {
                self.nics.free_messages.push(c.msg);
                self.part_done(flow, now);
            }
        }
    }
}
