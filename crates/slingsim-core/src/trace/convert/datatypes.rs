//! Sizes of one rank's datatypes, to turn element counts into bytes.
//!
//! Predefined datatypes take their size from the trace's own table (a
//! Blue Gene/P `MPI_LONG` is 4 bytes, an x86-64 one 8). Derived datatypes
//! get theirs from the constructor calls the rank made (the size of a
//! datatype is the bytes of data it holds, gaps excluded), or from an
//! `MPI_Type_size` call reporting it.

use std::collections::HashMap;

use crate::trace::dumpi::{Call, Datatype};

/// One rank's datatype sizes.
#[derive(Clone, Debug, Default)]
pub struct DatatypeSizes {
    derived: HashMap<u16, u64>,
}

impl DatatypeSizes {
    /// Size in bytes of `d`, if known.
    pub fn size(&self, d: Datatype) -> Option<u64> {
        self.derived.get(&d.id).copied().or(d.size.map(u64::from))
    }

    /// Learns the size of the datatype a constructor call makes; false
    /// when `call` makes no datatype.
    pub fn learn(&mut self, call: &Call) -> bool {
        let made = match call.name {
            "MPI_Type_contiguous" => self.times(call, "oldtype", int(call, "count")),
            "MPI_Type_vector" | "MPI_Type_hvector" | "MPI_Type_create_hvector" => {
                self.times(call, "oldtype", int(call, "count") * int(call, "blocklength"))
            }
            "MPI_Type_indexed" | "MPI_Type_hindexed" => self.times(call, "oldtype", sum(call, "lengths")),
            "MPI_Type_create_hindexed" => self.times(call, "oldtype", sum(call, "blocklengths")),
            "MPI_Type_create_indexed_block" => self.times(call, "oldtype", int(call, "count") * int(call, "blocklength")),
            "MPI_Type_struct" => self.structure(call, "lengths"),
            "MPI_Type_create_struct" => self.structure(call, "blocklengths"),
            "MPI_Type_create_subarray" => {
                let elements = call.ints("subsizes").map(|s| s.iter().map(|&v| v.max(0) as u64).product()).unwrap_or(0);
                self.times(call, "oldtype", elements)
            }
            "MPI_Type_dup" | "MPI_Type_create_resized" => self.times(call, "oldtype", 1),
            "MPI_Type_size" => {
                if let (Some(d), Some(size)) = (call.datatype("datatype"), call.int("size")) {
                    if size >= 0 && d.size.is_none() {
                        self.derived.insert(d.id, size as u64);
                    }
                }
                return true;
            }
            "MPI_Type_create_darray" => None,
            _ => return call.name.starts_with("MPI_Type_"),
        };
        if let Some(new) = call.datatype("newtype") {
            match made {
                Some(size) => self.derived.insert(new.id, size),
                None => self.derived.remove(&new.id),
            };
        }
        true
    }

    fn times(&self, call: &Call, old: &str, elements: u64) -> Option<u64> {
        Some(elements * self.size(call.datatype(old)?)?)
    }

    fn structure(&self, call: &Call, lengths: &str) -> Option<u64> {
        let lengths = call.ints(lengths)?;
        let types = call.datatypes("oldtypes")?;
        lengths.iter().zip(types).map(|(&n, &t)| Some(n.max(0) as u64 * self.size(t)?)).sum()
    }
}

fn int(call: &Call, name: &str) -> u64 {
    call.int(name).unwrap_or(0).max(0) as u64
}

fn sum(call: &Call, name: &str) -> u64 {
    call.ints(name).map(|v| v.iter().map(|&n| n.max(0) as u64).sum()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::dumpi::Arg;

    fn call(name: &'static str, args: Vec<(&'static str, Arg)>) -> Call {
        Call { id: 0, name, offset: 0, thread: None, cpu: None, wall: None, args }
    }

    fn dt(id: u16, size: Option<u32>) -> Arg {
        Arg::Datatype(Datatype { id, size })
    }

    #[test]
    fn derived_sizes_follow_their_constructors() {
        let mut t = DatatypeSizes::default();
        // A face of 16 doubles as a vector, then a struct of two of them and an int.
        t.learn(&call(
            "MPI_Type_vector",
            vec![("count", Arg::Int(16)), ("blocklength", Arg::Int(1)), ("stride", Arg::Int(16)), ("oldtype", dt(14, Some(8))), ("newtype", dt(28, None))],
        ));
        assert_eq!(t.size(Datatype { id: 28, size: None }), Some(128));
        t.learn(&call(
            "MPI_Type_struct",
            vec![
                ("count", Arg::Int(2)),
                ("lengths", Arg::Ints(vec![2, 1])),
                ("indices", Arg::Ints(vec![0, 4096])),
                ("oldtypes", Arg::Datatypes(vec![Datatype { id: 28, size: None }, Datatype { id: 9, size: Some(4) }])),
                ("newtype", dt(29, None)),
            ],
        ));
        assert_eq!(t.size(Datatype { id: 29, size: None }), Some(260));
        assert_eq!(t.size(Datatype { id: 30, size: None }), None);
        t.learn(&call("MPI_Type_size", vec![("datatype", dt(30, None)), ("size", Arg::Int(12))]));
        assert_eq!(t.size(Datatype { id: 30, size: None }), Some(12));
    }
}
