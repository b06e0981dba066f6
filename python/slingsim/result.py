"""The outcome of one simulation: summary, result tables and the config that produced them."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Mapping, Sequence, Union

import pyarrow as pa
import pyarrow.parquet as pq

TABLE_NAMES = ("packets", "links", "flows", "nic", "timeline", "iterations")
"""Result tables, each written to ``<name>.parquet``."""


def table_from_columns(columns: Mapping[str, Sequence[Any]]) -> pa.Table:
    """A pyarrow table from the engine's dict of column name -> values."""
    return pa.table({name: list(values) for name, values in columns.items()})


class Result:
    """Everything one run produced (see ``docs/results.md``).

    ``summary`` is the engine's summary dict plus ``wall_s`` (and
    ``build_s``) measured in Python; ``packets`` (sampled delivered packets),
    ``links`` (one row per unidirectional link), ``flows`` (one row per
    fixed-size flow, with its NIC counters), ``nic`` (NIC counters per
    node, as on Cray Aries) and ``timeline`` (delivered throughput and
    latency per source and time bin) and ``iterations`` (one row per MPI job
    iteration: job, iteration, time_ns) are pyarrow tables; ``config`` is
    the resolved config.
    """

    def __init__(
        self,
        summary: Dict[str, Any],
        config: Dict[str, Any],
        packets: pa.Table,
        links: pa.Table,
        flows: pa.Table,
        nic: pa.Table,
        timeline: pa.Table,
        iterations: pa.Table,
    ) -> None:
        self.summary = summary
        self.config = config
        self.packets = packets
        self.links = links
        self.flows = flows
        self.nic = nic
        self.timeline = timeline
        self.iterations = iterations

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Result(sim_time_ns={s.get('sim_time_ns')}, end_reason={s.get('end_reason')!r}, "
            f"accepted_load={s.get('accepted_load')}, packets={self.packets.num_rows} rows, "
            f"links={self.links.num_rows} rows, flows={self.flows.num_rows} rows)"
        )

    def write(self, out_dir: Union[str, Path]) -> Path:
        """Write ``summary.json``, ``config.json`` and one Parquet file per table into ``out_dir``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")
        (out / "config.json").write_text(json.dumps(self.config, indent=2) + "\n")
        for name in TABLE_NAMES:
            pq.write_table(getattr(self, name), out / f"{name}.parquet")
        return out

    @classmethod
    def read(cls, out_dir: Union[str, Path]) -> "Result":
        """Load a result written by :meth:`write`."""
        out = Path(out_dir)
        summary = json.loads((out / "summary.json").read_text())
        config = json.loads((out / "config.json").read_text())
        tables = {name: pq.read_table(out / f"{name}.parquet") for name in TABLE_NAMES}
        return cls(summary, config, **tables)
