//! The built network the engine runs on: switches, endpoint ports and the
//! channels between them. A channel is one direction of a cable; it carries
//! packets from a transmitter (switch output or NIC rail) to a receiver
//! (switch input buffer or NIC). Topology builders produce this graph.

use crate::ids::{ChannelId, EndpointId, Id, IdVec, NodeId, SwitchId};
use crate::names::Named;
use crate::units::{Ps, Rate};

/// Random stream of `links.random_failures`' draw.
const RANDOM_FAILURES_STREAM: u64 = 0xFA11_ED00;

/// Marker for "no index" in plain `u32` fields (identifier types have their own `NONE`).
pub const NONE: u32 = u32::MAX;

/// What a link connects, for analytics and per-kind reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LinkKind {
    /// NIC rail <-> switch.
    Terminal,
    /// Switch <-> switch inside a group.
    Local,
    /// Switch <-> switch between groups.
    Global,
}

impl LinkKind {
    /// Name used in results.
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Terminal => "terminal",
            LinkKind::Local => "local",
            LinkKind::Global => "global",
        }
    }
}

/// One end of a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Port `port` of switch `switch`.
    Switch { switch: SwitchId, port: u32 },
    /// Endpoint (NIC rail).
    Endpoint(EndpointId),
}

/// One direction of a link.
#[derive(Clone, Debug)]
pub struct Channel {
    pub kind: LinkKind,
    pub src: End,
    pub dst: End,
    pub rate: Rate,
    /// Propagation plus FEC latency of one traversal.
    pub latency: Ps,
}

/// Switches, endpoints and channels, with the port-to-channel maps the
/// engine needs on its hot path.
#[derive(Clone, Debug, Default)]
pub struct Network {
    pub channels: IdVec<ChannelId, Channel>,
    /// Output channel of each switch port, flattened: `port_base[s] + port`.
    pub port_base: IdVec<SwitchId, u32>,
    pub port_channel: Vec<ChannelId>,
    /// Channel from each endpoint to its switch (injection).
    pub endpoint_up: IdVec<EndpointId, ChannelId>,
    /// Channel from the switch to each endpoint (ejection).
    pub endpoint_down: IdVec<EndpointId, ChannelId>,
    /// Switch each endpoint is attached to.
    pub endpoint_switch: IdVec<EndpointId, SwitchId>,
    /// Endpoint of (node, rail): `node_endpoints[node * rails + rail]`.
    pub node_endpoints: Vec<EndpointId>,
    /// Node of each endpoint (`NodeId::NONE` if the port is unpopulated).
    pub endpoint_node: IdVec<EndpointId, NodeId>,
    pub rails: u32,
}

impl Network {
    /// Number of switches.
    pub fn switches(&self) -> usize {
        self.port_base.len()
    }

    /// Number of populated nodes.
    pub fn nodes(&self) -> usize {
        self.node_endpoints.len() / self.rails.max(1) as usize
    }

    /// Output channel of port `port` of switch `s` (`ChannelId::NONE` if uncabled).
    #[inline]
    pub fn out_channel(&self, s: SwitchId, port: u32) -> ChannelId {
        self.port_channel[(self.port_base[s] + port) as usize]
    }

    /// Ports of switch `s`.
    pub fn ports(&self, s: SwitchId) -> u32 {
        self.port_base.get(SwitchId(s.0 + 1)).map_or(self.port_channel.len() as u32, |&b| b) - self.port_base[s]
    }

    /// Output channel of a cabled port named in a config entry `field`
    /// (`links.degraded[i]`, `links.failed[i]`), or an error naming the key.
    pub fn cabled_port(&self, field: &str, s: u32, port: u32) -> crate::error::Result<ChannelId> {
        use crate::error::ConfigError;
        if s as usize >= self.switches() {
            return Err(ConfigError::new(format!("{field}.switch"), format!("switch {s} does not exist (the network has {})", self.switches())));
        }
        let s = SwitchId(s);
        if port >= self.ports(s) || self.out_channel(s, port).is_none() {
            return Err(ConfigError::new(format!("{field}.port"), format!("port {port} of switch {s} is not cabled")));
        }
        Ok(self.out_channel(s, port))
    }

    /// The channels of `links.failed` and `links.random_failures` (drawn
    /// with `seed`) and when they fail: both directions of each cable.
    /// Terminal links are refused: failing one cuts a node off.
    pub fn failed_channels(&self, links: &crate::config::LinkConfig, seed: u64) -> crate::error::Result<Vec<(ChannelId, Ps)>> {
        use crate::error::ConfigError;
        let mut out = Vec::new();
        for (i, f) in links.failed.iter().enumerate() {
            let field = format!("links.failed[{i}]");
            let ch = self.cabled_port(&field, f.switch, f.port)?;
            if self.channels[ch].kind == LinkKind::Terminal {
                return Err(ConfigError::new(format!("{field}.port"), "a terminal link cuts its node off; fail switch-to-switch links only"));
            }
            let at = crate::units::ns_to_ps(f.at_ns);
            out.push((ch, at));
            out.push((self.reverse(ch), at));
        }
        if let Some(r) = &links.random_failures {
            let at = crate::units::ns_to_ps(r.at_ns);
            for ch in self.draw_failures(r, seed, &out)? {
                out.push((ch, at));
                out.push((self.reverse(ch), at));
            }
        }
        Ok(out)
    }

    /// One channel of each of the cables `r` draws: switch-to-switch cables
    /// of its kind that `taken` does not hold, uniformly without
    /// replacement from a stream of `seed` of their own.
    fn draw_failures(&self, r: &crate::config::RandomFailures, seed: u64, taken: &[(ChannelId, Ps)]) -> crate::error::Result<Vec<ChannelId>> {
        use crate::error::ConfigError;
        let mut taken: Vec<ChannelId> = taken.iter().map(|&(c, _)| c).collect();
        taken.sort_unstable();
        let of_kind: Vec<ChannelId> = self
            .channels
            .iter_ids()
            .filter(|(c, ch)| {
                matches!((ch.src, ch.dst), (End::Switch { .. }, End::Switch { .. })) && *c < self.reverse(*c) && r.kind.takes(ch.kind)
            })
            .map(|(c, _)| c)
            .collect();
        let mut free: Vec<ChannelId> = of_kind.iter().copied().filter(|c| taken.binary_search(c).is_err()).collect();
        let n = match (r.count, r.fraction) {
            (Some(n), _) => n,
            (None, Some(f)) => (f * of_kind.len() as f64).round() as u64,
            (None, None) => 0,
        };
        let field = if r.count.is_some() { "links.random_failures.count" } else { "links.random_failures.fraction" };
        if n == 0 {
            return Err(ConfigError::new(field, format!("draws no cable: the network has {} {} switch-to-switch cables", of_kind.len(), r.kind.name())));
        }
        if n > free.len() as u64 {
            return Err(ConfigError::new(
                field,
                format!("asks for {n} cables, but the network has {} {} switch-to-switch cables that links.failed does not list", free.len(), r.kind.name()),
            ));
        }
        let mut rng = crate::rng::Rng::new(seed, RANDOM_FAILURES_STREAM);
        for i in 0..n as usize {
            let j = i + rng.below((free.len() - i) as u64) as usize;
            free.swap(i, j);
        }
        free.truncate(n as usize);
        free.sort_unstable();
        Ok(free)
    }

    /// Endpoint of rail `rail` of node `node`.
    #[inline]
    pub fn endpoint_of(&self, node: NodeId, rail: u32) -> EndpointId {
        self.node_endpoints[(node.0 * self.rails + rail) as usize]
    }

    /// The endpoints of node `node`, one per rail.
    #[inline]
    pub fn endpoints_of_node(&self, node: NodeId) -> &[EndpointId] {
        let r = self.rails as usize;
        &self.node_endpoints[node.0 as usize * r..(node.0 as usize + 1) * r]
    }

    /// Adds a switch with `ports` ports, all uncabled.
    pub fn add_switch(&mut self, ports: u32) -> SwitchId {
        let base = self.port_channel.len() as u32;
        self.port_channel.extend(std::iter::repeat_n(ChannelId::NONE, ports as usize));
        self.port_base.push(base)
    }

    /// Cables two switch ports with a bidirectional link.
    pub fn connect_switches(&mut self, kind: LinkKind, a: (SwitchId, u32), b: (SwitchId, u32), rate: Rate, latency: Ps) {
        let ea = End::Switch { switch: a.0, port: a.1 };
        let eb = End::Switch { switch: b.0, port: b.1 };
        let ab = self.channels.push(Channel { kind, src: ea, dst: eb, rate, latency });
        let ba = self.channels.push(Channel { kind, src: eb, dst: ea, rate, latency });
        self.set_port(a, ab);
        self.set_port(b, ba);
    }

    /// Attaches endpoint `e` to port `port` of switch `s`.
    pub fn attach_endpoint(&mut self, e: EndpointId, s: SwitchId, port: u32, rate: Rate, latency: Ps) {
        let ee = End::Endpoint(e);
        let es = End::Switch { switch: s, port };
        let up = self.channels.push(Channel { kind: LinkKind::Terminal, src: ee, dst: es, rate, latency });
        let down = self.channels.push(Channel { kind: LinkKind::Terminal, src: es, dst: ee, rate, latency });
        if self.endpoint_up.len() <= e.index() {
            self.endpoint_up.resize(e.index() + 1, ChannelId::NONE);
            self.endpoint_down.resize(e.index() + 1, ChannelId::NONE);
            self.endpoint_switch.resize(e.index() + 1, SwitchId::NONE);
        }
        self.endpoint_up[e] = up;
        self.endpoint_down[e] = down;
        self.endpoint_switch[e] = s;
        self.set_port((s, port), down);
    }

    /// Attaches every populated endpoint port (`endpoint_node[e]` not
    /// `NONE`) of `ports` to the switch port `place(e)`, and sizes the
    /// endpoint arrays to all ports (unpopulated ports keep `NONE` channels).
    pub fn attach_populated(&mut self, ports: u32, place: impl Fn(EndpointId) -> (SwitchId, u32), rate: Rate, latency: Ps) {
        for e in (0..ports).map(EndpointId) {
            if !self.endpoint_node[e].is_none() {
                let (s, port) = place(e);
                self.attach_endpoint(e, s, port, rate, latency);
            }
        }
        self.endpoint_up.resize(ports as usize, ChannelId::NONE);
        self.endpoint_down.resize(ports as usize, ChannelId::NONE);
        self.endpoint_switch = (0..ports).map(|e| place(EndpointId(e)).0).collect();
    }

    fn set_port(&mut self, (s, port): (SwitchId, u32), ch: ChannelId) {
        let i = (self.port_base[s] + port) as usize;
        // Checked in release builds too: a topology builder that cables a
        // port twice would otherwise silently replace the first cable.
        assert!(self.port_channel[i].is_none(), "internal error: port {port} of switch {} cabled twice", s.0);
        self.port_channel[i] = ch;
    }

    /// The channel running the other way on the same cable as `c`.
    pub fn reverse(&self, c: ChannelId) -> ChannelId {
        let ch = &self.channels[c];
        let (src, dst) = (ch.src, ch.dst);
        match dst {
            End::Switch { switch, port } => {
                let r = self.out_channel(switch, port);
                debug_assert_eq!(self.channels[r].dst, src);
                r
            }
            End::Endpoint(e) => self.endpoint_up[e],
        }
    }

    /// Gives back the spare capacity the builders' pushes left (a 279,040-
    /// endpoint system has over a million channels).
    pub fn shrink_to_fit(&mut self) {
        self.channels.shrink_to_fit();
        self.port_base.shrink_to_fit();
        self.port_channel.shrink_to_fit();
        self.endpoint_up.shrink_to_fit();
        self.endpoint_down.shrink_to_fit();
        self.endpoint_switch.shrink_to_fit();
        self.node_endpoints.shrink_to_fit();
        self.endpoint_node.shrink_to_fit();
    }

    /// Number of bidirectional links of a kind.
    pub fn links_of_kind(&self, kind: LinkKind) -> usize {
        self.channels.iter().filter(|c| c.kind == kind).count() / 2
    }
}
