"""Parquet files that say what produced them.

Every table slingsim writes carries its provenance (see
:mod:`slingsim.provenance`) as JSON in the Parquet schema metadata under
``slingsim.provenance``, and is written atomically.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from . import atomic
from .provenance import METADATA_KEY, as_json


def with_provenance(table: Any, provenance: Optional[Dict[str, Any]]) -> Any:
    """``table`` (pyarrow) with ``provenance`` in its schema metadata (other metadata kept)."""
    if provenance is None:
        return table
    metadata = dict(table.schema.metadata or {})
    metadata[METADATA_KEY.encode()] = as_json(provenance).encode()
    return table.replace_schema_metadata(metadata)


def write_parquet(table: Any, path: Union[str, Path], provenance: Optional[Dict[str, Any]] = None) -> Path:
    """Write a pyarrow table to ``path`` atomically, with ``provenance`` in its metadata."""
    import pyarrow.parquet as pq

    stamped = with_provenance(table, provenance)
    return atomic.write_with(path, lambda tmp: pq.write_table(stamped, tmp))


def write_rows(path: Union[str, Path], rows: List[Dict[str, Any]], provenance: Optional[Dict[str, Any]]) -> Path:
    """Write a list of row dicts as a Parquet table (see :func:`write_parquet`)."""
    import pyarrow as pa

    return write_parquet(pa.Table.from_pylist(rows), path, provenance)


def read_provenance(path: Union[str, Path]) -> Optional[Dict[str, Any]]:
    """The provenance stored in a Parquet file's metadata, or None if it has none."""
    import pyarrow.parquet as pq

    metadata = pq.read_schema(path).metadata or {}
    text = metadata.get(METADATA_KEY.encode())
    return json.loads(text) if text is not None else None
