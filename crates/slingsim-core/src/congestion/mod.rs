//! Congestion control (MODEL.md Sec. 5) behind one interface.
//!
//! The engine calls a few hooks at fixed points of a packet's life and
//! never asks which algorithm runs:
//! - [`CongestionControl::admit`]: may a packet leave its source NIC now?
//! - [`CongestionControl::on_inject`]: a packet left its source NIC;
//! - [`CongestionControl::on_egress_enqueue`] and
//!   [`CongestionControl::on_egress`]: a packet joined, then left, the
//!   queue of a switch output (where congestion is seen and marked);
//! - [`CongestionControl::on_deliver`]: the destination NIC got a packet
//!   and may answer with a congestion notification;
//! - [`CongestionControl::on_ack`]: an ack or notification came back;
//! - [`CongestionControl::on_loss`]: a packet was given up;
//! - switch-side control only ([`CongestionControl::fabric_acks`]):
//!   [`CongestionControl::ingress_admit`] and
//!   [`CongestionControl::on_ingress`] at a flow's ingress switch,
//!   [`CongestionControl::on_fabric_ack`] when the egress switch's ack
//!   gets back there, [`CongestionControl::on_fabric_drop`] for a packet
//!   lost inside the fabric.
//!
//! Each algorithm is one file: [`none`], [`dcqcn`], [`slingshot`],
//! [`slingshot_endpoint`] (the two Slingshot variants share
//! [`flow_window`]). Adding
//! one is a new file implementing the trait plus its line in
//! [`CongestionKind`]'s registry and in [`Congestion`]'s dispatch.

pub mod dcqcn;
pub mod flow_window;
pub mod none;
pub mod slingshot;
pub mod slingshot_endpoint;

use crate::ids::{ChannelId, EndpointId};
use crate::config::CongestionConfig;
use crate::error::Result;
use crate::names::Named;
use crate::rng::Rng;
use crate::units::Ps;
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Which congestion control runs (`congestion.algorithm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionKind {
    /// Back-pressure only (Aries).
    None,
    /// DCQCN: ECN marking at switch outputs, CNPs, rate cut and recovery.
    Dcqcn,
    /// Slingshot as the switches run it: flows tracked at their ingress
    /// switch, acked by the egress switch, held in flow queues at the
    /// ingress port when over their fair share.
    Slingshot,
    /// Slingshot's simpler variant: a window per endpoint pair at the
    /// source NIC, acked by the destination NIC.
    SlingshotEndpoint,
}

impl Named for CongestionKind {
    const WHAT: &'static str = "congestion control";
    const REGISTRY: &'static [(&'static str, Self)] =
        &[
        ("none", CongestionKind::None),
        ("dcqcn", CongestionKind::Dcqcn),
        ("slingshot", CongestionKind::Slingshot),
        ("slingshot-endpoint", CongestionKind::SlingshotEndpoint),
    ];
}
crate::named_serde!(CongestionKind);

/// Whether a packet may leave its source NIC now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// It may.
    Now,
    /// Not before `Ps` (pacing).
    At(Ps),
    /// Not until an ack frees room.
    OnAck,
}

/// What a switch output or a NIC saw of a packet's congestion, carried by
/// the packet to its destination and back in its ack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// DCQCN's ECN bit.
    pub ecn: bool,
    /// Slingshot: congestion level an egress edge port saw (0 = clear)
    /// and the flows it counted feeding it.
    pub level: u8,
    pub flows: u16,
}

/// An end-to-end ack or a congestion notification on its way back to the
/// source NIC of the packet it answers.
#[derive(Clone, Copy, Debug)]
pub struct Ack {
    pub src: EndpointId,
    pub dst: EndpointId,
    pub wire: u32,
    pub marks: Marks,
    /// Round trip of the packet's path at zero load.
    pub rtt: Ps,
    /// A congestion notification (DCQCN's CNP) rather than an ack.
    pub cnp: bool,
    /// Traffic source of the packet acked.
    pub source: u16,
    /// When the packet acked left its NIC (for the request-to-response
    /// latency counter).
    pub injected: Ps,
    /// The source NIC's record of the message the packet belonged to and
    /// that record's serial when the packet was delivered (`NONE` for an
    /// untracked message): with `nic.outstanding_release = "message"` the
    /// answer counts against that message's block.
    pub msg: u32,
    pub serial: u32,
}

/// What the hooks may ask of the network: the zero-load bandwidth-delay
/// product between two endpoints, and the rate of an endpoint's port.
pub trait PathView {
    /// NIC rate x zero-load round trip from `src` to `dst`, plus two full packets (bytes).
    fn bandwidth_delay(&self, src: EndpointId, dst: EndpointId) -> f64;
    /// Bytes/s of the switch port that feeds endpoint `e`.
    fn port_rate(&self, e: EndpointId) -> f64;
    /// Wire bytes of a packet with a full payload.
    fn full_packet_wire(&self) -> u32;
}

/// The hooks a congestion control implements (see the module docs).
pub trait CongestionControl {
    /// True if sources need end-to-end acks to learn about congestion.
    fn needs_acks(&self) -> bool;
    /// May a packet of `wire` bytes from endpoint `src` to `dst` leave now?
    /// A refusal also refuses every later, larger packet of the pair
    /// (and every packet at all if `refuses_any_size`).
    fn admit(&mut self, src: EndpointId, dst: EndpointId, wire: u32, now: Ps) -> Admit;
    /// True if a refusal of [`Self::admit`] holds for packets of any size.
    fn refuses_any_size(&self) -> bool;
    /// A packet of `wire` bytes left `src` for `dst`.
    fn on_inject(&mut self, src: EndpointId, dst: EndpointId, wire: u32, now: Ps, path: &dyn PathView);
    /// A packet from `src` joined the queue of switch output `ch` (to an
    /// endpoint if `to_endpoint`), which now holds `queued` bytes with it.
    /// Marks returned go back at once in a congestion ack to the packet's
    /// ingress switch, ahead of the ack its departure will send.
    fn on_egress_enqueue(&mut self, ch: ChannelId, to_endpoint: bool, queued: u64, src: EndpointId) -> Option<Marks>;
    /// A packet from `src` to `dst` leaves the queue of output `ch` at
    /// `now`, the queue holding `queued` bytes with it: the algorithm may
    /// mark it.
    #[allow(clippy::too_many_arguments)]
    fn on_egress(&mut self, ch: ChannelId, to_endpoint: bool, queued: u64, src: EndpointId, dst: EndpointId, message_end: bool, now: Ps, marks: &mut Marks, rng: &mut Rng);
    /// The destination got a packet from `src` with `marks` at `t`: true if
    /// it answers with a congestion notification.
    fn on_deliver(&mut self, src: EndpointId, dst: EndpointId, marks: Marks, t: Ps) -> bool;
    /// An ack or notification reached its source.
    fn on_ack(&mut self, ack: &Ack, now: Ps, path: &dyn PathView);
    /// A packet of `wire` bytes from `src` to `dst` was given up.
    fn on_loss(&mut self, src: EndpointId, dst: EndpointId, wire: u32);
    /// The algorithm's own figures for the summary (`congestion.*`).
    fn summary(&self) -> serde_json::Map<String, Value>;

    /// True if the switches run the control: the egress switch acks every
    /// data packet leaving an edge port back to the flow's ingress switch,
    /// which may hold the flow's packets at its ingress port.
    fn fabric_acks(&self) -> bool {
        false
    }
    /// May a data packet of `wire` bytes from `src` to `dst`, arrived at
    /// its ingress switch, enter the fabric now? (`OnAck`: when a fabric
    /// ack of the flow comes back.)
    fn ingress_admit(&mut self, _src: EndpointId, _dst: EndpointId, _wire: u32, _now: Ps) -> Admit {
        Admit::Now
    }
    /// The packet entered the fabric.
    fn on_ingress(&mut self, _src: EndpointId, _dst: EndpointId, _wire: u32, _now: Ps, _path: &dyn PathView) {}
    /// The egress switch's ack of a packet of the flow reached the ingress switch.
    fn on_fabric_ack(&mut self, _a: &Ack, _now: Ps, _path: &dyn PathView) {}
    /// A packet of `wire` bytes that had entered the fabric was lost in it.
    fn on_fabric_drop(&mut self, _src: EndpointId, _dst: EndpointId, _wire: u32) {}
    /// Nothing of the flow `src` -> `dst` is held at its ingress port: a
    /// packet of it arrived there with none held before it, or an ack or
    /// loss of it has let go whatever it could.
    fn on_flow_idle(&mut self, _src: EndpointId, _dst: EndpointId, _now: Ps) {}
    /// The marks edge output `ch`, holding `queued` bytes, gives its acks
    /// now, if it is congested as the switches' control sees it.
    fn port_marks(&self, _ch: ChannelId, _queued: u64) -> Option<Marks> {
        None
    }
    /// Has a congestion ack cut the flow `src` -> `dst` since its state
    /// was made (so the switches on its path know it is congesting)?
    fn flow_cut(&self, _src: EndpointId, _dst: EndpointId) -> bool {
        false
    }
}

/// The congestion control of a run: one of the algorithms, dispatched
/// without virtual calls.
pub enum Congestion {
    None(none::NoControl),
    Dcqcn(dcqcn::Dcqcn),
    Slingshot(slingshot::Slingshot),
    SlingshotEndpoint(slingshot_endpoint::SlingshotEndpoint),
}

impl Congestion {
    /// The algorithm `c.algorithm` with its parameters; `line_rate_bps` is
    /// one NIC's injection rate, `full_packet_wire` a full packet's wire bytes.
    pub fn new(c: &CongestionConfig, line_rate_bps: f64, full_packet_wire: u32) -> Result<Congestion> {
        Ok(match c.algorithm {
            CongestionKind::None => Congestion::None(none::NoControl),
            CongestionKind::Dcqcn => Congestion::Dcqcn(dcqcn::Dcqcn::new(c, line_rate_bps)),
            CongestionKind::Slingshot => Congestion::Slingshot(slingshot::Slingshot::new(c, line_rate_bps, full_packet_wire)),
            CongestionKind::SlingshotEndpoint => Congestion::SlingshotEndpoint(slingshot_endpoint::SlingshotEndpoint::new(c, line_rate_bps, full_packet_wire)),
        })
    }

    /// The algorithm running.
    pub fn kind(&self) -> CongestionKind {
        match self {
            Congestion::None(_) => CongestionKind::None,
            Congestion::Dcqcn(_) => CongestionKind::Dcqcn,
            Congestion::Slingshot(_) => CongestionKind::Slingshot,
            Congestion::SlingshotEndpoint(_) => CongestionKind::SlingshotEndpoint,
        }
    }

    /// True unless back-pressure alone runs.
    #[inline]
    pub fn active(&self) -> bool {
        !matches!(self, Congestion::None(_))
    }

    /// Refuses an ack model or a network size the algorithm cannot run
    /// with: switch-side control sends its acks through the fabric as
    /// packets, so `nic.acks = "instant"` leaves it no fabric for them.
    pub fn check_acks(&self, acks: crate::nic::AckModel, endpoints: usize) -> Result<()> {
        if !self.fabric_acks() {
            return Ok(());
        }
        if acks == crate::nic::AckModel::Instant {
            return Err(crate::error::ConfigError::new(
                "nic.acks",
                "congestion.algorithm = \"slingshot\" runs in the switches, whose acks are packets in the fabric: \
                 set nic.acks = \"packets\", or choose congestion.algorithm = \"slingshot-endpoint\" for instant acks",
            ));
        }
        if endpoints >= 1 << 30 {
            return Err(crate::error::ConfigError::new(
                "topology",
                format!("switch-side congestion control tracks up to 2^30 endpoints, this network has {endpoints}"),
            ));
        }
        Ok(())
    }
}

/// Runs `$body` with `$x` bound to the running algorithm (static dispatch).
macro_rules! each {
    ($self:ident, $x:ident => $body:expr) => {
        match $self {
            Congestion::None($x) => $body,
            Congestion::Dcqcn($x) => $body,
            Congestion::Slingshot($x) => $body,
            Congestion::SlingshotEndpoint($x) => $body,
        }
    };
}

impl CongestionControl for Congestion {
    fn needs_acks(&self) -> bool {
        each!(self, x => x.needs_acks())
    }
    #[inline]
    fn admit(&mut self, src: EndpointId, dst: EndpointId, wire: u32, now: Ps) -> Admit {
        each!(self, x => x.admit(src, dst, wire, now))
    }
    fn refuses_any_size(&self) -> bool {
        each!(self, x => x.refuses_any_size())
    }
    #[inline]
    fn on_inject(&mut self, src: EndpointId, dst: EndpointId, wire: u32, now: Ps, path: &dyn PathView) {
        each!(self, x => x.on_inject(src, dst, wire, now, path))
    }
    #[inline]
    fn on_egress_enqueue(&mut self, ch: ChannelId, to_endpoint: bool, queued: u64, src: EndpointId) -> Option<Marks> {
        each!(self, x => x.on_egress_enqueue(ch, to_endpoint, queued, src))
    }
    #[inline]
    fn on_egress(&mut self, ch: ChannelId, to_endpoint: bool, queued: u64, src: EndpointId, dst: EndpointId, message_end: bool, now: Ps, marks: &mut Marks, rng: &mut Rng) {
        each!(self, x => x.on_egress(ch, to_endpoint, queued, src, dst, message_end, now, marks, rng))
    }
    #[inline]
    fn on_deliver(&mut self, src: EndpointId, dst: EndpointId, marks: Marks, t: Ps) -> bool {
        each!(self, x => x.on_deliver(src, dst, marks, t))
    }
    fn on_ack(&mut self, ack: &Ack, now: Ps, path: &dyn PathView) {
        each!(self, x => x.on_ack(ack, now, path))
    }
    fn on_loss(&mut self, src: EndpointId, dst: EndpointId, wire: u32) {
        each!(self, x => x.on_loss(src, dst, wire))
    }
    fn summary(&self) -> serde_json::Map<String, Value> {
        each!(self, x => x.summary())
    }
    fn fabric_acks(&self) -> bool {
        each!(self, x => x.fabric_acks())
    }
    #[inline]
    fn ingress_admit(&mut self, src: EndpointId, dst: EndpointId, wire: u32, now: Ps) -> Admit {
        each!(self, x => x.ingress_admit(src, dst, wire, now))
    }
    #[inline]
    fn on_ingress(&mut self, src: EndpointId, dst: EndpointId, wire: u32, now: Ps, path: &dyn PathView) {
        each!(self, x => x.on_ingress(src, dst, wire, now, path))
    }
    fn on_fabric_ack(&mut self, a: &Ack, now: Ps, path: &dyn PathView) {
        each!(self, x => x.on_fabric_ack(a, now, path))
    }
    fn on_fabric_drop(&mut self, src: EndpointId, dst: EndpointId, wire: u32) {
        each!(self, x => x.on_fabric_drop(src, dst, wire))
    }
    #[inline]
    fn on_flow_idle(&mut self, src: EndpointId, dst: EndpointId, now: Ps) {
        each!(self, x => x.on_flow_idle(src, dst, now))
    }
    #[inline]
    fn port_marks(&self, ch: ChannelId, queued: u64) -> Option<Marks> {
        each!(self, x => x.port_marks(ch, queued))
    }
    #[inline]
    fn flow_cut(&self, src: EndpointId, dst: EndpointId) -> bool {
        each!(self, x => x.flow_cut(src, dst))
    }
}

/// A fast hasher for integer keys (FxHash's multiply-rotate); DoS
/// resistance is not needed inside a simulation.
#[derive(Default, Clone, Copy)]
pub struct IntHasher(u64);

impl Hasher for IntHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    #[inline]
    fn write_i32(&mut self, x: i32) {
        self.write_u64(x as u32 as u64);
    }
}

/// A map keyed by integers.
pub type IntMap<V> = HashMap<u64, V, BuildHasherDefault<IntHasher>>;

/// Key of the pair (source endpoint, destination endpoint).
#[inline]
pub fn pair_key(src: EndpointId, dst: EndpointId) -> u64 {
    ((src.0 as u64) << 32) | dst.0 as u64
}
