//! What both Slingshot congestion controls share (paper 000 Sec. II-D,
//! 002 Sec. II-E): a flow's window and how congestion acks move it, the
//! table of flows per source endpoint, and the egress edge port's count of
//! the flows feeding it.

use crate::ids::{ChannelId, EndpointId};
use super::{IntMap, Marks};
use crate::config::CongestionConfig;
use crate::units::Ps;

/// Rounds (one full packet from each flow it counts) an egress port
/// remembers a source for, at least: a flow cut to half its share sends
/// once every two rounds, and a third keeps pacing jitter from dropping it.
pub const MEMORY_ROUNDS: u64 = 3;

/// Slingshot's parameters.
#[derive(Clone, Debug)]
pub struct Params {
    /// Queue bytes above which an egress edge port is congested.
    pub port_threshold: u64,
    pub min_window: f64,
    pub max_window: f64,
    pub additive_increase: f64,
    /// Injection rate of one NIC (one rail), bits/s.
    pub line_rate_bps: f64,
    /// How long an egress port remembers a source it sent a packet of, at
    /// the least (see [`EgressFlows`]).
    pub flow_memory: Ps,
    /// How long one full packet takes at the line rate.
    pub full_packet: Ps,
    /// Every flow is held to its window from its first packet; otherwise
    /// only once a congestion ack has cut it (`congestion.hold_uncongested_flows`).
    pub hold_uncongested: bool,
    /// A congested egress port acks a source's first packet when it joins
    /// the queue, not only when it leaves (`congestion.notify_at_enqueue`).
    pub notify_at_enqueue: bool,
}

impl Params {
    /// From the config section, the NIC rate, the wire size of a full
    /// packet and whether uncongested flows are held when the config does
    /// not say.
    pub fn new(c: &CongestionConfig, line_rate_bps: f64, full_packet_wire: u32, hold_by_default: bool) -> Params {
        Params {
            port_threshold: c.port_threshold_bytes,
            min_window: c.min_window_bytes as f64,
            max_window: c.max_window_bytes as f64,
            additive_increase: c.additive_increase_bytes as f64,
            line_rate_bps,
            flow_memory: crate::units::ns_to_ps(c.flow_memory_ns),
            full_packet: Ps::from_f64(full_packet_wire as f64 * 8.0 / line_rate_bps * 1e12),
            hold_uncongested: c.hold_uncongested_flows.unwrap_or(hold_by_default),
            notify_at_enqueue: c.notify_at_enqueue,
        }
    }

    /// How long an egress port counting `flows` sources remembers one it
    /// sent a packet of: `flow_memory`, or `MEMORY_ROUNDS` rounds of one
    /// full packet from each of them, whichever is longer. A flow held to
    /// its fair share of a port shared by n flows sends one packet per
    /// round (n packet times; two rounds at level 2), so a memory shorter
    /// than that forgets flows that are still sending: with hundreds of
    /// flows into one port, 5 us covers a few percent of them, every share
    /// comes out tens of times too large, and the port settles where its
    /// queue holds enough sources to be counted (a standing queue of about
    /// a packet per flow).
    #[inline]
    pub fn memory_for(&self, flows: u16) -> Ps {
        self.flow_memory.max(Ps(self.full_packet.0 * MEMORY_ROUNDS * flows as u64))
    }

    /// Congestion level of an egress port fed by `flows` sources and
    /// holding `q` bytes: 0 clear (and always with one source, see
    /// [`EgressFlows::leave`]), 1 congested, 2 above twice the threshold.
    #[inline]
    pub fn port_level(&self, flows: u16, q: u64) -> u8 {
        if flows >= 2 {
            self.congestion_level(q)
        } else {
            0
        }
    }

    /// Congestion level of an egress port holding `q` bytes: 0 clear, 1
    /// congested, 2 above twice the threshold.
    #[inline]
    pub fn congestion_level(&self, q: u64) -> u8 {
        if q > 2 * self.port_threshold {
            2
        } else if q > self.port_threshold {
            1
        } else {
            0
        }
    }
}

/// A flow's window: the bytes one endpoint pair may have unacknowledged,
/// cut by congestion acks and grown back by clean ones. Kept at the
/// source NIC by [`super::slingshot_endpoint`] and at the ingress switch by
/// [`super::slingshot`].
#[derive(Clone, Copy, Debug)]
pub struct FlowWindow {
    /// Wire bytes sent and not yet acked.
    pub in_flight: u64,
    /// Bytes this pair may have in flight.
    pub window: f64,
    /// With a window below one packet, when the next packet may go.
    pub next_send: Ps,
    /// The window was cut and is still below where it started.
    pub cut: bool,
    /// The window the pair started with (its bandwidth-delay product).
    pub initial_window: f64,
    /// A congestion ack has cut the window since the pair's state was
    /// made: without `Params::hold_uncongested` the pair is held to its
    /// window only from then on, and its window may grow back past where
    /// it started (up to `max_window`) while it keeps sending.
    pub held: bool,
}

impl FlowWindow {
    /// An unthrottled pair whose window starts at `window`.
    pub fn with_window(p: &Params, window: f64) -> FlowWindow {
        let w = window.min(p.max_window);
        FlowWindow { in_flight: 0, window: w, next_send: Ps::ZERO, cut: false, initial_window: w, held: false }
    }

    /// True if a packet of `wire` bytes may leave at `now` under the
    /// window. A pair with nothing in flight may send one packet, but a
    /// window smaller than a packet also spaces packets out (see
    /// [`FlowWindow::ack`]), so the pair's rate is window / RTT. A pair
    /// no congestion ack has cut is not held unless `hold_uncongested`.
    #[inline]
    pub fn allows(&self, wire: u32, now: Ps, hold_uncongested: bool) -> bool {
        if self.in_flight == 0 {
            return self.next_send <= now;
        }
        !(hold_uncongested || self.held) || (self.in_flight + wire as u64) as f64 <= self.window
    }

    /// An ack for `wire` bytes came back. A marked ack (level 1 or 2,
    /// `flows` sources feeding the congested port of `port_rate` bytes/s)
    /// cuts the window to the pair's fair share of what that port drains
    /// in one round trip `rtt` (half of it at level 2); clean acks grow it
    /// by `additive_increase` per window acked.
    #[allow(clippy::too_many_arguments)]
    pub fn ack(&mut self, p: &Params, wire: u32, level: u8, flows: u32, port_rate: f64, rtt: Ps, now: Ps) {
        self.in_flight -= wire as u64;
        if level > 0 {
            let bdp = port_rate * rtt.as_f64() * 1e-12;
            let share = bdp / flows.max(1) as f64 / if level >= 2 { 2.0 } else { 1.0 };
            self.window = self.window.min(share.max(p.min_window));
            self.cut = self.window < self.initial_window;
            self.held |= self.cut;
        } else if self.cut || (self.held && self.in_flight > 0) {
            // `additive_increase` per window acked, so per round trip; a
            // window under one packet is acked one packet per pacing
            // interval, and counting it as one packet keeps one ack from
            // lifting it by many packets at once. A pair held only since
            // it was cut keeps growing while it sends: it started
            // unwindowed, and a window back at its minimal path's
            // bandwidth-delay product would still hold one whose packets
            // go further.
            let cap = if p.hold_uncongested { self.initial_window } else { p.max_window };
            self.window = (self.window + p.additive_increase * wire as f64 / self.window.max(wire as f64)).min(cap);
            self.cut = self.window < self.initial_window;
        }
        // A window below one packet: the next packet waits until the pair
        // has averaged `window` bytes per round trip.
        if self.in_flight == 0 && self.window < wire as f64 {
            self.next_send = now + Ps::from_f64(rtt.as_f64() * (wire as f64 / self.window - 1.0));
        }
    }
}

/// The flows every source endpoint has state for (the destinations it has
/// packets in flight to or is throttled toward), keyed by the pair. A
/// throttled flow keeps its state after its last packet, so an alltoall
/// leaves each source with a flow to every peer: a lookup by key costs the
/// same however many flows a source keeps, where a walk over a source's
/// flows made the ingress switch's lookup a third of a 512-node alltoall's
/// time. Only live flows take space.
pub struct FlowTable<T> {
    pairs: IntMap<T>,
}

impl<T> Default for FlowTable<T> {
    fn default() -> Self {
        FlowTable { pairs: IntMap::default() }
    }
}

impl<T> FlowTable<T> {
    /// The pair's state.
    #[inline]
    pub fn get_mut(&mut self, src: EndpointId, dst: EndpointId) -> Option<&mut T> {
        self.pairs.get_mut(&super::pair_key(src, dst))
    }

    /// The pair's state, to read.
    #[inline]
    pub fn get(&self, src: EndpointId, dst: EndpointId) -> Option<&T> {
        self.pairs.get(&super::pair_key(src, dst))
    }

    /// The pair's state, made by `new` if it has none.
    #[inline]
    pub fn get_or_insert_with(&mut self, src: EndpointId, dst: EndpointId, new: impl FnOnce() -> T) -> &mut T {
        self.pairs.entry(super::pair_key(src, dst)).or_insert_with(new)
    }

    /// Forgets the flow's state.
    pub fn remove(&mut self, src: EndpointId, dst: EndpointId) {
        self.pairs.remove(&super::pair_key(src, dst));
    }

    /// Every flow's state, in no particular order (readers count and sum).
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.pairs.values()
    }
}


/// What an egress edge port (a switch output to an endpoint) knows of the
/// flows feeding it: the sources with packets queued at it, and the
/// sources whose packets it sent within the last `flow_memory`. The port
/// counts a source that is either. That is all a port can count from what
/// it sees ([Roweth] Sec. II-E: the egress queues compute "the number of
/// contributing flows"). The queue alone misses a throttled flow whose one
/// packet is between switches, and would give it too large a share; the
/// memory keeps it counted for as long as a throttled flow with a window
/// of a packet or more takes to send again (a round trip of a few
/// microseconds) *(the 5 us default is assumed)*.
#[derive(Default)]
pub struct EgressFlows {
    /// Per (port, source): packets queued now, and departures in memory.
    sources: IntMap<(u32, u32)>,
    /// Per port: sources counted, and its departures still remembered.
    ports: IntMap<EgressPort>,
}

#[derive(Default)]
struct EgressPort {
    flows: u16,
    recent: std::collections::VecDeque<(Ps, EndpointId)>,
}

#[inline]
fn source_key(ch: ChannelId, src: EndpointId) -> u64 {
    ((ch.0 as u64) << 32) | src.0 as u64
}

impl EgressFlows {
    /// The sources edge output `ch` counts now.
    #[inline]
    pub fn flows(&self, ch: ChannelId) -> u16 {
        self.ports.get(&(ch.0 as u64)).map_or(0, |p| p.flows)
    }

    /// A packet from `src` joined the queue of edge output `ch`. If the
    /// port was not counting `src` (nothing of it queued or in memory), it
    /// counts it now and returns how many sources it counts with it.
    pub fn enqueue(&mut self, ch: ChannelId, src: EndpointId) -> Option<u16> {
        let n = self.sources.entry(source_key(ch, src)).or_insert((0, 0));
        n.0 += 1;
        if *n != (1, 0) {
            return None;
        }
        let port = self.ports.entry(ch.0 as u64).or_default();
        port.flows = port.flows.saturating_add(1);
        Some(port.flows)
    }

    /// A packet from `src` leaves the queue of edge output `ch` at `now`,
    /// the queue holding `queued` bytes with it: `marks` get the port's
    /// congestion level and the flows it counts. A port fed by one flow is
    /// not congested whatever its queue: endpoint congestion is more
    /// traffic aimed at an endpoint than it drains, and one flow from a NIC
    /// of the port's rate cannot be that for longer than its packets bunch
    /// (a flow spread over paths of different lengths arrives in bursts;
    /// marking them throttled lone flows to a fraction of their rate). Its
    /// queue is left to link-level back-pressure.
    #[allow(clippy::too_many_arguments)]
    pub fn leave(&mut self, p: &Params, ch: ChannelId, queued: u64, src: EndpointId, message_end: bool, now: Ps, marks: &mut Marks) {
        self.forget_old(p, ch, now);
        let port = self.ports.get_mut(&(ch.0 as u64)).expect("counted when queued");
        marks.level = p.port_level(port.flows, queued);
        marks.flows = port.flows;
        let key = source_key(ch, src);
        let n = self.sources.get_mut(&key).expect("queued packets were counted");
        n.0 -= 1;
        if message_end && n.0 == 0 {
            // The last packet of its message, and nothing more of the
            // source queued here: it is done (a later message counts it
            // again from its first packet), so the port forgets it now
            // rather than counting it for rounds after it stopped.
            port.recent.retain(|&(_, s)| s != src);
            self.sources.remove(&key);
            port.flows -= 1;
            if port.flows == 0 && port.recent.is_empty() {
                self.ports.remove(&(ch.0 as u64));
            }
        } else {
            port.recent.push_back((now, src));
            n.1 += 1;
        }
    }

    /// Departures from `ch` older than the port's memory at `now`
    /// ([`Params::memory_for`] its count) leave it; a source neither queued
    /// nor remembered is no longer counted.
    fn forget_old(&mut self, p: &Params, ch: ChannelId, now: Ps) {
        let Some(port) = self.ports.get_mut(&(ch.0 as u64)) else { return };
        let t = now.saturating_sub(p.memory_for(port.flows));
        while let Some(&(at, src)) = port.recent.front() {
            if at >= t {
                break;
            }
            port.recent.pop_front();
            let key = source_key(ch, src);
            let n = self.sources.get_mut(&key).expect("remembered sources are counted");
            n.1 -= 1;
            if *n == (0, 0) {
                self.sources.remove(&key);
                port.flows -= 1;
            }
        }
        if port.flows == 0 && port.recent.is_empty() {
            self.ports.remove(&(ch.0 as u64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_to_fair_share_and_recovers() {
        let p = Params::new(&CongestionConfig::default(), 100e9, 4136, true);
        let mut s = FlowWindow::with_window(&p, p.max_window);
        s.in_flight = 8192;
        // 16 flows into a 12.5 GB/s port, 4 us round trip: 50 kB / 16.
        s.ack(&p, 4096, 1, 16, 12.5e9, Ps(4_000_000), Ps::ZERO);
        assert!((s.window - 3125.0).abs() < 1.0, "{}", s.window);
        assert!(s.cut);
        let cut = s.window;
        s.next_send = Ps::ZERO;
        for _ in 0..100 {
            s.in_flight += 1024;
            s.ack(&p, 1024, 0, 0, 0.0, Ps::ZERO, Ps::ZERO);
        }
        assert!(s.window > cut);
    }

    #[test]
    fn an_egress_port_counts_the_sources_queued_at_it() {
        let p = Params::new(&CongestionConfig::default(), 100e9, 4136, true);
        let mut e = EgressFlows::default();
        let ch = ChannelId(3);
        for src in [1, 2, 2, 5] {
            e.enqueue(ch, EndpointId(src));
        }
        let mut m = Marks::default();
        let us = |t: u64| Ps(t * 1_000_000);
        e.leave(&p, ch, 40_000, EndpointId(2), false, us(1), &mut m);
        assert_eq!((m.level, m.flows), (2, 3), "three sources queued, 40 kB over twice the 16 KiB threshold");
        e.leave(&p, ch, 20_000, EndpointId(2), false, us(2), &mut m);
        assert_eq!((m.level, m.flows), (1, 3));
        e.leave(&p, ch, 8_000, EndpointId(1), false, us(3), &mut m);
        assert_eq!((m.level, m.flows), (0, 3), "sources 1 and 2 have nothing queued but were served within 5 us");
        e.enqueue(ch, EndpointId(5));
        e.leave(&p, ch, 8_000, EndpointId(5), false, us(8), &mut m);
        assert_eq!(m.flows, 2, "source 2, last served at 2 us, is forgotten at 8 us; source 1 (3 us) and queued source 5 are not");
        e.leave(&p, ch, 4_000, EndpointId(5), false, us(20), &mut m);
        assert_eq!(m.flows, 1, "only source 5, served now, counts");
        // A lone flow whose packets bunched: a queue, but no endpoint congestion.
        for _ in 0..3 {
            e.enqueue(ch, EndpointId(5));
        }
        e.leave(&p, ch, 40_000, EndpointId(5), false, us(21), &mut m);
        assert_eq!((m.level, m.flows), (0, 1), "one source feeding the port is not congestion");
        e.enqueue(ch, EndpointId(6));
        e.leave(&p, ch, 40_000, EndpointId(5), false, us(22), &mut m);
        assert_eq!((m.level, m.flows), (2, 2), "a second source makes the same queue congestion");
    }

    #[test]
    fn a_port_keeps_counting_hundreds_of_paced_flows() {
        // 600 flows into one 100 Gb/s port, each paced to its fair share:
        // one full packet (4136 B, 331 ns) per round of 600 packets. The
        // port sees each source once every 198 us; a fixed 5 us memory
        // would count the 16 or so served in the last 5 us.
        let p = Params::new(&CongestionConfig::default(), 100e9, 4136, true);
        let mut e = EgressFlows::default();
        let ch = ChannelId(0);
        let n = 600u32;
        let mut m = Marks::default();
        let mut t = Ps::ZERO;
        for round in 0..3 {
            for src in 0..n {
                e.enqueue(ch, EndpointId(src));
                e.leave(&p, ch, 4136, EndpointId(src), false, t, &mut m);
                t = t + p.full_packet;
                if round > 0 {
                    assert_eq!(m.flows as u32, n, "round {round}, source {src}");
                }
            }
        }
        // Sources that stop are forgotten once three rounds of the port's
        // count have passed without them (3 x 600 packet times).
        for _ in 0..(3 * 600 / 10 + 1) {
            for src in 0..10 {
                e.enqueue(ch, EndpointId(src));
                e.leave(&p, ch, 4136, EndpointId(src), false, t, &mut m);
                t = t + p.full_packet;
            }
        }
        assert_eq!(m.flows, 10);
        // A source whose message ends, nothing more of it queued, is done:
        // forgotten at once, not three rounds later.
        e.enqueue(ch, EndpointId(0));
        e.leave(&p, ch, 4136, EndpointId(0), true, t, &mut m);
        e.enqueue(ch, EndpointId(1));
        e.leave(&p, ch, 4136, EndpointId(1), false, t + p.full_packet, &mut m);
        assert_eq!(m.flows, 9);
        assert_eq!(p.memory_for(1), p.flow_memory, "few flows: the configured memory");
    }

    #[test]
    fn flow_table_finds_and_forgets_pairs() {
        let mut t: FlowTable<u32> = FlowTable::default();
        for src in [3, 4] {
            for d in 0..100 {
                *t.get_or_insert_with(EndpointId(src), EndpointId(d), || d + 10_000 * src) += 1000;
            }
        }
        let src = EndpointId(3);
        assert_eq!(t.get_mut(src, EndpointId(7)).copied(), Some(31_007));
        assert_eq!(t.get_mut(EndpointId(4), EndpointId(7)).copied(), Some(41_007), "pairs of two sources apart");
        *t.get_or_insert_with(src, EndpointId(50), || 0) += 1;
        t.remove(src, EndpointId(7));
        t.remove(src, EndpointId(0));
        t.remove(src, EndpointId(200)); // not there: nothing happens
        assert!(t.get_mut(src, EndpointId(7)).is_none());
        assert!(t.get_mut(EndpointId(5), EndpointId(1)).is_none());
        let mut left: Vec<u32> = t.values().copied().filter(|&v| v < 40_000).collect();
        left.sort();
        let want: Vec<u32> = (1..100).filter(|&d| d != 7).map(|d| 31_000 + d + u32::from(d == 50)).collect();
        assert_eq!(left, want, "every pair kept once, whatever the order");
        assert_eq!(t.values().count(), 98 + 100);
    }
}
