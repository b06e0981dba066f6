//! The event queue: a 4-ary min-heap ordered by (time, insertion sequence),
//! so events at the same picosecond run in the order they were scheduled and
//! runs are deterministic (MODEL.md Sec. 1). Entries are packed into 24
//! bytes and the heap is 4-ary: shallower and more cache-friendly than a
//! binary heap, which matters because every packet hop is at least one event.

use crate::units::Ps;

/// What happens at an event. Indices refer to the simulation's arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// The head of a packet arrives at the far end of the channel it is on.
    Arrive(u32),
    /// A channel's transmitter looks for the next packet to send.
    TryOutput(u32),
    /// A Bernoulli source generates its next message at one node.
    Generate { source: u16, member: u32 },
    /// A flow source starts its flows.
    StartFlows(u16),
    /// Periodic deadlock check.
    Watchdog,
}

impl Event {
    #[inline]
    fn pack(self) -> u64 {
        match self {
            Event::Arrive(h) => h as u64,
            Event::TryOutput(c) => (1 << 60) | c as u64,
            Event::Generate { source, member } => (2 << 60) | ((source as u64) << 32) | member as u64,
            Event::StartFlows(s) => (3 << 60) | s as u64,
            Event::Watchdog => 4 << 60,
        }
    }

    #[inline]
    fn unpack(x: u64) -> Event {
        match x >> 60 {
            0 => Event::Arrive(x as u32),
            1 => Event::TryOutput(x as u32),
            2 => Event::Generate { source: (x >> 32) as u16, member: x as u32 },
            3 => Event::StartFlows(x as u16),
            _ => Event::Watchdog,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Ps,
    seq: u64,
    event: u64,
}

impl Entry {
    #[inline]
    fn before(&self, o: &Entry) -> bool {
        (self.time, self.seq) < (o.time, o.seq)
    }
}

/// Pending events, earliest first, ties in scheduling order.
#[derive(Default)]
pub struct EventQueue {
    heap: Vec<Entry>,
    seq: u64,
    processed: u64,
}

const ARITY: usize = 4;

impl EventQueue {
    /// Schedules `ev` at time `at`.
    #[inline]
    pub fn push(&mut self, at: Ps, ev: Event) {
        self.seq += 1;
        let e = Entry { time: at, seq: self.seq, event: ev.pack() };
        let mut i = self.heap.len();
        self.heap.push(e);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if e.before(&self.heap[parent]) {
                self.heap[i] = self.heap[parent];
                i = parent;
            } else {
                break;
            }
        }
        self.heap[i] = e;
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Ps> {
        self.heap.first().map(|e| e.time)
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ps, Event)> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().expect("non-empty");
        let n = self.heap.len();
        if n > 0 {
            let mut i = 0;
            loop {
                let first = i * ARITY + 1;
                if first >= n {
                    break;
                }
                let end = (first + ARITY).min(n);
                let mut best = first;
                for c in first + 1..end {
                    if self.heap[c].before(&self.heap[best]) {
                        best = c;
                    }
                }
                if self.heap[best].before(&last) {
                    self.heap[i] = self.heap[best];
                    i = best;
                } else {
                    break;
                }
            }
            self.heap[i] = last;
        }
        self.processed += 1;
        Some((top.time, Event::unpack(top.event)))
    }

    /// Pending events in no particular order (for reports).
    pub fn iter(&self) -> impl Iterator<Item = Event> + '_ {
        self.heap.iter().map(|e| Event::unpack(e.event))
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn ties_break_fifo() {
        let mut q = EventQueue::default();
        q.push(10, Event::TryOutput(3));
        q.push(5, Event::TryOutput(9));
        q.push(10, Event::TryOutput(1));
        q.push(10, Event::Arrive(0));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (5, Event::TryOutput(9)),
                (10, Event::TryOutput(3)),
                (10, Event::TryOutput(1)),
                (10, Event::Arrive(0)),
            ]
        );
    }

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::default();
        let mut r = Rng::new(9, 9);
        let mut want = Vec::new();
        for i in 0..5000u32 {
            let t = r.below(200);
            q.push(t, Event::Arrive(i));
            want.push((t, i));
        }
        want.sort(); // by time, then by insertion (i grows with insertion)
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, e)| match e {
            Event::Arrive(i) => (t, i),
            _ => unreachable!(),
        }).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn events_round_trip_through_packing() {
        for e in [Event::Arrive(7), Event::TryOutput(u32::MAX - 1), Event::Generate { source: 65535, member: 123456 }, Event::StartFlows(3), Event::Watchdog] {
            assert_eq!(Event::unpack(e.pack()), e);
        }
    }
}
