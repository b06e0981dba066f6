//! The argument layout of each MPI call in a DUMPI record.
//!
//! A record carries its arguments back to back with no lengths or tags, so a
//! reader must know, per call, which fields follow and how wide each is. The
//! layouts below were worked out from the sample traces (hex against the
//! reference tool's text rendering) and from the tracer's documented field
//! order. Each layout is a line of `name:kind` items:
//!
//! | kind | bytes |
//! |---|---|
//! | `int` | i32 |
//! | `u8`, `op` | one byte (a reduction op, thread level, assertion...) |
//! | `type` | u16 datatype id (sizes from the file's datatype table) |
//! | `comm`, `group`, `handle` | u16 communicator, group, or other handle (window, info, file, errhandler, keyval) |
//! | `request` | u32 request handle |
//! | `long` | 64-bit integer |
//! | `status` | statuses: u32 count, then per status bytes, source (i32), cancelled, error (u8), tag (i32); only in records whose option mask says statuses were kept |
//! | `ints`, `requests`, `types`, `bytes`, `handles` | u32 count, then that many i32 / u32 / u16 / u8 / u16 |
//! | `text` | u32 length, then the characters |
//! | `argv` | i32 argc, then argc `text`s |
//! | `int_arrays` | u32 count, then that many `ints` |
//!
//! A `?` before a name marks a field recorded only at the root of a rooted
//! collective (the rank whose `commrank` equals `root`). Calls missing here
//! (MPI_Comm_spawn*, MPI_Pcontrol, most MPI-IO calls) cannot be read past.

use std::collections::HashMap;
use std::sync::OnceLock;

/// How one argument is encoded (the kinds of the table above, in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    Int,
    Byte,
    Op,
    Datatype,
    Comm,
    Group,
    Handle,
    Request,
    Long,
    Statuses,
    Ints,
    Requests,
    Datatypes,
    Bytes,
    Handles,
    Text,
    Argv,
    IntArrays,
}

/// One argument of a call's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Argument name, as the reference tool prints it.
    pub name: &'static str,
    pub kind: FieldKind,
    /// Recorded only at the root of a rooted collective.
    pub root_only: bool,
}

/// The argument layout of the call named `name`, if known.
pub fn layout(name: &str) -> Option<&'static [Field]> {
    static TABLE: OnceLock<HashMap<&'static str, Vec<Field>>> = OnceLock::new();
    TABLE
        .get_or_init(|| LAYOUTS.iter().map(|(call, spec)| (*call, parse_spec(spec))).collect())
        .get(name)
        .map(Vec::as_slice)
}

fn parse_spec(spec: &'static str) -> Vec<Field> {
    spec.split_whitespace()
        .map(|item| {
            let (name, kind) = item.split_once(':').expect("layout items are name:kind");
            let (name, root_only) = match name.strip_prefix('?') {
                Some(n) => (n, true),
                None => (name, false),
            };
            Field { name, kind: parse_kind(kind), root_only }
        })
        .collect()
}

fn parse_kind(kind: &str) -> FieldKind {
    match kind {
        "int" => FieldKind::Int,
        "u8" => FieldKind::Byte,
        "op" => FieldKind::Op,
        "type" => FieldKind::Datatype,
        "comm" => FieldKind::Comm,
        "group" => FieldKind::Group,
        "handle" => FieldKind::Handle,
        "request" => FieldKind::Request,
        "long" => FieldKind::Long,
        "status" => FieldKind::Statuses,
        "ints" => FieldKind::Ints,
        "requests" => FieldKind::Requests,
        "types" => FieldKind::Datatypes,
        "bytes" => FieldKind::Bytes,
        "handles" => FieldKind::Handles,
        "text" => FieldKind::Text,
        "argv" => FieldKind::Argv,
        "int_arrays" => FieldKind::IntArrays,
        other => panic!("unknown layout kind {other}"),
    }
}

const SEND: &str = "count:int datatype:type dest:int tag:int comm:comm";
const ISEND: &str = "count:int datatype:type dest:int tag:int comm:comm request:request";
const IRECV: &str = "count:int datatype:type source:int tag:int comm:comm request:request";
const SOME: &str = "count:int requests:requests outcount:int indices:ints statuses:status";
const TYPE_VECTOR: &str = "count:int blocklength:int stride:int oldtype:type newtype:type";
const TYPE_INDEXED: &str = "count:int lengths:ints indices:ints oldtype:type newtype:type";
const TYPE_STRUCT: &str = "count:int lengths:ints indices:ints oldtypes:types newtype:type";
const GROUP_SET: &str = "group1:group group2:group newgroup:group";
const GROUP_PICK: &str = "group:group count:int ranks:ints newgroup:group";
const GROUP_RANGE: &str = "group:group count:int ranges:int_arrays newgroup:group";
const COMM_ATTACH: &str = "portname:text info:handle root:int oldcomm:comm newcomm:comm";
const NAME_SERVICE: &str = "servicename:text info:handle portname:text";
const RMA: &str = "origincount:int origintype:type targetrank:int targetdisp:int targetcount:int targettype:type win:handle";
const EXTENT: &str = "datatype:type lb:int extent:int";

/// Call name -> layout spec.
const LAYOUTS: &[(&str, &str)] = &[
    ("MPI_Send", SEND),
    ("MPI_Recv", "count:int datatype:type source:int tag:int comm:comm status:status"),
    ("MPI_Get_count", "status:status datatype:type count:int"),
    ("MPI_Bsend", SEND),
    ("MPI_Ssend", SEND),
    ("MPI_Rsend", SEND),
    ("MPI_Buffer_attach", "size:int"),
    ("MPI_Buffer_detach", "size:int"),
    ("MPI_Isend", ISEND),
    ("MPI_Ibsend", ISEND),
    ("MPI_Issend", ISEND),
    ("MPI_Irsend", ISEND),
    ("MPI_Irecv", IRECV),
    ("MPI_Wait", "request:request status:status"),
    ("MPI_Test", "request:request flag:int status:status"),
    ("MPI_Request_free", "request:request"),
    ("MPI_Waitany", "count:int requests:requests index:int status:status"),
    ("MPI_Testany", "count:int requests:requests index:int flag:int status:status"),
    ("MPI_Waitall", "count:int requests:requests statuses:status"),
    ("MPI_Testall", "count:int requests:requests flag:int statuses:status"),
    ("MPI_Waitsome", SOME),
    ("MPI_Testsome", SOME),
    ("MPI_Iprobe", "source:int tag:int comm:comm flag:int status:status"),
    ("MPI_Probe", "source:int tag:int comm:comm status:status"),
    ("MPI_Cancel", "request:request"),
    ("MPI_Test_cancelled", "status:status cancelled:int"),
    ("MPI_Send_init", ISEND),
    ("MPI_Bsend_init", ISEND),
    ("MPI_Ssend_init", ISEND),
    ("MPI_Rsend_init", ISEND),
    ("MPI_Recv_init", IRECV),
    ("MPI_Start", "request:request"),
    ("MPI_Startall", "count:int requests:requests"),
    (
        "MPI_Sendrecv",
        "sendcount:int sendtype:type dest:int sendtag:int recvcount:int recvtype:type source:int recvtag:int comm:comm status:status",
    ),
    ("MPI_Sendrecv_replace", "count:int datatype:type dest:int sendtag:int source:int recvtag:int comm:comm status:status"),
    ("MPI_Type_contiguous", "count:int oldtype:type newtype:type"),
    ("MPI_Type_vector", TYPE_VECTOR),
    ("MPI_Type_hvector", TYPE_VECTOR),
    ("MPI_Type_indexed", TYPE_INDEXED),
    ("MPI_Type_hindexed", TYPE_INDEXED),
    ("MPI_Type_struct", TYPE_STRUCT),
    ("MPI_Address", "address:int"),
    ("MPI_Type_extent", "datatype:type extent:int"),
    ("MPI_Type_size", "datatype:type size:int"),
    ("MPI_Type_lb", "datatype:type lb:int"),
    ("MPI_Type_ub", "datatype:type ub:int"),
    ("MPI_Type_commit", "datatype:type"),
    ("MPI_Type_free", "datatype:type"),
    ("MPI_Get_elements", "status:status datatype:type elements:int"),
    ("MPI_Pack", "incount:int datatype:type outcount:int position_in:int position_out:int comm:comm"),
    ("MPI_Unpack", "incount:int position_in:int position_out:int outcount:int datatype:type comm:comm"),
    ("MPI_Pack_size", "incount:int datatype:type comm:comm size:int"),
    ("MPI_Barrier", "comm:comm"),
    ("MPI_Bcast", "count:int datatype:type root:int comm:comm"),
    ("MPI_Gather", "commrank:int sendcount:int sendtype:type root:int comm:comm ?recvcount:int ?recvtype:type"),
    (
        "MPI_Gatherv",
        "commrank:int commsize:int sendcount:int sendtype:type root:int comm:comm ?recvcounts:ints ?displs:ints recvtype:type",
    ),
    ("MPI_Scatter", "commrank:int recvcount:int recvtype:type root:int comm:comm ?sendcount:int ?sendtype:type"),
    (
        "MPI_Scatterv",
        "commrank:int commsize:int sendtype:type recvcount:int recvtype:type root:int comm:comm ?sendcounts:ints ?displs:ints",
    ),
    ("MPI_Allgather", "sendcount:int sendtype:type recvcount:int recvtype:type comm:comm"),
    ("MPI_Allgatherv", "commsize:int sendcount:int sendtype:type recvcounts:ints displs:ints recvtype:type comm:comm"),
    ("MPI_Alltoall", "sendcount:int sendtype:type recvcount:int recvtype:type comm:comm"),
    (
        "MPI_Alltoallv",
        "commsize:int sendcounts:ints senddispls:ints sendtype:type recvcounts:ints recvdispls:ints recvtype:type comm:comm",
    ),
    ("MPI_Reduce", "count:int datatype:type op:op root:int comm:comm"),
    ("MPI_Op_create", "commute:int op:op"),
    ("MPI_Op_free", "op:op"),
    ("MPI_Allreduce", "count:int datatype:type op:op comm:comm"),
    ("MPI_Reduce_scatter", "commsize:int recvcounts:ints datatype:type op:op comm:comm"),
    ("MPI_Scan", "count:int datatype:type op:op comm:comm"),
    ("MPI_Group_size", "group:group size:int"),
    ("MPI_Group_rank", "group:group rank:int"),
    ("MPI_Group_translate_ranks", "group1:group count:int ranks1:ints group2:group ranks2:ints"),
    ("MPI_Group_compare", "group1:group group2:group result:u8"),
    ("MPI_Comm_group", "comm:comm group:group"),
    ("MPI_Group_union", GROUP_SET),
    ("MPI_Group_intersection", GROUP_SET),
    ("MPI_Group_difference", GROUP_SET),
    ("MPI_Group_incl", GROUP_PICK),
    ("MPI_Group_excl", GROUP_PICK),
    ("MPI_Group_range_incl", GROUP_RANGE),
    ("MPI_Group_range_excl", GROUP_RANGE),
    ("MPI_Group_free", "group:group"),
    ("MPI_Comm_size", "comm:comm size:int"),
    ("MPI_Comm_rank", "comm:comm rank:int"),
    ("MPI_Comm_compare", "comm1:comm comm2:comm result:u8"),
    ("MPI_Comm_dup", "oldcomm:comm newcomm:comm"),
    ("MPI_Comm_create", "oldcomm:comm group:group newcomm:comm"),
    ("MPI_Comm_split", "oldcomm:comm color:int key:int newcomm:comm"),
    ("MPI_Comm_free", "comm:comm"),
    ("MPI_Comm_test_inter", "comm:comm inter:int"),
    ("MPI_Comm_remote_size", "comm:comm size:int"),
    ("MPI_Comm_remote_group", "comm:comm group:group"),
    ("MPI_Intercomm_create", "localcomm:comm localleader:int remotecomm:comm remoteleader:int tag:int newcomm:comm"),
    ("MPI_Intercomm_merge", "comm:comm high:int newcomm:comm"),
    ("MPI_Keyval_create", "key:handle"),
    ("MPI_Keyval_free", "key:handle"),
    ("MPI_Attr_put", "comm:comm key:int"),
    ("MPI_Attr_get", "comm:comm key:int flag:int"),
    ("MPI_Attr_delete", "comm:comm key:int"),
    ("MPI_Topo_test", "comm:comm topo:u8"),
    ("MPI_Cart_create", "oldcomm:comm ndim:int dims:ints periods:ints reorder:int newcomm:comm"),
    ("MPI_Dims_create", "nodes:int ndim:int dims_in:ints dims_out:ints"),
    ("MPI_Graph_create", "numedges:int oldcomm:comm nodes:int index:ints edges:ints reorder:int newcomm:comm"),
    ("MPI_Graphdims_get", "comm:comm nodes:int edges:int"),
    ("MPI_Graph_get", "totedges:int totnodes:int comm:comm maxindex:int maxedges:int index:ints edges:ints"),
    ("MPI_Cartdim_get", "comm:comm ndim:int"),
    ("MPI_Cart_get", "ndim:int comm:comm maxdims:int dims:ints periods:ints coords:ints"),
    ("MPI_Cart_rank", "ndim:int comm:comm coords:ints rank:int"),
    ("MPI_Cart_coords", "ndim:int comm:comm rank:int maxdims:int coords:ints"),
    ("MPI_Graph_neighbors_count", "comm:comm rank:int nneigh:int"),
    ("MPI_Graph_neighbors", "nneigh:int comm:comm rank:int maxneighbors:int neighbors:ints"),
    ("MPI_Cart_shift", "comm:comm direction:int displ:int source:int dest:int"),
    ("MPI_Cart_sub", "ndim:int oldcomm:comm remain_dims:ints newcomm:comm"),
    ("MPI_Cart_map", "comm:comm ndim:int dims:ints period:ints newrank:int"),
    ("MPI_Graph_map", "numedges:int comm:comm nodes:int index:ints edges:ints newrank:int"),
    ("MPI_Get_processor_name", "name:text resultlen:int"),
    ("MPI_Get_version", "version:int subversion:int"),
    ("MPI_Errhandler_create", "errhandler:handle"),
    ("MPI_Errhandler_set", "comm:comm errhandler:handle"),
    ("MPI_Errhandler_get", "comm:comm errhandler:handle"),
    ("MPI_Errhandler_free", "errhandler:handle"),
    ("MPI_Error_string", "errorcode:int errorstring:text resultlen:int"),
    ("MPI_Error_class", "errorcode:int errorclass:int"),
    ("MPI_Wtime", ""),
    ("MPI_Wtick", ""),
    ("MPI_Init", "argv:argv"),
    ("MPI_Finalize", ""),
    ("MPI_Initialized", "result:int"),
    ("MPI_Abort", "comm:comm errorcode:int"),
    ("MPI_Close_port", "portname:text"),
    ("MPI_Comm_accept", COMM_ATTACH),
    ("MPI_Comm_connect", COMM_ATTACH),
    ("MPI_Comm_disconnect", "comm:comm"),
    ("MPI_Comm_get_parent", "parent:comm"),
    ("MPI_Comm_join", "fd:int comm:comm"),
    ("MPI_Lookup_name", NAME_SERVICE),
    ("MPI_Open_port", "info:handle portname:text"),
    ("MPI_Publish_name", NAME_SERVICE),
    ("MPI_Unpublish_name", NAME_SERVICE),
    (
        "MPI_Accumulate",
        "origincount:int origintype:type targetrank:int targetdisp:int targetcount:int targettype:type op:op win:handle",
    ),
    ("MPI_Get", RMA),
    ("MPI_Put", RMA),
    ("MPI_Win_complete", "win:handle"),
    ("MPI_Win_create", "size:int dispunit:int info:handle comm:comm win:handle"),
    ("MPI_Win_fence", "assertion:u8 win:handle"),
    ("MPI_Win_free", "win:handle"),
    ("MPI_Win_get_group", "win:handle group:group"),
    ("MPI_Win_lock", "locktype:u8 winrank:int assertion:u8 win:handle"),
    ("MPI_Win_post", "group:group assertion:u8 win:handle"),
    ("MPI_Win_start", "group:group assertion:u8 win:handle"),
    ("MPI_Win_test", "win:handle flag:int"),
    ("MPI_Win_unlock", "winrank:int win:handle"),
    ("MPI_Win_wait", "win:handle"),
    (
        "MPI_Alltoallw",
        "commsize:int sendcounts:ints senddispls:ints sendtypes:types recvcounts:ints recvdispls:ints recvtypes:types comm:comm",
    ),
    ("MPI_Exscan", "count:int datatype:type op:op comm:comm"),
    ("MPI_Add_error_class", "errorclass:int"),
    ("MPI_Add_error_code", "errorclass:int errorcode:int"),
    ("MPI_Add_error_string", "errorcode:int errorstring:text"),
    ("MPI_Comm_call_errhandler", "comm:comm errorcode:int"),
    ("MPI_Comm_create_keyval", "keyval:handle"),
    ("MPI_Comm_delete_attr", "comm:comm keyval:handle"),
    ("MPI_Comm_free_keyval", "keyval:handle"),
    ("MPI_Comm_get_attr", "comm:comm keyval:handle flag:int"),
    ("MPI_Comm_get_name", "comm:comm name:text resultlen:int"),
    ("MPI_Comm_set_attr", "comm:comm keyval:handle"),
    ("MPI_Comm_set_name", "comm:comm name:text"),
    ("MPI_File_call_errhandler", "file:handle errorcode:int"),
    ("MPI_Grequest_complete", "request:request"),
    ("MPI_Grequest_start", "request:request"),
    ("MPI_Init_thread", "argv:argv required:u8 provided:u8"),
    ("MPI_Is_thread_main", "flag:int"),
    ("MPI_Query_thread", "supported:u8"),
    ("MPI_Status_set_cancelled", "status:status flag:int"),
    ("MPI_Status_set_elements", "status:status datatype:type count:int"),
    ("MPI_Type_create_keyval", "keyval:handle"),
    ("MPI_Type_delete_attr", "datatype:type keyval:handle"),
    ("MPI_Type_dup", "oldtype:type newtype:type"),
    ("MPI_Type_free_keyval", "keyval:handle"),
    ("MPI_Type_get_attr", "datatype:type keyval:handle flag:int"),
    (
        "MPI_Type_get_contents",
        "numdatatypes:int numaddresses:int numintegers:int datatype:type maxintegers:int maxaddresses:int maxdatatypes:int \
         arrintegers:ints arraddresses:ints arrdatatypes:types",
    ),
    ("MPI_Type_get_envelope", "datatype:type numintegers:int numaddresses:int numdatatypes:int combiner:u8"),
    ("MPI_Type_get_name", "datatype:type name:text resultlen:int"),
    ("MPI_Type_set_attr", "datatype:type keyval:handle"),
    ("MPI_Type_set_name", "datatype:type name:text"),
    ("MPI_Type_match_size", "typeclass:u8 size:int datatype:type"),
    ("MPI_Win_call_errhandler", "win:handle errorcode:int"),
    ("MPI_Win_create_keyval", "keyval:handle"),
    ("MPI_Win_delete_attr", "win:handle keyval:handle"),
    ("MPI_Win_free_keyval", "keyval:handle"),
    ("MPI_Win_get_attr", "win:handle keyval:handle flag:int"),
    ("MPI_Win_get_name", "win:handle name:text resultlen:int"),
    ("MPI_Win_set_attr", "win:handle keyval:handle"),
    ("MPI_Win_set_name", "win:handle name:text"),
    ("MPI_Alloc_mem", "size:int info:handle"),
    ("MPI_Comm_create_errhandler", "errhandler:handle"),
    ("MPI_Comm_get_errhandler", "comm:comm errhandler:handle"),
    ("MPI_Comm_set_errhandler", "comm:comm errhandler:handle"),
    ("MPI_File_create_errhandler", "errhandler:handle"),
    ("MPI_File_get_errhandler", "file:handle errhandler:handle"),
    ("MPI_File_set_errhandler", "file:handle errhandler:handle"),
    ("MPI_Finalized", "flag:int"),
    ("MPI_Free_mem", ""),
    ("MPI_Get_address", "address:int"),
    ("MPI_Info_create", "info:handle"),
    ("MPI_Info_delete", "info:handle key:text"),
    ("MPI_Info_dup", "oldinfo:handle newinfo:handle"),
    ("MPI_Info_free", "info:handle"),
    ("MPI_Info_get", "info:handle key:text valuelength:int value:text flag:int"),
    ("MPI_Info_get_nkeys", "info:handle nkeys:int"),
    ("MPI_Info_get_nthkey", "info:handle n:int key:text"),
    ("MPI_Info_get_valuelen", "info:handle key:text valuelen:int flag:int"),
    ("MPI_Info_set", "info:handle key:text value:text"),
    ("MPI_Pack_external", "datarep:text incount:int intype:type outcount:int position_in:int position_out:int"),
    ("MPI_Pack_external_size", "datarep:text incount:int datatype:type size:int"),
    ("MPI_Request_get_status", "request:request flag:int status:status"),
    (
        "MPI_Type_create_darray",
        "size:int rank:int ndims:int gsizes:ints distribs:bytes dargs:ints psizes:ints order:u8 oldtype:type newtype:type",
    ),
    ("MPI_Type_create_hindexed", "count:int blocklengths:ints displacements:ints oldtype:type newtype:type"),
    ("MPI_Type_create_hvector", TYPE_VECTOR),
    ("MPI_Type_create_indexed_block", "count:int blocklength:int displacements:ints oldtype:type newtype:type"),
    ("MPI_Type_create_resized", "oldtype:type lb:int extent:int newtype:type"),
    ("MPI_Type_create_struct", "count:int blocklengths:ints displacements:ints oldtypes:types newtype:type"),
    ("MPI_Type_create_subarray", "ndims:int sizes:ints subsizes:ints starts:ints order:u8 oldtype:type newtype:type"),
    ("MPI_Type_get_extent", EXTENT),
    ("MPI_Type_get_true_extent", EXTENT),
    ("MPI_Unpack_external", "datarep:text insize:int position_in:int position_out:int outcount:int datatype:type"),
    ("MPI_Win_create_errhandler", "errhandler:handle"),
    ("MPI_Win_get_errhandler", "win:handle errhandler:handle"),
    ("MPI_Win_set_errhandler", "win:handle errhandler:handle"),
    ("MPI_File_open", "comm:comm filename:text amode:u8 info:handle file:handle"),
    ("MPI_File_close", "file:handle"),
    ("MPI_File_delete", "filename:text info:handle"),
    ("MPI_File_set_size", "file:handle size:long"),
    ("MPI_File_preallocate", "file:handle size:long"),
    ("MPI_File_get_size", "file:handle size:long"),
    ("MPI_File_get_group", "file:handle group:group"),
    ("MPI_File_get_amode", "file:handle amode:u8"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::dumpi::names::call_id;

    #[test]
    fn every_layout_names_a_numbered_call_and_parses() {
        for (call, _) in LAYOUTS {
            assert!(call_id(call).is_some(), "{call} has no DUMPI id");
            assert!(layout(call).is_some());
        }
        let isend = layout("MPI_Isend").unwrap();
        assert_eq!(isend.iter().map(|f| f.name).collect::<Vec<_>>(), ["count", "datatype", "dest", "tag", "comm", "request"]);
        assert!(layout("MPI_Gather").unwrap()[5].root_only);
        assert!(layout("MPI_Comm_spawn").is_none());
    }
}
