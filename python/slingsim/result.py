"""The outcome of one simulation: summary, result tables and the config that produced them."""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Mapping, Sequence, Union

if TYPE_CHECKING:  # pyarrow costs ~0.2 s to import: loaded when a table is first used
    import pyarrow as pa

TABLE_NAMES = ("packets", "links", "flows", "nic", "timeline", "iterations")
"""Result tables, each written to ``<name>.parquet``."""


Columns = Mapping[str, Sequence[Any]]
"""A table as the engine hands it over: column name -> values."""


def table_from_columns(columns: Columns) -> "pa.Table":
    """A pyarrow table from the engine's dict of column name -> values."""
    import pyarrow as pa

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
    the resolved config. Tables may be given as pyarrow tables or as the
    engine's column dicts, which become pyarrow tables when first read (so
    a run that only needs its summary never imports pyarrow).
    """

    def __init__(
        self,
        summary: Dict[str, Any],
        config: Dict[str, Any],
        packets: Union["pa.Table", Columns],
        links: Union["pa.Table", Columns],
        flows: Union["pa.Table", Columns],
        nic: Union["pa.Table", Columns],
        timeline: Union["pa.Table", Columns],
        iterations: Union["pa.Table", Columns],
    ) -> None:
        self.summary = summary
        self.config = config
        self._tables: Dict[str, Any] = {
            "packets": packets, "links": links, "flows": flows,
            "nic": nic, "timeline": timeline, "iterations": iterations,
        }

    def _table(self, name: str) -> "pa.Table":
        table = self._tables[name]
        if isinstance(table, Mapping):
            table = self._tables[name] = table_from_columns(table)
        return table

    @property
    def packets(self) -> "pa.Table":
        """Sampled delivered packets."""
        return self._table("packets")

    @property
    def links(self) -> "pa.Table":
        """One row per unidirectional link."""
        return self._table("links")

    @property
    def flows(self) -> "pa.Table":
        """One row per fixed-size flow or API message, with its NIC counters."""
        return self._table("flows")

    @property
    def nic(self) -> "pa.Table":
        """NIC counters per node."""
        return self._table("nic")

    @property
    def timeline(self) -> "pa.Table":
        """Delivered throughput and latency per source and time bin."""
        return self._table("timeline")

    @property
    def iterations(self) -> "pa.Table":
        """One row per MPI job iteration."""
        return self._table("iterations")

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Result(sim_time_ns={s.get('sim_time_ns')}, end_reason={s.get('end_reason')!r}, "
            f"accepted_load={s.get('accepted_load')}, packets={self.packets.num_rows} rows, "
            f"links={self.links.num_rows} rows, flows={self.flows.num_rows} rows)"
        )

    def write(self, out_dir: Union[str, Path]) -> Path:
        """Write ``summary.json``, ``config.json`` and one Parquet file per table into ``out_dir``."""
        import pyarrow.parquet as pq

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
        import pyarrow.parquet as pq

        out = Path(out_dir)
        summary = json.loads((out / "summary.json").read_text())
        config = json.loads((out / "config.json").read_text())
        tables = {name: pq.read_table(out / f"{name}.parquet") for name in TABLE_NAMES}
        return cls(summary, config, **tables)
