//! Collective calls turned into `coll` operations.
//!
//! `bytes` follows [`crate::mpi::Op::Coll`]: the buffer for bcast, reduce
//! and allreduce; each rank's contribution for (all)gather; what each rank
//! receives for scatter and reduce_scatter; what goes to each rank for
//! alltoall. The v-variants add `counts`, bytes per communicator rank, where
//! the rank knows them (gatherv's receive counts only at the root). MPI_Scan
//! and MPI_Exscan, which the format lacks, are replayed as an allreduce of
//! the same buffer (counted in the warnings).

use super::rank::RankConverter;
use crate::mpi::{Collective, Op};
use crate::trace::dumpi::Call;

/// Bytes each rank contributes to the allgather that stands for creating a
/// communicator: MPICH's MPI_Comm_split exchanges every rank's colour and
/// key (two ints) on the parent; the other creations (dup, create,
/// Cartesian and graph communicators) agree on a context id, a collective
/// of the same small size. One cost for all keeps the DUMPI and OTF2
/// readers giving the same program.
pub const CREATION_BYTES: u64 = 8;

/// The operation standing for a communicator creation on `parent`.
pub fn creation_cost(parent: u32) -> Op {
    Op::Coll { kind: Collective::Allgather, comm: parent, bytes: CREATION_BYTES, root: 0, counts: None, req: None }
}

/// Calls that become a `coll` operation.
pub fn is_collective(name: &str) -> bool {
    matches!(
        name,
        "MPI_Barrier"
            | "MPI_Bcast"
            | "MPI_Reduce"
            | "MPI_Allreduce"
            | "MPI_Scan"
            | "MPI_Exscan"
            | "MPI_Allgather"
            | "MPI_Allgatherv"
            | "MPI_Alltoall"
            | "MPI_Alltoallv"
            | "MPI_Alltoallw"
            | "MPI_Gather"
            | "MPI_Gatherv"
            | "MPI_Scatter"
            | "MPI_Scatterv"
            | "MPI_Reduce_scatter"
    )
}

impl RankConverter<'_> {
    /// A collective call as one `coll` operation.
    pub(super) fn collective(&mut self, call: &Call) {
        let Some(comm) = self.comm_id(call, "comm") else { return };
        let n = self.comm_size(comm);
        let int = |name: &str| call.int(name).unwrap_or(0);
        let (kind, bytes, counts) = match call.name {
            "MPI_Barrier" => (Collective::Barrier, 0, None),
            "MPI_Bcast" => (Collective::Bcast, self.bytes(call, int("count"), "datatype"), None),
            "MPI_Reduce" => (Collective::Reduce, self.bytes(call, int("count"), "datatype"), None),
            "MPI_Allreduce" => (Collective::Allreduce, self.bytes(call, int("count"), "datatype"), None),
            "MPI_Scan" | "MPI_Exscan" => {
                self.warnings.add("{n} MPI_Scan/MPI_Exscan calls replayed as an allreduce of the same buffer");
                (Collective::Allreduce, self.bytes(call, int("count"), "datatype"), None)
            }
            "MPI_Allgather" => (Collective::Allgather, self.bytes(call, int("sendcount"), "sendtype"), None),
            "MPI_Alltoall" => (Collective::Alltoall, self.bytes(call, int("sendcount"), "sendtype"), None),
            "MPI_Gather" => (Collective::Gather, self.bytes(call, int("sendcount"), "sendtype"), None),
            "MPI_Scatter" => (Collective::Scatter, self.bytes(call, int("recvcount"), "recvtype"), None),
            "MPI_Gatherv" => {
                let counts = self.counts(call, "recvcounts", "recvtype");
                (Collective::Gather, self.bytes(call, int("sendcount"), "sendtype"), counts)
            }
            "MPI_Scatterv" => {
                let counts = self.counts(call, "sendcounts", "sendtype");
                (Collective::Scatter, self.bytes(call, int("recvcount"), "recvtype"), counts)
            }
            "MPI_Allgatherv" => {
                let counts = self.counts(call, "recvcounts", "recvtype");
                (Collective::Allgather, self.bytes(call, int("sendcount"), "sendtype"), counts)
            }
            "MPI_Alltoallv" => {
                let counts = self.counts(call, "sendcounts", "sendtype");
                (Collective::Alltoall, mean(&counts), counts)
            }
            "MPI_Alltoallw" => {
                let counts = self.typed_counts(call);
                (Collective::Alltoall, mean(&counts), counts)
            }
            _ => {
                // MPI_Reduce_scatter: each rank receives its own block.
                let counts = self.counts(call, "recvcounts", "datatype");
                let me = self.table.rank_in(comm, self.rank).unwrap_or(0);
                let own = counts.as_ref().and_then(|c| c.get(me).copied()).unwrap_or(0);
                (Collective::ReduceScatter, own, counts)
            }
        };
        let counts = match counts {
            Some(c) if c.len() != n => {
                self.warnings.add("{n} v-collectives whose counts do not match their communicator's size, replayed without counts");
                None
            }
            other => other,
        };
        let root = call.int("root").unwrap_or(0);
        if root < 0 || root as usize >= n {
            self.warnings.add("{n} rooted collectives with a root outside their communicator (inter-communicator MPI_ROOT), dropped");
            return;
        }
        self.ops.push(Op::Coll { kind, comm, bytes, root: root as u32, counts, req: None });
    }

    /// Per-rank byte counts from count array `field` of datatype `datatype`.
    fn counts(&mut self, call: &Call, field: &str, datatype: &str) -> Option<Vec<u64>> {
        let counts = call.ints(field)?.to_vec();
        Some(counts.into_iter().map(|c| self.bytes(call, c, datatype)).collect())
    }

    /// MPI_Alltoallw's per-rank counts, each with its own datatype.
    fn typed_counts(&mut self, call: &Call) -> Option<Vec<u64>> {
        let counts = call.ints("sendcounts")?;
        let types = call.datatypes("sendtypes")?;
        let sizes: Vec<Option<u64>> = types.iter().map(|&t| self.types.size(t)).collect();
        if sizes.iter().any(Option::is_none) {
            self.warnings.add("{n} counts of a datatype of unknown size, taken as 0 bytes");
        }
        Some(counts.iter().zip(sizes).map(|(&c, s)| c.max(0) as u64 * s.unwrap_or(0)).collect())
    }
}

fn mean(counts: &Option<Vec<u64>>) -> u64 {
    match counts {
        Some(c) if !c.is_empty() => c.iter().sum::<u64>() / c.len() as u64,
        _ => 0,
    }
}
