//! The MPI layer (MODEL.md Sec. 7): ranks running programs of point-to-point
//! and collective operations over the simulated network.

pub mod op;

pub use op::{Collective, Op, Program, ANY_SOURCE, ANY_TAG, PROC_NULL};
pub mod app_aware;
pub mod collectives;
pub mod round_traffic;
pub mod rendezvous_times;
pub mod round_spread;
pub mod config;
pub mod runtime;
pub mod state;
pub mod stop_rule;
pub mod validate;
pub mod workloads;
pub mod build;
pub mod copies;
