//! NIC-side models: frame formats and packetization (MODEL.md Sec. 2,
//! paper 000 Sec. II-F, 002 Sec. II-B).

use crate::names::Named;

/// Per-packet wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame {
    /// Standard Ethernet RoCEv2: 62 B of headers, 64 B minimum frame, plus
    /// 20 B of preamble and inter-packet gap per frame.
    Roce,
    /// Slingshot HPC Ethernet: reduced header (40 B *(assumed)*), 32 B minimum
    /// frame, no inter-packet gap (paper 000 Sec. II-F).
    Slingshot,
    /// Cray Aries: packets of at most 64 B payload (paper 004) plus one
    /// 16 B header flit *(assumed)*.
    Aries,
}

/// How a NIC picks the rail of a message (paper 003 Sec. 4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RailSelection {
    /// Rails in turn.
    RoundRobin,
    /// The rail whose path to the destination has the fewest hops; ties
    /// broken as `Congestion` breaks them (paper 003 Sec. 4.3).
    Path,
    /// The rail with the fewest bytes waiting at its NIC.
    Congestion,
    /// A random rail.
    Random,
}

/// What a NIC with several rails assigns to a rail (`nic.rail_unit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RailUnit {
    /// A whole message leaves on one rail.
    Message,
    /// Each packet picks its rail by the rail selection rule, so one
    /// message spreads over the rails (paper 003 Sec. 4.3: the scheme
    /// decides "which rail ... any given packet will be injected on").
    Packet,
}

/// The order a NIC sends its queued messages in (`nic.message_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageOrder {
    /// First come first served: a message's packets all leave before the
    /// next message's first (one that congestion control, its class's
    /// credits or an outstanding limit holds is passed over).
    Fifo,
    /// Packet by packet in turn over the queued messages, as a NIC shares
    /// its link among its send queues (a ConnectX NIC among its queue
    /// pairs). Messages to one destination interleave too; MPI matches
    /// them in the order they were sent all the same.
    Interleaved,
}

/// How end-to-end acks and congestion notifications return to the source
/// NIC (`nic.acks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckModel {
    /// As packets on the reverse path, through the same links, buffers,
    /// credits and virtual channels as data (MODEL.md Sec. 2): they take
    /// bandwidth and queue behind data.
    Packets,
    /// As events one zero-load path latency after delivery, taking no
    /// bandwidth: the earlier model, kept for speed and ablation.
    Instant,
}

impl Named for AckModel {
    const WHAT: &'static str = "ack model";
    const REGISTRY: &'static [(&'static str, Self)] = &[("packets", AckModel::Packets), ("instant", AckModel::Instant)];
}
crate::named_serde!(AckModel);

/// When a NIC at its outstanding-packet limit (`nic.max_outstanding_packets`)
/// may send again (`nic.outstanding_release`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutstandingRelease {
    /// As soon as one response is back: a sliding window, the NIC never
    /// pauses while the path's round trip is shorter than the time it
    /// takes to send the limit's worth of packets.
    Each,
    /// In blocks: after sending the limit's worth of packets the NIC waits
    /// until every one of them is answered, so a long message pays about
    /// one request-to-response latency per block however short the round
    /// trip, as [DeSensi19] Sec. 2.4 describes Aries (the p / 1024 x L term
    /// of its Eq. 2).
    All,
    /// In blocks per message: a message waits, after each limit's worth of
    /// its own packets, until every one of them is answered, while the NIC
    /// as a whole holds at most the limit outstanding and frees a slot per
    /// response. A lone message behaves as with `All` (Eq. 2 is written for
    /// one message's transmission, T_msg); the messages of other processes
    /// on the node may use the slots a waiting message has freed.
    Message,
}

impl Named for OutstandingRelease {
    const WHAT: &'static str = "outstanding release";
    const REGISTRY: &'static [(&'static str, Self)] = &[("each", OutstandingRelease::Each), ("all", OutstandingRelease::All), ("message", OutstandingRelease::Message)];
}
crate::named_serde!(OutstandingRelease);

impl Named for RailSelection {
    const WHAT: &'static str = "rail selection";
    const REGISTRY: &'static [(&'static str, Self)] = &[
        ("round-robin", RailSelection::RoundRobin),
        ("path", RailSelection::Path),
        ("congestion", RailSelection::Congestion),
        ("random", RailSelection::Random),
    ];
}
crate::named_serde!(RailSelection);

impl Named for RailUnit {
    const WHAT: &'static str = "rail unit";
    const REGISTRY: &'static [(&'static str, Self)] = &[("message", RailUnit::Message), ("packet", RailUnit::Packet)];
}
crate::named_serde!(RailUnit);

impl Named for MessageOrder {
    const WHAT: &'static str = "message order";
    const REGISTRY: &'static [(&'static str, Self)] =
        &[("fifo", MessageOrder::Fifo), ("interleaved", MessageOrder::Interleaved)];
}
crate::named_serde!(MessageOrder);

impl Named for Frame {
    const WHAT: &'static str = "frame format";
    const REGISTRY: &'static [(&'static str, Self)] = &[("roce", Frame::Roce), ("slingshot", Frame::Slingshot), ("aries", Frame::Aries)];
}
crate::named_serde!(Frame);

impl Frame {

    /// Bytes on the wire for a packet carrying `payload` bytes.
    #[inline]
    pub fn wire_bytes(self, payload: u32) -> u32 {
        match self {
            Frame::Roce => (payload + 62).max(64) + 20,
            Frame::Slingshot => (payload + 40).max(32),
            Frame::Aries => payload + 16,
        }
    }

    /// Bytes on the wire of an end-to-end ack. RoCEv2: the headers of
    /// a data packet plus the 4 B ACK extended transport header (AETH,
    /// InfiniBand spec Vol. 1 Sec. 9.3 and Annex A17), 66 B of frame plus
    /// preamble and gap. Slingshot: the same 4 B behind the reduced header
    /// *(assumed: the papers give no ack format)*. Aries: one response
    /// flit acknowledges a request (paper 004 Sec. 2.1 and Fig. 2).
    #[inline]
    pub fn ack_wire_bytes(self) -> u32 {
        match self {
            Frame::Roce | Frame::Slingshot => self.wire_bytes(4),
            Frame::Aries => self.wire_bytes(0),
        }
    }

    /// Bytes on the wire of a congestion notification (DCQCN's CNP).
    /// RoCEv2: the data headers plus 16 reserved bytes after the base
    /// transport header (InfiniBand spec Annex A17), 78 B of frame plus
    /// preamble and gap; the other formats carry the same 16 B behind their
    /// header *(assumed)*.
    #[inline]
    pub fn cnp_wire_bytes(self) -> u32 {
        self.wire_bytes(16)
    }
}

/// Wire bytes of a whole message of `bytes` split into `mtu` packets.
pub fn message_wire_bytes(frame: Frame, bytes: u64, mtu: u32) -> u64 {
    let full = bytes / mtu as u64;
    let rest = (bytes % mtu as u64) as u32;
    let mut w = full * frame.wire_bytes(mtu) as u64;
    if rest > 0 || bytes == 0 {
        w += frame.wire_bytes(rest) as u64;
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_overheads() {
        assert_eq!(Frame::Roce.wire_bytes(4096), 4178);
        assert_eq!(Frame::Roce.wire_bytes(0), 84);
        assert_eq!(Frame::Slingshot.wire_bytes(8), 48);
        assert_eq!(message_wire_bytes(Frame::Roce, 10_000, 4096), 2 * 4178 + 1808 + 82);
    }

    /// A RoCEv2 ACK frame is 66 B and a CNP 78 B (headers 62 B + AETH 4 B
    /// or 16 reserved bytes), each with 20 B of preamble and gap.
    #[test]
    fn control_frames() {
        assert_eq!(Frame::Roce.ack_wire_bytes(), 86);
        assert_eq!(Frame::Roce.cnp_wire_bytes(), 98);
        assert_eq!(Frame::Slingshot.ack_wire_bytes(), 44);
        assert_eq!(Frame::Aries.ack_wire_bytes(), 16);
    }
}
