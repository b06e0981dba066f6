//! Back-pressure alone (Aries, MODEL.md Sec. 5): no congestion control.
//! Credits stop a sender when the next buffer is full; under incast the
//! full buffers spread upstream and block unrelated traffic (tree
//! saturation), which is what the papers measure against.

use crate::ids::{ChannelId, EndpointId};
use super::{Ack, Admit, CongestionControl, Marks, PathView};
use crate::rng::Rng;
use crate::units::Ps;
use serde_json::{Map, Value};

/// No congestion control.
pub struct NoControl;

impl CongestionControl for NoControl {
    fn needs_acks(&self) -> bool {
        false
    }
    fn admit(&mut self, _src: EndpointId, _dst: EndpointId, _wire: u32, _now: Ps) -> Admit {
        Admit::Now
    }
    fn refuses_any_size(&self) -> bool {
        false
    }
    fn on_inject(&mut self, _src: EndpointId, _dst: EndpointId, _wire: u32, _now: Ps, _path: &dyn PathView) {}
    fn on_egress_enqueue(&mut self, _ch: ChannelId, _to_endpoint: bool, _queued: u64, _src: EndpointId) -> Option<Marks> {
        None
    }
    fn on_egress(&mut self, _ch: ChannelId, _to_endpoint: bool, _queued: u64, _src: EndpointId, _dst: EndpointId, _message_end: bool, _now: Ps, _marks: &mut Marks, _rng: &mut Rng) {}
    fn on_deliver(&mut self, _src: EndpointId, _dst: EndpointId, _marks: Marks, _t: Ps) -> bool {
        false
    }
    fn on_ack(&mut self, _ack: &Ack, _now: Ps, _path: &dyn PathView) {}
    fn on_loss(&mut self, _src: EndpointId, _dst: EndpointId, _wire: u32) {}
    fn summary(&self) -> Map<String, Value> {
        Map::new()
    }
}
