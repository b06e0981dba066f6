//! Packets and the pool they live in. Packets are addressed by 32-bit
//! handles; freed slots are reused, so the hot path does not allocate.

use crate::network::NONE;
use crate::units::Ps;

/// Packet took a non-minimal (Valiant) path.
pub const FLAG_NONMINIMAL: u8 = 1;
/// Packet belongs to a message created inside the measurement window.
pub const FLAG_MEASURED: u8 = 2;
/// The source-switch routing decision has been made.
pub const FLAG_ROUTED: u8 = 4;
/// A switch output marked the packet's ECN bit (DCQCN).
pub const FLAG_ECN: u8 = 8;

/// One packet in flight. It carries its routing state, so switches keep
/// no per-flow tables.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Next packet in the queue this packet waits in (intrusive list).
    pub next: u32,
    pub src: u32,
    pub dst: u32,
    pub dst_switch: u32,
    /// Message this packet belongs to, if its completion is tracked (flows).
    pub msg: u32,
    /// Traffic source index.
    pub source: u16,
    /// Switch-to-switch hops taken so far.
    pub hops: u8,
    /// Routing mode ([`crate::routing::Algorithm::code`]).
    pub alg: u8,
    pub flags: u8,
    /// Traffic class index.
    pub class: u8,
    /// Congestion level an egress edge port marked (Slingshot congestion
    /// control; 0 = clear), the sources feeding that port, and how often
    /// end-to-end retry has resent the packet.
    pub mark: u8,
    pub retries: u8,
    pub mark_flows: u16,
    /// Zero-load latency of the path so far (links and switches): an end-to-end ack takes this long back.
    pub path_ps: u32,
    /// Channel the packet is queued at or travelling on, and its virtual channel.
    pub ch: u32,
    pub vc: u8,
    /// Channel and VC it arrived on (its input buffer, for credit return).
    pub in_vc: u8,
    pub in_ch: u32,
    /// Routing state: intermediate group / switch still to visit, chosen global link.
    pub via_group: u32,
    pub via_switch: u32,
    pub global_link: u32,
    pub payload: u32,
    pub wire: u32,
    /// Message creation time (latency is measured from here).
    pub created: Ps,
    /// Time the packet entered the network.
    pub injected: Ps,
    /// When the tail reaches the receiver of `ch`.
    pub tail: Ps,
    /// When the packet may leave its current switch (after fall-through).
    pub ready: Ps,
}

impl Packet {
    /// A fresh packet with no routing state.
    pub fn new(src: u32, dst: u32, dst_switch: u32, msg: u32, source: u16) -> Packet {
        Packet {
            next: NONE,
            src,
            dst,
            dst_switch,
            msg,
            source,
            hops: 0,
            alg: 0,
            flags: 0,
            class: 0,
            mark: 0,
            retries: 0,
            mark_flows: 0,
            path_ps: 0,
            ch: NONE,
            vc: 0,
            in_vc: 0,
            in_ch: NONE,
            via_group: NONE,
            via_switch: NONE,
            global_link: NONE,
            payload: 0,
            wire: 0,
            created: 0,
            injected: 0,
            tail: 0,
            ready: 0,
        }
    }
}

/// Slab of packets with a free list.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: usize,
}

impl PacketPool {
    /// Stores `p` and returns its handle.
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        self.live += 1;
        if let Some(h) = self.free.pop() {
            self.slots[h as usize] = p;
            h
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }

    /// Releases a handle.
    #[inline]
    pub fn free(&mut self, h: u32) {
        self.live -= 1;
        self.free.push(h);
    }

    /// Packets currently allocated (in the network).
    pub fn live(&self) -> usize {
        self.live
    }

    /// Read access.
    #[inline]
    pub fn get(&self, h: u32) -> &Packet {
        &self.slots[h as usize]
    }

    /// Write access.
    #[inline]
    pub fn get_mut(&mut self, h: u32) -> &mut Packet {
        &mut self.slots[h as usize]
    }
}

/// A FIFO of packets linked through `Packet::next`. It caches what output
/// arbitration needs of its head (ready time, size, input channel), so
/// arbitration does not touch packets in the pool.
#[derive(Clone, Copy, Debug)]
pub struct PacketQueue {
    pub head: u32,
    pub tail: u32,
    pub head_ready: Ps,
    pub head_wire: u32,
    pub head_in_ch: u32,
}

impl Default for PacketQueue {
    fn default() -> Self {
        PacketQueue { head: NONE, tail: NONE, head_ready: 0, head_wire: 0, head_in_ch: NONE }
    }
}

impl PacketQueue {
    /// Appends `h`.
    #[inline]
    pub fn push(&mut self, pool: &mut PacketPool, h: u32) {
        let p = pool.get_mut(h);
        p.next = NONE;
        if self.tail == NONE {
            self.head = h;
            self.head_ready = p.ready;
            self.head_wire = p.wire;
            self.head_in_ch = p.in_ch;
        } else {
            pool.get_mut(self.tail).next = h;
        }
        self.tail = h;
    }

    /// Removes the head (the queue must not be empty).
    #[inline]
    pub fn pop(&mut self, pool: &PacketPool) -> u32 {
        let h = self.head;
        self.head = pool.get(h).next;
        if self.head == NONE {
            self.tail = NONE;
        } else {
            let p = pool.get(self.head);
            self.head_ready = p.ready;
            self.head_wire = p.wire;
            self.head_in_ch = p.in_ch;
        }
        h
    }

    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == NONE
    }
}
