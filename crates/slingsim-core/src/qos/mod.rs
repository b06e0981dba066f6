//! Traffic classes (MODEL.md Sec. 6, paper 000 Sec. III-B): each class has
//! its own virtual channels (buffers), a priority, minimum and maximum
//! shares of every link, ordering, lossiness, a routing mode and a routing
//! bias. Output arbitration ([`ShareMeter`], [`pick_class`]) serves classes
//! under their minimum first, by priority, then gives spare bandwidth to
//! the class using the least of the link, never past a class's maximum.

use crate::ids::{ChannelId, Id};
use crate::config::{ClassConfig, Config};
use crate::error::{ConfigError, Result};
use crate::routing::Algorithm;
use crate::units::{ns_to_ps, Ps, Rate};

/// A traffic class: its config entry, with its routing mode parsed (an
/// ordered class routes `in-order` unless it names another ordered mode).
#[derive(Clone, Debug)]
pub struct TrafficClass {
    pub spec: ClassConfig,
    pub routing: Option<Algorithm>,
}

impl TrafficClass {
    /// The routing mode of a packet of this class whose job or message
    /// asks for `asked`, else `fallback`. An ordered class refuses any
    /// mode but its own (the message says why; the caller names the field).
    pub fn mode(&self, asked: Option<Algorithm>, fallback: Algorithm) -> std::result::Result<Algorithm, String> {
        match asked {
            Some(a) if self.spec.ordered && Some(a) != self.routing => Err(format!(
                "class {:?} is ordered and routes in order; drop this routing or pick an unordered class",
                self.spec.name
            )),
            Some(a) => Ok(a),
            None => Ok(fallback),
        }
    }
}

/// The classes of a config; one unrestricted class `default` if it names none.
pub fn build_classes(cfg: &Config) -> Result<Vec<TrafficClass>> {
    if cfg.classes.is_empty() {
        return Ok(vec![TrafficClass { spec: ClassConfig { name: "default".into(), ..ClassConfig::default() }, routing: None }]);
    }
    cfg.classes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let routing = c.routing;
            if c.ordered && routing.is_some_and(|a| a != Algorithm::InOrder && a != Algorithm::MinHash) {
                return Err(ConfigError::new(
                    format!("classes[{i}].routing"),
                    "an ordered class routes every packet of a node pair on one path; use \"in-order\" or \"min-hash\", or drop ordered",
                ));
            }
            Ok(TrafficClass { spec: c.clone(), routing: if c.ordered && routing.is_none() { Some(Algorithm::InOrder) } else { routing } })
        })
        .collect()
}

/// The class a traffic source asked for, by name or DSCP (`field` names the
/// config key for errors); the first class if it asked for none.
pub fn resolve_class(classes: &[TrafficClass], field: &str, name: Option<&str>, dscp: Option<u32>) -> Result<u8> {
    let names = || classes.iter().map(|c| format!("{:?} (dscp {})", c.spec.name, c.spec.dscp)).collect::<Vec<_>>().join(", ");
    if let Some(n) = name {
        return classes
            .iter()
            .position(|c| c.spec.name == n)
            .map(|i| i as u8)
            .ok_or_else(|| ConfigError::new(format!("{field}.class"), format!("unknown traffic class {n:?}; the config defines {}", names())));
    }
    if let Some(d) = dscp {
        return classes
            .iter()
            .position(|c| c.spec.dscp == d)
            .map(|i| i as u8)
            .ok_or_else(|| ConfigError::new(format!("{field}.dscp"), format!("no traffic class has DSCP {d}; the config defines {}", names())));
    }
    Ok(0)
}

/// Each class's recent use of each output link: an exponentially decaying
/// count of the bytes sent, with time constant `qos.window_ns`. Divided by
/// what the link carries in one time constant it is the class's share.
pub struct ShareMeter {
    classes: usize,
    tau_ps: f64,
    sent: Vec<f64>,
    stamp: Vec<Ps>,
}

impl ShareMeter {
    /// A meter for `channels` links and `classes` classes.
    pub fn new(cfg: &Config, channels: usize, classes: usize) -> ShareMeter {
        let n = if classes > 1 { channels * classes } else { 0 };
        ShareMeter { classes, tau_ps: ns_to_ps(cfg.qos.window_ns).as_f64(), sent: vec![0.0; n], stamp: vec![Ps::ZERO; n] }
    }

    /// Share of link `ch` (rate `rate`) class `c` used lately, as a fraction.
    #[inline]
    pub fn share(&self, ch: ChannelId, c: usize, now: Ps, rate: Rate) -> f64 {
        let i = ch.index() * self.classes + c;
        let decayed = self.sent[i] * (-now.saturating_sub(self.stamp[i]).as_f64() / self.tau_ps).exp();
        decayed / (rate.bytes_per_s() * self.tau_ps * 1e-12)
    }

    /// Counts `wire` bytes of class `c` sent on `ch` at `now`.
    #[inline]
    pub fn record(&mut self, ch: ChannelId, c: usize, now: Ps, wire: u32) {
        if self.sent.is_empty() {
            return;
        }
        let i = ch.index() * self.classes + c;
        let now = now.max(self.stamp[i]);
        self.sent[i] = self.sent[i] * (-(now - self.stamp[i]).as_f64() / self.tau_ps).exp() + wire as f64;
        self.stamp[i] = now;
    }

    /// Time from `now` until class `c`'s share of `ch` falls to `share`.
    pub fn time_until_share(&self, ch: ChannelId, c: usize, now: Ps, rate: Rate, share: f64) -> Ps {
        let current = self.share(ch, c, now, rate);
        if current <= share || share <= 0.0 {
            return Ps(1);
        }
        Ps::from_f64(((current / share).ln() * self.tau_ps).ceil().max(1.0))
    }
}

/// Output arbitration between classes that have a packet ready to send on
/// a link: `ready` lists (class, share used lately). Classes under their
/// minimum go first, highest priority first (then the one furthest below
/// its minimum); then classes under their maximum, least used first (then
/// highest priority). None if every ready class is at its maximum.
pub fn pick_class(classes: &[TrafficClass], ready: &[(usize, f64)]) -> Option<usize> {
    let under_min = ready
        .iter()
        .filter(|&&(c, s)| s < classes[c].spec.min_share)
        .max_by(|&&(a, sa), &&(b, sb)| {
            let (ca, cb) = (&classes[a].spec, &classes[b].spec);
            ca.priority.cmp(&cb.priority).then((sb / cb.min_share).total_cmp(&(sa / ca.min_share))).then(b.cmp(&a))
        });
    if let Some(&(c, _)) = under_min {
        return Some(c);
    }
    ready
        .iter()
        // A maximum of the whole link is no cap (a measured share can
        // overshoot 1 just after a packet).
        .filter(|&&(c, s)| s < classes[c].spec.max_share || classes[c].spec.max_share >= 1.0)
        .min_by(|&&(a, sa), &&(b, sb)| sa.total_cmp(&sb).then(classes[b].spec.priority.cmp(&classes[a].spec.priority)).then(a.cmp(&b)))
        .map(|&(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(min: f64, max: f64, prio: u32) -> TrafficClass {
        TrafficClass { spec: ClassConfig { priority: prio, min_share: min, max_share: max, ..ClassConfig::default() }, routing: None }
    }

    #[test]
    fn classes_under_minimum_first_then_least_used() {
        let cls = [class(0.8, 1.0, 0), class(0.1, 1.0, 0)];
        // Both above their minimum: the less used one gets the spare.
        assert_eq!(pick_class(&cls, &[(0, 0.85), (1, 0.15)]), Some(1));
        // The big class fell under its minimum: it goes first.
        assert_eq!(pick_class(&cls, &[(0, 0.79), (1, 0.15)]), Some(0));
        // Only the small one under its minimum.
        assert_eq!(pick_class(&cls, &[(0, 0.9), (1, 0.05)]), Some(1));
    }

    #[test]
    fn priority_orders_classes_under_minimum_and_max_caps() {
        let cls = [class(0.2, 1.0, 0), class(0.2, 0.5, 7)];
        assert_eq!(pick_class(&cls, &[(0, 0.1), (1, 0.1)]), Some(1));
        assert_eq!(pick_class(&cls, &[(1, 0.5)]), None);
        assert_eq!(pick_class(&cls, &[(0, 0.9), (1, 0.5)]), Some(0));
    }

    #[test]
    fn share_meter_measures_a_steady_rate() {
        let cfg = Config::default();
        let rate = Rate::from_bps(200e9);
        let mut m = ShareMeter::new(&cfg, 1, 2);
        // Half the link: 4096 B every 2 x 163.84 ns, for 20 time constants.
        let mut t = Ps::ZERO;
        while t < Ps(40_000_000) {
            m.record(ChannelId(0), 0, t, 4096);
            t += Ps(327_680);
        }
        let s = m.share(ChannelId(0), 0, t, rate);
        assert!((s - 0.5).abs() < 0.05, "share {s}");
        assert_eq!(m.share(ChannelId(0), 1, t, rate), 0.0);
    }
}
