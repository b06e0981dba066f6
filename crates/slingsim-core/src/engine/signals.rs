//! Acks and congestion notifications between the NICs, and the network
//! view congestion control reads through.
//!
//! How an ack gets back depends on `nic.acks`: as a packet on the reverse
//! path ([`super::acks`], the default), or, with `instant`, as an event one
//! zero-load path latency after delivery (the path the packet took, links
//! and switches), taking no bandwidth. Either way its record waits here
//! and [`Simulation::on_ack`] applies it.

use crate::ids::EndpointId;
use super::channels::Channels;
use super::Simulation;
use crate::congestion::{Ack, CongestionControl, Marks, PathView};
use crate::event::Event;
use crate::network::{Network, NONE};
use crate::nic::AckModel;
use crate::packet::{PacketCold, PacketHot, PacketKind, FLAG_ECN};
use crate::rng::Rng;
use crate::topology::Topology;
use crate::units::Ps;

/// Zero-load figures of the network that a bandwidth-delay product needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ZeroLoad {
    /// Latency of the terminal links and of the slowest fabric link (FEC included).
    pub terminal_latency: Ps,
    pub max_fabric_latency: Ps,
    pub switch_latency: Ps,
    /// One NIC's injection rate (bits/s) and the wire size of a full packet.
    pub line_rate_bps: f64,
    pub full_packet_wire: u32,
}

/// What congestion control may read of the network.
pub(crate) struct NetworkView<'a> {
    pub topo: &'a Topology,
    pub net: &'a Network,
    pub channels: &'a Channels,
    pub zero_load: &'a ZeroLoad,
}

impl PathView for NetworkView<'_> {
    /// NIC rate x the zero-load round trip between the endpoints (every hop
    /// counted at the slowest link latency, and the time a full packet
    /// takes to arrive whole, since it is acknowledged on delivery), plus
    /// one full packet: a window is spent in whole packets, so without that
    /// one a lone flow on an idle network would wait for acks it does not
    /// need to wait for.
    fn bandwidth_delay(&self, src: EndpointId, dst: EndpointId) -> f64 {
        let z = self.zero_load;
        let (a, b) = (self.net.endpoint_switch[src], self.net.endpoint_switch[dst]);
        let hops = self.topo.distance(a, b).min(16) as u64;
        let one_way = z.terminal_latency * 2 + z.max_fabric_latency * hops + z.switch_latency * (hops + 1);
        let rtt = one_way * 2;
        z.line_rate_bps / 8.0 * rtt.as_f64() * 1e-12 + 2.0 * z.full_packet_wire as f64
    }

    fn port_rate(&self, e: EndpointId) -> f64 {
        self.channels.tx[self.net.endpoint_down[e]].rate.bytes_per_s()
    }

    fn full_packet_wire(&self) -> u32 {
        self.zero_load.full_packet_wire
    }
}

/// Acks and notifications on their way back, and their counts.
pub(crate) struct Signals {
    acks: Vec<Ack>,
    free: Vec<u32>,
    /// Acks that reached their source.
    pub acks_received: u64,
    /// The random stream congestion control marks with.
    pub rng: Rng,
    pub zero_load: ZeroLoad,
}

impl Signals {
    /// No ack on its way yet.
    pub fn new(rng: Rng, zero_load: ZeroLoad) -> Signals {
        Signals { acks: Vec::new(), free: Vec::new(), acks_received: 0, rng, zero_load }
    }

    /// Keeps ack `a` until it reaches its source; returns its id.
    pub(crate) fn store(&mut self, a: Ack) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.acks[i as usize] = a;
                i
            }
            None => {
                self.acks.push(a);
                (self.acks.len() - 1) as u32
            }
        }
    }

    /// Hands back ack `id` and forgets it.
    pub(crate) fn take(&mut self, id: u32) -> Ack {
        self.free.push(id);
        self.acks[id as usize]
    }

    /// Ack `id` came back over a path of zero-load latency `back`: its
    /// round trip is the data's path plus that one.
    pub(crate) fn add_return_path(&mut self, id: u32, back: Ps) {
        self.acks[id as usize].rtt += back;
    }

    /// Ack `id`, still stored.
    pub(crate) fn get(&self, id: u32) -> &Ack {
        &self.acks[id as usize]
    }

    /// Acks and notifications stored and not yet applied.
    pub(crate) fn pending(&self) -> usize {
        self.acks.len() - self.free.len()
    }
}

impl Simulation {
    /// Packet `p` was delivered at `t`: its ack heads back if sources need
    /// acks, and a congestion notification if the congestion control answers one.
    pub(crate) fn send_acks(&mut self, p: &PacketHot, cold: &PacketCold, t: Ps) {
        let back = p.path_latency();
        let marks = Marks { ecn: p.flags & FLAG_ECN != 0, level: cold.mark, flows: cold.mark_flows };
        // The message's record is still live: it is freed after this packet's delivery is counted.
        let serial = self.nics.serial_of(cold.msg);
        let ack = Ack { src: p.src, dst: p.dst, wire: p.wire, marks, rtt: back * 2, cnp: false, source: cold.source, injected: cold.injected, msg: cold.msg, serial };
        if self.nics.acks_needed {
            self.answer(PacketKind::Ack, ack, p, cold, t);
        }
        if self.cc.on_deliver(p.src, p.dst, marks, t) {
            let cnp = Ack { wire: 0, marks: Marks::default(), cnp: true, ..ack };
            self.answer(PacketKind::Cnp, cnp, p, cold, t);
        }
    }

    /// Sends ack `a` (of kind `kind`) back for data packet `p` delivered at `t`.
    fn answer(&mut self, kind: PacketKind, a: Ack, p: &PacketHot, cold: &PacketCold, t: Ps) {
        match self.nics.acks {
            AckModel::Packets => {
                // The round trip is completed when the packet is back.
                let a = Ack { rtt: p.path_latency(), ..a };
                self.queue_control(kind, a, p, cold, t);
            }
            AckModel::Instant => {
                let id = self.signals.store(a);
                self.events.push(t + p.path_latency(), Event::Ack(id));
            }
        }
    }

    /// An ack or notification reached its source NIC.
    pub(crate) fn on_ack(&mut self, id: u32) {
        let a = self.signals.take(id);
        let now = self.clock.now;
        if self.nics.acks == AckModel::Packets {
            let kind = if a.cnp { PacketKind::Cnp } else { PacketKind::Ack };
            self.measure.control.arrived[kind.index()] += 1;
        }
        if a.cnp || a.marks.level > 0 {
            self.measure.stats[a.source as usize].congestion_signals += 1;
        }
        if !a.cnp {
            self.signals.acks_received += 1;
            self.release_outstanding(a.src, a.msg, a.serial);
            let k = &mut self.nics.counters[a.src];
            k.round_trip_ps += now - a.injected;
            k.responses += 1;
        }
        let view = NetworkView { topo: &self.topo, net: &self.net, channels: &self.channels, zero_load: &self.signals.zero_load };
        self.cc.on_ack(&a, now, &view);
        self.wake_nic(a.src);
    }

    /// One packet of endpoint `e` is no longer outstanding: a packet of
    /// the message whose record is `msg` with serial `serial` (`NONE`: an
    /// untracked message).
    pub(crate) fn release_outstanding(&mut self, e: EndpointId, msg: u32, serial: u32) {
        if self.nics.acks_needed {
            self.nics.outstanding[e] -= 1;
            if self.nics.outstanding[e] == 0 {
                self.nics.sent_in_block[e] = 0; // a new block starts with the next packet
            }
            if msg != NONE {
                self.nics.answered(msg, serial);
            }
        }
    }

    /// A NIC that waited for an ack tries again.
    pub(crate) fn wake_nic(&mut self, e: EndpointId) {
        if std::mem::take(&mut self.nics.waiting_ack[e]) {
            let ch = self.net.endpoint_up[e];
            let at = self.clock.now.max(self.channels.tx[ch].busy_until);
            self.schedule_try(ch, at);
        }
    }
}
