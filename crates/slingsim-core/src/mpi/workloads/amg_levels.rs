//! The grid hierarchy of the `amg` workload: how many points each rank owns
//! on each level and with whom it exchanges halos there.
//!
//! A model of what BoomerAMG (Henson and Yang, Appl. Numer. Math. 2002; the
//! solver of the AMG2013 mini-app [McGlohon19] Sec. 6.1.1 traces) builds
//! for a 7-point Laplacian on a px x py x pz grid of n^3-point blocks, not
//! the coarsening itself. The assumptions, each a parameter of the workload:
//!
//! - Each level keeps a fraction `coarsening` of the points of the one
//!   before (0.2: a grid complexity of 1 / (1 - 0.2) = 1.25, the order
//!   HMIS coarsening gives in 3-D, De Sterck, Yang and Heys, SIAM J. Matrix
//!   Anal. Appl. 2006), until at most `coarse_points` are left (hypre's
//!   default coarsest size is 9) or `max_levels` (hypre: 25) are built.
//! - Coarsening is unstructured: a rank's share of a coarse level is the
//!   mean share times a lognormal factor of log-deviation `irregularity`
//!   (normalised to mean 1 over the ranks), rounded at random, so coarse
//!   levels are uneven and, below one point per rank on average, some
//!   ranks own none and sit the level out. The fine level is even.
//! - Coarse points are spread evenly over a rank's block: level l has a
//!   point spacing of h = coarsening^(-l/3) fine points. The fine operator
//!   couples the 6 face neighbours; a Galerkin coarse operator couples
//!   each point to the 26 around it, one spacing h away, so its halo
//!   reaches ceil(h / n) ranks in each direction: neighbour counts grow
//!   from 6 to 26 and beyond as h outgrows the block, while the ranks that
//!   still own points thin out.
//! - A rank sends a neighbour the values of its points within reach of that
//!   neighbour's block: a face a layer of side^2 values (side = cube root
//!   of its point count), an edge side values, a corner one, 8 B each.

use super::phases::Peer;
use crate::rng::Rng;

/// Coupled points per row of the fine operator (7-point) and of every
/// coarse one (27-point Galerkin): the work of a sweep per point.
pub(super) const FINE_STENCIL: f64 = 7.0;
pub(super) const COARSE_STENCIL: f64 = 27.0;

/// Shape of the hierarchy ([module docs](self)).
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    /// Process grid, x fastest (rank = x + px (y + py z)).
    pub dims: [u32; 3],
    /// Fine points per rank along each axis.
    pub n: u32,
    pub coarsening: f64,
    pub coarse_points: u64,
    pub max_levels: u32,
    pub irregularity: f64,
}

/// One level of the hierarchy.
#[derive(Clone, Debug)]
pub(super) struct Level {
    /// Points each rank owns.
    pub points: Vec<u64>,
    /// Halo peers of each rank (empty for a rank without points).
    pub peers: Vec<Vec<Peer>>,
}

impl Level {
    /// Points of the whole level.
    pub fn total(&self) -> u64 {
        self.points.iter().sum()
    }

    /// Work of one sweep on rank `r`, in fine-point sweeps: points times the
    /// stencil relative to the fine one.
    pub fn work(&self, r: usize, fine: bool) -> f64 {
        self.points[r] as f64 * if fine { 1.0 } else { COARSE_STENCIL / FINE_STENCIL }
    }
}

/// Builds the hierarchy of `shape`, drawing the uneven coarse levels from
/// `seed`.
pub(super) fn build(shape: &Shape, seed: u64) -> Vec<Level> {
    let ranks = shape.dims.iter().product::<u32>() as usize;
    let fine = (shape.n as u64).pow(3);
    let mut counts = vec![vec![fine; ranks]];
    let mut rng = Rng::new(seed, 0xA3C0);
    while (counts.len() as u32) < shape.max_levels && counts.last().unwrap().iter().sum::<u64>() > shape.coarse_points {
        let l = counts.len() as i32;
        let mean = fine as f64 * shape.coarsening.powi(l);
        let next = uneven(ranks, mean, shape.irregularity, &mut rng);
        if next.iter().all(|&p| p == 0) {
            break;
        }
        counts.push(next);
    }
    counts
        .into_iter()
        .enumerate()
        .map(|(l, points)| {
            let peers = (0..ranks).map(|r| peers_of(shape, l, &points, r)).collect();
            Level { points, peers }
        })
        .collect()
}

/// Point counts of `ranks` ranks with mean `mean`: lognormal factors of
/// log-deviation `sigma` scaled to mean 1, then rounded up or down at
/// random in proportion to the fraction.
fn uneven(ranks: usize, mean: f64, sigma: f64, rng: &mut Rng) -> Vec<u64> {
    let factors: Vec<f64> = (0..ranks).map(|_| (sigma * normal(rng) - sigma * sigma / 2.0).exp()).collect();
    let scale = ranks as f64 / factors.iter().sum::<f64>();
    factors.iter().map(|f| (mean * f * scale + rng.unit()).floor() as u64).collect()
}

/// A standard normal draw (Box-Muller).
pub(super) fn normal(rng: &mut Rng) -> f64 {
    let u = 1.0 - rng.unit(); // in (0, 1]
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * rng.unit()).cos()
}

/// Spacing of level `l`'s points, in fine points.
pub(super) fn spacing(shape: &Shape, l: usize) -> f64 {
    shape.coarsening.powf(-(l as f64) / 3.0)
}

/// Values rank-block with `points` points sends to the block at `offset`
/// (in ranks) on a level of spacing `h`: those within reach (`h`; one fine
/// point on the fine level), a full side along axes where the offset is 0.
fn boundary(points: u64, offset: [i32; 3], n: f64, h: f64) -> f64 {
    let side = (points as f64).cbrt();
    offset.iter().fold(1.0, |count, &o| {
        if o == 0 {
            count * side
        } else {
            let depth = (h - (o.unsigned_abs() as f64 - 1.0) * n).clamp(0.0, n) / h;
            count * depth.min(side)
        }
    })
}

/// The halo peers of rank `r` on level `l` whose point counts are `points`.
fn peers_of(shape: &Shape, l: usize, points: &[u64], r: usize) -> Vec<Peer> {
    if points[r] == 0 {
        return Vec::new();
    }
    let n = shape.n as f64;
    let h = spacing(shape, l);
    let reach = (h / n).ceil().max(1.0) as i32;
    let [px, py, pz] = shape.dims.map(|d| d as i32);
    let (x, y, z) = ((r as i32) % px, (r as i32 / px) % py, r as i32 / (px * py));
    let mut out = Vec::new();
    for dz in -reach..=reach {
        for dy in -reach..=reach {
            for dx in -reach..=reach {
                let o = [dx, dy, dz];
                let nonzero = o.iter().filter(|&&v| v != 0).count();
                // The fine 7-point operator couples faces only.
                if nonzero == 0 || (l == 0 && nonzero > 1) {
                    continue;
                }
                let (qx, qy, qz) = (x + dx, y + dy, z + dz);
                if !(0..px).contains(&qx) || !(0..py).contains(&qy) || !(0..pz).contains(&qz) {
                    continue;
                }
                let s = (qx + px * (qy + py * qz)) as usize;
                if points[s] == 0 {
                    continue;
                }
                let send = boundary(points[r], o, n, h);
                let recv = boundary(points[s], o.map(|v| -v), n, h);
                if send > 0.0 && recv > 0.0 {
                    let bytes = |c: f64| 8 * (c.round() as u64).max(1);
                    out.push(Peer { rank: s as u32, send: bytes(send), recv: bytes(recv) });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(dims: [u32; 3], n: u32, irregularity: f64) -> Shape {
        Shape { dims, n, coarsening: 0.2, coarse_points: 9, max_levels: 25, irregularity }
    }

    #[test]
    fn levels_shrink_by_the_coarsening_ratio_down_to_the_coarse_size() {
        let s = shape([4, 4, 4], 10, 0.0);
        let levels = build(&s, 1);
        let totals: Vec<u64> = levels.iter().map(Level::total).collect();
        assert_eq!(totals[0], 64_000);
        for w in totals.windows(2) {
            let ratio = w[1] as f64 / w[0] as f64;
            assert!(w[1] < 64 || (ratio - 0.2).abs() < 0.02, "{totals:?}");
        }
        assert!(*totals.last().unwrap() <= 9 && totals[totals.len() - 2] > 9, "{totals:?}");
    }

    #[test]
    fn neighbours_grow_from_faces_to_the_whole_cube_and_sizes_shrink() {
        let s = shape([5, 5, 5], 10, 0.0);
        let levels = build(&s, 3);
        let centre = 2 + 5 * (2 + 5 * 2);
        assert_eq!(levels[0].peers[centre].len(), 6);
        assert!(levels[0].peers[centre].iter().all(|p| p.send == 800 && p.recv == 800));
        assert_eq!(levels[1].peers[centre].len(), 26);
        let face = levels[1].peers[centre].iter().map(|p| p.send).max().unwrap();
        assert!(face < 800 && face >= 8 * 30, "a face of a 200-point block: {face}");
        // Some coarse level reaches past the adjacent ranks.
        assert!(levels.iter().skip(1).any(|l| l.peers.iter().any(|p| p.len() > 26)), "no level reached beyond 26 neighbours");
    }

    #[test]
    fn peers_are_mutual_with_matching_sizes() {
        let s = shape([4, 3, 5], 6, 0.5);
        for level in build(&s, 9) {
            for (r, peers) in level.peers.iter().enumerate() {
                for p in peers {
                    let back = level.peers[p.rank as usize].iter().find(|q| q.rank as usize == r).expect("mutual");
                    assert_eq!((back.send, back.recv), (p.recv, p.send));
                }
            }
        }
    }

    #[test]
    fn irregularity_spreads_coarse_points_but_keeps_their_mean() {
        let s = shape([8, 8, 8], 20, 0.6);
        let levels = build(&s, 5);
        let l1 = &levels[1].points;
        let mean = l1.iter().sum::<u64>() as f64 / l1.len() as f64;
        assert!((mean / 1600.0 - 1.0).abs() < 0.01, "{mean}");
        let max = *l1.iter().max().unwrap() as f64;
        assert!(max > 2.0 * mean, "a 0.6 log-deviation over 512 ranks: max {max} mean {mean}");
        let even = build(&shape([8, 8, 8], 20, 0.0), 5);
        assert!(even[1].points.iter().all(|&p| p == 1600));
    }
}
