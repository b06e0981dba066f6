//! The MPI layer (MODEL.md Sec. 7): ranks running programs of point-to-point
//! and collective operations over the simulated network.

pub mod op;

pub use op::{Collective, Op, Program, ANY_SOURCE, ANY_TAG, PROC_NULL};
