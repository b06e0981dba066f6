//! Nearest-neighbour exchanges on Cartesian process grids: the ember motifs
//! `halo3d` and `sweep3d` that paper 000 runs as victims (Sec. III; ember,
//! the SST communication pattern library, its ref. [50]), and the process
//! grid and halo exchange the application proxies (`proxies.rs`) share.
//!
//! - `halo3d`: ranks on a px x py x pz grid; per iteration each rank posts
//!   a receive from and a send to each of its (up to) 6 face neighbours,
//!   waits for all 12, then computes. Ember's motif exchanges one dimension
//!   at a time and adds an optional 8 B allreduce; we post all six at once
//!   (the "all dimensions at once" variant of halo codes) and leave the
//!   reduction to the proxies that have one.
//! - `sweep3d`: the KBA wavefront of the Sweep3D neutron transport kernel
//!   (Koch, Baker and Alcouffe's pipelined sweep, as ember's motif runs it)
//!   on a px x py grid: for each of the 4 corners of the grid, for each of
//!   `kblocks` blocks of the z axis, a rank receives from its upstream x and
//!   y neighbours, computes, and sends to its downstream ones (blocking
//!   calls, like ember). Ember sweeps each corner twice per iteration (both
//!   z directions); one iteration here is one sweep from each corner.

use super::{compute, Spec};
use crate::error::{ConfigError, Result};
use crate::mpi::op::{Op, Program};

/// A Cartesian grid of processes. The first dimension varies fastest:
/// rank = x + dims[0] * (y + dims[1] * (z + ...)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Grid {
    pub dims: Vec<u32>,
    /// Whether the edges wrap around (a torus of processes).
    pub periodic: bool,
}

/// The factorisation of `n` into `k` factors closest to a cube (least sum
/// of squares; ties to the first found), largest first, as MPI_Dims_create
/// orders them.
pub(super) fn balanced_factors(n: u32, k: usize) -> Vec<u32> {
    let n = n.max(1);
    let mut divisors: Vec<u32> = (1..).take_while(|&d: &u32| d as u64 * d as u64 <= n as u64).filter(|d| n % d == 0).flat_map(|d| [d, n / d]).collect();
    divisors.sort_unstable_by(|a, b| b.cmp(a));
    divisors.dedup();
    fn search(n: u32, k: usize, max: u32, divisors: &[u32], prefix: &mut Vec<u32>, best: &mut Option<(u64, Vec<u32>)>) {
        if k == 1 {
            if n <= max {
                prefix.push(n);
                let cost = prefix.iter().map(|&f| f as u64 * f as u64).sum();
                if best.as_ref().map_or(true, |(b, _)| cost < *b) {
                    *best = Some((cost, prefix.clone()));
                }
                prefix.pop();
            }
            return;
        }
        for &f in divisors.iter().filter(|&&f| f <= max && n % f == 0) {
            // Factors come largest first, so the rest are at most f each.
            if (f as u128).pow(k as u32) < n as u128 {
                break;
            }
            prefix.push(f);
            search(n / f, k - 1, f, divisors, prefix, best);
            prefix.pop();
        }
    }
    let mut best = None;
    search(n, k, n, &divisors, &mut Vec::new(), &mut best);
    best.expect("n = n x 1 x ... x 1 always qualifies").1
}

impl Grid {
    /// The grid of `ranks` processes with the dimensions given in `fixed`
    /// and the others as balanced as possible; `None` if the given ones do
    /// not divide `ranks`.
    pub fn new(ranks: u32, fixed: &[Option<u32>], periodic: bool) -> Option<Grid> {
        let given: u32 = fixed.iter().flatten().product();
        let free = fixed.iter().filter(|d| d.is_none()).count();
        if given == 0 || ranks % given != 0 || (free == 0 && given != ranks) {
            return None;
        }
        let mut rest = balanced_factors(ranks / given, free.max(1)).into_iter();
        let dims = fixed.iter().map(|d| d.unwrap_or_else(|| rest.next().unwrap())).collect();
        Some(Grid { dims, periodic })
    }

    /// Coordinates of rank `r`.
    pub fn coords(&self, r: u32) -> Vec<u32> {
        let mut rest = r;
        self.dims.iter().map(|&d| {
            let c = rest % d;
            rest /= d;
            c
        }).collect()
    }

    /// The rank at `offset` from `r`: `None` off the edge of a non-periodic
    /// grid, or where the offset wraps back to `r` itself.
    pub fn neighbour(&self, r: u32, offset: &[i32]) -> Option<u32> {
        let mut rank = 0u64;
        let mut stride = 1u64;
        for ((&c, &d), &o) in self.coords(r).iter().zip(&self.dims).zip(offset) {
            let mut x = c as i64 + o as i64;
            if self.periodic {
                x = x.rem_euclid(d as i64);
            } else if !(0..d as i64).contains(&x) {
                return None;
            }
            rank += x as u64 * stride;
            stride *= d as u64;
        }
        (rank as u32 != r).then_some(rank as u32)
    }

    /// The 2k face offsets (minus then plus, dimension by dimension).
    pub fn faces(&self) -> Vec<Vec<i32>> {
        let k = self.dims.len();
        (0..2 * k).map(|i| (0..k).map(|d| if d == i / 2 { if i % 2 == 0 { -1 } else { 1 } } else { 0 }).collect()).collect()
    }

    /// The 3^k - 1 offsets of a full stencil: faces, edges and corners.
    pub fn stencil(&self) -> Vec<Vec<i32>> {
        let k = self.dims.len() as u32;
        (0..3i32.pow(k)).map(|i| (0..k).map(|d| i / 3i32.pow(d) % 3 - 1).collect::<Vec<i32>>()).filter(|o| o.iter().any(|&x| x != 0)).collect()
    }
}

/// The tag of a message travelling along `offset`: distinct per direction,
/// so that on a periodic grid of extent 2, where both neighbours along a
/// dimension are one rank, each face still meets its own receive.
pub(super) fn direction_tag(offset: &[i32]) -> i32 {
    offset.iter().rev().fold(0, |t, &o| t * 3 + o + 1)
}

/// One halo exchange of rank `r`: a nonblocking receive from and send to
/// the neighbour at each offset (`bytes_of` it), then a wait for all.
pub(super) fn exchange(ops: &mut Vec<Op>, grid: &Grid, r: u32, offsets: &[Vec<i32>], bytes_of: impl Fn(&[i32]) -> u64) {
    let mut req = 0;
    for o in offsets {
        if let Some(n) = grid.neighbour(r, o) {
            // The neighbour at o sends towards us along -o.
            let back: Vec<i32> = o.iter().map(|x| -x).collect();
            ops.push(Op::Irecv { comm: 0, peer: n as i32, tag: direction_tag(&back), bytes: bytes_of(&back), req });
            req += 1;
        }
    }
    for o in offsets {
        if let Some(n) = grid.neighbour(r, o) {
            ops.push(Op::Isend { comm: 0, peer: n as i32, tag: direction_tag(o), bytes: bytes_of(o), req });
            req += 1;
        }
    }
    if req > 0 {
        ops.push(Op::Wait { reqs: (0..req).collect() });
    }
}

/// The process grid of a workload: dimensions named `keys` in `params`
/// where given, the others chosen as balanced as possible.
pub(super) fn grid_from_params(spec: &Spec, keys: &[&str], periodic: bool) -> Result<Grid> {
    let mut fixed = Vec::with_capacity(keys.len());
    for key in keys {
        fixed.push(match spec.params.get(*key) {
            None => None,
            Some(_) => Some(spec.param_u32(key, 1)?),
        });
    }
    Grid::new(spec.ranks, &fixed, periodic).ok_or_else(|| {
        let named = keys.iter().zip(&fixed).find(|(_, d)| d.is_some()).map_or(keys[0], |(k, _)| *k);
        ConfigError::new(
            format!("{}.params.{named}", spec.field),
            format!("the process grid {} must multiply to the job's {} ranks; give dimensions whose product divides it (or leave them out to have them chosen)", keys.join(" x "), spec.ranks),
        )
    })
}

/// Ember halo3d: face exchange with the 6 neighbours of a 3D grid
/// (params px, py, pz; `periodic`, default false), then `compute_ns`.
pub fn halo3d(spec: &Spec) -> Result<Program> {
    let periodic = spec.param_bool("periodic", false)?;
    let grid = grid_from_params(spec, &["px", "py", "pz"], periodic)?;
    let faces = grid.faces();
    let mut p = Program::new(spec.ranks);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        for _ in 0..spec.iterations {
            exchange(ops, &grid, r as u32, &faces, |_| spec.bytes);
            compute(ops, spec.compute_ns);
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// The four sweep directions of sweep3d, in ember's order: the sign of the
/// x and y flow (from the corner where both coordinates are lowest, and so on).
const SWEEPS: [(i32, i32); 4] = [(1, 1), (-1, 1), (-1, -1), (1, -1)];

/// Ember sweep3d: KBA wavefronts from the 4 corners of a px x py grid,
/// `kblocks` (default 10) z-blocks each; `compute_ns` per iteration is
/// spread evenly over its 4 x kblocks block computations.
pub fn sweep3d(spec: &Spec) -> Result<Program> {
    let kblocks = spec.param_u32("kblocks", 10)?;
    if kblocks == 0 {
        return Err(ConfigError::new(format!("{}.params.kblocks", spec.field), "must be at least 1"));
    }
    let grid = grid_from_params(spec, &["px", "py"], false)?;
    let block_ns = spec.compute_ns / (4 * kblocks) as f64;
    let mut p = Program::new(spec.ranks);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        let r = r as u32;
        for _ in 0..spec.iterations {
            for (tag, &(sx, sy)) in SWEEPS.iter().enumerate() {
                let tag = tag as i32 + 1;
                let upstream = [grid.neighbour(r, &[-sx, 0]), grid.neighbour(r, &[0, -sy])];
                let downstream = [grid.neighbour(r, &[sx, 0]), grid.neighbour(r, &[0, sy])];
                for _ in 0..kblocks {
                    for n in upstream.into_iter().flatten() {
                        ops.push(Op::Recv { comm: 0, peer: n as i32, tag, bytes: spec.bytes });
                    }
                    compute(ops, block_ns);
                    for n in downstream.into_iter().flatten() {
                        ops.push(Op::Send { comm: 0, peer: n as i32, tag, bytes: spec.bytes });
                    }
                }
            }
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::super::check::{self, consistent, params, Params};
    use super::*;

    fn spec(params: &Params, ranks: u32) -> Spec<'_> {
        check::spec(params, ranks, 1024, 3, 1000.0, 1)
    }


    #[test]
    fn factorisations_are_as_cubic_as_possible() {
        assert_eq!(balanced_factors(8, 3), vec![2, 2, 2]);
        assert_eq!(balanced_factors(12, 3), vec![3, 2, 2]);
        assert_eq!(balanced_factors(24, 3), vec![4, 3, 2]);
        assert_eq!(balanced_factors(7, 3), vec![7, 1, 1]);
        assert_eq!(balanced_factors(16, 4), vec![2, 2, 2, 2]);
        assert_eq!(balanced_factors(12, 2), vec![4, 3]);
        assert_eq!(balanced_factors(1, 3), vec![1, 1, 1]);
        assert_eq!(Grid::new(24, &[Some(6), None, None], false).unwrap().dims, vec![6, 2, 2]);
        assert_eq!(Grid::new(24, &[Some(5), None, None], false), None);
        assert_eq!(Grid::new(24, &[Some(2), Some(3), Some(2)], false), None);
    }

    #[test]
    fn neighbour_counts_follow_the_grid() {
        let g = Grid::new(27, &[None, None, None], false).unwrap();
        let centre = 1 + 3 * (1 + 3);
        let count = |g: &Grid, r, offs: &[Vec<i32>]| offs.iter().filter(|o| g.neighbour(r, o).is_some()).count();
        assert_eq!(count(&g, centre, &g.faces()), 6);
        assert_eq!(count(&g, 0, &g.faces()), 3);
        assert_eq!(count(&g, centre, &g.stencil()), 26);
        assert_eq!(count(&g, 0, &g.stencil()), 7);
        // A periodic 2 x 1 x 1 grid: x neighbours both rank 1, y and z wrap to self.
        let t = Grid::new(2, &[None, None, None], true).unwrap();
        assert_eq!(t.faces().iter().filter_map(|o| t.neighbour(0, o)).collect::<Vec<_>>(), vec![1, 1]);
    }

    #[test]
    fn halo3d_is_consistent_on_cubic_and_other_grids() {
        for (ranks, json) in [(8, serde_json::json!({})), (12, serde_json::json!({})), (7, serde_json::json!({})), (12, serde_json::json!({"periodic": true})), (18, serde_json::json!({"px": 2, "periodic": true}))] {
            let m = params(json);
            consistent(&halo3d(&spec(&m, ranks)).unwrap());
        }
        let m = params(serde_json::json!({}));
        let p = halo3d(&spec(&m, 27)).unwrap();
        let sends = |r: usize| p.ops[r].iter().filter(|o| matches!(o, Op::Isend { .. })).count();
        assert_eq!((sends(13), sends(0)), (6 * 3, 3 * 3));
    }

    #[test]
    fn halo3d_rejects_a_grid_that_does_not_fit() {
        let m = params(serde_json::json!({"px": 5}));
        let e = halo3d(&spec(&m, 12)).unwrap_err();
        assert_eq!(e.field, "job[0].params.px");
    }

    #[test]
    fn sweep3d_is_consistent_and_pipelined() {
        for (ranks, json) in [(1, serde_json::json!({})), (6, serde_json::json!({})), (16, serde_json::json!({"kblocks": 3})), (12, serde_json::json!({"px": 2}))] {
            let m = params(json);
            consistent(&sweep3d(&spec(&m, ranks)).unwrap());
        }
        // On a 2 x 2 grid each rank sends once per block in each of the 2
        // sweeps flowing away from it along x, and likewise along y.
        let m = params(serde_json::json!({"kblocks": 5}));
        let p = sweep3d(&spec(&m, 4)).unwrap();
        let sends = p.ops[0].iter().filter(|o| matches!(o, Op::Send { .. })).count();
        assert_eq!(sends, 3 * 5 * (2 + 2));
        let computed: f64 = p.ops[0].iter().map(|o| if let Op::Compute { ns } = o { *ns } else { 0.0 }).sum();
        assert!((computed - 3.0 * 1000.0).abs() < 1e-6);
    }
}
