//! Application proxies: the communication structure of the HPC and
//! machine-learning victims of paper 000 (Sec. III, Table I), without their
//! numerics. Each iteration is one step of the application's main loop.
//!
//! - `milc`: MILC's su3_rmd lattice QCD kernel decomposes a 4D lattice and
//!   "mostly performs point-to-point neighbour communications and global
//!   reductions" (Table I; Bauer, Gottlieb and Hoefler, CCGrid 2012, its
//!   ref. [37]). Per iteration: halo exchange with the 8 neighbours of a
//!   periodic 4D grid (`bytes` each), compute, then `cg_allreduces` 8 B
//!   allreduces (the global sums of a conjugate-gradient step).
//! - `hpcg`: HPCG's conjugate gradient on a 27-point stencil (ref. [3]):
//!   "stencil communications and global reductions". Per iteration: halo
//!   exchange with up to 26 neighbours of a non-periodic 3D grid, compute,
//!   then `dot_products` 8 B allreduces (HPCG's CG loop takes 3 dot
//!   products: r.z, p.Ap and the residual norm). Sizes follow the geometry
//!   of a local n x n x n block of 8 B values with `bytes` = one face
//!   (n = sqrt(bytes / 8)): a face sends n^2 values, an edge n (bytes / n),
//!   a corner 1 (8 B). A 16^3 block, for example, sends 2 KiB faces and
//!   128 B edges (bytes / 16).
//! - `lammps`: LAMMPS' spatial decomposition (Plimpton, J. Comput. Phys.
//!   1995, ref. [38]) on a periodic 3D grid; "reductions and point-to-point
//!   blocking and non-blocking communications" (Table I). Per iteration:
//!   the six swaps of LAMMPS' ghost-atom exchange, one direction at a time,
//!   each a nonblocking receive from one side, a blocking send to the
//!   other and a wait (as LAMMPS' brick communication does), then compute
//!   and an 8 B allreduce (thermodynamic and neighbour-list reductions).
//! - `fft`: a 3D FFT with a 2D pencil decomposition (FFTW, ref. [39];
//!   the transposes of P3DFFT-style codes): ranks on a prow x pcol grid
//!   with a communicator per row and per column; per iteration 1D FFTs
//!   (compute) around an alltoall on the row communicator then one on the
//!   column communicator, `bytes` per pair. Paper 000 lists broadcasts,
//!   scatters and point-to-point for its FFT (ref. [40]); we model the
//!   transposes, which carry its data, as the alltoalls they are.
//! - `resnet`: a data-parallel training step like the Resnet-proxy of
//!   Table I (Li et al., PPoPP 2020, ref. [41]; Deep500, ref. [42]): the
//!   backward pass in `buckets` compute chunks, each followed by a
//!   nonblocking allreduce of its share of the `bytes` of gradients that
//!   overlaps the next chunk; all are waited for at the end of the step.
//!   ResNet-50 has about 25.6 M parameters (torchvision's model), so
//!   `bytes` = 102 MB of float32 gradients models it.

use super::halo::{direction_tag, exchange, grid_from_params, Grid};
use super::{compute, Spec};
use crate::error::{ConfigError, Result};
use crate::mpi::op::{Collective, Op, Program};

/// A blocking 8 B allreduce on the world: a global sum of one double.
const GLOBAL_SUM: Op = Op::Coll { kind: Collective::Allreduce, comm: 0, bytes: 8, root: 0, counts: None, req: None };

/// MILC: periodic 4D halo (params px, py, pz, pt), compute, then
/// `cg_allreduces` (default 2) 8 B allreduces per iteration.
pub fn milc(spec: &Spec) -> Result<Program> {
    let allreduces = spec.param_u32("cg_allreduces", 2)?;
    let grid = grid_from_params(spec, &["px", "py", "pz", "pt"], true)?;
    let faces = grid.faces();
    let mut p = Program::new(spec.ranks);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        for _ in 0..spec.iterations {
            exchange(ops, &grid, r as u32, &faces, |_| spec.bytes);
            compute(ops, spec.compute_ns);
            ops.extend((0..allreduces).map(|_| GLOBAL_SUM));
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// Bytes HPCG sends along `offset`: a face (`face` bytes), an edge or a
/// corner of a cubic block whose face is `face` bytes of 8 B values.
fn hpcg_bytes(face: u64, offset: &[i32]) -> u64 {
    let n = ((face as f64 / 8.0).sqrt().round() as u64).max(1);
    match offset.iter().filter(|&&o| o != 0).count() {
        1 => face,
        2 => (face / n).max(8),
        _ => 8,
    }
}

/// HPCG: 27-point halo on a non-periodic 3D grid (params px, py, pz),
/// compute, then `dot_products` (default 3) 8 B allreduces per iteration.
pub fn hpcg(spec: &Spec) -> Result<Program> {
    let dots = spec.param_u32("dot_products", 3)?;
    let grid = grid_from_params(spec, &["px", "py", "pz"], false)?;
    let stencil = grid.stencil();
    let mut p = Program::new(spec.ranks);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        for _ in 0..spec.iterations {
            exchange(ops, &grid, r as u32, &stencil, |o| hpcg_bytes(spec.bytes, o));
            compute(ops, spec.compute_ns);
            ops.extend((0..dots).map(|_| GLOBAL_SUM));
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// One LAMMPS swap along `offset`: receive from the neighbour behind,
/// send to the one ahead, wait.
fn swap(ops: &mut Vec<Op>, grid: &Grid, r: u32, offset: &[i32], bytes: u64) {
    let back: Vec<i32> = offset.iter().map(|o| -o).collect();
    let tag = direction_tag(offset);
    let from = grid.neighbour(r, &back);
    if let Some(n) = from {
        ops.push(Op::Irecv { comm: 0, peer: n as i32, tag, bytes, req: 0 });
    }
    if let Some(n) = grid.neighbour(r, offset) {
        ops.push(Op::Send { comm: 0, peer: n as i32, tag, bytes });
    }
    if from.is_some() {
        ops.push(Op::Wait { reqs: vec![0] });
    }
}

/// LAMMPS: six swaps on a periodic 3D grid (params px, py, pz), compute,
/// then an 8 B allreduce per iteration.
pub fn lammps(spec: &Spec) -> Result<Program> {
    let grid = grid_from_params(spec, &["px", "py", "pz"], true)?;
    let faces = grid.faces();
    let mut p = Program::new(spec.ranks);
    for (r, ops) in p.ops.iter_mut().enumerate() {
        for _ in 0..spec.iterations {
            for o in &faces {
                swap(ops, &grid, r as u32, o, spec.bytes);
            }
            compute(ops, spec.compute_ns);
            ops.push(GLOBAL_SUM);
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// FFT: ranks row by row on a prow x pcol grid (params prow, pcol);
/// communicators 1..=prow are the rows, the next pcol the columns. Per
/// iteration: compute, row alltoall, compute, column alltoall, compute
/// (`compute_ns` split in three).
pub fn fft(spec: &Spec) -> Result<Program> {
    let grid = grid_from_params(spec, &["pcol", "prow"], false)?;
    let (pcol, prow) = (grid.dims[0], grid.dims[1]);
    let mut p = Program::new(spec.ranks);
    p.comms.extend((0..prow).map(|i| (0..pcol).map(|j| i * pcol + j).collect()));
    p.comms.extend((0..pcol).map(|j| (0..prow).map(|i| i * pcol + j).collect()));
    let third = spec.compute_ns / 3.0;
    for (r, ops) in p.ops.iter_mut().enumerate() {
        let r = r as u32;
        let (row, column) = (1 + r / pcol, 1 + prow + r % pcol);
        for _ in 0..spec.iterations {
            for comm in [row, column] {
                compute(ops, third);
                ops.push(Op::Coll { kind: Collective::Alltoall, comm, bytes: spec.bytes, root: 0, counts: None, req: None });
            }
            compute(ops, third);
            ops.push(Op::IterationEnd);
        }
    }
    Ok(p)
}

/// Resnet-proxy: `buckets` (default 4) compute chunks, each followed by a
/// nonblocking allreduce of its share of `bytes`; wait for all per iteration.
pub fn resnet(spec: &Spec) -> Result<Program> {
    let buckets = spec.param_u32("buckets", 4)?;
    if buckets == 0 {
        return Err(ConfigError::new(format!("{}.params.buckets", spec.field), "must be at least 1"));
    }
    let share = spec.bytes / buckets as u64;
    let mut p = Program::new(spec.ranks);
    for ops in p.ops.iter_mut() {
        for _ in 0..spec.iterations {
            for b in 0..buckets {
                compute(ops, spec.compute_ns / buckets as f64);
                // The last bucket takes what the division leaves over.
                let bytes = if b + 1 == buckets { spec.bytes - share * (buckets as u64 - 1) } else { share };
                ops.push(Op::Coll { kind: Collective::Allreduce, comm: 0, bytes, root: 0, counts: None, req: Some(b) });
            }
            ops.push(Op::Wait { reqs: (0..buckets).collect() });
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
        check::spec(params, ranks, 2048, 2, 900.0, 1)
    }


    fn count(ops: &[Op], f: impl Fn(&Op) -> bool) -> usize {
        ops.iter().filter(|o| f(o)).count()
    }

    const WORKLOADS: [(&str, fn(&Spec) -> Result<Program>); 5] = [("milc", milc), ("hpcg", hpcg), ("lammps", lammps), ("fft", fft), ("resnet", resnet)];

    #[test]
    fn every_proxy_is_consistent_on_several_rank_counts() {
        let none = params(serde_json::json!({}));
        for (name, generate) in WORKLOADS {
            for ranks in [1, 2, 6, 7, 8, 12, 16, 27] {
                let p = generate(&spec(&none, ranks)).unwrap_or_else(|e| panic!("{name} on {ranks}: {e}"));
                consistent(&p);
            }
        }
    }

    #[test]
    fn milc_talks_to_8_neighbours_then_reduces() {
        let m = params(serde_json::json!({"cg_allreduces": 5}));
        let p = milc(&spec(&m, 81)).unwrap(); // 3 x 3 x 3 x 3
        assert_eq!(count(&p.ops[40], |o| matches!(o, Op::Isend { .. })), 2 * 8);
        assert_eq!(count(&p.ops[40], |o| matches!(o, Op::Coll { kind: Collective::Allreduce, bytes: 8, .. })), 2 * 5);
    }

    #[test]
    fn hpcg_interior_rank_has_26_neighbours_with_face_edge_corner_sizes() {
        let none = params(serde_json::json!({}));
        let p = hpcg(&spec(&none, 27)).unwrap();
        let centre = &p.ops[13];
        let sizes = |b: u64| count(centre, |o| matches!(o, Op::Isend { bytes, .. } if *bytes == b)) / 2;
        // 2048 B faces: a 16 x 16 face of doubles, so edges of 16 doubles.
        assert_eq!((sizes(2048), sizes(128), sizes(8)), (6, 12, 8));
        assert_eq!(count(&p.ops[0], |o| matches!(o, Op::Isend { .. })) / 2, 7);
        assert_eq!(count(centre, |o| matches!(o, Op::Coll { .. })), 2 * 3);
    }

    #[test]
    fn lammps_swaps_one_direction_at_a_time() {
        let none = params(serde_json::json!({}));
        let p = lammps(&spec(&none, 27)).unwrap();
        assert_eq!(count(&p.ops[0], |o| matches!(o, Op::Send { .. })), 2 * 6);
        assert_eq!(count(&p.ops[0], |o| matches!(o, Op::Wait { .. })), 2 * 6);
    }

    #[test]
    fn fft_builds_row_and_column_communicators() {
        let none = params(serde_json::json!({}));
        let p = fft(&spec(&none, 12)).unwrap(); // 3 rows of 4
        assert_eq!(p.comms.len(), 1 + 3 + 4);
        assert_eq!(p.comms[2], vec![4, 5, 6, 7]);
        assert_eq!(p.comms[1 + 3 + 1], vec![1, 5, 9]);
        let comms: Vec<u32> = p.ops[5].iter().filter_map(|o| if let Op::Coll { comm, .. } = o { Some(*comm) } else { None }).collect();
        assert_eq!(comms, vec![2, 5, 2, 5]);
        let m = params(serde_json::json!({"prow": 5}));
        assert_eq!(fft(&spec(&m, 12)).unwrap_err().field, "job[0].params.prow");
    }

    #[test]
    fn resnet_overlaps_bucket_allreduces_with_compute() {
        let m = params(serde_json::json!({"buckets": 3}));
        let mut s = spec(&m, 4);
        s.bytes = 1000;
        let p = resnet(&s).unwrap();
        let first: Vec<&Op> = p.ops[0].iter().take_while(|o| !matches!(o, Op::IterationEnd)).collect();
        let total: u64 = first.iter().map(|o| if let Op::Coll { bytes, req: Some(_), .. } = o { *bytes } else { 0 }).sum();
        assert_eq!(total, 1000);
        assert!(matches!(first[0], Op::Compute { .. }) && matches!(first[1], Op::Coll { req: Some(0), .. }) && matches!(first[2], Op::Compute { .. }));
        assert_eq!(first.last(), Some(&&Op::Wait { reqs: vec![0, 1, 2] }));
    }
}
