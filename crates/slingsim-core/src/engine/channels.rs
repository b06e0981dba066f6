//! Channels (MODEL.md Sec. 2): one direction of a link, with the
//! transmitter that sends onto it (a switch output or a NIC rail) and the
//! credits of the input buffer it feeds. Credit-based flow control: a
//! transmitter spends credits of a virtual channel when it sends, and gets
//! them back one link latency after the packet's tail has left the buffer
//! downstream.

use super::{VcLayout, NEVER};
use crate::ids::{ChannelId, EndpointId, Id, IdVec, SwitchId};
use crate::network::{End, LinkKind, Network, NONE};
use crate::units::{Ps, Rate};

/// Virtual channels whose credits a channel record holds itself; configs
/// with more keep them in a separate array.
pub(crate) const INLINE_VCS: usize = 7;

/// Everything a hop reads and writes of one channel, in two cache lines:
/// the transmitter, the credits of the buffer it feeds and the credits on
/// their way back, the crossbar read of the input port it feeds, the
/// switch's queues for it and its counters for the window.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(128))]
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
    /// Copy of the link's latency (ps; the build checks it fits).
    latency_ps: u32,
    pub queued_packets: u32,
    /// Switch the channel delivers to (`NONE`: an endpoint).
    pub to_switch: SwitchId,
    /// First and last credit return on its way ([`ReturnSlab`] handles, `NONE`: none).
    returns_head: u32,
    returns_tail: u32,
    /// Blocked on credits with no return pending: a returning credit wakes it.
    pub waiting_credit: bool,
    /// The receiver is a NIC (no credits, no routing there).
    pub to_endpoint: bool,
    /// The link is switch-to-switch (counts as a hop).
    pub fabric: bool,
    /// Credits (bytes) of each VC when there are at most [`INLINE_VCS`].
    credits: [i32; INLINE_VCS],
    /// The switch's first non-empty queue for this output (its handle; `NONE`: all empty).
    pub queues: u32,
    /// The crossbar read the input port this channel feeds is committed to.
    pub xbar: CrossbarRead,
    /// Busy time and wire bytes inside the measurement window.
    pub busy_ps: Ps,
    pub bytes: u64,
}

impl Transmitter {
    /// Propagation plus FEC latency of the link.
    #[inline]
    pub fn latency(&self) -> Ps {
        Ps(self.latency_ps as u64)
    }
}

/// The window an input port's crossbar read is committed to: [from, until).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CrossbarRead {
    pub from: Ps,
    pub until: Ps,
}

/// Buffer space travelling back to a transmitter, in a list per channel.
#[derive(Clone, Copy, Debug)]
struct CreditReturn {
    at: Ps,
    bytes: u32,
    next: u32,
    vc: u8,
}

/// Every credit return on its way, in one slab: each channel's returns are
/// a list sorted by arrival (they come nearly in order, so a new one is
/// almost always appended), and memory follows the returns on the wire.
#[derive(Default)]
struct ReturnSlab {
    slots: Vec<CreditReturn>,
    free: Vec<u32>,
}

impl ReturnSlab {
    fn alloc(&mut self, r: CreditReturn) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = r;
                i
            }
            None => {
                self.slots.push(r);
                (self.slots.len() - 1) as u32
            }
        }
    }
}

/// Every channel of the network.
pub(crate) struct Channels {
    pub tx: IdVec<ChannelId, Transmitter>,
    /// Credits (bytes) per channel and virtual channel, `channel * n_vcs +
    /// vc`, when there are more VCs than a record holds (else empty).
    wide_credits: Vec<i64>,
    returns: ReturnSlab,
    pub vcs: VcLayout,
    /// Endpoint each channel leaves from (`NONE`: a switch).
    pub from_endpoint: IdVec<ChannelId, EndpointId>,
    /// When each link fails (empty: none does; NEVER: this one does not).
    fail_at: Vec<Ps>,
    /// Packets replayed by link-level retry on each channel (empty on clean links).
    pub replays: Vec<u64>,
    /// Credits of one VC of a fabric input buffer.
    pub vc_capacity: i64,
}

/// Occupancy reported for a failed link: a path over it is ruled out.
pub(crate) use crate::routing::adaptive::FAILED_LINK;

impl Channels {
    /// The channels of `net`, every buffer empty: a switch input buffer of
    /// `buffer_bytes` gives each VC `vc_capacity` credits; a switch's
    /// endpoint input port has no hop VCs, so each class gets its share of
    /// the buffer in its first VC. `fail_at` lists the links that fail and
    /// when; `lossy_links` says whether any link has bit errors.
    pub fn new(net: &Network, vcs: VcLayout, vc_capacity: i64, buffer_bytes: u64, classes: usize, fail_at: &[(ChannelId, Ps)], lossy_links: bool) -> Channels {
        let nch = net.channels.len();
        let n = vcs.n_vcs;
        let per_class = buffer_bytes as i64 / classes as i64;
        let mut ch = Channels {
            tx: net
                .channels
                .iter()
                .map(|c| Transmitter {
                    busy_until: Ps::ZERO,
                    scheduled_at: NEVER,
                    next_credit_at: NEVER,
                    queued_bytes: 0,
                    rate: c.rate,
                    latency_ps: u32::try_from(c.latency.0).expect("link latencies are checked to fit 32 bits of ps"),
                    queued_packets: 0,
                    to_switch: if let End::Switch { switch, .. } = c.dst { switch } else { SwitchId::NONE },
                    returns_head: NONE,
                    returns_tail: NONE,
                    waiting_credit: false,
                    to_endpoint: matches!(c.dst, End::Endpoint(_)),
                    fabric: c.kind != LinkKind::Terminal,
                    credits: [0; INLINE_VCS],
                    queues: NONE,
                    xbar: CrossbarRead::default(),
                    busy_ps: Ps::ZERO,
                    bytes: 0,
                })
                .collect(),
            wide_credits: if n > INLINE_VCS { vec![0; nch * n] } else { Vec::new() },
            returns: ReturnSlab::default(),
            vcs,
            from_endpoint: net.channels.iter().map(|c| if let End::Endpoint(e) = c.src { e } else { EndpointId::NONE }).collect(),
            fail_at: Vec::new(),
            replays: if lossy_links { vec![0; nch] } else { Vec::new() },
            vc_capacity,
        };
        if !fail_at.is_empty() {
            ch.fail_at = vec![NEVER; nch];
            for &(c, at) in fail_at {
                ch.fail_at[c.index()] = at;
            }
        }
        for (c, link) in net.channels.iter_ids() {
            for v in 0..n {
                let full = match link.src {
                    End::Endpoint(_) if v % vcs.hop_vcs == 0 => per_class,
                    End::Endpoint(_) => 0,
                    End::Switch { .. } => vc_capacity,
                };
                ch.set_credits(c, v, full);
            }
        }
        ch
    }

    /// When the link of `ch` fails (NEVER if it does not).
    #[inline]
    pub fn fail_at(&self, ch: ChannelId) -> Ps {
        self.fail_at.get(ch.index()).copied().unwrap_or(NEVER)
    }

    /// Packets replayed by link-level retry on `ch`.
    pub fn replays(&self, ch: ChannelId) -> u64 {
        self.replays.get(ch.index()).copied().unwrap_or(0)
    }

    /// Hints the processor to fetch the transmitter of `ch`.
    #[inline]
    pub fn prefetch_transmitter(&self, ch: ChannelId) {
        if let Some(t) = self.tx.get(ch) {
            let t = t as *const Transmitter as *const u8;
            crate::packet::prefetch_read(t);
            crate::packet::prefetch_read(t.wrapping_add(64));
        }
    }

    /// Hints the processor to fetch what a packet arriving on `ch` reads
    /// of it: its transmitter (where it leads, its rate and latency for the
    /// credit return, the input port's crossbar read). Its credit returns
    /// are not fetched: finding them means reading the transmitter, which
    /// would wait for the very line being fetched.
    #[inline]
    pub fn prefetch_input(&self, ch: ChannelId) {
        self.prefetch_transmitter(ch);
    }

    /// Credits of VC `vc` on `ch` (as last absorbed).
    #[inline]
    pub fn credits(&self, ch: ChannelId, vc: usize) -> i64 {
        if self.wide_credits.is_empty() {
            self.tx[ch].credits[vc] as i64
        } else {
            self.wide_credits[ch.index() * self.vcs.n_vcs + vc]
        }
    }

    /// Sets the credits of VC `vc` on `ch`.
    #[inline]
    pub fn set_credits(&mut self, ch: ChannelId, vc: usize, bytes: i64) {
        if self.wide_credits.is_empty() {
            self.tx[ch].credits[vc] = bytes as i32;
        } else {
            self.wide_credits[ch.index() * self.vcs.n_vcs + vc] = bytes;
        }
    }

    /// Adds `bytes` (negative: spends) to the credits of VC `vc` on `ch`.
    #[inline]
    fn add_credits(&mut self, ch: ChannelId, vc: usize, bytes: i64) {
        let c = self.credits(ch, vc);
        self.set_credits(ch, vc, c + bytes);
    }

    /// Spends `bytes` credits of VC `vc` on `ch`.
    #[inline]
    pub fn spend(&mut self, ch: ChannelId, vc: usize, bytes: u32) {
        self.add_credits(ch, vc, -(bytes as i64));
    }

    /// Moves credits that have arrived by `now` into the transmitter's
    /// counters; returns the earliest return still on its way.
    #[inline]
    pub fn absorb(&mut self, ch: ChannelId, now: Ps) -> Ps {
        let c = ch;
        if self.tx[c].next_credit_at > now {
            return self.tx[c].next_credit_at;
        }
        let mut head = self.tx[c].returns_head;
        while head != NONE {
            let r = self.returns.slots[head as usize];
            if r.at > now {
                break;
            }
            self.add_credits(ch, r.vc as usize, r.bytes as i64);
            self.returns.free.push(head);
            head = r.next;
        }
        let t = &mut self.tx[c];
        t.returns_head = head;
        if head == NONE {
            t.returns_tail = NONE;
            t.next_credit_at = NEVER;
        } else {
            t.next_credit_at = self.returns.slots[head as usize].at;
        }
        t.next_credit_at
    }

    /// True if VC `vc` of `ch` has `bytes` credits now; absorbs the returns
    /// that have arrived only when the counter alone says no (returns are
    /// read only when a packet is short of credits).
    #[inline]
    pub fn has_credits(&mut self, ch: ChannelId, vc: usize, bytes: u32, now: Ps) -> bool {
        if self.credits(ch, vc) >= bytes as i64 {
            return true;
        }
        self.absorb(ch, now);
        self.credits(ch, vc) >= bytes as i64
    }

    /// Sends `bytes` of VC `vc` credits back to the transmitter of `ch`,
    /// arriving at `at`. Returns true if that transmitter was waiting for
    /// credits (the caller wakes it at `at`). Returns that have arrived by
    /// `now` are absorbed first: the list then holds only credits on the wire.
    #[inline]
    pub fn send_back(&mut self, ch: ChannelId, vc: u8, bytes: u32, at: Ps, now: Ps) -> bool {
        self.absorb(ch, now);
        let c = ch;
        let (head, tail) = (self.tx[c].returns_head, self.tx[c].returns_tail);
        let r = self.returns.alloc(CreditReturn { at, bytes, next: NONE, vc });
        let slots = &mut self.returns.slots;
        if tail == NONE {
            self.tx[c].returns_head = r;
            self.tx[c].returns_tail = r;
        } else if slots[tail as usize].at <= at {
            slots[tail as usize].next = r;
            self.tx[c].returns_tail = r;
        } else if slots[head as usize].at > at {
            slots[r as usize].next = head;
            self.tx[c].returns_head = r;
        } else {
            // After every return not later than it.
            let mut prev = head;
            while slots[slots[prev as usize].next as usize].at <= at {
                prev = slots[prev as usize].next;
            }
            slots[r as usize].next = slots[prev as usize].next;
            slots[prev as usize].next = r;
        }
        let t = &mut self.tx[c];
        t.next_credit_at = t.next_credit_at.min(at);
        std::mem::take(&mut t.waiting_credit)
    }

    /// Bytes waiting for output `ch` and held in the buffer it feeds, as
    /// of `now` (what adaptive routing compares), or [`FAILED_LINK`] if the
    /// link is down. Credits that have come back by `now` are absorbed
    /// first, so a quiet channel reads empty however long it has been quiet.
    #[inline]
    pub fn occupancy(&mut self, ch: ChannelId, now: Ps) -> u64 {
        if self.fail_at(ch) <= now {
            return FAILED_LINK;
        }
        self.absorb(ch, now);
        let used: i64 = (0..self.vcs.n_vcs).map(|v| self.vc_capacity - self.credits(ch, v)).sum::<i64>().max(0);
        self.tx[ch].queued_bytes + used as u64
    }

    /// True if a crossbar read of `read()` ps from input `in_ch` starting
    /// at `at` overlaps the read the input port is already committed to
    /// (`read` is only asked for when the committed read is not over).
    #[inline]
    pub fn xbar_busy(&self, in_ch: ChannelId, at: Ps, read: impl FnOnce() -> Ps) -> bool {
        let x = &self.tx[in_ch].xbar;
        at < x.until && at + read() > x.from
    }

    /// Earliest time from `at` at which input `in_ch` can move `cross` ps
    /// of data across the switch without overlapping the read it is
    /// committed to: `at` if the two do not meet, else the end of that
    /// read (a committed read may lie in the future: the idle-output fast
    /// path commits one for the moment its packet is ready).
    #[inline]
    pub fn bus_free_from(&self, in_ch: ChannelId, at: Ps, cross: Ps) -> Ps {
        if self.xbar_busy(in_ch, at, || cross) {
            self.tx[in_ch].xbar.until
        } else {
            at
        }
    }

    /// Counts a transmission on `ch` of `ser` ps and `wire` bytes that
    /// started at `start`, if inside the measurement window.
    #[inline]
    pub fn account(&mut self, ch: ChannelId, ser: Ps, wire: u32, in_window: bool) {
        if in_window {
            let t = &mut self.tx[ch];
            t.busy_ps += ser;
            t.bytes += wire as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_channel_record_is_two_cache_lines() {
        assert_eq!(std::mem::size_of::<Transmitter>(), 128);
    }
}
