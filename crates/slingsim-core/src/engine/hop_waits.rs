//! Where a source's packets wait (`sim.hop_waits`): for every switch
//! output a measured data packet leaves by, the time from the moment it
//! could leave that switch (its fall-through done) to the start of its
//! transmission, sorted by where on its path the output is and what kind
//! of link it drives. A victim slowed by an aggressor shows here whether
//! it waits at its first switch, in transit or at the port into its
//! destination (endpoint congestion). With switch-side congestion
//! control, the time a packet's first switch holds it back before routing
//! it is a place of its own. Off by default: it reads the packet's cold
//! half at every hop.

use super::Simulation;
use crate::ids::PacketId;
use crate::metrics::Histogram;
use crate::network::LinkKind;
use crate::packet::{PacketKind, FLAG_MEASURED};
use crate::units::Ps;
use serde_json::{json, Map, Value};

/// Where an output sits on a packet's path, and the link it drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitPlace {
    /// A local link out of the packet's first switch.
    IngressLocal = 0,
    /// A global link out of the packet's first switch.
    IngressGlobal = 1,
    /// A local link out of a later switch.
    TransitLocal = 2,
    /// A global link out of a later switch.
    TransitGlobal = 3,
    /// The link into the destination NIC.
    Egress = 4,
    /// Not an output: held by its first switch's congestion management
    /// before it is routed (switch-side congestion control only).
    IngressHeld = 5,
}

impl WaitPlace {
    const ALL: [WaitPlace; PLACES] = [
        WaitPlace::IngressLocal,
        WaitPlace::IngressGlobal,
        WaitPlace::TransitLocal,
        WaitPlace::TransitGlobal,
        WaitPlace::Egress,
        WaitPlace::IngressHeld,
    ];

    /// Name in results.
    fn name(self) -> &'static str {
        match self {
            WaitPlace::IngressLocal => "ingress_local",
            WaitPlace::IngressGlobal => "ingress_global",
            WaitPlace::TransitLocal => "transit_local",
            WaitPlace::TransitGlobal => "transit_global",
            WaitPlace::Egress => "egress",
            WaitPlace::IngressHeld => "ingress_held",
        }
    }

    /// The place of an output of `kind`, `to_endpoint` or not, for a
    /// packet that has taken `hops` switch-to-switch hops so far.
    pub fn of(kind: LinkKind, to_endpoint: bool, hops: u8) -> WaitPlace {
        if to_endpoint {
            return WaitPlace::Egress;
        }
        match (hops == 0, kind == LinkKind::Global) {
            (true, false) => WaitPlace::IngressLocal,
            (true, true) => WaitPlace::IngressGlobal,
            (false, false) => WaitPlace::TransitLocal,
            (false, true) => WaitPlace::TransitGlobal,
        }
    }
}

/// How many places there are.
const PLACES: usize = 6;

/// Waits per traffic source and place (empty when off).
#[derive(Clone, Debug, Default)]
pub(crate) struct HopWaits {
    pub on: bool,
    by_source: Vec<[Histogram; PLACES]>,
}

impl HopWaits {
    /// Recording for `sources` traffic sources, if `on`.
    pub fn new(on: bool, sources: usize) -> HopWaits {
        HopWaits { on, by_source: if on { vec![Default::default(); sources] } else { Vec::new() } }
    }

    /// One more traffic source (a job's or the API's), if on.
    pub fn add_source(&mut self) {
        if self.on {
            self.by_source.push(Default::default());
        }
    }

    /// A packet of `source` waited `wait` at an output of `place`.
    #[inline]
    pub fn record(&mut self, source: u16, place: WaitPlace, wait: Ps) {
        if let Some(h) = self.by_source.get_mut(source as usize) {
            h[place as usize].record(wait);
        }
    }

    /// The waits of the sources in `sources` together, by place, in ns
    /// (`None` when off).
    pub fn summary(&self, sources: impl Iterator<Item = usize>) -> Option<Value> {
        if !self.on {
            return None;
        }
        let mut merged: [Histogram; PLACES] = Default::default();
        for s in sources {
            if let Some(h) = self.by_source.get(s) {
                for (m, x) in merged.iter_mut().zip(h) {
                    m.merge(x);
                }
            }
        }
        let mut out = Map::new();
        for place in WaitPlace::ALL {
            out.insert(place.name().to_string(), merged[place as usize].summary(1e-3));
        }
        Some(json!(out))
    }
}

impl Simulation {
    /// Packet `h`, if a measured data packet, waited at `place` from its
    /// `ready` time (when it could leave the switch; at its first switch,
    /// before routing, when it arrived) until `until`.
    #[cold]
    pub(super) fn record_wait(&mut self, h: PacketId, place: WaitPlace, until: Ps) {
        let p = self.pool.hot(h);
        if p.kind != PacketKind::Data || p.flags & FLAG_MEASURED == 0 {
            return;
        }
        let wait = until.saturating_sub(p.ready);
        let source = self.pool.cold(h).source;
        self.measure.hop_waits.record(source, place, wait);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_follow_the_hop_count_and_the_link() {
        assert_eq!(WaitPlace::of(LinkKind::Local, false, 0), WaitPlace::IngressLocal);
        assert_eq!(WaitPlace::of(LinkKind::Global, false, 0), WaitPlace::IngressGlobal);
        assert_eq!(WaitPlace::of(LinkKind::Local, false, 2), WaitPlace::TransitLocal);
        assert_eq!(WaitPlace::of(LinkKind::Global, false, 1), WaitPlace::TransitGlobal);
        assert_eq!(WaitPlace::of(LinkKind::Terminal, true, 0), WaitPlace::Egress);
        assert_eq!(WaitPlace::of(LinkKind::Terminal, true, 3), WaitPlace::Egress);
    }

    #[test]
    fn off_records_nothing_and_reports_nothing() {
        let mut w = HopWaits::new(false, 3);
        w.record(1, WaitPlace::Egress, Ps(5));
        assert!(w.summary(0..3).is_none());
    }

    #[test]
    fn sources_merge_by_place() {
        let mut w = HopWaits::new(true, 1);
        w.add_source();
        w.record(0, WaitPlace::Egress, Ps(1_000));
        w.record(1, WaitPlace::Egress, Ps(3_000));
        w.record(1, WaitPlace::TransitGlobal, Ps(7_000));
        let s = w.summary(0..2).unwrap();
        assert_eq!(s["egress"]["count"], 2);
        assert!((s["egress"]["mean"].as_f64().unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(s["transit_global"]["count"], 1);
        assert_eq!(s["ingress_local"]["count"], 0);
        let only0 = w.summary(0..1).unwrap();
        assert_eq!(only0["transit_global"]["count"], 0);
    }
}
