//! The simulation config: every key with its default, declared once in
//! this module, one file per section (see docs/config.md). Configs arrive
//! as JSON (the Python layer turns TOML into JSON); unknown keys are
//! rejected with their path, and `checks.rs` holds every number to its
//! range before anything is built.

mod checks;
mod congestion;
mod links;
mod nic;
mod qos;
mod routing;
mod sim;
mod switch;
mod topology;
mod traffic;

pub use congestion::CongestionConfig;
pub use links::{CableKind, DegradedLink, FailedLink, LinkConfig, RandomFailures};
pub use nic::NicConfig;
pub use qos::{ClassConfig, QosConfig};
pub use routing::RoutingConfig;
pub use sim::SimConfig;
pub use switch::SwitchConfig;
pub use topology::{CostConfig, TopologyConfig};
pub use traffic::TrafficConfig;

use crate::error::{ConfigError, Result};
use serde::{Deserialize, Serialize};

/// A whole simulation.
#[derive(Clone, Debug, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub topology: TopologyConfig,
    /// Keys the config gave in `[topology]` (to reject keys that do not
    /// apply to the chosen family instead of ignoring them).
    #[serde(skip)]
    pub topology_keys: Vec<String>,
    pub nic: NicConfig,
    pub links: LinkConfig,
    pub switch: SwitchConfig,
    pub routing: RoutingConfig,
    pub sim: SimConfig,
    pub cost: CostConfig,
    pub congestion: CongestionConfig,
    /// Traffic classes (MODEL.md Sec. 6); none given = one default class.
    pub classes: Vec<ClassConfig>,
    pub qos: QosConfig,
    pub traffic: Vec<TrafficConfig>,
    /// The MPI library's costs and protocols, and the jobs (MODEL.md Sec. 7).
    pub mpi: crate::mpi::config::MpiConfig,
    /// The host stack below MPI: software layers and NIC latency.
    pub host: crate::host::HostConfig,
    pub job: Vec<crate::mpi::config::JobConfig>,
}

/// Serde names the type a field wanted (`expected u32`); a user needs the
/// values it takes.
fn in_plain_words(message: &str) -> String {
    const WANTED: [(&str, &str); 8] = [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u32", "expected a whole number from 0 to 4294967295"),
        ("expected u64", "expected a whole number from 0 to 18446744073709551615"),
        ("expected usize", "expected a whole number from 0 up"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
    ];
    WANTED.iter().fold(message.to_string(), |m, (from, to)| m.replace(from, to))
}

impl Config {
    /// Parses a config from JSON text, naming the path of any bad field.
    pub fn from_json(text: &str) -> Result<Config> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let mut cfg: Config = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { String::new() } else { path };
            ConfigError::new(path, in_plain_words(&e.inner().to_string()))
        })?;
        let raw: serde_json::Value = serde_json::from_str(text).map_err(|e| ConfigError::new("", e.to_string()))?;
        if let Some(t) = raw.get("topology").and_then(|t| t.as_object()) {
            cfg.topology_keys = t.keys().cloned().collect();
        }
        cfg.check_numbers()?;
        Ok(cfg)
    }

    /// The config as the engine reads it, every default written out (the
    /// `[topology]` keys of its family only, with the family's own
    /// defaults), as JSON: what a result records to say what produced it.
    /// [`Config::from_json`] of it gives this same config.
    pub fn resolved(&self) -> serde_json::Value {
        use crate::topology::{aries, family_keys, Family};
        let mut cfg = self.clone();
        if cfg.topology.kind == Family::Aries {
            cfg.topology = aries::with_defaults(&cfg.topology, &cfg.topology_keys);
        }
        let mut value = serde_json::to_value(&cfg).expect("every config type serializes");
        let keys = family_keys(cfg.topology.kind);
        if let Some(t) = value.get_mut("topology").and_then(|t| t.as_object_mut()) {
            t.retain(|k, _| keys.contains(&k.as_str()));
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_its_path() {
        let e = Config::from_json(r#"{"topology": {"grups": 3}}"#).unwrap_err();
        assert_eq!(e.field, "topology.grups");
        assert!(e.message.contains("grups"), "{e}");
    }

    /// What a config means to the engine: the given-keys bookkeeping set
    /// aside and a family's own defaults applied.
    fn meaning(cfg: &Config) -> String {
        let mut cfg = cfg.clone();
        if cfg.topology.kind == crate::topology::Family::Aries {
            cfg.topology = crate::topology::aries::with_defaults(&cfg.topology, &cfg.topology_keys);
        }
        cfg.topology_keys.clear();
        format!("{cfg:?}")
    }

    #[test]
    fn a_resolved_config_reads_back_as_the_same_config() {
        for text in [
            "{}",
            r#"{"topology": {"kind": "aries", "groups": 2}, "routing": {"algorithm": "adaptive-1"}, "nic": {"frame": "aries"}}"#,
            r#"{"topology": {"kind": "fattree", "radix": 8, "taper": 0.5}, "congestion": {"algorithm": "dcqcn"}}"#,
            r#"{"classes": [{"name": "a", "dscp": 1, "routing": "in-order", "ordered": true}],
                "traffic": [{"name": "u", "pattern": "incast", "target": 2, "placement": "random", "process": "poisson", "nodes": {"count": 4}}],
                "job": [{"name": "j", "workload": "halo3d", "routing": "app-aware", "params": {"px": 2}},
                        {"workload": "program", "program": {"ranks": 1, "comms": [[0]], "ops": [[{"op": "compute", "ns": 5.5}]]}}]}"#,
        ] {
            let cfg = Config::from_json(text).unwrap();
            let resolved = cfg.resolved();
            let again = Config::from_json(&resolved.to_string()).unwrap_or_else(|e| panic!("{e}: {resolved}"));
            assert_eq!(meaning(&again), meaning(&cfg), "{resolved}");
            assert_eq!(again.resolved(), resolved);
        }
        // Every default is written out.
        let r = Config::from_json("{}").unwrap().resolved();
        assert_eq!(r["switch"]["buffer_bytes"], 131_072);
        assert_eq!(r["routing"]["algorithm"], "minimal");
        assert_eq!(r["topology"]["kind"], "dragonfly");
        assert!(r["topology"].get("q").is_none(), "keys of other families are left out");
    }

    #[test]
    fn a_number_of_the_wrong_kind_names_the_values_the_field_takes() {
        let e = Config::from_json(r#"{"mpi": {"alltoall_throttle": -1}}"#).unwrap_err();
        assert_eq!(e.field, "mpi.alltoall_throttle");
        assert!(e.message.contains("a whole number from 0 to 4294967295") && !e.message.contains("u32"), "{e}");
        let e = Config::from_json(r#"{"mpi": {"eager_threshold_bytes": 2.5}}"#).unwrap_err();
        assert!(e.message.contains("a whole number from 0 to 18446744073709551615"), "{e}");
        let e = Config::from_json(r#"{"nic": {"bandwidth_bps": "fast"}}"#).unwrap_err();
        assert!(e.message.contains("expected a number"), "{e}");
    }

    #[test]
    fn a_bad_name_lists_the_valid_ones() {
        let e = Config::from_json(r#"{"nic": {"frame": "infiniband"}}"#).unwrap_err();
        assert_eq!(e.field, "nic.frame");
        assert!(e.message.contains("choose one of: roce, slingshot, aries"), "{e}");
        let e = Config::from_json(r#"{"job": [{"routing": "fast"}]}"#).unwrap_err();
        assert_eq!(e.field, "job[0].routing");
        assert!(e.message.contains("app-aware") && e.message.contains("adaptive-3"), "{e}");
        let e = Config::from_json(r#"{"topology": {"kind": "torus"}}"#).unwrap_err();
        assert!(e.message.contains("dragonfly, slimfly, fitfly, megafly, fattree, aries"), "{e}");
    }

    #[test]
    fn wrong_type_names_its_path() {
        let e = Config::from_json(r#"{"traffic": [{"load": "high"}]}"#).unwrap_err();
        assert_eq!(e.field, "traffic[0].load");
    }
}
