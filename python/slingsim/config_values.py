"""Values refused by name before the engine sees them.

The engine reads a config as JSON and owns every key's range. Some values
cannot even reach it intact: NaN and infinities are not JSON, integers of
2^64 or more turn into floats on the way, TOML dates are not JSON at all,
a list handed where the engine expects a table is read as that table's
fields in order (so ``topology = []`` silently meant every default), and a
document nested thousands of levels deep overflows Python's stack.
:func:`check_values` refuses each with the key's path, the value and what is
allowed, and :func:`check_depth` bounds the nesting before anything recurses.
"""
from __future__ import annotations

import datetime
import math
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .origins import field_name
from .toml_lines import KeyPath

MAX_DEPTH = 32
"""Deepest nesting of tables and arrays a config may have (its deepest keys, in an inline
MPI program, sit about ten levels down)."""

INT_MIN, INT_MAX = -(2**63), 2**64 - 1
"""Integers the engine can read exactly: a signed 64-bit minimum, an unsigned 64-bit maximum."""

TABLES = ("topology", "nic", "links", "switch", "routing", "sim", "cost", "congestion", "qos", "mpi")
"""Top-level keys that hold one table."""

TABLE_ARRAYS: Tuple[KeyPath, ...] = (("traffic",), ("job",), ("classes",), ("links", "failed"), ("links", "degraded"))
"""Keys that hold an array of tables (``[[traffic]]``, ``failed = [{...}]``)."""

ENTRY_TABLES = {"job": ("params", "program")}
"""Keys of an array's entries that hold one table."""


def check_depth(value: Any, where: str) -> None:
    """Refuse a document nested more than :data:`MAX_DEPTH` levels (``where`` names it)."""
    from .config import ConfigError

    stack: List[Tuple[Any, KeyPath]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_DEPTH:
            raise ConfigError(
                f"{where}: {field_name(path[:4])}... is nested more than {MAX_DEPTH} levels deep; a config's "
                f"keys sit at most {MAX_DEPTH} levels down (e.g. traffic.0.nodes.count)"
            )
        if isinstance(item, dict):
            stack.extend((member, path + (str(key),)) for key, member in item.items())
        elif isinstance(item, list):
            stack.extend((member, path + (index,)) for index, member in enumerate(item))


def check_values(cfg: Dict[str, Any]) -> None:
    """Refuse, naming the key, every value the engine cannot be handed as written:
    NaN, infinities, integers outside :data:`INT_MIN`..:data:`INT_MAX`, values JSON
    cannot hold, keys that are not strings, and a non-table where a table belongs."""
    check_depth(cfg, "config")
    for item, path in _nodes(cfg, ()):
        problem = shape_problem(path, item)
        if problem:
            _refuse(path, problem)
        if isinstance(item, dict):
            for key in item:
                if not isinstance(key, str):
                    _refuse(path, f"key {key!r} is a {type(key).__name__}; keys are strings")
        elif not isinstance(item, list):
            problem = value_problem(item)
            if problem:
                _refuse(path, problem)


def _nodes(value: Any, path: KeyPath) -> Iterator[Tuple[Any, KeyPath]]:
    """``value`` and every value inside it, each with its key path, parents before members."""
    stack: List[Tuple[Any, KeyPath]] = [(value, tuple(path))]
    while stack:
        item, at = stack.pop()
        yield item, at
        if isinstance(item, dict):
            stack.extend((member, at + (key,)) for key, member in item.items())
        elif isinstance(item, list):
            stack.extend((member, at + (index,)) for index, member in enumerate(item))


def value_problem(value: Any) -> Optional[str]:
    """Why ``value`` cannot stand in a config, or None if it can."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, int):
        if INT_MIN <= value <= INT_MAX:
            return None
        return (f"{value} is out of range: a config's integers lie between -2^63 and 2^64 - 1 "
                f"({INT_MAX}); docs/config.md gives each key's own range")
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return f"{value} is not a finite number; give a finite number (docs/config.md gives each key's range)"
    if isinstance(value, (datetime.date, datetime.time)):
        return f"{value} is a date or time, which no key takes; give a number, string or boolean"
    return (f"{value!r} (a {type(value).__name__}) is not a config value; give a number, string, "
            "boolean, list or table")


def table_kind(path: KeyPath) -> Optional[str]:
    """``"table"`` or ``"array"`` when the engine expects one at ``path``, else None (any value).
    (An entry's optional table, such as a job's ``program``, may also be None.)"""
    if len(path) == 1 and path[0] in TABLES:
        return "table"
    if tuple(path) in TABLE_ARRAYS:
        return "array"
    if len(path) >= 1 and tuple(path[:-1]) in TABLE_ARRAYS and isinstance(path[-1], int):
        return "table"
    if len(path) == 3 and isinstance(path[1], int) and path[2] in ENTRY_TABLES.get(str(path[0]), ()):
        return "table"
    return None


def shape_problem(path: KeyPath, value: Any) -> Optional[str]:
    """Why ``value`` cannot stand at ``path`` where the engine expects a table or an array of tables."""
    kind = table_kind(path)
    if kind == "table" and not isinstance(value, dict) and not (value is None and len(path) == 3):
        return (f"holds a table of keys, not {_describe(value)}; set its keys instead: "
                f"--set {_dotted(path)}.KEY=VALUE, or KEY = VALUE lines under its table header in the TOML file")
    if kind == "array" and not isinstance(value, list):
        return (f"holds a list of tables ([[{_dotted(path)}]] in TOML), not {_describe(value)}; "
                "give a list of tables, e.g. [] for none")
    return None


def check_shape(path: KeyPath, value: Any) -> None:
    """Refuse ``value`` put at ``path``, or any value inside it, where the engine expects a
    table or an array of tables (see :func:`table_kind`)."""
    for item, at in _nodes(value, path):
        problem = shape_problem(at, item)
        if problem:
            _refuse(at, problem)


def _refuse(path: KeyPath, problem: str) -> None:
    """Raise a ConfigError about the key at ``path`` (its ``field``)."""
    from .config import ConfigError

    name = field_name(path)
    err = ConfigError(f"{name}: {problem}")
    err.field = name
    raise err


def _describe(value: Any) -> str:
    """A value as the user might have written it, with its kind."""
    kind = {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(
        type(value), f"a {type(value).__name__}")
    text = repr(value) if not isinstance(value, (list, dict)) or len(repr(value)) < 40 else repr(value)[:37] + "..."
    return f"{kind}, {text}"


def _dotted(path: KeyPath) -> str:
    """A key path as a ``--set`` key: ``("traffic", 0)`` -> ``traffic.0``."""
    return ".".join(str(part) for part in path)
