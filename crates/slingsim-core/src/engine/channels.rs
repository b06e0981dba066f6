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
    /// First line of the ring of credit returns on their way ([`ReturnRings`]; `NONE`: none yet).
    returns: u32,
    _spare: u32,
    /// Blocked on credits with no return pending: a returning credit wakes it.
    pub waiting_credit: bool,
    /// The receiver is a NIC (no credits, no routing there).
    pub to_endpoint: bool,
    /// The link is switch-to-switch (counts as a hop).
    pub fabric: bool,
    /// A switch output whose every waiting packet lacks credits since
    /// [`Channels::stall_from`] (the back-pressure stall Aries' tile
    /// counters count, [DeSensi19] Sec. 2.3).
    pub stalling: bool,
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

/// A credit return's slot: buffer space travelling back to a
/// transmitter (`at`, `bytes` of `vc`), or, first in each ring, the ring's
/// own header (its head, length and capacity).
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    at: Ps,
    bytes: u32,
    vc: u32,
}

/// Four slots: rings are made of whole cache lines.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct Line([Slot; 4]);

/// Every credit return on its way: a ring per channel, sorted by arrival.
/// A ring is 2^k cache lines of the arena; its first slot is its header
/// (head, length, capacity), the rest hold returns. Returns come nearly in
/// order, so a new one almost always goes at the end, next to the
/// channel's previous one, and a channel with three or fewer returns on
/// the wire keeps them in the one line that also holds the header: a
/// channel's returns share cache lines, where a list of single slots
/// scattered them. Rings grow by doubling; a ring outgrown, or emptied
/// of returns, goes to a free list of its size, whose most recently freed
/// ring (likely still in the cache) is the next one taken.
#[derive(Default)]
struct ReturnRings {
    arena: Vec<Line>,
    /// Free rings by log2 of their size in lines.
    free: Vec<Vec<u32>>,
}

impl ReturnRings {
    #[inline]
    fn at(&self, line: u32, slot: u32) -> &Slot {
        &self.arena[(line + slot / 4) as usize].0[(slot % 4) as usize]
    }

    #[inline]
    fn at_mut(&mut self, line: u32, slot: u32) -> &mut Slot {
        &mut self.arena[(line + slot / 4) as usize].0[(slot % 4) as usize]
    }

    /// (head, length, capacity) of the ring at `line`.
    #[inline]
    fn header(&self, line: u32) -> (u32, u32, u32) {
        let h = self.at(line, 0);
        (h.bytes, h.vc, h.at.0 as u32)
    }

    #[inline]
    fn set_header(&mut self, line: u32, head: u32, len: u32, cap: u32) {
        *self.at_mut(line, 0) = Slot { at: Ps(cap as u64), bytes: head, vc: len };
    }

    /// Slot number of the `i`th return of a ring whose head is `head`.
    #[inline]
    fn slot(head: u32, i: u32, cap: u32) -> u32 {
        let j = head + i;
        1 + if j >= cap { j - cap } else { j }
    }

    /// A ring of `2^k` lines with no returns; its first line.
    fn take_ring(&mut self, k: usize) -> u32 {
        let line = match self.free.get_mut(k).and_then(|f| f.pop()) {
            Some(line) => line,
            None => {
                let line = self.arena.len();
                assert!(line + (1 << k) <= u32::MAX as usize, "credit returns in flight exceed the arena's 2^32 lines");
                self.arena.resize(line + (1 << k), Line::default());
                line as u32
            }
        };
        self.set_header(line, 0, 0, 4 * (1 << k) - 1);
        line
    }

    fn give_ring(&mut self, line: u32, cap: u32) {
        let k = ((cap + 1) / 4).trailing_zeros() as usize;
        if self.free.len() <= k {
            self.free.resize_with(k + 1, Vec::new);
        }
        self.free[k].push(line);
    }

    /// Gives the (empty) ring at `line` back.
    #[inline]
    fn release(&mut self, line: u32) {
        let (_, len, cap) = self.header(line);
        debug_assert_eq!(len, 0, "a ring given back is empty");
        self.give_ring(line, cap);
    }

    /// The earliest return of the ring at `line`, if any.
    #[inline]
    fn first(&self, line: u32) -> Option<Slot> {
        let (head, len, cap) = self.header(line);
        (len > 0).then(|| *self.at(line, Self::slot(head, 0, cap)))
    }

    /// Removes the earliest return of the ring at `line` (there is one).
    #[inline]
    fn pop(&mut self, line: u32) {
        let (head, len, cap) = self.header(line);
        let head = if head + 1 == cap { 0 } else { head + 1 };
        self.set_header(line, head, len - 1, cap);
    }

    /// Inserts `ret` after every return not later than it into the ring
    /// at `*line` (`NONE`: the channel has none yet), which may move.
    #[inline]
    fn insert(&mut self, line: &mut u32, ret: Slot) {
        if *line == NONE {
            *line = self.take_ring(0);
        }
        let (mut head, len, mut cap) = self.header(*line);
        if len == cap {
            *line = self.grow(*line);
            (head, _, cap) = self.header(*line);
        }
        let l = *line;
        // From the end back to the first return not later than `ret`,
        // moving the later ones up a slot.
        let mut i = len;
        while i > 0 {
            let prev = *self.at(l, Self::slot(head, i - 1, cap));
            if prev.at <= ret.at {
                break;
            }
            *self.at_mut(l, Self::slot(head, i, cap)) = prev;
            i -= 1;
        }
        *self.at_mut(l, Self::slot(head, i, cap)) = ret;
        self.set_header(l, head, len + 1, cap);
    }

    /// Moves the full ring at `line` into one twice its size; its new line.
    #[cold]
    fn grow(&mut self, line: u32) -> u32 {
        let (head, len, cap) = self.header(line);
        let k = ((cap + 1) / 4).trailing_zeros() as usize + 1;
        let new = self.take_ring(k);
        for i in 0..len {
            let r = *self.at(line, Self::slot(head, i, cap));
            *self.at_mut(new, 1 + i) = r;
        }
        let (_, _, new_cap) = self.header(new);
        self.set_header(new, 0, len, new_cap);
        self.give_ring(line, cap);
        new
    }

    /// Hints the processor to fetch the ring at `line` (its header and
    /// first returns).
    #[inline]
    fn prefetch(&self, line: u32) {
        if let Some(l) = self.arena.get(line as usize) {
            crate::packet::prefetch_read(l as *const Line as *const u8);
        }
    }
}

/// Every channel of the network.
pub(crate) struct Channels {
    pub tx: IdVec<ChannelId, Transmitter>,
    /// Credits (bytes) per channel and virtual channel, `channel * n_vcs +
    /// vc`, when there are more VCs than a record holds (else empty).
    wide_credits: Vec<i64>,
    returns: ReturnRings,
    pub vcs: VcLayout,
    /// Endpoint each channel leaves from (`NONE`: a switch).
    pub from_endpoint: IdVec<ChannelId, EndpointId>,
    /// When each link fails (empty: none does; NEVER: this one does not).
    fail_at: Vec<Ps>,
    /// Packets replayed by link-level retry on each channel (empty on clean links).
    pub replays: Vec<u64>,
    /// When the stall of each stalling output began (read only while
    /// [`Transmitter::stalling`]).
    stall_from: Vec<Ps>,
    /// Stalled time of each output inside the measurement window.
    stalled_ps: Vec<Ps>,
    /// The last transmission each output was given to start after the
    /// moment it was decided (a cut-through packet's), kept only while
    /// link readings are asked for (`sim.link_snapshots_ns`; else empty).
    ahead: Vec<Ahead>,
    /// Credits of one VC of a fabric input buffer.
    pub vc_capacity: i64,
}

/// A transmission counted when decided, ahead of its start: what a link
/// reading before that start leaves out, as a run whose window ended then
/// would not have counted it.
#[derive(Clone, Copy, Debug)]
struct Ahead {
    start: Ps,
    /// Wire bytes counted in the window for it (0: none).
    wire: u32,
    /// When the stall it closed began (NEVER: it closed none).
    stall_from: Ps,
}

/// Occupancy reported for a failed link: a path over it is ruled out.
pub(crate) use crate::routing::adaptive::FAILED_LINK;

impl Channels {
    /// The channels of `net`, every buffer empty: each VC of a switch input
    /// buffer gets `vc_capacity` credits; a switch's endpoint input port has
    /// no hop VCs, so each class gets `per_class` credits (its share of that
    /// port's buffer) in its first VC. `fail_at` lists the links that fail
    /// and when; `lossy_links` says whether any link has bit errors.
    pub fn new(net: &Network, vcs: VcLayout, vc_capacity: i64, per_class: i64, fail_at: &[(ChannelId, Ps)], lossy_links: bool) -> Channels {
        let nch = net.channels.len();
        let n = vcs.n_vcs;
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
                    returns: NONE,
                    _spare: 0,
                    waiting_credit: false,
                    to_endpoint: matches!(c.dst, End::Endpoint(_)),
                    fabric: c.kind != LinkKind::Terminal,
                    stalling: false,
                    credits: [0; INLINE_VCS],
                    queues: NONE,
                    xbar: CrossbarRead::default(),
                    busy_ps: Ps::ZERO,
                    bytes: 0,
                })
                .collect(),
            wide_credits: if n > INLINE_VCS { vec![0; nch * n] } else { Vec::new() },
            returns: ReturnRings::default(),
            vcs,
            from_endpoint: net.channels.iter().map(|c| if let End::Endpoint(e) = c.src { e } else { EndpointId::NONE }).collect(),
            fail_at: Vec::new(),
            replays: if lossy_links { vec![0; nch] } else { Vec::new() },
            stall_from: vec![NEVER; nch],
            stalled_ps: vec![Ps::ZERO; nch],
            ahead: Vec::new(),
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
    /// credit return, the input port's crossbar read). The ring its credit
    /// return joins is fetched by [`Channels::prefetch_returns`] once the
    /// transmitter is at hand.
    #[inline]
    pub fn prefetch_input(&self, ch: ChannelId) {
        self.prefetch_transmitter(ch);
    }

    /// Hints the processor to fetch the credit returns of `ch` (reads its
    /// transmitter: call it when that is in the cache).
    #[inline]
    pub fn prefetch_returns(&self, ch: ChannelId) {
        if let Some(t) = self.tx.get(ch) {
            self.returns.prefetch(t.returns);
        }
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
        if self.tx[ch].next_credit_at > now {
            return self.tx[ch].next_credit_at;
        }
        let line = self.tx[ch].returns;
        let mut next = NEVER;
        while let Some(r) = if line == NONE { None } else { self.returns.first(line) } {
            if r.at > now {
                next = r.at;
                break;
            }
            self.add_credits(ch, r.vc as usize, r.bytes as i64);
            self.returns.pop(line);
        }
        if next == NEVER && line != NONE {
            // Nothing on the wire: the ring goes back, so memory follows
            // the channels with credits in flight, not every channel.
            self.returns.release(line);
            self.tx[ch].returns = NONE;
        }
        self.tx[ch].next_credit_at = next;
        next
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
    /// `now` are absorbed first: the ring then holds only credits on the wire.
    #[inline]
    pub fn send_back(&mut self, ch: ChannelId, vc: u8, bytes: u32, at: Ps, now: Ps) -> bool {
        self.absorb(ch, now);
        let mut line = self.tx[ch].returns;
        self.returns.insert(&mut line, Slot { at, bytes, vc: vc as u32 });
        let t = &mut self.tx[ch];
        t.returns = line;
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

    /// Output `ch` has packets waiting and every one lacks credits at
    /// `now`: a stall begins, unless one is under way.
    #[inline]
    pub fn stall(&mut self, ch: ChannelId, now: Ps) {
        let t = &mut self.tx[ch];
        if !t.stalling {
            t.stalling = true;
            self.stall_from[ch.index()] = now;
        }
    }

    /// The stall of output `ch`, if any, ends at `now` (it sends, or no
    /// waiting packet lacks credits any more); its part inside the window
    /// `[from, until)` is counted.
    #[inline]
    pub fn unstall(&mut self, ch: ChannelId, now: Ps, from: Ps, until: Ps) {
        if std::mem::take(&mut self.tx[ch].stalling) {
            let i = ch.index();
            self.stalled_ps[i] += overlap(self.stall_from[i], now, from, until);
        }
    }

    /// Keeps, from now on, the transmissions counted ahead of their start
    /// (for link readings during the run).
    pub fn track_ahead(&mut self) {
        self.ahead = vec![Ahead { start: Ps::ZERO, wire: 0, stall_from: NEVER }; self.tx.len()];
    }

    /// Whether transmissions counted ahead of their start are kept.
    #[inline]
    pub fn tracks_ahead(&self) -> bool {
        !self.ahead.is_empty()
    }

    /// Output `ch`'s transmission starting at `start`, later than now, is
    /// counted with `wire` bytes in the window; called before it closes the
    /// output's stall, if one is under way.
    pub fn note_ahead(&mut self, ch: ChannelId, start: Ps, wire: u32) {
        let stall_from = if self.tx[ch].stalling { self.stall_from[ch.index()] } else { NEVER };
        self.ahead[ch.index()] = Ahead { start, wire, stall_from };
    }

    /// Bytes and stalled time of output `ch` as a run whose window `[from,
    /// t)` ended at `t` would count them, read at `t` (the clock): what was
    /// counted for a transmission starting at or after `t` is left out.
    pub fn counted_before(&self, ch: ChannelId, t: Ps, from: Ps, until: Ps) -> (u64, Ps) {
        let (mut bytes, mut stalled) = (self.tx[ch].bytes, self.stalled(ch, t, from, until));
        if let Some(a) = self.ahead.get(ch.index()).filter(|a| a.start >= t) {
            bytes -= a.wire as u64;
            if a.stall_from != NEVER {
                stalled = stalled.saturating_sub(overlap(a.stall_from.max(t), a.start, from, until));
            }
        }
        (bytes, stalled)
    }

    /// Stalled time of output `ch` inside the window `[from, until)` as of
    /// `now`, a stall under way counted to `now`.
    pub fn stalled(&self, ch: ChannelId, now: Ps, from: Ps, until: Ps) -> Ps {
        let i = ch.index();
        let open = if self.tx[ch].stalling { overlap(self.stall_from[i], now, from, until) } else { Ps::ZERO };
        self.stalled_ps[i] + open
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

/// Length of `[a, b)` inside `[from, until)`.
fn overlap(a: Ps, b: Ps, from: Ps, until: Ps) -> Ps {
    b.min(until).saturating_sub(a.max(from))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stall_counts_only_inside_the_window() {
        assert_eq!(overlap(Ps(10), Ps(50), Ps(20), Ps(40)), Ps(20));
        assert_eq!(overlap(Ps(10), Ps(15), Ps(20), Ps(40)), Ps::ZERO);
        assert_eq!(overlap(Ps(30), Ps(35), Ps(20), Ps(40)), Ps(5));
        assert_eq!(overlap(Ps(45), Ps(60), Ps(20), Ps(40)), Ps::ZERO);
    }

    /// The rings against a sorted reference: returns inserted out of
    /// order, rings growing, wrapping and shrinking back to empty, rings
    /// of several channels interleaved and reused from the free lists.
    #[test]
    fn return_rings_keep_each_channel_sorted_and_stable() {
        let mut rings = ReturnRings::default();
        let mut lines = [NONE; 3];
        let mut reference: Vec<Vec<(Ps, u32)>> = vec![Vec::new(); 3];
        let mut rng = crate::rng::Rng::new(3, 3);
        let mut id = 0u32;
        for step in 0..20_000u64 {
            let c = rng.below(3) as usize;
            // Bursts of inserts, then drains, so rings grow past several
            // lines and go back to empty.
            let insert = (step / 500) % 2 == 0 || rng.below(4) == 0;
            if insert {
                id += 1;
                let at = Ps(step * 10 + rng.below(200));
                rings.insert(&mut lines[c], Slot { at, bytes: id, vc: 0 });
                // After every return not later than it.
                let pos = reference[c].iter().position(|&(t, _)| t > at).unwrap_or(reference[c].len());
                reference[c].insert(pos, (at, id));
            } else if let Some(&(t, i)) = reference[c].first() {
                let got = rings.first(lines[c]).expect("the ring has it");
                assert_eq!((got.at, got.bytes), (t, i), "step {step}");
                rings.pop(lines[c]);
                reference[c].remove(0);
            } else {
                assert!(lines[c] == NONE || rings.first(lines[c]).is_none());
            }
        }
        assert!(rings.arena.len() < 4096, "rings given up are reused: {} lines", rings.arena.len());
    }

    #[test]
    fn the_channel_record_is_two_cache_lines() {
        assert_eq!(std::mem::size_of::<Transmitter>(), 128);
    }
}
