"""The result store: finished runs kept on disk under a hash of what made them.

A run is keyed by the SHA-256 of its resolved config (every default filled
in), its seed and the engine build (:func:`slingsim.provenance.engine_build`),
so a repeated point of a sweep or an experiment is read instead of
simulated, a killed study resumes where it stopped, and a rebuilt engine
never reuses an old result. An entry is a folder
``<root>/v1/<key[:2]>/<key>/`` holding ``summary.json`` (with its
provenance) and, once a caller needed them, the run's tables as Parquet.
Every file is written to a temporary name and renamed, so a killed writer
leaves no partial entry; ``summary.json`` is written last and marks an
entry as present.

The default root is ``$SLINGSIM_CACHE``, else ``$XDG_CACHE_HOME/slingsim``,
else ``~/.cache/slingsim``.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Union

from . import atomic
from .provenance import engine_build
from .result import TABLE_NAMES, Result

CACHE_ENV = "SLINGSIM_CACHE"
"""Environment variable naming the default store folder."""

LAYOUT = "v1"
"""Sub-folder of this entry layout; a future layout gets its own."""

CacheLike = Union[bool, str, "os.PathLike[str]", "ResultStore", None]
"""What the ``cache`` argument of the API takes: True (the default store),
False or None (no store), a folder, or a :class:`ResultStore`."""


def default_root() -> Path:
    """The store folder used when none is named (see the module docstring)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "slingsim"


def run_key(config: Dict[str, Any]) -> str:
    """The store key of a resolved config: SHA-256 over the config, its seed and the engine build."""
    seed = config.get("sim", {}).get("seed")
    payload = json.dumps({"config": config, "seed": seed, "engine": engine_build()},
                         sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResultStore:
    """Runs on disk by key (see the module docstring); ``root`` is the store's folder."""

    def __init__(self, root: Union[str, "os.PathLike[str]", None] = None) -> None:
        self.root = Path(root).expanduser() if root is not None else default_root()

    def __repr__(self) -> str:
        return f"ResultStore({str(self.root)!r})"

    def entry(self, key: str) -> Path:
        """Folder of the entry ``key`` (it may not exist)."""
        return self.root / LAYOUT / key[:2] / key

    def summary(self, key: str) -> Optional[Dict[str, Any]]:
        """The stored summary of run ``key``, or None if the store does not hold it."""
        path = self.entry(key) / "summary.json"
        try:
            return json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):  # unreadable: treat as absent, the run is simply made again
            return None

    def has_tables(self, key: str) -> bool:
        """Whether run ``key`` is stored with all its tables."""
        folder = self.entry(key)
        return all((folder / f"{name}.parquet").is_file() for name in TABLE_NAMES)

    def result(self, key: str) -> Optional[Result]:
        """Run ``key`` as a :class:`Result` (tables read when first used), or None without its tables."""
        summary = self.summary(key)
        if summary is None or not self.has_tables(key):
            return None
        return Result.from_folder(self.entry(key), summary)

    def put(self, key: str, summary: Dict[str, Any], result: Optional[Result] = None) -> None:
        """Store a run's summary, and its tables if ``result`` is given (tables first, summary last)."""
        folder = self.entry(key)
        folder.mkdir(parents=True, exist_ok=True)
        if result is not None:
            result.write_tables(folder)
        stored = {k: v for k, v in summary.items() if k not in ("cached", "key")}
        atomic.write_text(folder / "summary.json", json.dumps(stored) + "\n")

    def entries(self) -> Iterator[Path]:
        """Folders of every stored run."""
        base = self.root / LAYOUT
        if not base.is_dir():
            return
        for shard in sorted(base.iterdir()):
            if shard.is_dir():
                for folder in sorted(shard.iterdir()):
                    if (folder / "summary.json").is_file():
                        yield folder

    def info(self) -> Dict[str, Any]:
        """What the store holds: ``root``, ``runs``, ``with_tables``, ``bytes``,
        ``engines`` (runs per engine build, this one marked ``current``)."""
        runs = with_tables = size = 0
        engines: Dict[str, int] = {}
        for folder in self.entries():
            runs += 1
            with_tables += all((folder / f"{n}.parquet").is_file() for n in TABLE_NAMES)
            size += sum(f.stat().st_size for f in folder.iterdir() if f.is_file())
            try:
                engine = json.loads((folder / "summary.json").read_text())["provenance"]["engine"]
            except (OSError, ValueError, KeyError, TypeError):
                engine = "unknown"
            engines[engine] = engines.get(engine, 0) + 1
        return {"root": str(self.root), "runs": runs, "with_tables": with_tables, "bytes": size,
                "engines": engines, "current_engine": engine_build()}

    def clear(self) -> Dict[str, int]:
        """Remove every stored run; returns ``{runs, bytes}`` removed."""
        info = self.info()
        shutil.rmtree(self.root / LAYOUT, ignore_errors=True)
        return {"runs": info["runs"], "bytes": info["bytes"]}


def open_store(cache: CacheLike) -> Optional[ResultStore]:
    """The store a ``cache`` argument names, or None for no store; a bad value is a TypeError naming it."""
    if cache is None or cache is False:
        return None
    if cache is True:
        return ResultStore()
    if isinstance(cache, ResultStore):
        return cache
    if isinstance(cache, (str, os.PathLike)):
        return ResultStore(cache)
    raise TypeError(f"cache: {cache!r} is not a store; give True (the default store), False, a folder or a ResultStore")
