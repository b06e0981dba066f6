//! The event queue, ordered by (time, insertion sequence): events at the
//! same picosecond run in the order they were scheduled, so runs are
//! deterministic (MODEL.md Sec. 1).

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
    /// An end-to-end ack or CNP reaches its source NIC (index into the
    /// simulation's pending acks).
    Ack(u32),
    /// The NIC's end-to-end retry timer for a lost packet expires.
    Retry(u32),
    /// The measurement window closes.
    WindowEnd,
    /// An MPI rank runs its next operations.
    MpiWake(u32),
    /// An MPI message is handed to the NIC (after the send overhead).
    MpiPost(u32),
    /// An MPI message between ranks of one node arrives through memory.
    MpiLocal(u32),
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
            Event::Ack(a) => (5 << 60) | a as u64,
            Event::Retry(h) => (6 << 60) | h as u64,
            Event::WindowEnd => 7 << 60,
            Event::MpiWake(r) => (8 << 60) | r as u64,
            Event::MpiPost(w) => (9 << 60) | w as u64,
            Event::MpiLocal(w) => (10 << 60) | w as u64,
        }
    }

    #[inline]
    fn unpack(x: u64) -> Event {
        match x >> 60 {
            0 => Event::Arrive(x as u32),
            1 => Event::TryOutput(x as u32),
            2 => Event::Generate { source: (x >> 32) as u16, member: x as u32 },
            3 => Event::StartFlows(x as u16),
            5 => Event::Ack(x as u32),
            6 => Event::Retry(x as u32),
            7 => Event::WindowEnd,
            8 => Event::MpiWake(x as u32),
            9 => Event::MpiPost(x as u32),
            10 => Event::MpiLocal(x as u32),
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
    fn key(&self) -> (Ps, u64) {
        (self.time, self.seq)
    }
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: the std max-heap then pops the earliest entry.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.key().cmp(&self.key())
    }
}

/// log2 of the bucket width in ps (256 ps): a bucket holds a few events
/// even on busy networks, so sorting it is cheap.
const BUCKET_BITS: u32 = 8;
/// Buckets in the wheel (horizon 2^14 x 256 ps = 4.2 us, beyond which events
/// wait in the overflow heap). A short wheel is revisited often, so its
/// buckets keep their allocations.
const WHEEL: usize = 1 << 14;
/// Entries each bucket can hold before it first grows.
const BUCKET_CAPACITY: usize = 8;

/// Pending events, earliest first, ties in scheduling order.
///
/// A timing wheel (calendar queue): events within the horizon go to the
/// bucket of their time, unsorted; a bucket is sorted by (time, sequence)
/// once, when the clock reaches it; events beyond the horizon wait in a
/// binary heap. Push and pop are O(1) amortised and touch little memory,
/// which matters because every packet hop is at least one event.
pub struct EventQueue {
    /// Entries of the bucket being drained, sorted latest first.
    current: Vec<Entry>,
    /// Absolute number of the bucket being drained.
    cur: u64,
    buckets: Vec<Vec<Entry>>,
    /// One bit per non-empty bucket.
    occupied: Vec<u64>,
    in_wheel: usize,
    overflow: std::collections::BinaryHeap<Entry>,
    seq: u64,
    processed: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            current: Vec::new(),
            cur: 0,
            buckets: (0..WHEEL).map(|_| Vec::with_capacity(BUCKET_CAPACITY)).collect(),
            occupied: vec![0; WHEEL / 64],
            in_wheel: 0,
            overflow: Default::default(),
            seq: 0,
            processed: 0,
        }
    }
}

impl EventQueue {
    /// Schedules `ev` at time `at` (not earlier than the last popped event).
    #[inline]
    pub fn push(&mut self, at: Ps, ev: Event) {
        self.seq += 1;
        let e = Entry { time: at, seq: self.seq, event: ev.pack() };
        let abs = at >> BUCKET_BITS;
        if abs <= self.cur {
            // Into the bucket being drained: after every entry not later
            // than it (its sequence number is the largest yet).
            let pos = self.current.partition_point(|x| x.time > at);
            self.current.insert(pos, e);
        } else if abs < self.cur + WHEEL as u64 {
            let b = (abs as usize) & (WHEEL - 1);
            self.buckets[b].push(e);
            self.occupied[b / 64] |= 1 << (b % 64);
            self.in_wheel += 1;
        } else {
            self.overflow.push(e);
        }
    }

    /// Makes `current` hold the earliest bucket; false when nothing is pending.
    #[inline]
    fn refill(&mut self) -> bool {
        if !self.current.is_empty() {
            return true;
        }
        if self.in_wheel == 0 {
            match self.overflow.peek() {
                None => return false,
                Some(e) => self.cur = e.time >> BUCKET_BITS,
            }
        } else {
            self.cur = self.next_occupied(self.cur + 1);
        }
        let b = (self.cur as usize) & (WHEEL - 1);
        if self.occupied[b / 64] & (1 << (b % 64)) != 0 {
            self.occupied[b / 64] &= !(1 << (b % 64));
            self.in_wheel -= self.buckets[b].len();
            std::mem::swap(&mut self.current, &mut self.buckets[b]);
        }
        while let Some(e) = self.overflow.peek() {
            if e.time >> BUCKET_BITS != self.cur {
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            self.current.push(e);
        }
        self.current.sort_unstable_by(|a, b| b.key().cmp(&a.key()));
        true
    }

    /// Absolute number of the first non-empty wheel bucket at or after
    /// `from`, or the bucket of the earliest overflow entry if that is sooner.
    fn next_occupied(&self, from: u64) -> u64 {
        let limit = self.overflow.peek().map_or(u64::MAX, |e| e.time >> BUCKET_BITS);
        let mut abs = from;
        let end = self.cur + WHEEL as u64;
        while abs < end && abs < limit {
            let b = (abs as usize) & (WHEEL - 1);
            let word = self.occupied[b / 64] >> (b % 64);
            if word != 0 {
                return (abs + word.trailing_zeros() as u64).min(limit);
            }
            abs += 64 - (b % 64) as u64;
        }
        limit.min(end)
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Ps> {
        if !self.refill() {
            return None;
        }
        self.current.last().map(|e| e.time)
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ps, Event)> {
        if !self.refill() {
            return None;
        }
        let e = self.current.pop()?;
        self.processed += 1;
        Some((e.time, Event::unpack(e.event)))
    }

    /// Pending events in no particular order (for reports).
    pub fn iter(&self) -> impl Iterator<Item = Event> + '_ {
        self.current.iter().chain(self.buckets.iter().flatten()).chain(self.overflow.iter()).map(|e| Event::unpack(e.event))
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.current.len() + self.in_wheel + self.overflow.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
        // Times spread over a few buckets, the wheel horizon and beyond.
        for i in 0..5000u32 {
            let t = match i % 3 {
                0 => r.below(200),
                1 => r.below(100_000),
                _ => r.below(1_000_000_000),
            };
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
    fn interleaved_pushes_keep_order() {
        // Pushes while draining, into the current bucket and later ones.
        let mut q = EventQueue::default();
        let mut r = Rng::new(4, 4);
        let mut popped = Vec::new();
        q.push(0, Event::Arrive(0));
        let mut next = 1u32;
        while let Some((t, e)) = q.pop() {
            popped.push((t, e));
            if next < 20_000 {
                for _ in 0..2 {
                    let dt = if r.below(10) == 0 { r.below(5_000_000_000) } else { r.below(20_000) };
                    q.push(t + dt, Event::Arrive(next));
                    next += 1;
                }
            }
        }
        assert_eq!(popped.len(), next as usize);
        assert!(popped.windows(2).all(|w| w[0].0 <= w[1].0));
    }

    #[test]
    fn events_round_trip_through_packing() {
        for e in [Event::Arrive(7), Event::TryOutput(u32::MAX - 1), Event::Generate { source: 65535, member: 123456 }, Event::StartFlows(3), Event::Watchdog] {
            assert_eq!(Event::unpack(e.pack()), e);
        }
    }
}
