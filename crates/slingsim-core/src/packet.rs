//! Packets and the pool they live in. Packets are addressed by 32-bit
//! handles; freed slots are reused, so the hot path does not allocate.
//!
//! A packet is stored in two halves: [`PacketHot`], what every hop reads
//! and writes (its place, its route, its timing), in exactly one cache
//! line; and [`PacketCold`], what only the source NIC, the destination NIC
//! and the reports read. A hop then touches one line of packet state.

use crate::ids::{ChannelId, EndpointId, Id, PacketId, SwitchId};
use crate::network::NONE;
use crate::units::Ps;

/// Packet took a non-minimal (Valiant) path.
pub const FLAG_NONMINIMAL: u8 = 1;
/// Packet belongs to a message created inside the measurement window.
pub const FLAG_MEASURED: u8 = 2;
/// The last packet of its message (RoCE's Last opcode; a switch can read it).
pub const FLAG_MESSAGE_END: u8 = 4;
/// A switch output marked the packet's ECN bit (DCQCN).
pub const FLAG_ECN: u8 = 8;
/// The packet's intermediate (`via`) is a group, not a switch.
pub const FLAG_VIA_GROUP: u8 = 16;
/// The packet is on its way to its destination NIC (delivery will read its cold half).
pub const FLAG_LAST_HOP: u8 = 32;
/// A data packet counted into its flow's bytes in the fabric by its
/// ingress switch (switch-side congestion control).
pub const FLAG_ADMITTED: u8 = 64;
/// Made inside a switch (a fabric ack), not sent by a NIC: it holds no
/// space in the input buffer it is queued from, so it returns no credit.
pub const FLAG_SWITCH_MADE: u8 = 128;

/// What a packet is for. Data carries a message's payload; the other kinds
/// are control packets a NIC answers data with, which travel the same
/// links, buffers and virtual channels as data (MODEL.md Sec. 2, issue 11)
/// but count toward no message, latency sample or accepted load. Stored
/// as a byte so more kinds fit (Aries requests and responses, paper 004
/// Sec. 2.1, would be two more).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacketKind {
    /// Payload of a message.
    Data = 0,
    /// End-to-end acknowledgement of one data packet (Slingshot's
    /// end-to-end acks, paper 000 Sec. II-A; RoCE ACK).
    Ack = 1,
    /// DCQCN congestion notification packet (RoCEv2 CNP).
    Cnp = 2,
    /// Slingshot's ack from the egress switch to the flow's ingress switch,
    /// carrying the egress port's congestion marks ([Roweth] Sec. II-E).
    FabricAck = 3,
}

impl PacketKind {
    /// Every kind, in the order of their codes.
    pub const ALL: [PacketKind; 4] = [PacketKind::Data, PacketKind::Ack, PacketKind::Cnp, PacketKind::FabricAck];
    /// How many kinds there are (arrays indexed by kind).
    pub const COUNT: usize = Self::ALL.len();

    /// Name in results (`packets_by_kind`).
    pub fn name(self) -> &'static str {
        match self {
            PacketKind::Data => "data",
            PacketKind::Ack => "ack",
            PacketKind::Cnp => "cnp",
            PacketKind::FabricAck => "fabric_ack",
        }
    }

    /// Index into arrays of [`PacketKind::COUNT`].
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The per-hop half of a packet: where it is, where it goes and when.
/// It carries its routing state, so switches keep no per-flow tables.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct PacketHot {
    /// Next packet in the queue this packet waits in (intrusive list).
    pub next: PacketId,
    /// Channel the packet is queued at or travelling on.
    pub ch: ChannelId,
    /// Channel it arrived on (its input buffer, for credit return).
    pub in_ch: ChannelId,
    pub src: EndpointId,
    pub dst: EndpointId,
    pub dst_switch: SwitchId,
    /// Routing state: the intermediate still to visit (a group if
    /// `FLAG_VIA_GROUP`, else a switch; `NONE` if none), the chosen global link.
    pub via: u32,
    pub global_link: u32,
    pub wire: u32,
    /// Zero-load latency of the path so far (links and switches): an end-to-end ack takes this long back.
    /// Picoseconds in 32 bits to keep the packet in one cache line; read
    /// and set it through [`PacketHot::path_latency`], [`PacketHot::set_path_latency`]
    /// and [`PacketHot::extend_path`].
    pub path_ps: u32,
    /// When the tail reaches the receiver of `ch`.
    pub tail: Ps,
    /// When the packet may leave its current switch (after fall-through).
    pub ready: Ps,
    /// Virtual channel on `ch` and on `in_ch`.
    pub vc: u8,
    pub in_vc: u8,
    /// Switch-to-switch hops taken so far.
    pub hops: u8,
    /// Routing mode ([`crate::routing::Algorithm::code`]).
    pub alg: u8,
    /// Traffic class index.
    pub class: u8,
    pub flags: u8,
    /// The routes the packet follows: 0 those of the start, k those after
    /// the fabric manager's k-th reroute (`links.reroute_after_ns`), set
    /// where the packet is first routed, so a path stays within the VCs of
    /// one set of routes.
    pub epoch: u8,
    /// Data or a control packet (switches leave control packets out of
    /// congestion control; delivery hands them to the NIC's ack logic).
    pub kind: PacketKind,
}

impl PacketHot {
    /// Intermediate group still to visit, or `NONE`.
    #[inline]
    pub fn via_group(&self) -> u32 {
        if self.flags & FLAG_VIA_GROUP != 0 {
            self.via
        } else {
            NONE
        }
    }

    /// Intermediate switch still to visit, or `SwitchId::NONE`.
    #[inline]
    pub fn via_switch(&self) -> SwitchId {
        if self.flags & FLAG_VIA_GROUP == 0 {
            SwitchId(self.via)
        } else {
            SwitchId::NONE
        }
    }

    /// Sets an intermediate group.
    #[inline]
    pub fn set_via_group(&mut self, g: u32) {
        self.via = g;
        self.flags |= FLAG_VIA_GROUP;
    }

    /// Sets an intermediate switch.
    #[inline]
    pub fn set_via_switch(&mut self, s: SwitchId) {
        self.via = s.0;
        self.flags &= !FLAG_VIA_GROUP;
    }

    /// Zero-load latency of the path so far.
    #[inline]
    pub fn path_latency(&self) -> Ps {
        Ps(self.path_ps as u64)
    }

    /// Sets the path's zero-load latency to `t` (its low 32 bits).
    #[inline]
    pub fn set_path_latency(&mut self, t: Ps) {
        self.path_ps = t.0 as u32;
    }

    /// Adds `t` to the path's zero-load latency (its low 32 bits, the sum
    /// stopping at the largest 32-bit value).
    #[inline]
    pub fn extend_path(&mut self, t: Ps) {
        self.path_ps = self.path_ps.saturating_add(t.0 as u32);
    }

    /// The intermediate has been reached.
    #[inline]
    pub fn clear_via(&mut self) {
        self.via = NONE;
        self.flags &= !FLAG_VIA_GROUP;
    }
}

/// The half of a packet only its endpoints and the reports read.
#[derive(Clone, Copy, Debug)]
pub struct PacketCold {
    /// Message this packet belongs to, if its completion is tracked (flows);
    /// for an ack or CNP, the record of what it answers (`engine::signals`).
    pub msg: u32,
    pub payload: u32,
    /// Message creation time (latency is measured from here).
    pub created: Ps,
    /// Time the packet entered the network.
    pub injected: Ps,
    /// Traffic source index.
    pub source: u16,
    /// Contributing flows an egress edge port marked (Slingshot congestion control).
    pub mark_flows: u16,
    /// Congestion level an egress edge port marked (0 = clear).
    pub mark: u8,
    /// How often end-to-end retry has resent the packet.
    pub retries: u8,
    /// Where per-hop holding counts the packet (`engine::hop_hold`):
    /// `HOP_ON_IN` on the link it came in by, `HOP_ON_OUT` on the output it
    /// is queued for, `HOP_HELD` waiting beside that output. It fits the
    /// record's padding.
    pub hop: u8,
}

/// [`PacketCold::hop`]: counted on the link the packet came in by.
pub const HOP_ON_IN: u8 = 1;
/// [`PacketCold::hop`]: counted on the output the packet is queued for.
pub const HOP_ON_OUT: u8 = 2;
/// [`PacketCold::hop`]: waiting beside an output, counted nowhere.
pub const HOP_HELD: u8 = 4;

/// Bytes the engine keeps per packet in flight (both halves).
pub const RECORD_BYTES: usize = std::mem::size_of::<PacketHot>() + std::mem::size_of::<PacketCold>();

/// A whole packet, as built at the NIC.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub hot: PacketHot,
    pub cold: PacketCold,
}

impl Packet {
    /// A fresh packet with no routing state.
    pub fn new(src: EndpointId, dst: EndpointId, dst_switch: SwitchId, msg: u32, source: u16) -> Packet {
        Packet {
            hot: PacketHot {
                next: PacketId::NONE,
                ch: ChannelId::NONE,
                in_ch: ChannelId::NONE,
                src,
                dst,
                dst_switch,
                via: NONE,
                global_link: NONE,
                wire: 0,
                path_ps: 0,
                tail: Ps::ZERO,
                ready: Ps::ZERO,
                vc: 0,
                in_vc: 0,
                hops: 0,
                alg: 0,
                class: 0,
                flags: 0,
                epoch: 0,
                kind: PacketKind::Data,
            },
            cold: PacketCold { msg, payload: 0, created: Ps::ZERO, injected: Ps::ZERO, source, mark_flows: 0, mark: 0, retries: 0, hop: 0 },
        }
    }
}

/// Slab of packets with a free list.
#[derive(Default)]
pub struct PacketPool {
    hot: Vec<PacketHot>,
    cold: Vec<PacketCold>,
    free: Vec<PacketId>,
    live: usize,
}

impl PacketPool {
    /// Stores `p` and returns its handle.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.live += 1;
        if let Some(h) = self.free.pop() {
            self.hot[h.index()] = p.hot;
            self.cold[h.index()] = p.cold;
            h
        } else {
            self.hot.push(p.hot);
            self.cold.push(p.cold);
            PacketId((self.hot.len() - 1) as u32)
        }
    }

    /// Releases a handle.
    #[inline]
    pub fn free(&mut self, h: PacketId) {
        self.live -= 1;
        self.free.push(h);
    }

    /// Packets currently allocated (in the network).
    pub fn live(&self) -> usize {
        self.live
    }

    /// Slots allocated so far (the most packets ever live at once).
    pub fn capacity(&self) -> usize {
        self.hot.len()
    }

    /// The per-hop half.
    #[inline]
    pub fn hot(&self, h: PacketId) -> &PacketHot {
        &self.hot[h.index()]
    }

    /// The per-hop half, writable.
    #[inline]
    pub fn hot_mut(&mut self, h: PacketId) -> &mut PacketHot {
        &mut self.hot[h.index()]
    }

    /// The endpoints' half.
    #[inline]
    pub fn cold(&self, h: PacketId) -> &PacketCold {
        &self.cold[h.index()]
    }

    /// The endpoints' half, writable.
    #[inline]
    pub fn cold_mut(&mut self, h: PacketId) -> &mut PacketCold {
        &mut self.cold[h.index()]
    }

    /// Both halves.
    #[inline]
    pub fn get(&self, h: PacketId) -> Packet {
        Packet { hot: self.hot[h.index()], cold: self.cold[h.index()] }
    }

    /// Hints the processor to fetch packet `h`'s hot half: the engine knows
    /// which packet the next event will touch before it handles this one.
    #[inline]
    pub fn prefetch(&self, h: PacketId) {
        if let Some(p) = self.hot.get(h.index()) {
            prefetch_read(p as *const PacketHot as *const u8);
        }
    }

    /// Hints the processor to fetch packet `h`'s cold half.
    #[inline]
    pub fn prefetch_cold(&self, h: PacketId) {
        if let Some(p) = self.cold.get(h.index()) {
            prefetch_read(p as *const PacketCold as *const u8);
        }
    }
}

/// Starts loading the cache line at `p` (no effect where unsupported).
#[inline(always)]
pub fn prefetch_read(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing observable.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A FIFO of packets linked through `PacketHot::next`. It caches what
/// output arbitration needs of its head (ready time, size, input channel),
/// so arbitration does not touch packets in the pool.
#[derive(Clone, Copy, Debug)]
pub struct PacketQueue {
    pub head: PacketId,
    pub tail: PacketId,
    pub head_ready: Ps,
    pub head_wire: u32,
    pub head_in_ch: ChannelId,
}

impl Default for PacketQueue {
    fn default() -> Self {
        PacketQueue { head: PacketId::NONE, tail: PacketId::NONE, head_ready: Ps::ZERO, head_wire: 0, head_in_ch: ChannelId::NONE }
    }
}

impl PacketQueue {
    /// Appends `h`.
    #[inline]
    pub fn push(&mut self, pool: &mut PacketPool, h: PacketId) {
        let p = pool.hot_mut(h);
        p.next = PacketId::NONE;
        if self.tail.is_none() {
            self.head = h;
            self.head_ready = p.ready;
            self.head_wire = p.wire;
            self.head_in_ch = p.in_ch;
        } else {
            pool.hot_mut(self.tail).next = h;
        }
        self.tail = h;
    }

    /// Removes the head (the queue must not be empty).
    #[inline]
    pub fn pop(&mut self, pool: &PacketPool) -> PacketId {
        let h = self.head;
        self.head = pool.hot(h).next;
        if self.head.is_none() {
            self.tail = PacketId::NONE;
        } else {
            let p = pool.hot(self.head);
            self.head_ready = p.ready;
            self.head_wire = p.wire;
            self.head_in_ch = p.in_ch;
        }
        h
    }

    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// The handles in the queue, head first.
    pub fn iter<'a>(&self, pool: &'a PacketPool) -> impl Iterator<Item = PacketId> + 'a {
        let mut h = self.head;
        std::iter::from_fn(move || {
            if h.is_none() {
                return None;
            }
            let cur = h;
            h = pool.hot(h).next;
            Some(cur)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hot_half_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<PacketHot>(), 64);
        assert_eq!(std::mem::align_of::<PacketHot>(), 64);
    }

    #[test]
    fn intermediates_are_a_group_or_a_switch() {
        let mut p = Packet::new(EndpointId(0), EndpointId(1), SwitchId(2), NONE, 0).hot;
        assert_eq!((p.via_group(), p.via_switch()), (NONE, SwitchId::NONE));
        p.set_via_group(7);
        assert_eq!((p.via_group(), p.via_switch()), (7, SwitchId::NONE));
        p.set_via_switch(SwitchId(3));
        assert_eq!((p.via_group(), p.via_switch()), (NONE, SwitchId(3)));
        p.clear_via();
        assert_eq!((p.via_group(), p.via_switch()), (NONE, SwitchId::NONE));
    }
}
