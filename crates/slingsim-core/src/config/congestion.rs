//! `[congestion]`: the congestion-control algorithm and its parameters.

use serde::{Deserialize, Serialize};

/// Congestion control (MODEL.md Sec. 5); docs/congestion.md explains each
/// default.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CongestionConfig {
    /// `none` (back-pressure only), `dcqcn` or `slingshot`.
    pub algorithm: crate::congestion::CongestionKind,
    /// Slingshot: an egress edge port whose queue holds more than this is
    /// congested; acks of packets leaving it carry congestion level 1, and
    /// level 2 above twice this.
    pub port_threshold_bytes: u64,
    /// Slingshot: an egress edge port counts as feeding it every source
    /// with a packet queued there or one sent through it within this long.
    pub flow_memory_ns: f64,
    /// Slingshot: the smallest window a throttled endpoint pair keeps
    /// (below one packet the pair sends a packet every few round trips).
    pub min_window_bytes: u64,
    /// Slingshot: window growth per round trip of clean acks.
    pub additive_increase_bytes: u64,
    /// Slingshot: largest window. A pair starts with its bandwidth-delay
    /// product (NIC rate x zero-load round trip, plus two packets), enough
    /// for line rate when uncongested, and never grows past this.
    pub max_window_bytes: u64,
    /// Slingshot: hold every flow to its window from its first packet
    /// (true), or let a flow no congestion ack has cut run at full speed
    /// (false: [Roweth] Sec. II-E, "the remainder of the buffers available
    /// to run uncongested flows at full speed"). Unset: false for
    /// `slingshot`, true for `slingshot-endpoint` (a NIC that windows
    /// every pair).
    pub hold_uncongested_flows: Option<bool>,
    /// Slingshot (`slingshot`): a congested egress edge port sends a
    /// congestion ack when a source's first packet joins its queue, so
    /// the source's ingress switch cuts it a queue's wait earlier than the
    /// ack of that packet's departure would (false: departures only).
    pub notify_at_enqueue: bool,
    /// Slingshot (`slingshot` only): the ingress switch forgets a flow as
    /// soon as nothing of it is in the fabric or held at its ingress port
    /// and no pacing delay holds its next packet, even if a congestion ack
    /// cut it, so its next message starts unthrottled (the papers describe
    /// state per packet in flight, [DeSensi20] Sec. II-D). False: a cut
    /// flow is kept until clean acks have grown its window back, so every
    /// later message starts at the cut window. Unset: true for `slingshot`.
    pub forget_idle_flows: Option<bool>,
    /// Slingshot (`slingshot` only): hold congesting flows at every hop
    /// ([Roweth] Sec. II-E). While an endpoint's port is congested, each
    /// switch commits at most this many bytes bound for it to any one
    /// switch-to-switch output; the rest wait beside the output's queue,
    /// in their input buffer, and other packets pass them
    /// (`engine/hop_hold.rs`). 0: the flows are held at their ingress
    /// switch only. Like every Slingshot key, other algorithms ignore it
    /// (so `congestion.algorithm = "none"` on a Slingshot preset is the
    /// plain ablation).
    pub hop_hold_bytes: u64,
    /// Slingshot, with `hop_hold_bytes`: the hops hold only the packets of
    /// flows a congestion ack has cut since their state was made, as
    /// switches that track each flow and learn of its congestion from its
    /// own acks would ([Roweth] Sec. II-E); a flow new to a congested port
    /// passes them until its first congestion ack is back, unless packets
    /// bound for the same endpoint already wait beside the output, behind
    /// which it waits in turn. False: every
    /// packet bound for a congested port counts, whatever its flow.
    pub hop_hold_cut_flows_only: bool,
    /// DCQCN: RED/ECN marking thresholds on a switch output queue and the
    /// marking probability at `kmax_bytes` (the SIGCOMM'15 DCQCN paper's
    /// values); the sender and receiver defaults below are those of
    /// NVIDIA ConnectX RoCE adapters (docs/congestion.md).
    pub kmin_bytes: u64,
    pub kmax_bytes: u64,
    pub pmax: f64,
    /// DCQCN: alpha gain g.
    pub g: f64,
    /// DCQCN: at most one CNP per endpoint pair per interval.
    pub cnp_interval_ns: f64,
    /// DCQCN: alpha decay timer and rate-increase timer.
    pub alpha_timer_ns: f64,
    pub rate_timer_ns: f64,
    /// DCQCN: bytes sent between byte-counter rate increases.
    pub byte_counter_bytes: u64,
    /// DCQCN: fast-recovery steps before additive increase.
    pub fast_recovery_steps: u32,
    /// DCQCN: additive and hyper increase steps.
    pub rai_bps: f64,
    pub rhai_bps: f64,
    /// DCQCN: the rate never drops below this.
    pub min_rate_bps: f64,
}

impl Default for CongestionConfig {
    fn default() -> Self {
        CongestionConfig {
            algorithm: crate::congestion::CongestionKind::None,
            port_threshold_bytes: 16_384,
            flow_memory_ns: 5_000.0,
            min_window_bytes: 1,
            additive_increase_bytes: 4_096,
            max_window_bytes: 4 << 20,
            hold_uncongested_flows: None,
            notify_at_enqueue: true,
            forget_idle_flows: None,
            hop_hold_bytes: 0,
            hop_hold_cut_flows_only: false,
            kmin_bytes: 5_000,
            kmax_bytes: 200_000,
            pmax: 0.01,
            g: 5.0 / 1024.0,
            cnp_interval_ns: 4_000.0,
            alpha_timer_ns: 1_000.0,
            rate_timer_ns: 300_000.0,
            byte_counter_bytes: 32_767,
            fast_recovery_steps: 5,
            rai_bps: 5e6,
            rhai_bps: 50e6,
            min_rate_bps: 1e6,
        }
    }
}
