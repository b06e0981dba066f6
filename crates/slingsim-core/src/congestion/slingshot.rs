//! Slingshot congestion control as a window per endpoint pair at the
//! source NIC (paper 000 Sec. II-D, 002 Sec. II-E; docs/model.md states how
//! this departs from the per-hop mechanism the papers describe).
//!
//! Every packet is acked end to end. An egress edge port (a switch output
//! to an endpoint) whose queue exceeds a threshold marks the packets
//! leaving it with a congestion level and the number of flows feeding it;
//! the ack carries the mark back, and the pair's window is cut to its fair
//! share of what the congested port drains in one round trip. Clean acks
//! grow the window back. Flows to uncongested endpoints are never held.

use crate::ids::{ChannelId, EndpointId, Id};
use super::{Ack, Admit, CongestionControl, IntMap, Marks, PathView};
use crate::config::CongestionConfig;
use crate::rng::Rng;
use crate::units::Ps;
use serde_json::{json, Map, Value};

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
}

impl Params {
    /// From the config section and the NIC rate.
    pub fn new(c: &CongestionConfig, line_rate_bps: f64) -> Params {
        Params {
            port_threshold: c.port_threshold_bytes,
            min_window: c.min_window_bytes as f64,
            max_window: c.max_window_bytes as f64,
            additive_increase: c.additive_increase_bytes as f64,
            line_rate_bps,
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

/// What a source NIC keeps per destination endpoint, created on first use.
#[derive(Clone, Copy, Debug)]
pub struct Pair {
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
}

impl Pair {
    /// An unthrottled pair whose window starts at `window`.
    pub fn with_window(p: &Params, window: f64) -> Pair {
        let w = window.min(p.max_window);
        Pair { in_flight: 0, window: w, next_send: Ps::ZERO, cut: false, initial_window: w }
    }

    /// True if a packet of `wire` bytes may leave at `now` under the
    /// window. A pair with nothing in flight may send one packet, but a
    /// window smaller than a packet also spaces packets out (see
    /// [`Pair::ack`]), so the pair's rate is window / RTT.
    #[inline]
    pub fn allows(&self, wire: u32, now: Ps) -> bool {
        if self.in_flight == 0 {
            return self.next_send <= now;
        }
        (self.in_flight + wire as u64) as f64 <= self.window
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
        } else if self.cut {
            self.window = (self.window + p.additive_increase * wire as f64 / self.window).min(self.initial_window);
            self.cut = self.window < self.initial_window;
        }
        // A window below one packet: the next packet waits until the pair
        // has averaged `window` bytes per round trip.
        if self.in_flight == 0 && self.window < wire as f64 {
            self.next_send = now + Ps::from_f64(rtt.as_f64() * (wire as f64 / self.window - 1.0));
        }
    }
}

/// The pairs a source endpoint has state for (the destinations it has
/// packets in flight to or is throttled toward): a short list per source,
/// its entries in one slab. Far smaller than a hash map over pairs on a
/// system of hundreds of thousands of endpoints, and no allocation per pair.
#[derive(Default)]
struct SourcePairs {
    /// First entry of each source's list (`u32::MAX`: none).
    first: Vec<u32>,
    entries: Vec<PairEntry>,
    free: Vec<u32>,
}

#[derive(Clone, Copy)]
struct PairEntry {
    pair: Pair,
    dst: EndpointId,
    next: u32,
}

const NO_ENTRY: u32 = u32::MAX;

impl SourcePairs {
    /// The slab index of the entry of (`src`, `dst`), and of the entry before it.
    #[inline]
    fn find(&self, src: EndpointId, dst: EndpointId) -> Option<(u32, u32)> {
        let (mut prev, mut e) = (NO_ENTRY, *self.first.get(src.index())?);
        while e != NO_ENTRY {
            let x = &self.entries[e as usize];
            if x.dst == dst {
                return Some((e, prev));
            }
            (prev, e) = (e, x.next);
        }
        None
    }

    #[inline]
    fn get(&self, src: EndpointId, dst: EndpointId) -> Option<&Pair> {
        self.find(src, dst).map(|(e, _)| &self.entries[e as usize].pair)
    }

    #[inline]
    fn get_mut(&mut self, src: EndpointId, dst: EndpointId) -> Option<&mut Pair> {
        self.find(src, dst).map(|(e, _)| &mut self.entries[e as usize].pair)
    }

    /// The pair's state, made by `new` if it has none.
    fn get_or_insert_with(&mut self, src: EndpointId, dst: EndpointId, new: impl FnOnce() -> Pair) -> &mut Pair {
        if let Some((e, _)) = self.find(src, dst) {
            return &mut self.entries[e as usize].pair;
        }
        if self.first.len() <= src.index() {
            self.first.resize(src.index() + 1, NO_ENTRY);
        }
        let entry = PairEntry { pair: new(), dst, next: self.first[src.index()] };
        let e = match self.free.pop() {
            Some(e) => {
                self.entries[e as usize] = entry;
                e
            }
            None => {
                self.entries.push(entry);
                (self.entries.len() - 1) as u32
            }
        };
        self.first[src.index()] = e;
        &mut self.entries[e as usize].pair
    }

    fn remove(&mut self, src: EndpointId, dst: EndpointId) {
        if let Some((e, prev)) = self.find(src, dst) {
            let next = self.entries[e as usize].next;
            if prev == NO_ENTRY {
                self.first[src.index()] = next;
            } else {
                self.entries[prev as usize].next = next;
            }
            self.free.push(e);
        }
    }

    fn values(&self) -> impl Iterator<Item = &Pair> {
        self.first.iter().flat_map(move |&f| {
            let mut e = f;
            std::iter::from_fn(move || {
                let x = self.entries.get(e as usize)?;
                e = x.next;
                Some(&x.pair)
            })
        })
    }
}

/// Slingshot's state in a run.
pub struct Slingshot {
    p: Params,
    pairs: SourcePairs,
    /// Packets queued at each egress edge port per source endpoint, and the
    /// number of sources with packets there.
    egress_sources: IntMap<u32>,
    egress_flows: IntMap<u16>,
    marked_acks: u64,
}

impl Slingshot {
    /// Slingshot with the parameters of `c` for NICs of `line_rate_bps`.
    pub fn new(c: &CongestionConfig, line_rate_bps: f64) -> Slingshot {
        Slingshot {
            p: Params::new(c, line_rate_bps),
            pairs: Default::default(),
            egress_sources: Default::default(),
            egress_flows: Default::default(),
            marked_acks: 0,
        }
    }
}

impl CongestionControl for Slingshot {
    fn needs_acks(&self) -> bool {
        true
    }

    fn admit(&mut self, src: EndpointId, dst: EndpointId, wire: u32, now: Ps) -> Admit {
        match self.pairs.get(src, dst) {
            Some(st) if !st.allows(wire, now) => {
                if st.in_flight == 0 {
                    Admit::At(st.next_send) // paced below one packet per round trip
                } else {
                    Admit::OnAck
                }
            }
            _ => Admit::Now,
        }
    }

    fn refuses_any_size(&self) -> bool {
        false // a window that refuses a packet refuses any larger one
    }

    fn on_inject(&mut self, src: EndpointId, dst: EndpointId, wire: u32, _now: Ps, path: &dyn PathView) {
        let p = &self.p;
        let st = self.pairs.get_or_insert_with(src, dst, || Pair::with_window(p, path.bandwidth_delay(src, dst)));
        st.in_flight += wire as u64;
    }

    fn on_egress_enqueue(&mut self, ch: ChannelId, to_endpoint: bool, src: EndpointId) {
        if !to_endpoint {
            return;
        }
        let n = self.egress_sources.entry(((ch.0 as u64) << 32) | src.0 as u64).or_insert(0);
        *n += 1;
        if *n == 1 {
            let f = self.egress_flows.entry(ch.0 as u64).or_insert(0);
            *f = f.saturating_add(1);
        }
    }

    fn on_egress(&mut self, ch: ChannelId, to_endpoint: bool, queued: u64, src: EndpointId, _dst: EndpointId, marks: &mut Marks, _rng: &mut Rng) {
        if !to_endpoint {
            return;
        }
        // Contributing flows, as the egress port itself can count them
        // ([Roweth] Sec. II-E): the sources with packets queued at it. A
        // count that misses flows whose packets are all on the way gives
        // them too large a share; their packets then queue here and are
        // counted, so the count settles where the queue holds every
        // contributing flow.
        let queued_flows = self.egress_flows.get(&(ch.0 as u64)).copied().unwrap_or(0);
        marks.level = self.p.congestion_level(queued);
        marks.flows = queued_flows;
        let key = ((ch.0 as u64) << 32) | src.0 as u64;
        let n = self.egress_sources.get_mut(&key).expect("queued packets were counted");
        *n -= 1;
        if *n == 0 {
            self.egress_sources.remove(&key);
            let f = self.egress_flows.get_mut(&(ch.0 as u64)).expect("counted with its source");
            *f -= 1;
            if *f == 0 {
                self.egress_flows.remove(&(ch.0 as u64));
            }
        }
    }

    fn on_deliver(&mut self, _src: EndpointId, _dst: EndpointId, _marks: Marks, _t: Ps) -> bool {
        false // the ack itself carries the mark
    }

    fn on_ack(&mut self, a: &Ack, now: Ps, path: &dyn PathView) {
        if a.cnp {
            return;
        }
        if a.marks.level > 0 {
            self.marked_acks += 1;
        }
        if let Some(st) = self.pairs.get_mut(a.src, a.dst) {
            st.ack(&self.p, a.wire, a.marks.level, a.marks.flows as u32, path.port_rate(a.dst), a.rtt, now);
            if st.in_flight == 0 && !st.cut && st.next_send <= now {
                self.pairs.remove(a.src, a.dst);
            }
        }
    }

    fn on_loss(&mut self, src: EndpointId, dst: EndpointId, wire: u32) {
        if let Some(st) = self.pairs.get_mut(src, dst) {
            st.in_flight -= wire as u64;
        }
    }

    fn summary(&self) -> Map<String, Value> {
        let throttled = self.pairs.values().filter(|p| p.cut).count();
        let mut m = Map::new();
        m.insert("marked_acks".into(), json!(self.marked_acks));
        m.insert("throttled_pairs".into(), json!(throttled));
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_to_fair_share_and_recovers() {
        let p = Params::new(&CongestionConfig::default(), 100e9);
        let mut s = Pair::with_window(&p, p.max_window);
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
}
