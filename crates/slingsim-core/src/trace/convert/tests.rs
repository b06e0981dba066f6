//! The sample traces' facts (/work/shared/traces/README.md) through the
//! converter: message matching, communicators, warnings.

use crate::mpi::{Collective, Op};
use crate::trace::matching::{collective_mismatches, match_messages};
use crate::trace::{read_dumpi_trace, sample_trace, Trace};

fn read(name: &str) -> Trace {
    read_dumpi_trace(&sample_trace(name)).unwrap()
}

fn count(ops: &[Op], pred: impl Fn(&Op) -> bool) -> usize {
    ops.iter().filter(|op| pred(op)).count()
}

#[test]
fn stencil_np8_matches_488_messages_on_12_communicators() {
    let t = read("dumpi-stencil3d-np8");
    let p = &t.program;
    let m = match_messages(p);
    assert_eq!((m.matched, m.unmatched()), (488, 0));
    // World, 8 x MPI_COMM_SELF, the Cartesian grid, a split per z-plane.
    assert_eq!(p.comms.len(), 12);
    assert_eq!(p.comms[9], (0..8).collect::<Vec<u32>>());
    assert_eq!(p.comms[10], [0, 2, 4, 6]);
    assert_eq!(p.comms[11], [1, 3, 5, 7]);
    assert!(collective_mismatches(p).is_empty(), "{:?}", collective_mismatches(p));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    for ops in &p.ops {
        assert_eq!(count(ops, |o| matches!(o, Op::Isend { comm: 9, bytes: 2048, .. })), 60);
        assert_eq!(count(ops, |o| matches!(o, Op::Irecv { comm: 9, bytes: 2048, .. })), 60);
        assert_eq!(count(ops, |o| matches!(o, Op::Wait { reqs } if reqs.len() == 12)), 10);
        assert_eq!(count(ops, |o| matches!(o, Op::Coll { kind: Collective::Allreduce, comm: 9, bytes: 8, .. })), 10);
        // One split per rank, on the grid: its allgather of colour and key.
        assert_eq!(count(ops, |o| matches!(o, Op::Coll { kind: Collective::Allgather, comm: 9, bytes: 8, .. })), 1);
        assert!(ops.iter().all(|o| !matches!(o, Op::Compute { ns } if *ns <= 0.0)));
    }
    assert_eq!(t.calls["MPI_Isend"], 480);
    assert_eq!(t.calls["MPI_Cart_create"], 8);
}

#[test]
fn stencil_np16_matches_4816_messages_on_20_communicators() {
    let t = read("dumpi-stencil3d-np16");
    let m = match_messages(&t.program);
    assert_eq!((m.matched, m.unmatched()), (4816, 0));
    assert_eq!(t.program.comms.len(), 20);
    assert!(collective_mismatches(&t.program).is_empty());
    assert!(t.program.ops.iter().flatten().any(|o| matches!(o, Op::Compute { .. })));
}

#[test]
#[ignore = "reads SST's test trace in ../shared/traces (scripts/test runs it when present)"]
fn sst_test_trace_is_a_ring_with_a_barrier_and_an_allreduce() {
    let t = read("dumpi-sstdumpi-testtrace");
    let p = &t.program;
    let m = match_messages(p);
    assert_eq!((m.matched, m.unmatched()), (4, 0));
    let rank0: Vec<&Op> = p.ops[0].iter().filter(|o| !matches!(o, Op::Compute { .. })).collect();
    let coll = |kind, bytes| Op::Coll { kind, comm: 0, bytes, root: 0, counts: None, req: None };
    assert_eq!(
        rank0,
        [
            &coll(Collective::Barrier, 0),
            &Op::Isend { comm: 0, peer: 1, tag: 1337, bytes: 4, req: 0 },
            &Op::Recv { comm: 0, peer: 3, tag: 1337, bytes: 4 },
            &Op::Wait { reqs: vec![0] },
            &coll(Collective::Allreduce, 4),
        ]
    );
    // Gaps from the oracle's times: Comm_size returns at .737705, Barrier enters at .737712.
    let gaps: Vec<f64> = p.ops[0].iter().filter_map(|o| if let Op::Compute { ns } = o { Some(*ns) } else { None }).collect();
    assert_eq!(gaps[2], 7000.0);
}

#[test]
fn nbc_waits_on_unrecorded_requests_are_warned_about() {
    let t = read("dumpi-nbc-np4");
    let p = &t.program;
    assert!(p.ops.iter().flatten().all(|o| matches!(o, Op::Compute { .. })));
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    assert!(p.warnings[0].starts_with("8 completions of requests no recorded call opened"), "{}", p.warnings[0]);
    assert!(p.warnings[0].contains("nonblocking collectives"));
}

#[test]
#[ignore = "reads the BG/P trace in ../shared/traces (scripts/test runs it when present)"]
fn bgp_trace_rebuilds_its_comm_create_and_matches_every_message() {
    let t = read("dumpi-bgp-np7");
    let p = &t.program;
    // World, 7 selves, and the MPI_Comm_create of the whole world.
    assert_eq!(p.comms.len(), 9);
    assert_eq!(p.comms[8], (0..7).collect::<Vec<u32>>());
    let m = match_messages(p);
    assert_eq!((m.matched, m.unmatched()), (588, 0));
    assert!(collective_mismatches(p).is_empty());
    // Blue Gene/P's 8-byte doubles: 89 per message.
    assert!(p.ops[0].iter().any(|o| matches!(o, Op::Isend { comm: 8, bytes: 712, .. })));
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn every_single_byte_flip_converts_or_fails_cleanly() {
    // A damaged trace that still reads must convert without panicking.
    let dir = sample_trace("dumpi-stencil3d-np8");
    let mut trace = crate::trace::dumpi::read_dumpi(&dir).unwrap();
    let path = dir.join("dumpi-2026.11.22.02.43.02-0000.bin");
    let data = std::fs::read(&path).unwrap();
    for at in 16..data.len() {
        let mut bytes = data.clone();
        bytes[at] ^= 0x5a;
        if let Ok(rank) = crate::trace::dumpi::parse_rank_bytes(&path, &bytes) {
            trace.ranks[0] = rank;
            let t = super::to_program(&trace);
            let _ = match_messages(&t.program);
        }
    }
}
