//! The load a switch's neighbours advertise ([DeSensi20] Sec. II-C):
//! Slingshot switches carry congestion information back to their upstream
//! neighbours in acknowledgements, about four bytes for every packet sent
//! forward, so the source switch of a packet knows the load of the global
//! links of the switches next to it. Here a neighbour's report for one of
//! its channels is the channel's occupancy when last sampled, sampled
//! again once it is older than `routing.neighbour_load_refresh_ns`: the
//! upstream view lags the truth by up to that long *(assumed period)*.
//! The reverse-direction bytes are not added to the links (about 0.1% of
//! a 4 KiB packet).

use crate::ids::{ChannelId, Id};
use crate::units::Ps;

/// The last reported load of every channel, and when it was sampled.
pub(crate) struct NeighbourLoad {
    /// Advertised loads are used at all (`routing.neighbour_load`).
    pub on: bool,
    refresh: Ps,
    value: Vec<u64>,
    at: Vec<Ps>,
}

impl NeighbourLoad {
    /// Reports for `channels` channels, refreshed every `refresh`.
    pub fn new(on: bool, refresh: Ps, channels: usize) -> NeighbourLoad {
        let n = if on { channels } else { 0 };
        NeighbourLoad { on, refresh, value: vec![0; n], at: vec![Ps(u64::MAX); n] }
    }

    /// The load advertised for channel `ch` at `now`; `current` gives its
    /// true load when a new sample is due.
    #[inline]
    pub fn read(&mut self, ch: ChannelId, now: Ps, current: impl FnOnce() -> u64) -> u64 {
        let i = ch.index();
        let at = self.at[i];
        if at == Ps(u64::MAX) || now >= at + self.refresh {
            self.value[i] = current();
            self.at[i] = now;
        }
        self.value[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_held_until_it_is_older_than_the_refresh_period() {
        let mut n = NeighbourLoad::new(true, Ps(300_000), 4);
        let c = ChannelId(2);
        assert_eq!(n.read(c, Ps(1_000), || 10), 10, "first read samples");
        assert_eq!(n.read(c, Ps(200_000), || 99), 10, "still fresh: the old report");
        assert_eq!(n.read(c, Ps(301_000), || 42), 42, "stale: sampled again");
        assert_eq!(n.read(ChannelId(3), Ps(301_000), || 7), 7, "each channel has its own report");
    }
}
