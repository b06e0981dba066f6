//! The built network the engine runs on: switches, endpoint ports and the
//! channels between them. A channel is one direction of a cable; it carries
//! packets from a transmitter (switch output or NIC rail) to a receiver
//! (switch input buffer or NIC). Topology builders produce this graph.

use crate::units::{Ps, Rate};

/// Marker for "no channel / no index".
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
    Switch { switch: u32, port: u32 },
    /// Endpoint (NIC rail) number.
    Endpoint(u32),
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
    pub channels: Vec<Channel>,
    /// Output channel of each switch port, flattened: `port_base[s] + port`.
    pub port_base: Vec<u32>,
    pub port_channel: Vec<u32>,
    /// Channel from each endpoint to its switch (injection).
    pub endpoint_up: Vec<u32>,
    /// Channel from the switch to each endpoint (ejection).
    pub endpoint_down: Vec<u32>,
    /// Switch each endpoint is attached to.
    pub endpoint_switch: Vec<u32>,
    /// Endpoint of (node, rail): `node_endpoints[node * rails + rail]`.
    pub node_endpoints: Vec<u32>,
    /// Node of each endpoint (`NONE` if the port is unpopulated).
    pub endpoint_node: Vec<u32>,
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

    /// Output channel of port `port` of switch `s` (`NONE` if uncabled).
    #[inline]
    pub fn out_channel(&self, s: u32, port: u32) -> u32 {
        self.port_channel[(self.port_base[s as usize] + port) as usize]
    }

    /// Output channel of a cabled port named in a config entry `field`
    /// (`links.degraded[i]`, `links.failed[i]`), or an error naming the key.
    pub fn cabled_port(&self, field: &str, s: u32, port: u32) -> crate::error::Result<u32> {
        use crate::error::ConfigError;
        if s as usize >= self.switches() {
            return Err(ConfigError::new(format!("{field}.switch"), format!("switch {s} does not exist (the network has {})", self.switches())));
        }
        let ports = self.port_base.get(s as usize + 1).map_or(self.port_channel.len() as u32, |&b| b) - self.port_base[s as usize];
        if port >= ports || self.out_channel(s, port) == NONE {
            return Err(ConfigError::new(format!("{field}.port"), format!("port {port} of switch {s} is not cabled")));
        }
        Ok(self.out_channel(s, port))
    }

    /// Endpoint of rail `rail` of node `node`.
    #[inline]
    pub fn endpoint_of(&self, node: u32, rail: u32) -> u32 {
        self.node_endpoints[(node * self.rails + rail) as usize]
    }

    /// Adds a switch with `ports` ports, all uncabled.
    pub fn add_switch(&mut self, ports: u32) -> u32 {
        let base = self.port_channel.len() as u32;
        self.port_base.push(base);
        self.port_channel.extend(std::iter::repeat(NONE).take(ports as usize));
        (self.port_base.len() - 1) as u32
    }

    /// Cables two switch ports with a bidirectional link.
    pub fn connect_switches(&mut self, kind: LinkKind, a: (u32, u32), b: (u32, u32), rate: Rate, latency: Ps) {
        let ea = End::Switch { switch: a.0, port: a.1 };
        let eb = End::Switch { switch: b.0, port: b.1 };
        let ab = self.push_channel(Channel { kind, src: ea, dst: eb, rate, latency });
        let ba = self.push_channel(Channel { kind, src: eb, dst: ea, rate, latency });
        self.set_port(a, ab);
        self.set_port(b, ba);
    }

    /// Attaches endpoint `e` to port `port` of switch `s`.
    pub fn attach_endpoint(&mut self, e: u32, s: u32, port: u32, rate: Rate, latency: Ps) {
        let ee = End::Endpoint(e);
        let es = End::Switch { switch: s, port };
        let up = self.push_channel(Channel { kind: LinkKind::Terminal, src: ee, dst: es, rate, latency });
        let down = self.push_channel(Channel { kind: LinkKind::Terminal, src: es, dst: ee, rate, latency });
        let i = e as usize;
        if self.endpoint_up.len() <= i {
            self.endpoint_up.resize(i + 1, NONE);
            self.endpoint_down.resize(i + 1, NONE);
            self.endpoint_switch.resize(i + 1, NONE);
        }
        self.endpoint_up[i] = up;
        self.endpoint_down[i] = down;
        self.endpoint_switch[i] = s;
        self.set_port((s, port), down);
    }

    /// Attaches every populated endpoint port (`endpoint_node[e] != NONE`)
    /// of `ports` to the switch port `place(e)`, and sizes the endpoint
    /// arrays to all ports (unpopulated ports keep `NONE` channels).
    pub fn attach_populated(&mut self, ports: u32, place: impl Fn(u32) -> (u32, u32), rate: Rate, latency: Ps) {
        for e in 0..ports {
            if self.endpoint_node[e as usize] != NONE {
                let (s, port) = place(e);
                self.attach_endpoint(e, s, port, rate, latency);
            }
        }
        self.endpoint_up.resize(ports as usize, NONE);
        self.endpoint_down.resize(ports as usize, NONE);
        self.endpoint_switch = (0..ports).map(|e| place(e).0).collect();
    }

    fn push_channel(&mut self, c: Channel) -> u32 {
        self.channels.push(c);
        (self.channels.len() - 1) as u32
    }

    fn set_port(&mut self, (s, port): (u32, u32), ch: u32) {
        let i = (self.port_base[s as usize] + port) as usize;
        debug_assert_eq!(self.port_channel[i], NONE, "port cabled twice");
        self.port_channel[i] = ch;
    }

    /// The channel running the other way on the same cable as `c`.
    pub fn reverse(&self, c: u32) -> u32 {
        let ch = &self.channels[c as usize];
        let (src, dst) = (ch.src, ch.dst);
        match dst {
            End::Switch { switch, port } => {
                let r = self.out_channel(switch, port);
                debug_assert_eq!(self.channels[r as usize].dst, src);
                r
            }
            End::Endpoint(e) => self.endpoint_up[e as usize],
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
