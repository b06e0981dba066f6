//! The tiled switch (`switch.model = "tiled"`, MODEL.md Sec. 2): Rosetta
//! as built (000 Sec. II-A, Fig. 1; 002 Sec. II-D) and, with its own grid,
//! the Aries router (004 Sec. 2.1).
//!
//! Requests are kept per input port: a routed packet waits in the queue of
//! its (input, output, VC), so a packet waiting for a busy output never
//! blocks one of the same input for a free output. The ports sit on tiles
//! in rows ([`crate::crossbar::TileGrid`]); a packet from an input on row
//! `r` crosses that input's row bus to the tile of its output's column,
//! that tile's crossbar (16-to-8 on Rosetta) and the column channel from
//! row `r` down to its output. Three resources are contended:
//! - the input's row bus: one packet at a time, at the internal rate
//!   (`switch.speedup` x the input's port rate);
//! - the column channel from row `r` to output `o`, shared by every input
//!   of row `r` sending to `o`, one packet at a time at the same rate;
//! - the output port, whose multiplexer takes one row's column channel at
//!   a time: it grants among the rows in turn, and within a row the
//!   oldest ready request; with `switch.arbitration = "age"` it grants the
//!   request whose packet entered the network first, over every row.
//!
//! A grant reserves the output (request-to-transmit / grant-to-transmit,
//! 000 Sec. II-A): the data crosses once the input's row bus and the
//! column channel are free, and the output's link sends it as it arrives.
//! Outputs grant ahead of their link only when some input crosses slower
//! than an output sends (speedup x input rate below an output's rate):
//! then transfers from several rows overlap so the output keeps its line
//! rate, which one row alone cannot give it.

use super::channels::CrossbarRead;
use super::switch::Voq;
use super::{Simulation, NEVER};
use crate::crossbar::{TileGrid, MAX_ROWS};
use crate::error::{ConfigError, Result};
use crate::ids::{ChannelId, Id, IdVec, PacketId, SwitchId};
use crate::network::{End, Network, NONE};
use super::voq::{PacketRing, Queued};
use crate::units::Ps;

/// A non-empty request queue as its output's arbiter sees it: a copy of
/// the queue's head entry, the queue's VC and input row, and its handle
/// in the switches' queue slab (which holds its packets).
#[derive(Clone, Copy, Debug)]
struct Request {
    ready: Ps,
    in_ch: ChannelId,
    wire: u32,
    v: u32,
    vc: u8,
    row: u8,
}

/// What the tiled model keeps besides the request queues' packets (which
/// live in the switches' queue slab and rings, like the per-output
/// model's).
pub(crate) struct Tiles {
    /// Per output: its non-empty request queues, side by side in one
    /// array so arbitration and enqueueing scan them without chasing a
    /// list through the slab (one cache miss per queue: 62% of the time of
    /// an Aries router at 70% load went to those walks). Their order is
    /// not the arbitration order: arbitration ranks requests by age, and
    /// every rank is unique, so any order gives the same grant.
    requests: IdVec<ChannelId, Vec<Request>>,
    /// Per queue handle: its place in its output's `requests`.
    place: Vec<u32>,
    /// Tile row of the switch port each channel enters (0 for channels into NICs).
    row_of: IdVec<ChannelId, u8>,
    rows: usize,
    /// When the column channel from row `r` to output `o` is free: `[o * rows + r]`.
    column_free: Vec<Ps>,
    /// Row each output granted last: its next grant goes to the next row with a request.
    last_row: IdVec<ChannelId, u8>,
    /// Request queue each input channel last queued a packet into (a hint).
    recent: IdVec<ChannelId, u32>,
    /// Request queue each output owes its next grant (its arbitration
    /// winner when that could not cross; `NONE`: none).
    owed: IdVec<ChannelId, u32>,
    /// Some input crosses slower than some output sends: outputs grant
    /// ahead of their link being free (see the module doc).
    pub grant_ahead: bool,
    /// Outputs grant the packet injected first, over every row
    /// (`switch.arbitration = "age"`), instead of rows in turn.
    by_age: bool,
}

impl Tiles {
    /// The tiled model's state for `net`, every port placed on `grid`;
    /// refuses a switch with more ports than the grid holds.
    pub fn new(net: &Network, grid: TileGrid, speedup: f64, arbitration: crate::crossbar::Arbitration) -> Result<Tiles> {
        for s in (0..net.switches() as u32).map(SwitchId) {
            if net.ports(s) > grid.ports() {
                return Err(ConfigError::new(
                    "switch.tile_rows",
                    format!(
                        "switch {s} has {} ports but a grid of {} x {} tiles with {} ports each holds {}: give a larger grid",
                        net.ports(s),
                        grid.rows,
                        grid.columns,
                        grid.ports_per_tile,
                        grid.ports()
                    ),
                ));
            }
        }
        let row_of: IdVec<ChannelId, u8> =
            net.channels.iter().map(|c| if let End::Switch { port, .. } = c.dst { grid.row_of(port) as u8 } else { 0 }).collect();
        let rates = net.channels.iter().map(|c| c.rate.serialize(1 << 20).as_f64());
        // Serialization time of 1 MiB: the slowest port has the largest.
        let (fastest, slowest) = rates.fold((f64::MAX, 0.0f64), |(f, s), t| (f.min(t), s.max(t)));
        let rows = grid.rows as usize;
        Ok(Tiles {
            requests: net.channels.iter().map(|_| Vec::new()).collect(),
            place: Vec::new(),
            column_free: vec![Ps::ZERO; net.channels.len() * rows],
            last_row: net.channels.iter().map(|_| (rows - 1) as u8).collect(),
            owed: net.channels.iter().map(|_| NONE).collect(),
            recent: net.channels.iter().map(|_| NONE).collect(),
            row_of,
            rows,
            grant_ahead: slowest / speedup > fastest * (1.0 + 1e-9),
            by_age: arbitration == crate::crossbar::Arbitration::Age,
        })
    }

    /// Handles of output `ch`'s non-empty request queues (no set order).
    pub fn queues(&self, ch: ChannelId) -> impl Iterator<Item = u32> + '_ {
        self.requests.get(ch).into_iter().flatten().map(|r| r.v)
    }

    /// Hints the processor to fetch output `ch`'s requests.
    #[inline]
    pub fn prefetch(&self, ch: ChannelId) {
        if let Some(r) = self.requests.get(ch).and_then(|r| r.first()) {
            crate::packet::prefetch_read(r as *const Request as *const u8);
        }
    }
}

/// A request's rank inside its row: oldest ready first (with
/// `switch.arbitration = "age"`, oldest injected, over every row), then
/// the lower input channel and VC (a fixed order, so runs repeat exactly).
type Age = (Ps, u32, u8);

impl Simulation {
    /// Queues routed packet `h` (VC `vc`) for output `out` of a tiled
    /// switch, in the request queue of its input, unless it can be
    /// granted at once.
    pub(super) fn tiled_enqueue(&mut self, h: PacketId, out: ChannelId, vc: usize, to_endpoint: bool, cut_through: bool) {
        if cut_through && self.tiled_cut_through(h, out, vc, to_endpoint) {
            return;
        }
        let tiles = self.switches.tiles.as_ref().expect("the tiled model is on");
        let grant_ahead = tiles.grant_ahead;
        let (in_ch, ready, wire, src) = {
            let p = self.pool.hot(h);
            (p.in_ch, p.ready, p.wire, p.src)
        };
        let row = tiles.row_of[in_ch];
        let e = Queued { ready, h, in_ch, wire };
        match self.find_request(in_ch, out, vc) {
            Some(v) => self.switches.push_to(v, e),
            None => {
                let v = self.switches.new_voq(Voq { queue: PacketRing::default(), next: NONE, vc: vc as u8 });
                self.switches.push_to(v, e);
                let tiles = self.switches.tiles.as_mut().expect("the tiled model is on");
                let at = tiles.requests[out].len() as u32;
                tiles.requests[out].push(Request { ready, in_ch, wire, v, vc: vc as u8, row });
                if tiles.place.len() <= v as usize {
                    tiles.place.resize(v as usize + 1, NONE);
                }
                tiles.place[v as usize] = at;
                tiles.recent[in_ch] = v;
            }
        }
        self.egress_enqueued(h, out, to_endpoint, wire, src);
        let t = &mut self.channels.tx[out];
        t.queued_bytes += wire as u64;
        t.queued_packets += 1;
        // Granting ahead, the arbiter itself finds how early it may grant.
        let at = if grant_ahead { ready } else { ready.max(t.busy_until) };
        self.schedule_try(out, at);
    }

    /// The non-empty request queue of (`in_ch`, `out`, `vc`), if any:
    /// first the one input `in_ch` last queued into (packets of a message
    /// follow each other), else a scan of the output's requests.
    #[inline]
    fn find_request(&mut self, in_ch: ChannelId, out: ChannelId, vc: usize) -> Option<u32> {
        let tiles = self.switches.tiles.as_mut().expect("the tiled model is on");
        let requests = &tiles.requests[out];
        let matches = |r: &Request| r.in_ch == in_ch && r.vc as usize == vc;
        // A handle's place is only meaningful while its queue is listed
        // here: check that the request found there is that queue.
        let recent = tiles.recent[in_ch];
        if let Some(r) = tiles.place.get(recent as usize).and_then(|&i| requests.get(i as usize)) {
            if r.v == recent && matches(r) {
                return Some(recent);
            }
        }
        let v = requests.iter().find(|r| matches(r))?.v;
        tiles.recent[in_ch] = v;
        Some(v)
    }

    /// Fast path, as the per-output model's: when output `out` has no
    /// request and no attempt pending, is free when `h` is ready, and the
    /// row bus and column channel are free then too, `h` is the next grant
    /// (packets become ready in arrival order), so it is granted now for
    /// that moment, saving the queueing events.
    fn tiled_cut_through(&mut self, h: PacketId, out: ChannelId, vc: usize, to_endpoint: bool) -> bool {
        let t = &self.channels.tx[out];
        if t.queued_packets > 0 || t.scheduled_at != NEVER {
            return false;
        }
        let p = self.pool.hot(h);
        let start = p.ready;
        let tiles = self.switches.tiles.as_ref().expect("the tiled model is on");
        let column = tiles.column_free[out.index() * tiles.rows + tiles.row_of[p.in_ch] as usize];
        let cross = self.switches.read_time(self.channels.tx[p.in_ch].rate, p.wire);
        if t.busy_until > start || column > start || self.channels.bus_free_from(p.in_ch, start, cross) > start {
            return false;
        }
        if !to_endpoint && !self.channels.has_credits(out, vc, p.wire, self.clock.now) {
            return false;
        }
        self.tiled_grant(h, out, vc, !to_endpoint, start);
        true
    }

    /// Output arbitration of tiled switch output `ch`: traffic class first
    /// ([`crate::qos::pick_class`]), then the next row after the one
    /// served last that has a grantable request (ready, with credits for
    /// its VC downstream), then that row's oldest: the winner.
    ///
    /// Work-conserving: if the winner cannot cross now (its input's row
    /// bus or its row's column channel is busy), the output grants the
    /// first request in the same row order that can, and owes the winner
    /// its next grant. Only when nothing can cross now, or when paying a
    /// debt, does a grant wait for the row bus and column channel, at most
    /// for the transfers already granted on them.
    ///
    /// Nobody starves: rows are served in turn, so a row with a grantable
    /// request wins within `rows` grants of its class; inside a row a
    /// request loses only to older ones, and packets that become ready
    /// after it are younger, so finitely many can pass it; a winner that
    /// cannot cross is served at the output's next grant. A request short
    /// of credits waits for the credits of its VC, which every request of
    /// that VC competes for in the same order.
    pub(super) fn tiled_send(&mut self, ch: ChannelId) {
        let now = self.clock.now;
        let to_switch = !self.channels.tx[ch].to_endpoint;
        let mut wake = NEVER;
        let mut credit_blocked = false;
        let owed = self.switches.tiles.as_ref().expect("the tiled model is on").owed[ch];
        let owed_ok = owed != NONE && {
            let q = self.request(ch, owed);
            self.grantable(ch, &q, now, to_switch, &mut wake, &mut credit_blocked)
        };
        // A debt is paid before class arbitration: the debtor won it already.
        let chosen = if owed_ok {
            Some((owed, NONE))
        } else {
            self.pick_class(ch, now, to_switch, &mut wake, &mut credit_blocked)
                .and_then(|c| self.oldest_of_next_row(ch, c, now, to_switch, &mut wake, &mut credit_blocked))
        };
        let Some((granted, debtor)) = chosen else {
            return self.retry_later(ch, wake, credit_blocked);
        };
        let q = self.request(ch, granted);
        let lead = self.grant_lead(ch, q.in_ch, q.wire);
        let busy_until = self.channels.tx[ch].busy_until;
        if busy_until > now + lead {
            self.schedule_try(ch, busy_until - lead);
            return;
        }
        let owed = &mut self.switches.tiles.as_mut().expect("the tiled model is on").owed[ch];
        if *owed == granted {
            *owed = NONE;
        }
        if debtor != NONE {
            // A debt still owed here is one short of credits: it competes
            // for them in order like any request, and the newer debtor,
            // which could go but for its row bus, takes the slot.
            *owed = debtor;
        }
        let h = self.pop_request(ch, granted);
        self.mark_congestion(h, ch, !to_switch);
        let t = &mut self.channels.tx[ch];
        t.queued_bytes -= q.wire as u64;
        t.queued_packets -= 1;
        self.tiled_grant(h, ch, q.vc as usize, to_switch, now);
        let t = &self.channels.tx[ch];
        if t.queued_packets > 0 {
            let at = t.busy_until.saturating_sub(lead).max(now);
            self.schedule_try(ch, at);
        }
    }

    /// The traffic class output `ch` serves next: with one class, it; with
    /// several, [`Simulation::pick_class_vc`] among those with a grantable
    /// request (None if none, or if all are at their maximum share).
    fn pick_class(&mut self, ch: ChannelId, now: Ps, to_switch: bool, wake: &mut Ps, credit_blocked: &mut bool) -> Option<usize> {
        let ncls = self.qos.classes.len();
        if ncls == 1 {
            return Some(0);
        }
        let mut best = [None::<(Ps, usize)>; 8];
        for i in 0..self.requests_of(ch).len() {
            let q = self.requests_of(ch)[i];
            if self.grantable(ch, &q, now, to_switch, wake, credit_blocked) {
                let c = self.vcs.class_of(q.vc as usize);
                if best[c].is_none_or(|(r, _)| q.ready < r) {
                    best[c] = Some((q.ready, c));
                }
            }
        }
        self.pick_class_vc(ch, &best[..ncls], wake)
    }

    /// True if request queue `q` of output `ch` can be granted now: its
    /// head is ready and has credits downstream. Lowers `wake` to when a
    /// head becomes ready and notes a credit shortfall.
    #[inline]
    fn grantable(&mut self, ch: ChannelId, q: &Request, now: Ps, to_switch: bool, wake: &mut Ps, credit_blocked: &mut bool) -> bool {
        if q.ready > now {
            *wake = (*wake).min(q.ready);
            return false;
        }
        if to_switch && !self.channels.has_credits(ch, q.vc as usize, q.wire, now) {
            *credit_blocked = true;
            return false;
        }
        true
    }

    /// True if the head of request queue `q` of output `ch` can cross the
    /// switch now: its input's row bus and its row's column channel are free.
    #[inline]
    fn crossable(&self, ch: ChannelId, q: &Request, now: Ps) -> bool {
        let tiles = self.switches.tiles.as_ref().expect("the tiled model is on");
        if tiles.column_free[ch.index() * tiles.rows + q.row as usize] > now {
            return false;
        }
        let in_ch = q.in_ch;
        let cross = || self.switches.read_time(self.channels.tx[in_ch].rate, q.wire);
        !self.channels.xbar_busy(in_ch, now, cross)
    }

    /// Among the grantable requests of class `class` at output `ch`: the
    /// winner, the oldest of the first row after the one served last that
    /// has one; and, if the winner cannot cross now, the request granted
    /// instead (the first in the same order that can, or none) with the
    /// winner as the debtor: `(granted, debtor or NONE)`.
    fn oldest_of_next_row(&mut self, ch: ChannelId, class: usize, now: Ps, to_switch: bool, wake: &mut Ps, credit_blocked: &mut bool) -> Option<(u32, u32)> {
        let several = self.qos.classes.len() > 1;
        let by_age = self.switches.tiles.as_ref().expect("the tiled model is on").by_age;
        // Per row: the oldest grantable request, and the oldest that can also cross now.
        let mut best = [None::<(Age, u32)>; MAX_ROWS as usize];
        let mut free = [None::<(Age, u32)>; MAX_ROWS as usize];
        for i in 0..self.requests_of(ch).len() {
            let q = self.requests_of(ch)[i];
            let this = q.v;
            if several && self.vcs.class_of(q.vc as usize) != class {
                continue;
            }
            if !self.grantable(ch, &q, now, to_switch, wake, credit_blocked) {
                continue;
            }
            let age = if by_age {
                let h = self.switches.voqs[q.v as usize].queue.head.h;
                (self.pool.cold(h).injected, q.in_ch.0, q.vc)
            } else {
                (q.ready, q.in_ch.0, q.vc)
            };
            let r = q.row as usize;
            if best[r].is_none_or(|(a, _)| age < a) {
                best[r] = Some((age, this));
            }
            if free[r].is_none_or(|(a, _)| age < a) && self.crossable(ch, &q, now) {
                free[r] = Some((age, this));
            }
        }
        let tiles = self.switches.tiles.as_ref().expect("the tiled model is on");
        let (rows, last) = (tiles.rows, tiles.last_row[ch] as usize);
        if by_age {
            // The oldest over every row; if it cannot cross now, the oldest that can.
            let oldest = |of: &[Option<(Age, u32)>]| of[..rows].iter().flatten().min_by_key(|(a, _)| *a).copied();
            let (_, winner) = oldest(&best)?;
            return match oldest(&free) {
                Some((_, f)) if f == winner => Some((winner, NONE)),
                Some((_, instead)) => Some((instead, winner)),
                None => Some((winner, NONE)),
            };
        }
        let order = |i: usize| (last + 1 + i) % rows;
        let (first, (_, winner)) = (0..rows).find_map(|i| best[order(i)].map(|b| (i, b)))?;
        if free[order(first)].is_some_and(|(_, f)| f == winner) {
            return Some((winner, NONE));
        }
        match (first..rows).find_map(|i| free[order(i)]) {
            Some((_, instead)) => Some((instead, winner)),
            None => Some((winner, NONE)),
        }
    }

    /// How long before output `ch`'s link is free it may grant a packet of
    /// `wire` bytes from input `in_ch`: the time the crossing takes beyond
    /// the packet's serialization (zero unless the input crosses slower
    /// than the output sends).
    fn grant_lead(&self, ch: ChannelId, in_ch: ChannelId, wire: u32) -> Ps {
        if !self.switches.tiles.as_ref().is_some_and(|t| t.grant_ahead) {
            return Ps::ZERO;
        }
        let cross = self.switches.read_time(self.channels.tx[in_ch].rate, wire);
        cross.saturating_sub(self.channels.tx[ch].rate.serialize(wire as u64))
    }

    /// Output `ch`'s non-empty request queues.
    #[inline]
    fn requests_of(&self, ch: ChannelId) -> &[Request] {
        &self.switches.tiles.as_ref().expect("the tiled model is on").requests[ch]
    }

    /// The request of queue `v` (non-empty) at output `ch`.
    #[inline]
    fn request(&self, ch: ChannelId, v: u32) -> Request {
        let tiles = self.switches.tiles.as_ref().expect("the tiled model is on");
        tiles.requests[ch][tiles.place[v as usize] as usize]
    }

    /// Takes the head of request queue `v` of output `ch`: its next packet
    /// becomes the request, or, once empty, the queue leaves the output's
    /// requests and its slot is freed.
    fn pop_request(&mut self, ch: ChannelId, v: u32) -> PacketId {
        let h = self.switches.pop_from(v);
        let ring = self.switches.voqs[v as usize].queue;
        let tiles = self.switches.tiles.as_mut().expect("the tiled model is on");
        let at = tiles.place[v as usize] as usize;
        let requests = &mut tiles.requests[ch];
        if ring.is_empty() {
            requests.swap_remove(at);
            if let Some(moved) = requests.get(at) {
                tiles.place[moved.v as usize] = at as u32;
            }
            self.switches.free_voq(v);
        } else {
            let r = &mut requests[at];
            (r.ready, r.in_ch, r.wire) = (ring.head.ready, ring.head.in_ch, ring.head.wire);
        }
        h
    }

    /// Grants packet `h` (VC `vc`) output `out` at `at`: its data crosses
    /// its input's row bus and its row's column channel to `out` from when
    /// both are free, at the internal rate, and leaves on the link from
    /// when that is free; its tail cannot leave before it has crossed.
    fn tiled_grant(&mut self, h: PacketId, out: ChannelId, vc: usize, to_switch: bool, at: Ps) {
        let (in_ch, wire) = {
            let p = self.pool.hot(h);
            (p.in_ch, p.wire)
        };
        let cross = self.switches.read_time(self.channels.tx[in_ch].rate, wire);
        let tiles = self.switches.tiles.as_mut().expect("the tiled model is on");
        let row = tiles.row_of[in_ch];
        tiles.last_row[out] = row;
        let column = &mut tiles.column_free[out.index() * tiles.rows + row as usize];
        let from = self.channels.bus_free_from(in_ch, at.max(*column), cross);
        *column = from + cross;
        let p = self.pool.hot_mut(h);
        p.tail = p.tail.max(from + cross);
        let start = from.max(self.channels.tx[out].busy_until);
        self.start_transmission(h, out, vc, to_switch, start);
        self.channels.tx[in_ch].xbar = CrossbarRead { from, until: from + cross };
    }
}
