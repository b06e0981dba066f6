//! `amg`: the communication of an algebraic multigrid solve, after the
//! AMG2013 mini-app whose 1,728-rank trace [McGlohon19] replays (Sec.
//! 6.1.1): BoomerAMG (Henson and Yang, Appl. Numer. Math. 2002) as the
//! preconditioner of a conjugate-gradient solve of a 3-D Laplacian.
//!
//! The hierarchy (levels, who owns how many points, halo peers and sizes)
//! is modelled in `amg_levels.rs`. On it the ranks run:
//!
//! - **setup** (`setup = true`), per level but the coarsest, as BoomerAMG
//!   builds it: two exchanges of coarse/fine markers (4 B per boundary
//!   point; the rounds of a PMIS/HMIS independent-set search), one of
//!   boundary matrix rows to build the interpolation (8 B x stencil per
//!   point), one of interpolation rows for the Galerkin product on the next
//!   level (8 B x 27 per point of it), an 8 B allreduce of the coarse size,
//!   and `setup_sweeps` sweeps of compute; then the coarsest matrix is
//!   gathered on every rank (an allreduce of its values).
//! - **solve**: an initial residual (fine halo exchange, compute, 8 B
//!   allreduce), then per iteration (`iterations`) one V-cycle as the
//!   preconditioner, an 8 B allreduce (r.z), a fine matrix-vector product
//!   (halo exchange, compute), an 8 B allreduce (p.Ap), and an iteration mark.
//! - **V-cycle**, per level from the finest: `sweeps` relaxation sweeps
//!   (hybrid Gauss-Seidel: a halo exchange and a sweep each), a residual
//!   (exchange, sweep), the restriction P^T r (an exchange on the next
//!   level's halo, a sweep there), the coarser levels, the interpolation
//!   P e (the same exchange, a sweep) and `sweeps` more sweeps; on the
//!   coarsest level a direct solve, its right-hand side gathered on every
//!   rank (hypre gathers it on the ranks that own coarse points with an
//!   allgatherv; here an allreduce of the whole coarse vector on the world,
//!   which moves the same values in log p rounds).
//!
//! Compute: a sweep over a rank's points costs `ns_per_point` per point
//! times the stencil (7 on the fine level, 27 above), so an uneven coarse
//! level is uneven work, and the ranks with the most of it keep the others
//! waiting at the next exchange or allreduce: with `irregularity` this is
//! what makes AMG spend half its time in MPI on an idle network. Both
//! `ns_per_point` and `irregularity` are calibrated (docs/workloads.md).

use super::amg_levels::{self, Level, Shape, COARSE_STENCIL, FINE_STENCIL};
use super::halo::grid_from_params;
use super::phases::{allreduce, compute, exchange, Peer};
use super::Spec;
use crate::error::{ConfigError, Result};
use crate::mpi::op::{Op, Program};

/// Parameters `amg` takes.
pub(super) const PARAMS: &[&str] = &["px", "py", "pz", "n", "coarsening", "coarse_points", "max_levels", "sweeps", "setup", "setup_sweeps", "ns_per_point", "irregularity", "reductions"];

/// Defaults: the assumptions of `amg_levels.rs`, and the two values
/// calibrated to [McGlohon19] Sec. 6.1.1 (docs/workloads.md, "AMG and
/// MultiGrid"): 2.2 s on 1,728 ranks, 52% of it in MPI.
pub mod defaults {
    /// Fine points per rank along each axis *(assumed: with 50^3 points per
    /// rank the runtime asks 61 ns per point and sweep, the rate of a
    /// memory-bound sparse sweep on a 24-core node; 24^3 would ask 0.55 us)*.
    pub const N: u32 = 50;
    pub const COARSENING: f64 = 0.2;
    pub const COARSE_POINTS: u32 = 9;
    pub const MAX_LEVELS: u32 = 25;
    /// BoomerAMG relaxes once before and once after the coarse correction.
    pub const SWEEPS: u32 = 1;
    /// Setup work per level, in sweeps *(assumed)*.
    pub const SETUP_SWEEPS: f64 = 20.0;
    /// Calibrated: compute per point and sweep of the fine operator, so that
    /// the mean rank computes 48% of 2.2 s (1.056 s) in 10 iterations.
    pub const NS_PER_POINT: f64 = 61.0;
    /// Calibrated: log-deviation of coarse points per rank, so that the
    /// ranks wait in MPI the other 52% (1,728 ranks, 24 per node).
    pub const IRREGULARITY: f64 = 0.33;
}

/// Tags of the exchanges, by phase.
mod tag {
    pub const RELAX: i32 = 1;
    pub const RESIDUAL: i32 = 2;
    pub const RESTRICT: i32 = 3;
    pub const INTERPOLATE: i32 = 4;
    pub const MATVEC: i32 = 5;
    pub const MARKERS: i32 = 6;
    pub const ROWS: i32 = 7;
    pub const GALERKIN: i32 = 8;
}

/// The settings of one `amg` job.
struct Settings {
    shape: Shape,
    sweeps: u32,
    setup: bool,
    setup_sweeps: f64,
    ns_per_point: f64,
    /// The allreduces are kept (false: dropped, as CODES' trace replay,
    /// which does not simulate collectives, sees the workload).
    reductions: bool,
}

fn settings(spec: &Spec) -> Result<Settings> {
    let field = |k: &str| format!("{}.params.{k}", spec.field);
    if spec.bytes != crate::mpi::config::DEFAULT_BYTES {
        return Err(ConfigError::new(format!("{}.bytes", spec.field), "amg sizes its messages from its grid; set params.n (fine points per rank along each axis) instead"));
    }
    if spec.compute_ns != 0.0 {
        return Err(ConfigError::new(format!("{}.compute_ns", spec.field), "amg computes per point; set params.ns_per_point instead"));
    }
    let grid = grid_from_params(spec, &["px", "py", "pz"], false)?;
    let n = spec.param_u32("n", defaults::N)?;
    if !(1..=1000).contains(&n) {
        return Err(ConfigError::new(field("n"), format!("fine points per rank along each axis must be 1 to 1000, got {n}")));
    }
    let coarsening = spec.param_f64("coarsening", defaults::COARSENING)?;
    if !(coarsening > 0.0 && coarsening < 1.0) {
        return Err(ConfigError::new(field("coarsening"), format!("the fraction of points a coarse level keeps must be between 0 and 1 (exclusive), got {coarsening}")));
    }
    let max_levels = spec.param_u32("max_levels", defaults::MAX_LEVELS)?;
    if max_levels == 0 {
        return Err(ConfigError::new(field("max_levels"), "must be at least 1 (the fine level)"));
    }
    let irregularity = spec.param_f64("irregularity", defaults::IRREGULARITY)?;
    if irregularity > 3.0 {
        return Err(ConfigError::new(field("irregularity"), format!("the log-deviation of coarse points per rank must be 0 to 3, got {irregularity}")));
    }
    let sweeps = spec.param_u32("sweeps", defaults::SWEEPS)?;
    if !(1..=10).contains(&sweeps) {
        return Err(ConfigError::new(field("sweeps"), format!("relaxation sweeps before and after the coarse correction must be 1 to 10, got {sweeps}")));
    }
    let dims = [grid.dims[0], grid.dims[1], grid.dims[2]];
    Ok(Settings {
        shape: Shape { dims, n, coarsening, coarse_points: spec.param_u32("coarse_points", defaults::COARSE_POINTS)? as u64, max_levels, irregularity },
        sweeps,
        setup: spec.param_bool("setup", true)?,
        setup_sweeps: spec.param_f64("setup_sweeps", defaults::SETUP_SWEEPS)?,
        ns_per_point: spec.param_f64("ns_per_point", defaults::NS_PER_POINT)?,
        reductions: spec.param_bool("reductions", true)?,
    })
}

/// The `amg` workload's program.
pub fn amg(spec: &Spec) -> Result<Program> {
    let s = settings(spec)?;
    let levels = amg_levels::build(&s.shape, spec.seed);
    let mut p = Program::new(spec.ranks);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        let rank = Rank { r, levels: &levels, s: &s };
        if s.setup {
            rank.setup(ops);
        }
        rank.solve(ops, spec.iterations);
    }
    Ok(p)
}

/// What one rank runs.
struct Rank<'a> {
    r: usize,
    levels: &'a [Level],
    s: &'a Settings,
}

impl Rank<'_> {
    fn peers(&self, l: usize) -> &[Peer] {
        &self.levels[l].peers[self.r]
    }

    /// `sweeps` sweeps of level `l`'s operator over this rank's points.
    fn sweep(&self, ops: &mut Vec<Op>, l: usize, sweeps: f64) {
        compute(ops, sweeps * self.levels[l].work(self.r, l == 0) * self.s.ns_per_point);
    }

    /// Level `l`'s halo with sizes scaled from 8 B values to `bytes_per_value`.
    fn scaled(&self, l: usize, bytes_per_value: f64) -> Vec<Peer> {
        let scale = |b: u64| ((b as f64 / 8.0 * bytes_per_value).round() as u64).max(1);
        self.peers(l).iter().map(|p| Peer { rank: p.rank, send: scale(p.send), recv: scale(p.recv) }).collect()
    }

    fn setup(&self, ops: &mut Vec<Op>) {
        let coarsest = self.levels.len() - 1;
        for l in 0..coarsest {
            let markers = self.scaled(l, 4.0);
            exchange(ops, &markers, tag::MARKERS);
            self.sweep(ops, l, self.s.setup_sweeps / 2.0);
            exchange(ops, &markers, tag::MARKERS);
            let stencil = if l == 0 { FINE_STENCIL } else { COARSE_STENCIL };
            exchange(ops, &self.scaled(l, 8.0 * stencil), tag::ROWS);
            self.sweep(ops, l, self.s.setup_sweeps / 2.0);
            exchange(ops, &self.scaled(l + 1, 8.0 * COARSE_STENCIL), tag::GALERKIN);
            allreduce(ops, 8, self.s.reductions);
        }
        let coarse = self.levels[coarsest].total().max(1);
        allreduce(ops, 8 * coarse * coarse.min(COARSE_STENCIL as u64), self.s.reductions);
    }

    fn solve(&self, ops: &mut Vec<Op>, iterations: u32) {
        exchange(ops, self.peers(0), tag::MATVEC);
        self.sweep(ops, 0, 1.0);
        allreduce(ops, 8, self.s.reductions);
        for _ in 0..iterations {
            self.v_cycle(ops, 0);
            allreduce(ops, 8, self.s.reductions);
            exchange(ops, self.peers(0), tag::MATVEC);
            self.sweep(ops, 0, 1.0);
            allreduce(ops, 8, self.s.reductions);
            ops.push(Op::IterationEnd);
        }
    }

    fn v_cycle(&self, ops: &mut Vec<Op>, l: usize) {
        if l + 1 == self.levels.len() {
            allreduce(ops, 8 * self.levels[l].total().max(1), self.s.reductions);
            self.sweep(ops, l, 1.0);
            return;
        }
        for _ in 0..self.s.sweeps {
            exchange(ops, self.peers(l), tag::RELAX);
            self.sweep(ops, l, 1.0);
        }
        exchange(ops, self.peers(l), tag::RESIDUAL);
        self.sweep(ops, l, 1.0);
        exchange(ops, self.peers(l + 1), tag::RESTRICT);
        self.sweep(ops, l + 1, 1.0);
        self.v_cycle(ops, l + 1);
        exchange(ops, self.peers(l + 1), tag::INTERPOLATE);
        self.sweep(ops, l, 1.0);
        for _ in 0..self.s.sweeps {
            exchange(ops, self.peers(l), tag::RELAX);
            self.sweep(ops, l, 1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::{self, consistent, params};
    use super::*;

    #[test]
    fn amg_is_consistent_on_several_grids() {
        for (ranks, json) in [(1, serde_json::json!({"n": 4})), (8, serde_json::json!({"n": 6})), (12, serde_json::json!({"n": 5, "irregularity": 1.0})), (27, serde_json::json!({"n": 4, "setup": false}))] {
            let m = params(json);
            consistent(&amg(&check::spec(&m, ranks, 8, 2, 0.0, 3)).unwrap());
        }
    }

    #[test]
    fn amg_counts_its_phases() {
        // 8 ranks of 4^3 points: levels 512 -> ~102 -> ~20 -> ~4 total.
        let m = params(serde_json::json!({"n": 4, "setup": false, "irregularity": 0.0}));
        let p = amg(&check::spec(&m, 8, 8, 3, 0.0, 1)).unwrap();
        let marks = p.ops[0].iter().filter(|o| matches!(o, Op::IterationEnd)).count();
        assert_eq!(marks, 3);
        let allreduces = p.ops[0].iter().filter(|o| matches!(o, Op::Coll { .. })).count();
        assert_eq!(allreduces, 1 + 3 * 3, "initial norm, then r.z, p.Ap and the coarse solve per iteration");
    }

    #[test]
    fn amg_rejects_what_it_does_not_use() {
        let m = params(serde_json::json!({}));
        let e = amg(&check::spec(&m, 8, 4096, 1, 0.0, 1)).unwrap_err();
        assert_eq!(e.field, "job[0].bytes");
        let e = amg(&check::spec(&m, 8, 8, 1, 10.0, 1)).unwrap_err();
        assert_eq!(e.field, "job[0].compute_ns");
        let m = params(serde_json::json!({"coarsening": 1.5}));
        let e = amg(&check::spec(&m, 8, 8, 1, 0.0, 1)).unwrap_err();
        assert!(e.field.ends_with("params.coarsening") && e.message.contains("between 0 and 1"), "{e}");
    }
}
