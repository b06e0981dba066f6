//! The packets of one virtual output queue, in a ring of their own.
//!
//! A queued packet's entry carries what output arbitration and the
//! queue's bookkeeping read of it (its handle, when it is ready, its size,
//! the input it came from), so queueing and dequeueing touch the queue's
//! ring and never another packet: a list linked through the packets made
//! every push write the previous tail packet and every pop read the next
//! head packet, two cache misses per queued hop on a large network.
//!
//! Rings live in one arena ([`QueueStore`]); each grows by doubling and
//! keeps its region while its queue record is reused, so a busy output
//! stops allocating once it has seen its longest queue.

use crate::ids::{ChannelId, PacketId};
use crate::units::Ps;

/// What a queue keeps of each of its packets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Queued {
    pub ready: Ps,
    pub h: PacketId,
    pub in_ch: ChannelId,
    pub wire: u32,
}

const EMPTY: Queued = Queued { ready: Ps::ZERO, h: PacketId::NONE, in_ch: ChannelId::NONE, wire: 0 };

/// A FIFO of packets in a ring of the [`QueueStore`], with a copy of its
/// head's entry so arbitration reads the queue record alone.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PacketRing {
    off: u32,
    cap: u32,
    first: u32,
    len: u32,
    /// The head's entry (meaningless when empty).
    pub head: Queued,
}

impl Default for PacketRing {
    fn default() -> Self {
        PacketRing { off: 0, cap: 0, first: 0, len: 0, head: EMPTY }
    }
}

impl PacketRing {
    /// True when no packet waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Packets waiting.
    #[cfg(test)]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// The same ring emptied (its region kept for reuse).
    #[inline]
    pub fn cleared(&self) -> PacketRing {
        PacketRing { first: 0, len: 0, head: EMPTY, ..*self }
    }

    #[inline]
    fn slot(&self, i: u32) -> usize {
        (self.off + ((self.first + i) & (self.cap - 1))) as usize
    }
}

/// The arena every queue's ring lives in, with the regions given up, by
/// log2 of their size.
#[derive(Default)]
pub(crate) struct QueueStore {
    entries: Vec<Queued>,
    free: Vec<Vec<u32>>,
}

impl QueueStore {
    /// Appends `e` to `q`.
    #[inline]
    pub fn push(&mut self, q: &mut PacketRing, e: Queued) {
        if q.len == q.cap {
            self.grow(q);
        }
        if q.len == 0 {
            q.head = e;
        }
        let at = q.slot(q.len);
        self.entries[at] = e;
        q.len += 1;
    }

    /// Removes the head of `q` (it must hold one) and returns its entry.
    #[inline]
    pub fn pop(&mut self, q: &mut PacketRing) -> Queued {
        debug_assert!(q.len > 0, "pop from an empty queue");
        let e = q.head;
        q.first = (q.first + 1) & (q.cap - 1);
        q.len -= 1;
        if q.len > 0 {
            q.head = self.entries[q.slot(0)];
        }
        e
    }

    /// Hints the processor to fetch the entry behind the head of `q`.
    #[inline]
    pub fn prefetch_next(&self, q: &PacketRing) {
        if q.len > 1 {
            if let Some(e) = self.entries.get(q.slot(1)) {
                crate::packet::prefetch_read(e as *const Queued as *const u8);
            }
        }
    }

    /// The entries of `q`, head first.
    pub fn iter<'a>(&'a self, q: &'a PacketRing) -> impl Iterator<Item = Queued> + 'a {
        (0..q.len).map(move |i| self.entries[q.slot(i)])
    }

    /// The last entry of `q` (it must hold one).
    #[cfg(test)]
    pub fn tail(&self, q: &PacketRing) -> Queued {
        self.entries[q.slot(q.len - 1)]
    }

    /// Doubles the ring of `q` (or gives it its first two slots: most
    /// queues hold a packet or two).
    #[cold]
    fn grow(&mut self, q: &mut PacketRing) {
        let cap = (q.cap * 2).max(2);
        let k = cap.trailing_zeros() as usize;
        let off = match self.free.get_mut(k).and_then(|f| f.pop()) {
            Some(off) => off,
            None => {
                let off = self.entries.len();
                assert!(off + cap as usize <= u32::MAX as usize, "queued packets exceed the arena's 2^32 entries");
                self.entries.resize(off + cap as usize, EMPTY);
                off as u32
            }
        };
        for i in 0..q.len {
            self.entries[off as usize + i as usize] = self.entries[q.slot(i)];
        }
        if q.cap > 0 {
            let old = q.cap.trailing_zeros() as usize;
            if self.free.len() <= old {
                self.free.resize_with(old + 1, Vec::new);
            }
            self.free[old].push(q.off);
        }
        q.off = off;
        q.cap = cap;
        q.first = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_are_fifo_through_growth_and_wrap() {
        let mut store = QueueStore::default();
        let mut rings = [PacketRing::default(); 3];
        let mut reference: Vec<std::collections::VecDeque<u32>> = vec![Default::default(); 3];
        let mut rng = crate::rng::Rng::new(5, 5);
        for step in 0..30_000u32 {
            let r = rng.below(3) as usize;
            let push = (step / 700) % 2 == 0 || rng.below(3) == 0;
            if push {
                let e = Queued { ready: Ps(step as u64), h: PacketId(step), in_ch: ChannelId(step / 2), wire: step % 97 };
                store.push(&mut rings[r], e);
                reference[r].push_back(step);
            } else if let Some(want) = reference[r].pop_front() {
                let got = store.pop(&mut rings[r]);
                assert_eq!((got.h, got.ready, got.in_ch, got.wire), (PacketId(want), Ps(want as u64), ChannelId(want / 2), want % 97));
            }
            assert_eq!(rings[r].len() as usize, reference[r].len());
            if let Some(&h) = reference[r].front() {
                assert_eq!(rings[r].head.h, PacketId(h), "the head's copy follows the head");
                assert_eq!(store.tail(&rings[r]).h, PacketId(*reference[r].back().unwrap()));
            }
            let listed: Vec<u32> = store.iter(&rings[r]).map(|e| e.h.0).collect();
            if step % 1000 == 0 {
                assert_eq!(listed, reference[r].iter().copied().collect::<Vec<_>>());
            }
        }
    }
}
