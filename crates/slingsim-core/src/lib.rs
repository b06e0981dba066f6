//! # slingsim-core
//!
//! A packet-level discrete-event simulator of Slingshot-class HPC
//! interconnects: Rosetta-like switches (virtual output queues, credit flow
//! control, virtual channels), NICs with frame formats and rails, the
//! Slingshot dragonfly, minimal / Valiant / UGAL routing and synthetic
//! traffic. Deterministic: the same config and seed give identical results.
//!
//! ```
//! use slingsim_core::Simulation;
//! let cfg = r#"{
//!   "topology": {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2,
//!                "global_ports_per_switch": 1},
//!   "sim": {"warmup_ns": 1000, "duration_ns": 5000},
//!   "traffic": [{"name": "u", "pattern": "uniform", "load": 0.2}]
//! }"#;
//! let mut sim = Simulation::from_json(cfg).unwrap();
//! sim.run();
//! let s = sim.summary();
//! assert_eq!(s["bytes_conserved"], true);
//! ```

pub mod config;
pub mod congestion;
pub mod crossbar;
pub mod divisor;
pub mod engine;
pub mod error;
pub mod ids;
pub mod limits;
pub mod event;
pub mod host;
pub mod metrics;
pub mod mpi;
pub mod names;
pub mod network;
pub mod nic;
pub mod packet;
pub mod qos;
pub mod rng;
pub mod routing;
pub mod table;
pub mod topology;
pub mod trace;
pub mod traffic;
pub mod units;

pub use config::Config;
pub use engine::{EndReason, Simulation, Slice};
pub use error::ConfigError;
