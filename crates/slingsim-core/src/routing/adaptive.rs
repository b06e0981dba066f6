//! The routing decision every topology shares (MODEL.md Sec. 4): hashed
//! modes draw from a per-flow stream, Valiant picks an intermediate at the
//! source switch, the adaptive modes compare candidate paths there (and
//! PAR / ADAPTIVE_1 once more one hop later inside the source group), and
//! everything else follows the packet's routing state. A topology supplies
//! only its path primitives ([`Paths`]).

use super::{flow_hash, Algorithm, Biases, PathClass};
use crate::ids::{ChannelId, SwitchId};
use crate::network::{Network, NONE};
use crate::packet::{PacketHot as Packet, FLAG_NONMINIMAL};
use crate::rng::Rng;
use crate::units::Ps;

/// Occupancy the engine reports for a failed link: a path over it is ruled out.
pub const FAILED_LINK: u64 = u64::MAX / 4;

/// The path primitives of a topology.
pub trait Paths {
    /// Group of switch `s` (PAR reconsiders only inside the source group).
    fn group(&self, s: SwitchId) -> u32;
    /// Sets a random Valiant intermediate on `pkt`; false if none exists
    /// (the packet then routes minimally).
    fn set_intermediate(&self, s: SwitchId, pkt: &mut Packet, rng: &mut Rng) -> bool;
    /// One hop along the packet's routing state; `adaptive` picks the least
    /// occupied of equivalent next hops where the topology offers several.
    fn step<F: FnMut(ChannelId) -> u64>(&self, net: &Network, s: SwitchId, pkt: &mut Packet, rng: &mut Rng, adaptive: bool, occupancy: &mut F) -> ChannelId;
    /// Switch hops of candidate `cand` from `s` (after its first step);
    /// `pkt` is the packet before the choice.
    fn path_hops(&self, s: SwitchId, pkt: &Packet, cand: &Packet, nonminimal: bool) -> u32;
    /// A channel past the first hop that candidate `cand` is already
    /// committed to (the dragonfly's global link), or `NONE`.
    fn committed_channel(&self, _net: &Network, _cand: &Packet) -> ChannelId {
        ChannelId::NONE
    }

    /// A minimal path from `s` that need not be one of the shortest: one
    /// global hop over any of the links between the two groups, not only
    /// those giving the fewest switch hops. Sets `pkt`'s routing state and
    /// returns its first channel and its switch hops; `None` where the
    /// topology offers no such choice (the caller then takes
    /// [`Self::step`]'s shortest path).
    fn step_one_global_hop(&self, _net: &Network, _s: SwitchId, _pkt: &mut Packet, _rng: &mut Rng) -> Option<(ChannelId, u32)> {
        None
    }

    /// Calls `f` on the channels `pkt` may leave switch `s` on if it
    /// follows its routing state (where the topology offers several equal
    /// next hops, each of them), without changing the packet or drawing
    /// random numbers: the engine fetches them before the packet arrives.
    /// A hint only: routing decides later, and may decide otherwise.
    fn likely_next(&self, _net: &Network, _s: SwitchId, _pkt: &Packet, _f: &mut dyn FnMut(ChannelId)) {}
}

/// Minimal and non-minimal candidates an adaptive mode compares.
pub fn candidates(alg: Algorithm) -> (u32, u32) {
    match alg {
        Algorithm::Ugal | Algorithm::Par => (1, 1),
        Algorithm::Slingshot | Algorithm::Adaptive(_) => (2, 2),
        _ => (0, 0),
    }
}

/// Picks the output channel of `pkt` at switch `s` under routing mode
/// `alg`, updating its routing state. `occupancy(ch)` estimates the bytes
/// waiting for channel `ch` (for the adaptive modes); `advertised(ch)` is
/// the load a neighbour last reported for its channel `ch` (Slingshot
/// adaptive routing); `created` is the creation time of the packet's
/// message (the hashed modes hash it).
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn next_channel<T: Paths, F: FnMut(ChannelId) -> u64, G: FnMut(ChannelId) -> u64>(
    t: &T,
    alg: Algorithm,
    net: &Network,
    s: SwitchId,
    pkt: &mut Packet,
    created: Ps,
    rng: &mut Rng,
    biases: &Biases,
    occupancy: &mut F,
    advertised: &mut G,
) -> ChannelId {
    let minimal_so_far = pkt.flags & FLAG_NONMINIMAL == 0;
    let at_source = pkt.hops == 0 && minimal_so_far && pkt.global_link == NONE;
    if alg.hashed() {
        // The same flow always draws the same choices.
        let h = flow_hash(alg, pkt.src.0, pkt.dst.0, created);
        if alg == Algorithm::NminHash && at_source {
            t.set_intermediate(s, pkt, &mut Rng::new(h, 0));
        }
        return t.step(net, s, pkt, &mut Rng::new(h, 1 + s.0 as u64), false, occupancy);
    }
    let (n_min, n_nonmin) = candidates(alg);
    if at_source {
        if alg == Algorithm::Valiant {
            t.set_intermediate(s, pkt, rng);
        } else if n_min > 0 {
            let neighbour = alg == Algorithm::Slingshot;
            return choose_among(t, net, s, pkt, rng, n_min, n_nonmin, biases.of(alg, 0), occupancy, neighbour.then_some(advertised));
        }
    } else if alg.path_class() == PathClass::Progressive
        && minimal_so_far
        && pkt.hops <= Algorithm::PAR_LAST_DECISION_HOP
        && t.group(s) == t.group(net.endpoint_switch[pkt.src])
    {
        // PAR / ADAPTIVE_1: one hop taken minimally; look again here.
        pkt.global_link = NONE;
        return choose_among(t, net, s, pkt, rng, n_min, n_nonmin, biases.of(alg, pkt.hops), occupancy, None::<&mut G>);
    }
    t.step(net, s, pkt, rng, alg == Algorithm::MinimalAdaptive, occupancy)
}

/// Evaluates `n_min` minimal and `n_nonmin` Valiant candidate paths by
/// (bytes waiting at their first output) x (path hops), plus `bias` on the
/// non-minimal ones, and takes the cheapest; ties go to the minimal path
/// (UGAL-L for 1 + 1, Slingshot and Aries adaptive routing for 2 + 2:
/// paper 000 Sec. II-C, 004 Sec. 2.2). With `advertised` (Slingshot), a
/// candidate's load also counts what its next switch last advertised for
/// the global link the candidate is committed to there. A candidate
/// committed to a failed link is ruled out (the fabric manager's table
/// update).
#[allow(clippy::too_many_arguments)]
fn choose_among<T: Paths, F: FnMut(ChannelId) -> u64, G: FnMut(ChannelId) -> u64>(
    t: &T,
    net: &Network,
    s: SwitchId,
    pkt: &mut Packet,
    rng: &mut Rng,
    n_min: u32,
    n_nonmin: u32,
    bias: f64,
    occupancy: &mut F,
    mut advertised: Option<&mut G>,
) -> ChannelId {
    let mut best: Option<(f64, Packet, ChannelId)> = None;
    for i in 0..n_min + n_nonmin {
        let nonmin = i >= n_min;
        let mut cand = *pkt;
        if nonmin && !t.set_intermediate(s, &mut cand, rng) {
            continue;
        }
        // Random next hops: the candidates differ, and the comparison
        // adapts. The first minimal candidate is a shortest path, the
        // others any path of one global hop.
        let spread = if i > 0 && !nonmin { t.step_one_global_hop(net, s, &mut cand, rng) } else { None };
        let (ch, hops) = match spread {
            Some(found) => found,
            None => {
                let ch = t.step(net, s, &mut cand, rng, false, occupancy);
                (ch, t.path_hops(s, pkt, &cand, nonmin))
            }
        };
        let ahead = t.committed_channel(net, &cand);
        let mut load = occupancy(ch);
        if let Some(adv) = advertised.as_deref_mut() {
            if !ahead.is_none() && ahead != ch {
                load = load.saturating_add(adv(ahead).min(FAILED_LINK));
            }
        }
        let mut cost = load as f64 * hops as f64 + if nonmin { bias } else { 0.0 };
        if !ahead.is_none() && occupancy(ahead) >= FAILED_LINK {
            cost = f64::INFINITY;
        }
        // Equal costs go to the earlier candidate: on a quiet network the
        // first, a shortest path.
        if best.as_ref().map_or(true, |(c, _, _)| cost < *c) {
            best = Some((cost, cand, ch));
        }
    }
    let (_, cand, ch) = best.expect("a minimal candidate always exists");
    *pkt = cand;
    ch
}
