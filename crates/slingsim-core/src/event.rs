//! The event queue: a binary heap ordered by (time, insertion sequence), so
//! events at the same picosecond run in the order they were scheduled and
//! runs are deterministic (MODEL.md Sec. 1).

use crate::units::Ps;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

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

/// Pending events, earliest first, ties in scheduling order.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<(Ps, u64, Event)>>,
    seq: u64,
    processed: u64,
}

impl EventQueue {
    /// Schedules `ev` at time `at`.
    #[inline]
    pub fn push(&mut self, at: Ps, ev: Event) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, ev)));
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Ps> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ps, Event)> {
        self.heap.pop().map(|Reverse((t, _, e))| {
            self.processed += 1;
            (t, e)
        })
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Pending events in no particular order (for reports).
    pub fn iter(&self) -> impl Iterator<Item = Event> + '_ {
        self.heap.iter().map(|Reverse((_, _, e))| *e)
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
