//! Link counters read at the times `sim.link_snapshots_ns` names, while
//! the run goes on: one run gives what several runs ending at those times
//! would, since a link's bytes and stalled time only grow; a transmission a
//! switch counted when it decided it, ahead of a start at or after the
//! reading, is left out, as the shorter run's window leaves it out. A
//! recipe that compares windows of one run (paper 004 Table 1: an idle job's router
//! counters after one wait and after two) runs once instead of once per
//! window.

use super::Simulation;
use crate::table::{Column, Table};
use crate::units::{ns_to_ps, ps_to_ns, Ps};
use serde_json::{json, Value};

/// The times asked for and the counters read at those reached so far.
#[derive(Debug, Default)]
pub(crate) struct LinkSnapshots {
    times: Vec<Ps>,
    taken: Vec<Taken>,
}

/// Every channel's counters at one time.
#[derive(Debug)]
struct Taken {
    at: Ps,
    bytes: Vec<u64>,
    stalled: Vec<Ps>,
}

impl LinkSnapshots {
    /// From the config's times in ns (checked ascending by the config).
    pub fn new(times_ns: &[f64]) -> Self {
        LinkSnapshots { times: times_ns.iter().map(|&t| ns_to_ps(t)).collect(), taken: Vec::new() }
    }

    /// The next time to read the counters at, if one is left.
    #[inline]
    pub fn next(&self) -> Option<Ps> {
        self.times.get(self.taken.len()).copied()
    }
}

impl Simulation {
    /// Reads every channel's counters now, as the links table would give
    /// them for a run ending now; the clock stands at the next snapshot's time.
    pub(super) fn take_link_snapshot(&mut self) {
        let (now, from, until) = (self.clock.now, self.clock.warmup, self.clock.window_end);
        let ch = &self.channels;
        let (bytes, stalled) = self.net.channels.ids().map(|c| ch.counted_before(c, now, from, until)).unzip();
        let taken = Taken { at: now, bytes, stalled };
        self.link_snapshots.taken.push(taken);
    }

    /// One row per snapshot taken and channel: `t_ns`, `channel`, `bytes`
    /// (wire bytes sent inside the measured window so far) and
    /// `stalled_ns` (as the links table counts it, to that time). A time
    /// the run did not reach has no rows.
    pub fn link_snapshots_table(&self) -> Table {
        let s = &self.link_snapshots.taken;
        let n = self.net.channels.len();
        let mut t = Table::default();
        t.push("t_ns", Column::F64(s.iter().flat_map(|x| std::iter::repeat(ps_to_ns(x.at)).take(n)).collect()));
        t.push("channel", Column::U64(s.iter().flat_map(|_| 0..n as u64).collect()));
        t.push("bytes", Column::U64(s.iter().flat_map(|x| x.bytes.iter().copied()).collect()));
        t.push("stalled_ns", Column::F64(s.iter().flat_map(|x| x.stalled.iter().map(|p| p.as_f64() / 1e3)).collect()));
        t
    }

    /// `link_snapshots` of the summary: the times asked for and those
    /// taken (a run that ended first took fewer); None when none were asked.
    pub(super) fn link_snapshots_summary(&self) -> Option<Value> {
        let s = &self.link_snapshots;
        if s.times.is_empty() {
            return None;
        }
        Some(json!({
            "asked_ns": s.times.iter().map(|&t| ps_to_ns(t)).collect::<Vec<_>>(),
            "taken_ns": s.taken.iter().map(|x| ps_to_ns(x.at)).collect::<Vec<_>>(),
        }))
    }
}
