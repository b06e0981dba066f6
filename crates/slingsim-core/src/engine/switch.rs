//! Switches (MODEL.md Sec. 2): a packet arriving at an input buffer is
//! routed to an output and waits in that output's virtual output queue of
//! its virtual channel; output arbitration picks, among the queue heads
//! that are ready, have downstream credits and whose input port can read
//! into the crossbar, the one ready first (after traffic-class
//! arbitration, [`crate::qos`]); the transmission then spends credits
//! downstream and returns the input buffer's space upstream.

use crate::ids::{ChannelId, IdVec, PacketId, SwitchId};
use super::{Simulation, NEVER};
use crate::congestion::{CongestionControl, Marks};
use crate::event::Event;
use crate::network::NONE;
use super::voq::{PacketRing, QueueStore, Queued};
use crate::packet::{PacketKind, FLAG_ECN, FLAG_SWITCH_MADE};
use crate::qos::{ShareMeter, TrafficClass};
use crate::rng::Rng;
use crate::routing::{self, Biases};
use crate::topology::Topology;
use crate::units::{Ps, Rate};

/// A virtual output queue: the packets of one virtual channel waiting for
/// one output, linked to the output's next non-empty queue.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Voq {
    pub queue: PacketRing,
    /// The output's next non-empty queue (a higher VC; `NONE`: last).
    pub next: u32,
    pub vc: u8,
}

/// The switches' own state: their virtual output queues and random streams.
pub(crate) struct Switches {
    /// Every non-empty virtual output queue. An output's queues form a list
    /// in VC order from its transmitter's `queues` handle; most queues are
    /// empty at any time, so only the non-empty ones take memory, and
    /// arbitration looks at those alone.
    pub voqs: Vec<Voq>,
    free_voqs: Vec<u32>,
    /// The rings the queues keep their packets in.
    pub store: QueueStore,
    /// One random stream per switch (routing choices).
    pub rng: IdVec<SwitchId, Rng>,
    /// Fall-through latency of each output ([`FallThrough`]).
    pub latency: FallThrough,
    /// Crossbar speedup over the port rate.
    pub speedup: f64,
    /// log2 of the speedup when it is a power of two (the presets' 2 and
    /// 4): a read time is then the serialization shifted, which is what
    /// dividing the float gives, with no division per hop.
    speedup_shift: Option<u32>,
    /// The tiled model's state (`switch.model = "tiled"`), else none.
    pub tiles: Option<Box<super::tiled::Tiles>>,
}

/// The fall-through latency of a switch, input to output: a mean and a
/// spread over output ports ([Roweth] Sec. II-F measured 308-327 ns
/// "depending on the combination of ports used"). Each output's latency is
/// a fixed draw, hashed from the seed and the output channel, so it costs
/// no memory per port and is the same in every run of the seed. It
/// depends on the output alone, not on the input: every packet for one
/// output then waits the same time in the switch, so packets reach the
/// output's arbitration in the order they arrived, which the cut-through
/// path ([`Simulation::try_cut_through`]) relies on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FallThrough {
    /// The lowest latency of any output.
    pub min: Ps,
    /// Width of the draw (0: every output takes `min`).
    pub spread: Ps,
    seed: u64,
}

impl FallThrough {
    /// Latencies uniform in `mean` +- `spread` / 2, drawn with `seed`.
    pub fn new(mean: Ps, spread: Ps, seed: u64) -> FallThrough {
        FallThrough { min: Ps(mean.0 - spread.0 / 2), spread, seed }
    }

    /// The highest latency any output may take.
    pub fn max(&self) -> Ps {
        self.min + self.spread
    }

    /// The latency of output channel `out`.
    #[inline]
    pub fn of(&self, out: ChannelId) -> Ps {
        if self.spread == Ps::ZERO {
            return self.min;
        }
        let mut z = self.seed ^ (out.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Ps(self.min.0 + ((z as u128 * (self.spread.0 + 1) as u128) >> 64) as u64)
    }
}

impl Switches {
    /// Switches with empty queues: `rng` gives each its random stream.
    pub fn new(rng: IdVec<SwitchId, Rng>, latency: FallThrough, speedup: f64, tiles: Option<Box<super::tiled::Tiles>>) -> Switches {
        let whole = speedup >= 1.0 && speedup.fract() == 0.0 && speedup <= (1u64 << 32) as f64;
        let speedup_shift = (whole && (speedup as u64).is_power_of_two()).then(|| (speedup as u64).trailing_zeros());
        Switches { voqs: Vec::new(), free_voqs: Vec::new(), store: QueueStore::default(), rng, latency, speedup, speedup_shift, tiles }
    }

    /// Hints the processor to fetch the first queue of output `ch`, whose
    /// list starts at `first` (the tiled model: its requests).
    #[inline]
    pub fn prefetch_queues(&self, ch: ChannelId, first: u32) {
        if let Some(t) = &self.tiles {
            t.prefetch(ch);
        }
        if let Some(q) = self.voqs.get(first as usize) {
            crate::packet::prefetch_read(q as *const Voq as *const u8);
        }
    }

    /// Hints the processor to fetch the head packet of the first queue of
    /// an output whose list starts at `first`, and the entry that becomes
    /// the head when it leaves (reads that queue: call it when
    /// [`Switches::prefetch_queues`] has fetched it).
    #[inline]
    pub fn prefetch_first_head(&self, first: u32, pool: &crate::packet::PacketPool) {
        if let Some(q) = self.voqs.get(first as usize) {
            if !q.queue.is_empty() {
                pool.prefetch(q.queue.head.h);
                self.store.prefetch_next(&q.queue);
            }
        }
    }

    /// The non-empty queues of output `ch`, whose list starts at `first`:
    /// in VC order, or, in the tiled model, in no set order.
    pub fn queues_of(&self, ch: ChannelId, first: u32) -> impl Iterator<Item = &Voq> + '_ {
        let tiled = self.tiles.as_ref().into_iter().flat_map(move |t| t.queues(ch)).map(|v| &self.voqs[v as usize]);
        tiled.chain(self.queues_from(first))
    }

    /// The queues of the output whose list starts at `first`, in VC order.
    fn queues_from(&self, first: u32) -> impl Iterator<Item = &Voq> + '_ {
        let mut v = first;
        std::iter::from_fn(move || {
            let q = self.voqs.get(v as usize)?;
            v = q.next;
            Some(q)
        })
    }

    /// Appends packet `e` to the VC `vc` queue of the output whose list
    /// starts at `*first`, making the queue if it is empty.
    #[inline]
    fn push(&mut self, first: &mut u32, vc: u8, e: Queued) {
        // Find the queue, or the place for it in VC order.
        let (mut prev, mut v) = (NONE, *first);
        while v != NONE && self.voqs[v as usize].vc < vc {
            (prev, v) = (v, self.voqs[v as usize].next);
        }
        if v == NONE || self.voqs[v as usize].vc != vc {
            let new = self.new_voq(Voq { queue: PacketRing::default(), next: v, vc });
            if prev == NONE {
                *first = new;
            } else {
                self.voqs[prev as usize].next = new;
            }
            v = new;
        }
        self.push_to(v, e);
    }

    /// Appends packet `e` to queue `v`.
    #[inline]
    pub(super) fn push_to(&mut self, v: u32, e: Queued) {
        let q = &mut self.voqs[v as usize].queue;
        self.store.push(q, e);
    }

    /// Takes the head of queue `v` (it must hold one).
    #[inline]
    pub(super) fn pop_from(&mut self, v: u32) -> PacketId {
        let q = &mut self.voqs[v as usize].queue;
        self.store.pop(q).h
    }

    /// Stores queue `q` in a free slot and returns its handle. A reused
    /// slot keeps its ring's region.
    #[inline]
    pub(super) fn new_voq(&mut self, q: Voq) -> u32 {
        match self.free_voqs.pop() {
            Some(i) => {
                let ring = self.voqs[i as usize].queue.cleared();
                self.voqs[i as usize] = Voq { queue: ring, ..q };
                i
            }
            None => {
                self.voqs.push(q);
                (self.voqs.len() - 1) as u32
            }
        }
    }

    /// Gives the slot of queue `v` (empty, unlinked) back.
    #[inline]
    pub(super) fn free_voq(&mut self, v: u32) {
        self.free_voqs.push(v);
    }

    /// Takes the head of the VC `vc` queue of the output whose list starts
    /// at `*first` (it must hold one), dropping the queue once empty.
    #[inline]
    fn pop(&mut self, first: &mut u32, vc: u8) -> PacketId {
        let (mut prev, mut v) = (NONE, *first);
        while self.voqs[v as usize].vc != vc {
            (prev, v) = (v, self.voqs[v as usize].next);
        }
        let h = self.pop_from(v);
        let q = &self.voqs[v as usize];
        if q.queue.is_empty() {
            let next = q.next;
            if prev == NONE {
                *first = next;
            } else {
                self.voqs[prev as usize].next = next;
            }
            self.free_voqs.push(v);
        }
        h
    }

    /// The packets queued in `q`, head first.
    pub fn packets<'a>(&'a self, q: &'a Voq) -> impl Iterator<Item = PacketId> + 'a {
        self.store.iter(&q.queue).map(|e| e.h)
    }

    /// Time input port of rate `rate` needs to read `wire` bytes into the crossbar.
    #[inline]
    pub fn read_time(&self, rate: Rate, wire: u32) -> Ps {
        let ser = rate.serialize(wire as u64);
        match self.speedup_shift {
            // Exact: a float of fewer than 2^53 ps divided by a power of two, truncated.
            Some(k) => Ps(ser.0 >> k),
            None => Ps::from_f64(ser.as_f64() / self.speedup),
        }
    }
}

/// Traffic classes and what output arbitration keeps for them.
pub(crate) struct Qos {
    pub classes: Vec<TrafficClass>,
    /// Routing biases of each class.
    pub biases: Vec<Biases>,
    pub share: ShareMeter,
    pub any_lossy: bool,
    /// A lossy class drops a packet whose output queue holds this many bytes.
    pub lossy_queue_bytes: u64,
}

impl Simulation {
    /// The head of packet `h` reached the receiver of the channel it is on.
    #[inline]
    pub(crate) fn on_arrive(&mut self, h: PacketId) {
        let ch = self.pool.hot(h).ch;
        let s = self.channels.tx[ch].to_switch;
        if s.is_none() {
            return self.deliver(h);
        }
        if self.flow_queues.on {
            // Switch-side congestion control: a fabric ack ends at its
            // flow's ingress switch; data from a NIC may have to wait there.
            let p = self.pool.hot(h);
            if p.kind == PacketKind::FabricAck && p.dst_switch == s {
                return self.fabric_ack_arrived(h, ch);
            }
            if p.kind == PacketKind::Data && p.hops == 0 && !self.channels.tx[ch].fabric {
                return self.ingress_arrive(h, s, ch);
            }
        }
        self.route_into_queue(h, s, ch)
    }

    /// Routes `h` at switch `s` and queues it for its output.
    #[inline]
    pub(super) fn route_into_queue(&mut self, h: PacketId, s: SwitchId, in_ch: ChannelId) {
        let now = self.clock.now;
        let alg = routing::Algorithm::from_code(self.pool.hot(h).alg);
        let created = if alg.hashed() { self.pool.cold(h).created } else { Ps::ZERO };
        // Both load views read the channels; they are never called at once.
        let channels = std::cell::RefCell::new(&mut self.channels);
        let mut occupancy = |c: ChannelId| channels.borrow_mut().occupancy(c, now);
        let adverts = &mut self.neighbour_load;
        let mut advertised = |c: ChannelId| {
            if adverts.on {
                adverts.read(c, now, || channels.borrow_mut().occupancy(c, now))
            } else {
                0
            }
        };
        let p = self.pool.hot_mut(h);
        if p.hops == 0 {
            p.epoch = self.reroutes.epoch_at(now);
        }
        let rng = &mut self.switches.rng[s];
        let biases = &self.qos.biases[p.class as usize];
        let out = match self.reroutes.topo(&self.topo, p.epoch) {
            Topology::Dragonfly(df) => routing::adaptive::next_channel(df, alg, &self.net, s, p, created, rng, biases, &mut occupancy, &mut advertised),
            Topology::Graph(g) => routing::adaptive::next_channel(g, alg, &self.net, s, p, created, rng, biases, &mut occupancy, &mut advertised),
        };
        debug_assert!(!out.is_none(), "routing chose an uncabled port at switch {s}");
        let to_endpoint = self.channels.tx[out].to_endpoint;
        debug_assert!(to_endpoint || (p.hops as usize) < self.vcs.hop_vcs, "path longer than the VC scheme allows");
        let vc = self.vcs.of(p.class, p.hops, to_endpoint);
        p.in_ch = in_ch;
        p.in_vc = p.vc;
        p.vc = vc as u8;
        p.ch = out;
        let fall_through = self.switches.latency.of(out);
        p.ready = now + fall_through;
        p.extend_path(fall_through);
        let class = p.class;
        if self.qos.any_lossy && self.qos.classes[class as usize].spec.lossy && self.channels.tx[out].queued_bytes >= self.qos.lossy_queue_bytes {
            self.drop_lossy(h);
            return;
        }
        if !to_endpoint && self.hop_hold.on() && self.hop_holds(h, out, vc) {
            return;
        }
        self.queue_routed(h, out, vc, to_endpoint, true);
    }

    /// Queues routed packet `h` for output `out` on VC `vc`, or, if
    /// `cut_through` and nothing is ahead of it, starts it at once.
    #[inline]
    pub(super) fn queue_routed(&mut self, h: PacketId, out: ChannelId, vc: usize, to_endpoint: bool, cut_through: bool) {
        let (ready, wire, src) = {
            let p = self.pool.hot(h);
            (p.ready, p.wire, p.src)
        };
        if self.switches.tiles.is_some() {
            self.tiled_enqueue(h, out, vc, to_endpoint, cut_through);
            return;
        }
        if cut_through && self.try_cut_through(h, out, vc, to_endpoint) {
            return;
        }
        let first = &mut self.channels.tx[out].queues;
        let in_ch = self.pool.hot(h).in_ch;
        self.switches.push(first, vc as u8, Queued { ready, h, in_ch, wire });
        self.egress_enqueued(h, out, to_endpoint, wire, src);
        let t = &mut self.channels.tx[out];
        t.queued_bytes += wire as u64;
        t.queued_packets += 1;
        let at = ready.max(t.busy_until);
        self.schedule_try(out, at);
    }

    /// Fast path: when output `out` has nothing queued, no attempt pending
    /// and is free by the time packet `h` is ready, `h` is the next to leave
    /// through it, because every packet spends the same fall-through
    /// latency in the switch (ready times follow arrival order). If its
    /// credits and input read port allow, the transmission is committed now
    /// for the moment the packet is ready, saving the queueing events.
    /// Credits only grow until then, so the check is conservative.
    #[inline]
    fn try_cut_through(&mut self, h: PacketId, out: ChannelId, vc: usize, to_endpoint: bool) -> bool {
        let t = &self.channels.tx[out];
        if t.queued_packets > 0 || t.scheduled_at != NEVER {
            return false;
        }
        let busy_until = t.busy_until;
        let p = self.pool.hot(h);
        // Only an output that is free when the packet is ready: committing
        // behind a busy output would hold downstream credits too early.
        let start = p.ready;
        let read = || self.switches.read_time(self.channels.tx[p.in_ch].rate, p.wire);
        if busy_until > start || self.channels.xbar_busy(p.in_ch, start, read) {
            return false;
        }
        if !to_endpoint && !self.channels.has_credits(out, vc, p.wire, self.clock.now) {
            return false;
        }
        self.start_transmission(h, out, vc, !to_endpoint, start);
        true
    }

    /// Output arbitration of switch channel `ch`: among the heads of its
    /// per-VC queues that are ready, have downstream credits and whose input
    /// port can read into the crossbar, send the one that became ready
    /// first (with `switch.vc_priority`, the first of the favoured hop
    /// class); with several traffic classes, first pick the class
    /// ([`crate::qos::pick_class`]), then its oldest ready head.
    pub(crate) fn switch_send(&mut self, ch: ChannelId) {
        let now = self.clock.now;
        let to_switch = !self.channels.tx[ch].to_endpoint;
        let ncls = self.qos.classes.len();
        // Oldest sendable head per class.
        let mut best = [None::<(Ps, usize)>; 8];
        let mut wake = NEVER;
        let mut credit_blocked = false;
        let (prio, hop_vcs) = (self.cfg.switch.vc_priority, self.vcs.hop_vcs);
        let mut v = self.channels.tx[ch].queues;
        while v != NONE {
            let Voq { queue: q, next, vc, .. } = self.switches.voqs[v as usize];
            let (vc, head) = (vc as usize, q.head);
            v = next;
            if head.ready > now {
                wake = wake.min(head.ready);
                continue;
            }
            if to_switch && !self.channels.has_credits(ch, vc, head.wire, now) {
                credit_blocked = true;
                continue;
            }
            let read = || self.switches.read_time(self.channels.tx[head.in_ch].rate, head.wire);
            if self.channels.xbar_busy(head.in_ch, now, read) {
                wake = wake.min(self.channels.tx[head.in_ch].xbar.until);
                continue;
            }
            let c = if ncls > 1 { self.vcs.class_of(vc) } else { 0 };
            if best[c].is_none_or(|(r, b)| prio.beats(vc, head.ready, b, r, hop_vcs)) {
                best[c] = Some((head.ready, vc));
            }
        }
        let chosen = if ncls == 1 { best[0].map(|b| b.1) } else { self.pick_class_vc(ch, &best[..ncls], &mut wake) };
        match chosen {
            Some(vc) => self.transmit(ch, vc, to_switch),
            None => self.retry_later(ch, wake, credit_blocked),
        }
    }

    /// Output `ch` sent nothing: it tries again at `wake` (a head becomes
    /// ready, an input or the class share frees), or, if a head lacked
    /// credits, when the next credit return lands (or whenever one comes,
    /// if none is on its way). Both switch models end arbitration here.
    pub(super) fn retry_later(&mut self, ch: ChannelId, mut wake: Ps, credit_blocked: bool) {
        let now = self.clock.now;
        if credit_blocked {
            self.channels.stall(ch, now);
        } else if self.channels.tx[ch].stalling {
            self.channels.unstall(ch, now, self.clock.warmup, self.clock.window_end);
        }
        if credit_blocked {
            // Absorbed when the shortfall was found: the next return is current.
            let next_return = self.channels.tx[ch].next_credit_at;
            if next_return != NEVER {
                wake = wake.min(next_return);
            } else {
                self.channels.tx[ch].waiting_credit = true;
            }
        }
        if wake != NEVER {
            self.schedule_try(ch, wake);
        }
    }

    /// Class arbitration on `ch` among the classes with a sendable head
    /// (`best`); if every one is at its maximum share, none is sent and
    /// `wake` is lowered to when the first falls below it.
    pub(super) fn pick_class_vc(&self, ch: ChannelId, best: &[Option<(Ps, usize)>], wake: &mut Ps) -> Option<usize> {
        let now = self.clock.now;
        let rate = self.channels.tx[ch].rate;
        let mut ready = [(0usize, 0.0f64); 8];
        let mut k = 0;
        for (c, b) in best.iter().enumerate() {
            if b.is_some() {
                ready[k] = (c, self.qos.share.share(ch, c, now, rate));
                k += 1;
            }
        }
        if k == 0 {
            return None;
        }
        let classes = &self.qos.classes;
        match crate::qos::pick_class(classes, &ready[..k]) {
            Some(c) => best[c].map(|b| b.1),
            None => {
                for &(c, _) in &ready[..k] {
                    let dt = self.qos.share.time_until_share(ch, c, now, rate, classes[c].spec.max_share);
                    *wake = (*wake).min(now + dt);
                }
                None
            }
        }
    }

    /// Sends the head of queue (`ch`, `vc`) now.
    fn transmit(&mut self, ch: ChannelId, vc: usize, to_switch: bool) {
        let first = &mut self.channels.tx[ch].queues;
        let h = self.switches.pop(first, vc as u8);
        self.mark_congestion(h, ch, !to_switch);
        let wire = self.pool.hot(h).wire;
        let t = &mut self.channels.tx[ch];
        t.queued_bytes -= wire as u64;
        t.queued_packets -= 1;
        let now = self.clock.now;
        self.start_transmission(h, ch, vc, to_switch, now);
        let t = &self.channels.tx[ch];
        if t.queued_packets > 0 {
            let end = t.busy_until;
            self.schedule_try(ch, end);
        }
    }

    /// Congestion control sees data packet `h` from `src` join the queue
    /// of output `out` (acks and CNPs are no flow of their own: it sees
    /// data only, in both switch models); an early congestion ack goes
    /// back if it says so.
    #[inline]
    pub(super) fn egress_enqueued(&mut self, h: PacketId, out: ChannelId, to_endpoint: bool, wire: u32, src: crate::ids::EndpointId) {
        if !self.cc.active() || self.pool.hot(h).kind != PacketKind::Data {
            return;
        }
        let queued = self.channels.tx[out].queued_bytes + wire as u64;
        if let Some(marks) = self.cc.on_egress_enqueue(out, to_endpoint, queued, src) {
            self.send_congestion_ack(h, marks, self.clock.now, None);
        }
    }

    /// Congestion control sees data packet `h` leave the queue of output
    /// `ch` (which held `queued_bytes` with it) and may mark it; acks and
    /// CNPs pass unseen, in both switch models.
    #[inline]
    pub(super) fn mark_congestion(&mut self, h: PacketId, ch: ChannelId, to_endpoint: bool) {
        if !self.cc.active() {
            return;
        }
        let queued = self.channels.tx[ch].queued_bytes;
        let (src, dst, ecn, end) = {
            let p = self.pool.hot(h);
            if p.kind != PacketKind::Data {
                return;
            }
            (p.src, p.dst, p.flags & FLAG_ECN != 0, p.flags & crate::packet::FLAG_MESSAGE_END != 0)
        };
        let mut marks = Marks { ecn, level: 0, flows: 0 };
        self.cc.on_egress(ch, to_endpoint, queued, src, dst, end, self.clock.now, &mut marks, &mut self.signals.rng);
        if marks.ecn {
            self.pool.hot_mut(h).flags |= FLAG_ECN;
        }
        if to_endpoint && (marks.level, marks.flows) != (0, 0) {
            let c = self.pool.cold_mut(h);
            c.mark = marks.level;
            c.mark_flows = marks.flows;
        }
    }

    /// Starts sending packet `h` on channel `ch` (VC `vc`) at time `now`
    /// (the present, or the moment a cut-through packet becomes ready).
    pub(super) fn start_transmission(&mut self, h: PacketId, ch: ChannelId, vc: usize, to_switch: bool, now: Ps) {
        let (rate, latency, fabric, to_endpoint) = {
            let t = &self.channels.tx[ch];
            (t.rate, t.latency(), t.fabric, t.to_endpoint)
        };
        let fail_at = self.channels.fail_at(ch);
        let wire = self.pool.hot(h).wire;
        let ser = rate.serialize(wire as u64);
        if fail_at <= now {
            self.lose_on_failed_link(h, ch, now);
            return;
        }
        let retry = self.link_retry_delay(ch, wire, ser);
        if self.hop_hold.on() {
            self.hop_left(h);
        }
        if self.measure.hop_waits.on {
            let place = super::hop_waits::WaitPlace::of(self.net.channels[ch].kind, to_endpoint, self.pool.hot(h).hops);
            self.record_wait(h, place, now);
        }
        if to_endpoint && self.flow_queues.on && self.pool.hot(h).kind == PacketKind::Data {
            self.send_fabric_ack(h, now);
        }
        let p = self.pool.hot_mut(h);
        // Cut-through: the tail cannot leave before it has arrived.
        let end = (now + ser).max(p.tail) + retry;
        if to_switch {
            self.channels.spend(ch, vc, wire);
        }
        // The input buffer space frees as the tail leaves; the credit
        // travels back over the input link.
        let in_ch = p.in_ch;
        let input = &mut self.channels.tx[in_ch];
        let read = self.switches.read_time(input.rate, wire);
        input.xbar = super::channels::CrossbarRead { from: now, until: now + read };
        let back = end + input.latency();
        if fabric {
            p.hops += 1;
        }
        if to_endpoint {
            p.flags |= crate::packet::FLAG_LAST_HOP;
        }
        p.tail = end + latency;
        p.extend_path(latency);
        let (in_vc, class) = (p.in_vc, p.class);
        // A packet a switch made held no space in the buffer it came from;
        // from the next switch on it holds space like any other.
        let made_here = p.flags & FLAG_SWITCH_MADE != 0;
        p.flags &= !FLAG_SWITCH_MADE;
        if !made_here && self.channels.send_back(in_ch, in_vc, wire, back, self.clock.now) {
            self.schedule_try(in_ch, back);
        }
        if self.qos.classes.len() > 1 {
            self.qos.share.record(ch, class as usize, now, wire);
        }
        self.events.push(now + retry + latency, Event::Arrive(h));
        self.channels.tx[ch].busy_until = end;
        self.account_transmission(ch, now, end - now, wire);
    }

    /// Counts a transmission on `ch` from `start` for `ser` ps: link
    /// counters inside the window, packet hops and the watchdog's progress.
    #[inline]
    pub(crate) fn account_transmission(&mut self, ch: ChannelId, start: Ps, ser: Ps, wire: u32) {
        let in_window = self.clock.in_window(start);
        if start > self.clock.now && self.channels.tracks_ahead() {
            self.channels.note_ahead(ch, start, if in_window { wire } else { 0 });
        }
        if self.channels.tx[ch].stalling {
            self.channels.unstall(ch, start, self.clock.warmup, self.clock.window_end);
        }
        self.channels.account(ch, ser, wire, in_window);
        self.measure.packet_hops += 1;
        self.clock.last_progress = start;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shift taken for power-of-two speedups gives what the float
    /// division gives, to the picosecond; other speedups keep the division.
    #[test]
    fn read_time_is_the_divided_serialization_for_every_speedup() {
        for speedup in [1.0, 2.0, 4.0, 8.0, 1.5, 3.0, 0.5] {
            let s = Switches::new(IdVec::new(), FallThrough::new(Ps(290_000), Ps(0), 1), speedup, None);
            for gbps in [25.0, 81.6, 100.0, 200.0] {
                let rate = crate::units::Rate::from_bps(gbps * 1e9);
                for wire in [1u32, 7, 64, 80, 1086, 4158, 9000] {
                    let want = Ps::from_f64(rate.serialize(wire as u64).as_f64() / speedup);
                    assert_eq!(s.read_time(rate, wire), want, "speedup {speedup}, {gbps} Gb/s, {wire} B");
                }
            }
        }
    }

    #[test]
    fn fall_through_spans_its_range_evenly_and_is_fixed_per_output() {
        let f = FallThrough::new(Ps(290_000), Ps(20_000), 7);
        let draws: Vec<Ps> = (0..10_000).map(|c| f.of(ChannelId(c))).collect();
        assert!(draws.iter().all(|&d| d >= Ps(280_000) && d <= Ps(300_000)));
        let mean = draws.iter().map(|d| d.0 as f64).sum::<f64>() / draws.len() as f64;
        assert!((mean - 290_000.0).abs() < 300.0, "mean {mean}");
        // Each quarter of the range holds about a quarter of the outputs.
        for q in 0..4u64 {
            let lo = 280_000 + q * 5_000;
            let n = draws.iter().filter(|d| d.0 >= lo && d.0 < lo + 5_000).count();
            assert!((2_200..2_800).contains(&n), "quarter {q}: {n}");
        }
        assert_eq!(f.of(ChannelId(42)), f.of(ChannelId(42)));
        assert_ne!(FallThrough::new(Ps(290_000), Ps(20_000), 8).of(ChannelId(42)), f.of(ChannelId(42)), "another seed, another draw");
        assert_eq!(FallThrough::new(Ps(290_000), Ps::ZERO, 7).of(ChannelId(3)), Ps(290_000));
    }
}
