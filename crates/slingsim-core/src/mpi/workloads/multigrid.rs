//! `multigrid`: the communication of a geometric multigrid solve on boxes,
//! after BoxLib's MultiGrid_C mini-app (the "MultiGrid" of [McGlohon19]
//! Sec. 6.1.2: "a geometric multigrid cycle miniapp from the adaptive mesh
//! refinement application framework BoxLib", its ref. [10]).
//!
//! The domain is a px x py x pz array of cubic boxes of `box` cells a side,
//! one box per rank, as a BoxArray with one box per MPI process is laid
//! out. Each level halves the box edge (cells are averaged 2 x 2 x 2 into
//! one, within the box: restriction and prolongation need no messages)
//! until it is `min_box` cells; there a bottom solver iterates on all
//! boxes. Per V-cycle, from the finest level:
//!
//! - `pre_smooth` red-black Gauss-Seidel relaxations, each two colour
//!   sweeps, each sweep after a ghost-cell fill (FillBoundary: one layer of
//!   doubles to each of the 6 face neighbours, box_edge^2 x 8 B; the
//!   7-point operator needs no edges or corners);
//! - a residual (a ghost-cell fill, a sweep), the restriction (a local
//!   sweep of the coarse level), the coarser levels, the prolongation (a
//!   local sweep) and `post_smooth` relaxations;
//! - on the coarsest level, `bottom_iterations` of BiCGStab, each two
//!   matrix-vector products (ghost-cell fill and sweep) and four 8 B
//!   allreduces (its dot products and norms);
//!
//! then the residual of the finest level and its norm (a ghost-cell fill,
//! a sweep, an 8 B allreduce), the convergence test of every cycle; the
//! same once before the first. An iteration of the job is one V-cycle.
//!
//! Compute: `ns_per_cell` per cell and sweep, the same on every box (the
//! boxes are equal) but for a small random `noise` per sweep (lognormal,
//! mean 1): what the slowest box of a sweep costs the others at the next
//! fill. Both are calibrated (docs/workloads.md).

use super::halo::{grid_from_params, Grid};
use super::amg_levels::normal;
use super::phases::{allreduce, compute, exchange, Peer};
use crate::rng::Rng;
use super::Spec;
use crate::error::{ConfigError, Result};
use crate::mpi::op::{Op, Program};

/// Parameters `multigrid` takes.
pub(super) const PARAMS: &[&str] = &["px", "py", "pz", "periodic", "box", "min_box", "pre_smooth", "post_smooth", "bottom_iterations", "ns_per_cell", "noise", "reductions"];

/// Defaults: assumptions about MultiGrid_C's inputs and the values
/// calibrated to [McGlohon19] Sec. 6.1.2 (docs/workloads.md, "AMG and
/// MultiGrid"): 1.4 s on 1,000 ranks, 3.7% of it in MPI.
pub mod defaults {
    /// Cells per box edge (BoxLib's max_grid_size) *(assumed: with 64^3
    /// cells per box the runtime asks 63.5 ns per cell and sweep, the rate
    /// of a memory-bound 7-point sweep on a 24-core node; 32^3 would ask
    /// 0.5 us)*.
    pub const BOX: u32 = 64;
    /// Edge of the coarsest boxes.
    pub const MIN_BOX: u32 = 2;
    /// Relaxations before and after the coarse correction.
    pub const PRE_SMOOTH: u32 = 2;
    pub const POST_SMOOTH: u32 = 2;
    /// BiCGStab iterations on the coarsest level *(assumed)*.
    pub const BOTTOM_ITERATIONS: u32 = 8;
    /// Calibrated: compute per cell and sweep, so that a rank computes
    /// 96.3% of 1.4 s (1.348 s) in 10 V-cycles.
    pub const NS_PER_CELL: f64 = 63.5;
    /// Calibrated: log-deviation of each sweep's compute time, so that the
    /// ranks spend the other 3.7% (51.8 ms) in MPI: the network and the
    /// host stack alone give 25 ms (1,000 ranks, 25 per node), waiting for
    /// the slowest box the rest.
    pub const NOISE: f64 = 0.0135;
}

/// 8 B allreduces per bottom-solver iteration (BiCGStab's dot products and norms).
const BOTTOM_REDUCTIONS: u32 = 4;

struct Settings {
    grid: Grid,
    /// Box edge on each level, finest first.
    edges: Vec<u32>,
    pre: u32,
    post: u32,
    bottom: u32,
    ns_per_cell: f64,
    /// Log-deviation of a sweep's time around its mean (lognormal, mean 1).
    noise: f64,
    /// The allreduces are kept (false: dropped, as CODES' trace replay,
    /// which does not simulate collectives, sees the workload).
    reductions: bool,
}

fn settings(spec: &Spec) -> Result<Settings> {
    let field = |k: &str| format!("{}.params.{k}", spec.field);
    if spec.bytes != crate::mpi::config::DEFAULT_BYTES {
        return Err(ConfigError::new(format!("{}.bytes", spec.field), "multigrid sizes its messages from its boxes; set params.box (cells per box edge) instead"));
    }
    if spec.compute_ns != 0.0 {
        return Err(ConfigError::new(format!("{}.compute_ns", spec.field), "multigrid computes per cell; set params.ns_per_cell instead"));
    }
    let grid = grid_from_params(spec, &["px", "py", "pz"], spec.param_bool("periodic", false)?)?;
    // A periodic axis of 2 boxes (or 1) meets the same neighbour on both
    // sides (or itself), which one fill per neighbour cannot express.
    if grid.periodic && grid.dims.iter().any(|&d| d <= 2) {
        return Err(ConfigError::new(
            field("periodic"),
            format!("a periodic grid needs at least 3 boxes along every axis (the grid is {:?}); set periodic = false or use more ranks", grid.dims),
        ));
    }
    let edge = spec.param_u32("box", defaults::BOX)?;
    let min_box = spec.param_u32("min_box", defaults::MIN_BOX)?;
    if min_box == 0 || !(min_box..=4096).contains(&edge) {
        return Err(ConfigError::new(field("box"), format!("cells per box edge must be from min_box ({min_box}, at least 1) to 4096, got {edge}")));
    }
    let mut edges = vec![edge];
    while edges.last().unwrap() % 2 == 0 && edges.last().unwrap() / 2 >= min_box {
        edges.push(edges.last().unwrap() / 2);
    }
    let (pre, post) = (spec.param_u32("pre_smooth", defaults::PRE_SMOOTH)?, spec.param_u32("post_smooth", defaults::POST_SMOOTH)?);
    for (key, v) in [("pre_smooth", pre), ("post_smooth", post)] {
        if v > 20 {
            return Err(ConfigError::new(field(key), format!("relaxations must be 0 to 20, got {v}")));
        }
    }
    let bottom = spec.param_u32("bottom_iterations", defaults::BOTTOM_ITERATIONS)?;
    if !(1..=1000).contains(&bottom) {
        return Err(ConfigError::new(field("bottom_iterations"), format!("bottom-solver iterations must be 1 to 1000, got {bottom}")));
    }
    let noise = spec.param_f64("noise", defaults::NOISE)?;
    if noise > 1.0 {
        return Err(ConfigError::new(field("noise"), format!("the log-deviation of a sweep's time must be 0 to 1, got {noise}")));
    }
    Ok(Settings { grid, edges, pre, post, bottom, ns_per_cell: spec.param_f64("ns_per_cell", defaults::NS_PER_CELL)?, noise, reductions: spec.param_bool("reductions", true)? })
}

/// The `multigrid` workload's program.
pub fn multigrid(spec: &Spec) -> Result<Program> {
    let s = settings(spec)?;
    let faces = s.grid.faces();
    let mut p = Program::new(spec.ranks);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        // Face neighbours and, per level, one ghost layer to each.
        let fills: Vec<Vec<Peer>> = s
            .edges
            .iter()
            .map(|&e| {
                let bytes = 8 * e as u64 * e as u64;
                faces.iter().filter_map(|o| s.grid.neighbour(r as u32, o)).map(|n| Peer { rank: n, send: bytes, recv: bytes }).collect()
            })
            .collect();
        let rank = Rank { s: &s, fills, rng: std::cell::RefCell::new(Rng::new(spec.seed, 0x3600_0000 + r as u64)) };
        rank.residual_norm(ops);
        for _ in 0..spec.iterations {
            rank.v_cycle(ops, 0);
            rank.residual_norm(ops);
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// Tags of the ghost-cell fills, by phase.
mod tag {
    pub const SMOOTH: i32 = 1;
    pub const RESIDUAL: i32 = 2;
    pub const BOTTOM: i32 = 3;
    pub const NORM: i32 = 4;
}

struct Rank<'a> {
    s: &'a Settings,
    fills: Vec<Vec<Peer>>,
    /// This rank's stream of compute noise.
    rng: std::cell::RefCell<Rng>,
}

impl Rank<'_> {
    fn cells(&self, l: usize) -> f64 {
        (self.s.edges[l] as f64).powi(3)
    }

    /// A sweep over `fraction` of level `l`'s cells, its time varied by
    /// the noise (the same on every box otherwise: the boxes are equal).
    fn sweep(&self, ops: &mut Vec<Op>, l: usize, fraction: f64) {
        let sigma = self.s.noise;
        let factor = if sigma > 0.0 { (sigma * normal(&mut self.rng.borrow_mut()) - sigma * sigma / 2.0).exp() } else { 1.0 };
        compute(ops, factor * fraction * self.cells(l) * self.s.ns_per_cell);
    }

    fn relax(&self, ops: &mut Vec<Op>, l: usize, times: u32) {
        for _ in 0..times {
            for _colour in 0..2 {
                exchange(ops, &self.fills[l], tag::SMOOTH);
                self.sweep(ops, l, 0.5);
            }
        }
    }

    fn residual_norm(&self, ops: &mut Vec<Op>) {
        exchange(ops, &self.fills[0], tag::NORM);
        self.sweep(ops, 0, 1.0);
        allreduce(ops, 8, self.s.reductions);
    }

    fn v_cycle(&self, ops: &mut Vec<Op>, l: usize) {
        if l + 1 == self.s.edges.len() {
            self.bottom(ops, l);
            return;
        }
        self.relax(ops, l, self.s.pre);
        exchange(ops, &self.fills[l], tag::RESIDUAL);
        self.sweep(ops, l, 1.0);
        self.sweep(ops, l + 1, 1.0);
        self.v_cycle(ops, l + 1);
        self.sweep(ops, l, 1.0);
        self.relax(ops, l, self.s.post);
    }

    fn bottom(&self, ops: &mut Vec<Op>, l: usize) {
        for _ in 0..self.s.bottom {
            for _product in 0..2 {
                exchange(ops, &self.fills[l], tag::BOTTOM);
                self.sweep(ops, l, 1.0);
            }
            for _ in 0..BOTTOM_REDUCTIONS {
                allreduce(ops, 8, self.s.reductions);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::{self, consistent, params};
    use super::*;

    #[test]
    fn multigrid_is_consistent_on_several_grids() {
        for (ranks, json) in [(1, serde_json::json!({"box": 8})), (8, serde_json::json!({"box": 8})), (27, serde_json::json!({"box": 4, "periodic": true})), (12, serde_json::json!({"box": 16, "bottom_iterations": 2}))] {
            let m = params(json);
            consistent(&multigrid(&check::spec(&m, ranks, 8, 2, 0.0, 1)).unwrap());
        }
    }

    #[test]
    fn multigrid_halves_its_boxes_and_counts_its_fills() {
        // Boxes of 8: levels 8, 4, 2. Per V-cycle: 2 levels x (2 x 2 + 1 + 2 x 2)
        // fills, 8 bottom iterations x 2, and the residual norm: 35 fills.
        let m = params(serde_json::json!({"box": 8}));
        let p = multigrid(&check::spec(&m, 27, 8, 1, 0.0, 1)).unwrap();
        let centre = &p.ops[13];
        let waits = centre.iter().filter(|o| matches!(o, Op::Wait { .. })).count();
        assert_eq!(waits, 1 + 2 * 9 + 8 * 2 + 1);
        let face = |bytes| centre.iter().filter(|o| matches!(o, Op::Isend { bytes: b, .. } if *b == bytes)).count();
        assert_eq!((face(512), face(128), face(32)), (6 * (2 + 9), 6 * 9, 6 * 16));
        let allreduces = centre.iter().filter(|o| matches!(o, Op::Coll { .. })).count();
        assert_eq!(allreduces, 2 + 8 * 4);
    }

    #[test]
    fn multigrid_rejects_bad_boxes() {
        let m = params(serde_json::json!({"box": 1}));
        let e = multigrid(&check::spec(&m, 8, 8, 1, 0.0, 1)).unwrap_err();
        assert!(e.field.ends_with("params.box"), "{e}");
        let m = params(serde_json::json!({"periodic": true}));
        let e = multigrid(&check::spec(&m, 8, 8, 1, 0.0, 1)).unwrap_err();
        assert!(e.field.ends_with("params.periodic"), "{e}");
    }
}
