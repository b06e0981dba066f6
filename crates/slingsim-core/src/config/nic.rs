//! `[nic]`: injection, framing, rails and end-to-end reliability.

use serde::{Deserialize, Serialize};

/// NIC parameters (MODEL.md Sec. 2).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct NicConfig {
    /// Injection bandwidth per rail, bits/s.
    pub bandwidth_bps: f64,
    /// The most a node sends over all its rails together, bits/s: its
    /// packets go out no faster than this, each on its rail at the rail's
    /// `bandwidth_bps`. Unset: each rail sends at its own rate. CODES, with
    /// which paper 003 simulated Fit Fly, hands a node's data to its NICs
    /// at one link's rate (paper 003 Sec. 6.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_injection_bps: Option<f64>,
    /// Maximum payload per packet, bytes.
    pub mtu_payload: u32,
    /// Frame format: `roce`, `slingshot` or `aries`.
    pub frame: crate::nic::Frame,
    /// Which rail a message leaves on: `round-robin`, `path` (fewest hops),
    /// `congestion` (least backlog at the NIC) or `random` (paper 003 Sec. 4.3).
    pub rail_selection: crate::nic::RailSelection,
    /// What the rail selection assigns: each `message` to one rail, or
    /// each `packet` (a message then spreads over the rails, as Fit Fly's
    /// planar selection does in paper 003 Sec. 4.3).
    pub rail_unit: crate::nic::RailUnit,
    /// The order a NIC sends its queued messages in: `fifo` (each message
    /// whole, first come first served) or `interleaved` (packet by packet
    /// in turn, as a NIC shares its link among its send queues: the Malbec
    /// and Shandy presets, whose ConnectX-5s serve a queue pair per peer).
    /// docs/model.md, "NICs", has what it changes.
    pub message_order: crate::nic::MessageOrder,
    /// Flit size for the NIC counters' flit counts (paper 004 Sec. 2.3):
    /// a packet of W wire bytes is ceil(W / flit_bytes) flits *(assumed 16)*.
    pub flit_bytes: u32,
    /// Packets a NIC may have in the network before their end-to-end acks
    /// return (0 = unlimited; Aries: 1024).
    pub max_outstanding_packets: u32,
    /// When a NIC at that limit sends again: `each` response frees a slot
    /// (a sliding window), or `all` outstanding packets must be answered
    /// first (Aries as [DeSensi19] Sec. 2.4 describes it).
    pub outstanding_release: crate::nic::OutstandingRelease,
    /// How end-to-end acks and DCQCN's congestion notifications return:
    /// `packets` on the reverse path through the fabric (MODEL.md Sec. 2),
    /// or `instant`, one zero-load path latency after delivery, using no
    /// bandwidth (the earlier model, for speed and ablation).
    pub acks: crate::nic::AckModel,
    /// The traffic class (by name) acks, responses and congestion
    /// notifications travel in, so they take that class's virtual channels
    /// and not the data's: a request-response network's replies kept out
    /// of the queues of the requests they answer. Default: the class of
    /// the data each one answers. Needs `acks = "packets"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ack_class: Option<String>,
    /// End-to-end retry: a packet lost to a failed link is sent again this
    /// long after it was sent, at most `max_retries` times.
    pub retry_timeout_ns: f64,
    pub max_retries: u32,
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig {
            bandwidth_bps: 100e9,
            node_injection_bps: None,
            mtu_payload: 4096,
            frame: crate::nic::Frame::Roce,
            rail_selection: crate::nic::RailSelection::RoundRobin,
            rail_unit: crate::nic::RailUnit::Message,
            message_order: crate::nic::MessageOrder::Fifo,
            flit_bytes: 16,
            max_outstanding_packets: 0,
            outstanding_release: crate::nic::OutstandingRelease::Each,
            acks: crate::nic::AckModel::Packets,
            ack_class: None,
            retry_timeout_ns: 10_000.0,
            max_retries: 8,
        }
    }
}
