//! Communicator rebuilding on small made-up traces.

use super::*;
use crate::trace::dumpi::sections::{Footer, Header};
use crate::trace::dumpi::{Arg, Meta, RankTrace};

fn call(name: &'static str, args: Vec<(&'static str, Arg)>) -> Call {
    Call { id: 0, name, offset: 0, thread: None, cpu: None, wall: None, args }
}

fn split(parent: u16, color: i32, key: i32, new: u16) -> Call {
    call("MPI_Comm_split", vec![("oldcomm", Arg::Comm(parent)), ("color", Arg::Int(color)), ("key", Arg::Int(key)), ("newcomm", Arg::Comm(new))])
}

fn trace(ranks: Vec<Vec<Call>>) -> DumpiTrace {
    let meta = Meta { path: "t.meta".into(), entries: vec![], ranks: ranks.len() as u32, prefix: "t".into() };
    let ranks = ranks
        .into_iter()
        .map(|calls| RankTrace { path: "t.bin".into(), header: Header::default(), footer: Footer::default(), datatype_sizes: vec![], calls })
        .collect();
    DumpiTrace { meta, ranks }
}

#[test]
fn split_orders_by_key_then_parent_rank_and_numbers_by_lowest_member() {
    // Four ranks: colour = rank % 2, keys reversed; rank 3 opts out (colour -1) of a second split.
    let t = trace(
        (0..4)
            .map(|r| vec![split(COMM_WORLD, r % 2, 10 - r, 4), split(4, if r == 3 { -1 } else { 0 }, 0, 5)])
            .collect(),
    );
    let table = rebuild(&t);
    assert_eq!(table.members.len(), 1 + 4 + 2 + 2);
    assert_eq!(table.members[5], [2, 0]);
    assert_eq!(table.members[6], [3, 1]);
    // The second splits: on [2, 0] one colour; on [3, 1] only rank 1 stays.
    assert_eq!(table.members[7], [2, 0]);
    assert_eq!(table.members[8], [1]);
    assert_eq!(table.made[3][&1], None);
    assert_eq!(table.made[0][&0], Some(5));
    assert!(table.warnings.lines().is_empty());
}

#[test]
fn comm_create_follows_groups_and_cart_sub_follows_the_grid() {
    let mut ranks = Vec::new();
    for _ in 0..4 {
        ranks.push(vec![
            call("MPI_Comm_group", vec![("comm", Arg::Comm(COMM_WORLD)), ("group", Arg::Group(3))]),
            call("MPI_Group_incl", vec![("group", Arg::Group(3)), ("count", Arg::Int(2)), ("ranks", Arg::Ints(vec![3, 1])), ("newgroup", Arg::Group(4))]),
            call("MPI_Comm_create", vec![("oldcomm", Arg::Comm(COMM_WORLD)), ("group", Arg::Group(4)), ("newcomm", Arg::Comm(4))]),
            call(
                "MPI_Cart_create",
                vec![
                    ("oldcomm", Arg::Comm(COMM_WORLD)),
                    ("ndim", Arg::Int(2)),
                    ("dims", Arg::Ints(vec![2, 2])),
                    ("periods", Arg::Ints(vec![0, 0])),
                    ("reorder", Arg::Int(0)),
                    ("newcomm", Arg::Comm(5)),
                ],
            ),
            call("MPI_Cart_sub", vec![("ndim", Arg::Int(2)), ("oldcomm", Arg::Comm(5)), ("remain_dims", Arg::Ints(vec![0, 1])), ("newcomm", Arg::Comm(6))]),
        ]);
    }
    let table = rebuild(&trace(ranks));
    assert_eq!(table.members[5], [3, 1]);
    assert_eq!(table.made[0][&2], None);
    assert_eq!(table.members[6], [0, 1, 2, 3]);
    // Rows of the 2x2 grid.
    assert_eq!(table.members[7], [0, 1]);
    assert_eq!(table.members[8], [2, 3]);
}

#[test]
fn a_creation_some_member_never_joins_is_rebuilt_and_warned_about() {
    let t = trace(vec![vec![call("MPI_Comm_dup", vec![("oldcomm", Arg::Comm(COMM_WORLD)), ("newcomm", Arg::Comm(4))])], vec![]]);
    let table = rebuild(&t);
    assert_eq!(table.members[3], [0]);
    assert_eq!(table.warnings.lines().len(), 1);
    // A creation on an unknown parent handle is warned about too.
    let t = trace(vec![vec![split(9, 0, 0, 4)]]);
    let table = rebuild(&t);
    assert_eq!(table.members.len(), 2);
    assert!(table.warnings.lines()[0].contains("not rebuilt"));
}
