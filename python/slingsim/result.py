"""The outcome of one simulation: summary, result tables and the config that produced them."""
from __future__ import annotations

import array
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Sequence, Union

if TYPE_CHECKING:  # pyarrow costs ~0.2 s to import: loaded when a table is first used
    import pyarrow as pa

TABLE_NAMES = ("packets", "links", "flows", "nic", "timeline", "iterations", "link_snapshots")
"""Result tables, each written to ``<name>.parquet``."""


Columns = Mapping[str, Sequence[Any]]
"""A table as the engine hands it over: column name -> values (numbers as an ``array.array`` of
typecode ``q`` or ``d``, booleans and strings as lists)."""

_ARROW_TYPES = {"q": "int64", "d": "float64"}
"""Typecodes of the engine's number columns and the Arrow types that read their bytes as they are."""

TableSource = Union["pa.Table", Columns, Path]
"""A result table: a pyarrow table, the engine's columns, or a Parquet file to read when used."""


def table_from_columns(columns: Columns) -> "pa.Table":
    """A pyarrow table from the engine's dict of column name -> values."""
    import pyarrow as pa

    def column(values: Sequence[Any]) -> Any:
        if isinstance(values, array.array) and values.typecode in _ARROW_TYPES:
            # The array's own buffer, not a copy and not a Python object per value.
            kind = getattr(pa, _ARROW_TYPES[values.typecode])()
            return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])
        return list(values)

    return pa.table({name: column(values) for name, values in columns.items()})


class Result:
    """Everything one run produced (see ``docs/results.md``).

    ``summary`` is the engine's summary dict plus ``wall_s`` (and
    ``build_s``) measured in Python; ``packets`` (sampled delivered packets),
    ``links`` (one row per unidirectional link), ``flows`` (one row per
    fixed-size flow, with its NIC counters), ``nic`` (NIC counters per
    node, as on Cray Aries) and ``timeline`` (delivered throughput and
    latency per source and time bin), ``iterations`` (one row per MPI job
    iteration: job, iteration, time_ns) and ``link_snapshots`` (every link's
    counters at the times ``sim.link_snapshots_ns`` names) are pyarrow tables; ``config`` is
    the resolved config (every default filled in). Tables may be given as
    pyarrow tables, as the engine's column dicts or as Parquet file paths,
    which become pyarrow tables when first read (so a run that only needs
    its summary never imports pyarrow). ``summary["provenance"]`` says what
    produced the run (``docs/results.md#provenance``).
    """

    def __init__(
        self,
        summary: Dict[str, Any],
        config: Dict[str, Any],
        packets: "TableSource",
        links: "TableSource",
        flows: "TableSource",
        nic: "TableSource",
        timeline: "TableSource",
        iterations: "TableSource",
        link_snapshots: "Optional[TableSource]" = None,
    ) -> None:
        self.summary = summary
        self.config = config
        self._tables: Dict[str, Any] = {
            "packets": packets, "links": links, "flows": flows,
            "nic": nic, "timeline": timeline, "iterations": iterations,
            "link_snapshots": {} if link_snapshots is None else link_snapshots,
        }

    def _table(self, name: str) -> "pa.Table":
        table = self._tables[name]
        if isinstance(table, Mapping):
            table = self._tables[name] = table_from_columns(table)
        elif isinstance(table, Path):
            import pyarrow.parquet as pq

            table = self._tables[name] = pq.read_table(table)
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

    @property
    def link_snapshots(self) -> "pa.Table":
        """Every link's counters at each time ``sim.link_snapshots_ns`` names that the run reached."""
        return self._table("link_snapshots")

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Result(sim_time_ns={s.get('sim_time_ns')}, end_reason={s.get('end_reason')!r}, "
            f"accepted_load={s.get('accepted_load')}, packets={self.packets.num_rows} rows, "
            f"links={self.links.num_rows} rows, flows={self.flows.num_rows} rows)"
        )

    def write(self, out_dir: Union[str, Path]) -> Path:
        """Write ``summary.json``, ``config.json``, ``provenance.json`` and one
        Parquet file per table into ``out_dir``, replacing an earlier result
        there in one step (see :mod:`slingsim.atomic`).

        Each Parquet file carries the run's provenance in its schema
        metadata (key ``slingsim.provenance``).
        """
        from . import atomic

        with atomic.staged_folder(out_dir) as staging:
            self.write_tables(staging)
            atomic.write_text(staging / "config.json", json.dumps(self.config, indent=2) + "\n")
            provenance = self.summary.get("provenance", {})
            atomic.write_text(staging / atomic.MARKER, json.dumps(provenance, indent=2) + "\n")
            atomic.write_text(staging / "summary.json", json.dumps(self.summary, indent=2) + "\n")
        return Path(out_dir)

    def write_tables(self, folder: Union[str, Path]) -> None:
        """Write every table to ``<folder>/<name>.parquet`` (atomically, provenance in the metadata)."""
        from .tables import write_parquet

        for name in TABLE_NAMES:
            write_parquet(getattr(self, name), Path(folder) / f"{name}.parquet", self.summary.get("provenance"))

    def to_pandas(self, name: str) -> Any:
        """Table ``name`` (``packets``, ``links``, ...) as a pandas DataFrame; needs the
        optional extra ``pip install 'slingsim[pandas]'``."""
        if name not in TABLE_NAMES:
            raise ValueError(f"table {name!r}: no such table; choose one of {', '.join(TABLE_NAMES)}")
        import importlib.util

        if importlib.util.find_spec("pandas") is None:
            raise ImportError("pandas is not installed; install the optional extra with: pip install 'slingsim[pandas]'")
        return self._table(name).to_pandas()

    @classmethod
    def read(cls, out_dir: Union[str, Path]) -> "Result":
        """Load a result written by :meth:`write` (tables are read when first used)."""
        out = Path(out_dir)
        return cls.from_folder(out, json.loads((out / "summary.json").read_text()))

    @classmethod
    def from_folder(cls, folder: Union[str, Path], summary: Dict[str, Any]) -> "Result":
        """A result whose tables are the Parquet files in ``folder``, read when first used.

        The config is ``config.json`` if the folder has one, else the one
        recorded in the summary's provenance.
        """
        folder = Path(folder)
        config_file = folder / "config.json"
        if config_file.is_file():
            config = json.loads(config_file.read_text())
        else:
            config = summary.get("provenance", {}).get("config", {})
        tables = {name: folder / f"{name}.parquet" for name in TABLE_NAMES}
        return cls(summary, config, **tables)
