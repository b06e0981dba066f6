//! The engine's integration tests, one module per subject, built as one test
//! binary: seventeen binaries each linking the engine took four minutes of the
//! test build, one takes a fraction of it. Run one subject with its module name,
//! e.g. `cargo test --release -p slingsim-core --test engine golden::`.

mod acks;
mod adaptive;
mod background;
mod cassini;
mod congestion_interface;
mod congestion_management;
mod failed_links;
mod families;
mod fuzz;
mod golden;
mod hardening;
mod hop_hold;
mod hop_waits;
mod host_noise;
mod link_snapshots;
mod link_stalls;
mod node_injection;
mod mpi;
mod outstanding;
mod physics;
mod stop_rule;
mod switch_models;
mod terminal_buffer;
mod vc_priority;
