//! Channels (MODEL.md Sec. 2): one direction of a link, with the
//! transmitter that sends onto it (a switch output or a NIC rail) and the
//! credits of the input buffer it feeds. Credit-based flow control: a
//! transmitter spends credits of a virtual channel when it sends, and gets
//! them back one link latency after the packet's tail has left the buffer
//! downstream.

use super::{NEVER, VcLayout};
use crate::network::{End, LinkKind, Network, NONE};
use crate::units::{Ps, Rate};
use std::collections::VecDeque;

/// Per-hop state of one channel's transmitter, in one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct Transmitter {
    pub busy_until: Ps,
    /// Time of the pending TryOutput event (NEVER if none).
    pub scheduled_at: Ps,
    /// Earliest credit return still on its way (NEVER if none).
    pub next_credit_at: Ps,
    /// Bytes and packets waiting in the virtual output queues of this output.
    pub queued_bytes: u64,
    /// Copy of the link's rate, kept here for locality.
    pub rate: Rate,
    /// When the link fails (NEVER if it does not): packets sent on it from
    /// then on are lost.
    pub fail_at: Ps,
    /// Copy of the link's latency (ps; the build checks it fits).
    latency_ps: u32,
    pub queued_packets: u32,
    /// Switch the channel delivers to (`NONE`: an endpoint).
    pub to_switch: u32,
    /// Blocked on credits with no return pending: a returning credit wakes it.
    pub waiting_credit: bool,
    /// The receiver is a NIC (no credits, no routing there).
    pub to_endpoint: bool,
    /// The link is switch-to-switch (counts as a hop).
    pub fabric: bool,
}

impl Transmitter {
    /// Propagation plus FEC latency of the link.
    #[inline]
    pub fn latency(&self) -> Ps {
        self.latency_ps as Ps
    }
}

/// Buffer space travelling back to a transmitter.
#[derive(Clone, Copy, Debug)]
struct CreditReturn {
    at: Ps,
    vc: u8,
    bytes: u32,
}

/// The window an input port's crossbar read is committed to: [from, until).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CrossbarRead {
    pub from: Ps,
    pub until: Ps,
}

/// What a channel carried inside the measurement window.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LinkCounters {
    pub busy_ps: u64,
    pub bytes: u64,
    /// Packets replayed by link-level retry.
    pub replays: u64,
}

/// Every channel of the network.
pub(crate) struct Channels {
    pub tx: Vec<Transmitter>,
    /// Crossbar reads of the input port each channel feeds.
    pub xbar: Vec<CrossbarRead>,
    /// Credits (bytes) per channel and virtual channel: `channel * n_vcs + vc`.
    pub credits: Vec<i64>,
    /// Credits on their way back to each transmitter, earliest first.
    returns: Vec<VecDeque<CreditReturn>>,
    pub vcs: VcLayout,
    /// Endpoint each channel leaves from (`NONE`: a switch).
    pub from_endpoint: Vec<u32>,
    pub counters: Vec<LinkCounters>,
    /// Credits of one VC of a fabric input buffer.
    pub vc_capacity: i64,
}

/// Occupancy reported for a failed link: a path over it is ruled out.
pub(crate) use crate::routing::adaptive::FAILED_LINK;

impl Channels {
    /// The channels of `net`, every buffer empty: a switch input buffer of
    /// `buffer_bytes` gives each VC `vc_capacity` credits; a switch's
    /// endpoint input port has no hop VCs, so each class gets its share of
    /// the buffer in its first VC.
    pub fn new(net: &Network, vcs: VcLayout, vc_capacity: i64, buffer_bytes: u64, classes: usize) -> Channels {
        let nch = net.channels.len();
        let n = vcs.n_vcs;
        let mut credits = vec![vc_capacity; nch * n];
        let per_class = buffer_bytes as i64 / classes as i64;
        for (c, ch) in net.channels.iter().enumerate() {
            if let End::Endpoint(_) = ch.src {
                for v in 0..n {
                    credits[c * n + v] = if v % vcs.hop_vcs == 0 { per_class } else { 0 };
                }
            }
        }
        Channels {
            tx: net
                .channels
                .iter()
                .map(|c| Transmitter {
                    busy_until: 0,
                    scheduled_at: NEVER,
                    next_credit_at: NEVER,
                    queued_bytes: 0,
                    rate: c.rate,
                    fail_at: NEVER,
                    latency_ps: u32::try_from(c.latency).expect("link latencies are checked to fit 32 bits of ps"),
                    queued_packets: 0,
                    to_switch: if let End::Switch { switch, .. } = c.dst { switch } else { NONE },
                    waiting_credit: false,
                    to_endpoint: matches!(c.dst, End::Endpoint(_)),
                    fabric: c.kind != LinkKind::Terminal,
                })
                .collect(),
            xbar: vec![CrossbarRead::default(); nch],
            credits,
            returns: vec![VecDeque::new(); nch],
            vcs,
            from_endpoint: net.channels.iter().map(|c| if let End::Endpoint(e) = c.src { e } else { NONE }).collect(),
            counters: vec![LinkCounters::default(); nch],
            vc_capacity,
        }
    }

    /// Hints the processor to fetch the transmitter of `ch`.
    #[inline]
    pub fn prefetch_transmitter(&self, ch: u32) {
        if let Some(t) = self.tx.get(ch as usize) {
            crate::packet::prefetch_read(t as *const Transmitter as *const u8);
        }
    }

    /// Hints the processor to fetch what a packet arriving on `ch` reads
    /// of it: its transmitter (where it leads, its rate and latency for the
    /// credit return), the input port's crossbar read and its credit returns.
    #[inline]
    pub fn prefetch_input(&self, ch: u32) {
        let c = ch as usize;
        if c < self.tx.len() {
            crate::packet::prefetch_read(&self.tx[c] as *const Transmitter as *const u8);
            crate::packet::prefetch_read(&self.xbar[c] as *const CrossbarRead as *const u8);
            crate::packet::prefetch_read(&self.returns[c] as *const VecDeque<CreditReturn> as *const u8);
        }
    }

    /// Credits of VC `vc` on `ch`.
    #[inline]
    pub fn credits(&self, ch: u32, vc: usize) -> i64 {
        self.credits[ch as usize * self.vcs.n_vcs + vc]
    }

    /// Spends `bytes` credits of VC `vc` on `ch`.
    #[inline]
    pub fn spend(&mut self, ch: u32, vc: usize, bytes: u32) {
        self.credits[ch as usize * self.vcs.n_vcs + vc] -= bytes as i64;
    }

    /// Moves credits that have arrived by `now` into the transmitter's
    /// counters; returns the earliest return still on its way.
    #[inline]
    pub fn absorb(&mut self, ch: u32, now: Ps) -> Ps {
        let c = ch as usize;
        if self.tx[c].next_credit_at > now {
            return self.tx[c].next_credit_at;
        }
        let n = self.vcs.n_vcs;
        let returns = &mut self.returns[c];
        while let Some(r) = returns.front() {
            if r.at > now {
                break;
            }
            self.credits[c * n + r.vc as usize] += r.bytes as i64;
            returns.pop_front();
        }
        let next = returns.front().map_or(NEVER, |r| r.at);
        self.tx[c].next_credit_at = next;
        next
    }

    /// True if VC `vc` of `ch` has `bytes` credits now; absorbs the returns
    /// that have arrived only when the counter alone says no (returns are
    /// read only when a packet is short of credits).
    #[inline]
    pub fn has_credits(&mut self, ch: u32, vc: usize, bytes: u32, now: Ps) -> bool {
        if self.credits(ch, vc) >= bytes as i64 {
            return true;
        }
        self.absorb(ch, now);
        self.credits(ch, vc) >= bytes as i64
    }

    /// Sends `bytes` of VC `vc` credits back to the transmitter of `ch`,
    /// arriving at `at`. Returns true if that transmitter was waiting for
    /// credits (the caller wakes it at `at`). Returns that have arrived by
    /// `now` are absorbed first, while their queue is at hand: the queue
    /// then holds only credits still on the wire.
    #[inline]
    pub fn send_back(&mut self, ch: u32, vc: u8, bytes: u32, at: Ps, now: Ps) -> bool {
        self.absorb(ch, now);
        // Keep the returns sorted by arrival; they come nearly in order, so
        // the insertion point is found from the back in a step or two.
        let returns = &mut self.returns[ch as usize];
        let r = CreditReturn { at, vc, bytes };
        if returns.back().is_none_or(|last| last.at <= at) {
            returns.push_back(r);
        } else {
            let mut pos = returns.len() - 1;
            while pos > 0 && returns[pos - 1].at > at {
                pos -= 1;
            }
            returns.insert(pos, r);
        }
        let t = &mut self.tx[ch as usize];
        t.next_credit_at = t.next_credit_at.min(at);
        std::mem::take(&mut t.waiting_credit)
    }

    /// Bytes waiting for output `ch` and held in the buffer it feeds, as
    /// of `now` (what adaptive routing compares), or [`FAILED_LINK`] if the
    /// link is down. Credits that have come back by `now` are absorbed
    /// first, so a quiet channel reads empty however long it has been quiet.
    #[inline]
    pub fn occupancy(&mut self, ch: u32, now: Ps) -> u64 {
        if self.tx[ch as usize].fail_at <= now {
            return FAILED_LINK;
        }
        self.absorb(ch, now);
        let t = &self.tx[ch as usize];
        let n = self.vcs.n_vcs;
        let base = ch as usize * n;
        let used: i64 = self.credits[base..base + n].iter().map(|&c| self.vc_capacity - c).sum::<i64>().max(0);
        t.queued_bytes + used as u64
    }

    /// True if a crossbar read of `read()` ps from input `in_ch` starting
    /// at `at` overlaps the read the input port is already committed to
    /// (`read` is only asked for when the committed read is not over).
    #[inline]
    pub fn xbar_busy(&self, in_ch: u32, at: Ps, read: impl FnOnce() -> Ps) -> bool {
        let x = &self.xbar[in_ch as usize];
        at < x.until && at + read() > x.from
    }

    /// Counts a transmission on `ch` of `ser` ps and `wire` bytes that
    /// started at `start`, if inside the measurement window.
    #[inline]
    pub fn account(&mut self, ch: u32, ser: Ps, wire: u32, in_window: bool) {
        if in_window {
            let c = &mut self.counters[ch as usize];
            c.busy_ps += ser;
            c.bytes += wire as u64;
        }
    }
}
