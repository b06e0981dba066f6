//! Measurement (MODEL.md Sec. 8): per-source counters and histograms, the
//! delivery timeline, sampled packets and the run's totals. Everything
//! here is bounded: a run ten times longer keeps as much in memory.

use crate::ids::EndpointId;
use crate::metrics::SourceStats;
use crate::units::Ps;

/// A sampled delivered packet.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PacketSample {
    pub source: u16,
    pub src: EndpointId,
    pub dst: EndpointId,
    pub payload: u32,
    pub wire: u32,
    pub created: Ps,
    pub injected: Ps,
    pub delivered: Ps,
    pub hops: u8,
    pub nonminimal: bool,
}

/// Every `every`-th measured packet, at most `limit` of them: when the
/// table is full, every other sample is dropped and `every` doubles, so the
/// table stays an even sample over the whole run. Row `i` is always the
/// `(i + 1) x every`-th measured packet.
#[derive(Clone, Debug)]
pub(crate) struct PacketSamples {
    pub rows: Vec<PacketSample>,
    pub every: u64,
    pub limit: usize,
    seen: u64,
}

impl PacketSamples {
    /// Every `every`-th packet (0: none), at most `limit` rows.
    pub fn new(every: u64, limit: usize) -> PacketSamples {
        PacketSamples { rows: Vec::new(), every, limit: limit.max(2), seen: 0 }
    }

    /// A measured packet was delivered: keep it if it is due.
    #[inline]
    pub fn offer(&mut self, sample: impl FnOnce() -> PacketSample) {
        if self.every == 0 {
            return;
        }
        self.seen += 1;
        if self.seen % self.every != 0 {
            return;
        }
        if self.rows.len() == self.limit {
            let mut i = 0;
            self.rows.retain(|_| {
                i += 1;
                i % 2 == 0
            });
            self.every *= 2;
            if self.seen % self.every != 0 {
                return;
            }
        }
        self.rows.push(sample());
    }
}

/// Delivered wire bytes and latency of one source in one timeline bin.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TimelineBin {
    pub wire: u64,
    pub packets: u64,
    pub latency_ps: Ps,
}

/// Per-source delivery timeline in bins of `bin` ps. A run longer than
/// `max_bins` bins merges neighbouring bins and doubles their width, so
/// the timeline's memory is bounded.
#[derive(Clone, Debug)]
pub(crate) struct Timeline {
    pub lines: Vec<Vec<TimelineBin>>,
    pub bin: Ps,
    pub max_bins: usize,
}

impl Timeline {
    /// A delivery of `wire` bytes by source `source` at `t`, `latency` after its creation.
    #[inline]
    pub fn record(&mut self, source: usize, t: Ps, wire: u32, latency: Ps) {
        // The bin index: how many whole bins lie before `t`.
        let mut b = (t / self.bin) as usize;
        while b >= self.max_bins {
            self.coarsen();
            b = (t / self.bin) as usize;
        }
        let line = &mut self.lines[source];
        if line.len() <= b {
            line.resize(b + 1, Default::default());
        }
        let x = &mut line[b];
        x.wire += wire as u64;
        x.packets += 1;
        x.latency_ps += latency;
    }

    /// Doubles the bin width, merging bins pairwise.
    fn coarsen(&mut self) {
        self.bin = self.bin * 2;
        for line in &mut self.lines {
            let merged: Vec<TimelineBin> = line
                .chunks(2)
                .map(|pair| {
                    let mut m = TimelineBin::default();
                    for x in pair {
                        m.wire += x.wire;
                        m.packets += x.packets;
                        m.latency_ps += x.latency_ps;
                    }
                    m
                })
                .collect();
            *line = merged;
        }
    }
}

/// What a run counts.
pub(crate) struct Measurement {
    /// Counters of each traffic source (and job).
    pub stats: Vec<SourceStats>,
    pub timeline: Timeline,
    pub samples: PacketSamples,
    /// Link traversals (injection, fabric and ejection links).
    pub packet_hops: u64,
    pub packets_injected: u64,
    pub bytes_injected: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Measured packets injected inside the window and not yet delivered.
    pub measured_outstanding: u64,
    /// Acks and CNPs sent as packets, per [`crate::packet::PacketKind`]
    /// (the data entries stay 0: data is counted above).
    pub control: ControlCounts,
    /// Where each source's packets wait (`sim.hop_waits`).
    pub hop_waits: super::hop_waits::HopWaits,
}

/// The life of control packets (acks, CNPs), per kind: made at the
/// destination NIC, put on its link, back at the source NIC, given up.
/// Made = queued at the NIC + injected; injected = arrived + in the
/// network + lost (`packets_conserved` in the summary checks both).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ControlCounts {
    pub made: [u64; crate::packet::PacketKind::COUNT],
    pub injected: [u64; crate::packet::PacketKind::COUNT],
    pub arrived: [u64; crate::packet::PacketKind::COUNT],
    pub lost: [u64; crate::packet::PacketKind::COUNT],
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(i: u64) -> PacketSample {
        PacketSample { source: 0, src: EndpointId(0), dst: EndpointId(0), payload: 0, wire: 0, created: Ps(i), injected: Ps::ZERO, delivered: Ps::ZERO, hops: 0, nonminimal: false }
    }

    #[test]
    fn samples_stay_bounded_and_evenly_spaced() {
        let mut s = PacketSamples::new(2, 8);
        for i in 1..=1000u64 {
            s.offer(|| sample(i));
        }
        assert!(s.rows.len() <= 8);
        // Row i is the (i + 1) x every-th packet.
        for (i, r) in s.rows.iter().enumerate() {
            assert_eq!(r.created, Ps((i as u64 + 1) * s.every), "row {i}");
        }
        assert!(s.every >= 1000 / 8);
    }

    #[test]
    fn timeline_merges_bins_past_its_limit() {
        let mut t = Timeline { lines: vec![Vec::new()], bin: Ps(10), max_bins: 4 };
        for time in 0..100 {
            t.record(0, Ps(time), 1, Ps::ZERO);
        }
        assert!(t.lines[0].len() <= 4);
        assert_eq!(t.lines[0].iter().map(|b| b.wire).sum::<u64>(), 100);
        assert_eq!(t.bin, Ps(40));
    }
}
