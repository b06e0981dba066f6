"""Where a recipe's results go: one output folder, written whole, that says what produced it.

A recipe runs its simulations, then opens :func:`study_output`: tables and
figures are written into a staging folder that replaces the output folder
in one step when the block ends (a killed recipe leaves the previous result
in place), together with ``provenance.json``. Every Parquet table carries
the study's provenance (every run's resolved config, seed and store key,
the command, version, commit, start time, platform) in its schema metadata,
every figure a caption line and the provenance without configs.
"""
from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

from .. import atomic, provenance
from ..tables import with_provenance, write_rows


CHECKS_KEY = b"slingsim.checks"
"""Schema metadata key of a study table's checks (JSON)."""


def rounded(value: Optional[float], digits: int = 4) -> Optional[float]:
    """``value`` rounded to ``digits`` decimals for a recipe's key figures (a plain float, so JSON reads it),
    or None if there is none."""
    return None if value is None else round(float(value), digits)


def table_checks(table: Any) -> Dict[str, Any]:
    """The checks a recipe stored with its table (empty if none)."""
    text = (table.schema.metadata or {}).get(CHECKS_KEY)
    return json.loads(text) if text else {}


class StudyFolder:
    """The staging folder of a study's output (``path``) and its ``provenance`` record."""

    def __init__(self, path: Path, record: Dict[str, Any]) -> None:
        self.path = path
        self.provenance = record

    def write(self, **tables: List[Dict[str, Any]]) -> None:
        """Write every keyword's rows to ``<keyword>.parquet``, provenance in the metadata."""
        for name, rows in tables.items():
            write_rows(self.path / f"{name}.parquet", rows, self.provenance)

    def table(self, rows: List[Dict[str, Any]], checks: Optional[Dict[str, Any]] = None) -> Any:
        """``rows`` as a pyarrow table with the study's provenance in its schema metadata, and
        ``checks`` (what the recipe verified, e.g. ``shares_checked``) under ``slingsim.checks``
        as JSON; the checks are also written to ``checks.json``."""
        import pyarrow as pa

        table = with_provenance(pa.Table.from_pylist(rows), self.provenance)
        if checks is not None:
            text = json.dumps(checks, indent=1)
            atomic.write_text(self.path / "checks.json", text + "\n")
            table = table.replace_schema_metadata({**(table.schema.metadata or {}), CHECKS_KEY: text.encode()})
        return table


@contextlib.contextmanager
def study_output(
    out_dir: Union[str, Path],
    summaries: Iterable[Dict[str, Any]],
    started: str,
    parameters: Optional[Dict[str, Any]] = None,
) -> Iterator[StudyFolder]:
    """A :class:`StudyFolder` that replaces ``out_dir`` when the block succeeds.

    ``summaries`` are the study's runs (from :mod:`slingsim.sweep`),
    ``started`` when the study began (:func:`slingsim.provenance.now`),
    ``parameters`` the recipe's own settings (e.g. ``{"quick": True}``).
    """
    record = provenance.study_record(summaries, started, parameters=parameters)
    with atomic.staged_folder(out_dir) as staging:
        yield StudyFolder(staging, record)
        atomic.write_text(staging / atomic.MARKER, json.dumps(record, indent=1) + "\n")
