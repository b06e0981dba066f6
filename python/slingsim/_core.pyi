"""Type stubs of the compiled engine module `slingsim._core` (crates/slingsim-py).

Configs cross the boundary as JSON text: Python loads TOML, applies presets and
overrides, and hands the resolved dict (``json.dumps``) to the engine, which
validates every field and raises ``slingsim.ConfigError`` (a ``ValueError``)
naming the field path in its message and in ``field``; an engine error caused
by the operating system (a file it cannot read) is the matching ``OSError``.
"""
from typing import Dict, List, Optional, Union

Column = List[Union[int, float, str, bool, None]]

def packet_record_bytes() -> int:
    """Bytes the engine keeps per packet in flight (its per-hop and cold halves)."""
    ...

def version() -> str:
    """Version of the engine crate."""

def build_commit() -> str:
    """Git commit the module was built from (``-dirty`` with uncommitted changes), or ``unknown``."""

def resolved_config(config_json: str) -> str:
    """The config with every default the engine fills in written out, as JSON text.

    Only the ``[topology]`` keys of the config's family appear. Building a
    simulation from the result gives the same run as from the input.
    """

def topology_analytics(config_json: str) -> str:
    """Build the topology of a config and return its analytics as JSON text.

    Keys: endpoints, nodes, switches, links {terminal, local, global},
    diameter, avg_min_hops, global_bw_Bps, bisection_bw_Bps,
    alltoall_peak_Bps, injection_bw_Bps, uniform_minimal_saturation,
    adversarial_minimal_saturation, build_s.
    """

def collective_round_traffic(request_json: str) -> str:
    """Bytes each round of a collective moves between groups and through nodes, as JSON text.

    Request keys: collective, algorithm (default auto), bytes, node_of (node of each rank),
    group_of_node. Answer: algorithm (what auto resolved to) and rounds, each with group_bytes
    (G x G), max_node_send and max_node_recv.
    """

def check_deadlock(config_json: str) -> str:
    """Check every routing algorithm on the config's topology for deadlock.

    JSON text: {routing name: {deadlock_free, vcs, vertices, edges, cycle}},
    where cycle lists the (channel, vc) dependency cycle found, if any.
    """

def topology_graphml(config_json: str) -> str:
    """The config's topology as a GraphML document (switches, endpoints, links)."""

def read_dumpi(path: str) -> str:
    """Read a DUMPI trace (its .meta file or the directory holding it).

    Returns its MPI program as JSON text: {ranks, comms, ops, warnings} (the
    serde form of crates/slingsim-core/src/mpi/op.rs). Raises ValueError
    naming the file and byte offset of a truncated or corrupt trace, and
    FileNotFoundError if the path does not exist.
    """

def program_info(program_json: str, calls_json: Optional[str] = None) -> str:
    """Summary of a program (JSON text) as JSON text.

    Keys: ranks, calls (the traced run's MPI calls from calls_json, an object
    of name -> count, else the program's operations by kind), bytes,
    matched_messages, unmatched_messages, warnings.
    """

def dumpi_info(path: str) -> str:
    """program_info of a DUMPI trace with the trace's own call counts, as JSON text."""

def write_dumpi(program_json: str, dir: str, prefix: str) -> str:
    """Write a program (JSON text) as the DUMPI trace dir/PREFIX.meta with one
    PREFIX-NNNN.bin per rank (docs/traces.md, "Writing DUMPI").

    Returns JSON text: {meta, calls (MPI calls written, by name), left_out
    (operations that are no MPI call, by kind)}. Raises slingsim.ConfigError
    naming the rank and operation DUMPI cannot hold.
    """

def generate_program(job_json: str, ranks: int, seed: int) -> str:
    """The program a [[job]] table (JSON text) running a named workload gets on
    `ranks` ranks in a run of master seed `seed` (sim.seed), as JSON text."""

class Simulation:
    """One simulation, built from a resolved config (JSON text).

    Raises slingsim.ConfigError for an invalid config, with the field path in the message.
    """
    def __init__(self, config_json: str) -> None: ...
    @property
    def now_ns(self) -> float:
        """Current simulated time in ns."""
    @property
    def end_ns(self) -> float:
        """Simulated time at which the run ends (warmup + duration, or the limit)."""
    @property
    def finished(self) -> bool: ...
    def run_until(self, t_ns: float) -> bool:
        """Advance to simulated time t_ns (GIL released). True once the run has ended."""
    def run(self) -> None:
        """Run to the end (GIL released)."""
    def summary_json(self) -> str:
        """Summary of the run as JSON text (see docs/results.md)."""
    def packets_table(self) -> Dict[str, Column]:
        """Sampled delivered packets, column name -> values."""
    def links_table(self) -> Dict[str, Column]:
        """One row per unidirectional link, column name -> values."""
    def nic_counters_table(self) -> Dict[str, Column]:
        """NIC counters per node (packets, flits, stalled time, cumulative latency)."""
    def flows_table(self) -> Dict[str, Column]:
        """One row per fixed-size flow, column name -> values."""
    def iterations_table(self) -> Dict[str, Column]:
        """One row per job iteration: job, iteration, time_ns."""
    def timeline_table(self) -> Dict[str, Column]:
        """Delivered throughput and mean latency per source and time bin."""
    def link_snapshots_table(self) -> Dict[str, Column]:
        """Every link's counters (t_ns, channel, bytes, stalled_ns) at each time sim.link_snapshots_ns names."""
    def send_message(
        self,
        src: int,
        dst: int,
        nbytes: int,
        source: Optional[str] = None,
        routing: Optional[str] = None,
        traffic_class: Optional[str] = None,
    ) -> int:
        """Send one message now; routing/traffic_class apply to it alone. Returns its flow id."""
    def flow_end_ns(self, flow: int) -> Optional[float]:
        """When a flow or sent message ended (ns; delivered or lost), None while under way."""
    def flow_lost_bytes(self, flow: int) -> Optional[int]:
        """Bytes a flow or sent message lost, None if there is no such flow."""
