"""Where a recipe's tables go: each list of rows becomes ``NAME.parquet`` in the output folder."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Union

import pyarrow as pa
import pyarrow.parquet as pq


def write_tables(out_dir: Union[str, Path], **tables: List[Dict[str, Any]]) -> Path:
    """Create ``out_dir`` and write every keyword's rows to ``<keyword>.parquet`` there; return the folder."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in tables.items():
        pq.write_table(pa.Table.from_pylist(rows), out / f"{name}.parquet")
    return out
