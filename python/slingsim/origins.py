"""Where each value of a config was set, so an error can name what the user wrote.

A config is assembled from TOML files (a chain of ``extends``), ``--set``
overrides, dropped sources and a seed, or given as a dict. :class:`Sources`
mirrors the config's shape and holds, for every table, array and value, its
:class:`Origin`: a file and line, an override, the seed argument, or a dict
handed to the API. When the engine (or a check in Python) refuses a field,
:meth:`Sources.explain` puts where that field was set in front of the
message, or says that the field was not set and its default is at fault:

    mix.toml:14: traffic[1].load: offered load must be in (0, 1] ..., got 7
    --set sim.duration_ns=nan: sim.duration_ns: nan is not a number; ...
    topology.global_ports_per_switch: ... (not set in the config: this is its default)
"""
from __future__ import annotations

import contextlib
import contextvars
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

from .toml_lines import KeyPath

CLI = "cli"
API = "api"
SPELLING: contextvars.ContextVar[str] = contextvars.ContextVar("slingsim_override_spelling", default=API)
"""How overrides are named in messages: ``--set KEY=VALUE`` on the command line (``CLI``),
``override 'KEY=VALUE'`` from Python (``API``)."""

JSON_POSITION = re.compile(r" at line \d+ column \d+$")
"""serde's position in the JSON text the engine was handed, which the user never saw."""

FIELD_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
"""One part of an engine field path: a key, or an ``[index]``."""


@dataclass(frozen=True)
class Origin:
    """Where one value of a config was set: ``kind`` is ``file`` (``file``,
    ``line``), ``override`` (``text`` as typed), ``seed`` (``text``: the
    seed), ``option`` (``text``: a command-line option that set it, such as
    ``--loads 0.1,0.5``) or ``given`` (part of a dict passed to the API; no
    place to name)."""

    kind: str
    file: Optional[Path] = None
    line: Optional[int] = None
    text: str = ""

    def where(self) -> str:
        """The place in the user's own words: ``mix.toml:14``, ``--set x=1``, ``--seed 7``; empty for ``given``."""
        cli = SPELLING.get() == CLI
        if self.kind == "file":
            return f"{self.file}:{self.line}" if self.line else str(self.file)
        if self.kind == "override":
            return f"--set {self.text}" if cli else f"override {self.text!r}"
        if self.kind == "seed":
            return f"--seed {self.text}" if cli else f"seed={self.text}"
        if self.kind == "option":
            return self.text
        return ""


GIVEN = Origin("given")


@dataclass
class _Node:
    """One value of the config and where it was set; tables and arrays hold their members' nodes."""

    origin: Origin
    keys: Optional[Dict[str, "_Node"]] = None
    items: Optional[List["_Node"]] = None


def _mirror(value: Any, origin_at: Callable[[KeyPath], Origin], path: KeyPath = ()) -> _Node:
    """The node tree of ``value``, each node's origin from ``origin_at`` (the depth is checked before)."""
    node = _Node(origin_at(path))
    if isinstance(value, dict):
        node.keys = {key: _mirror(member, origin_at, path + (key,)) for key, member in value.items()}
    elif isinstance(value, list):
        node.items = [_mirror(member, origin_at, path + (index,)) for index, member in enumerate(value)]
    return node


@dataclass
class Sources:
    """The origin of every value of one config, kept in step as the config is assembled."""

    root: _Node = field(default_factory=lambda: _Node(GIVEN, keys={}))

    @classmethod
    def of_file(cls, cfg: Dict[str, Any], path: Path, lines: Dict[KeyPath, int]) -> "Sources":
        """Every value of ``cfg``, read from the TOML file ``path`` whose keys sit at ``lines``."""
        def origin_at(key: KeyPath) -> Origin:
            return Origin("file", path, lines.get(key))

        return cls(_mirror(cfg, origin_at))

    @classmethod
    def given(cls, cfg: Dict[str, Any]) -> "Sources":
        """Every value of ``cfg``, handed over as a dict."""
        return cls(_mirror(cfg, lambda _: GIVEN))

    def merged_under(self, top: "Sources") -> "Sources":
        """The sources of ``deep_merge(base, top)`` where ``self`` is base's: tables merge key by key."""
        return Sources(_merge(self.root, top.root))

    def set(self, path: KeyPath, value: Any, origin: Origin) -> None:
        """``value`` was put at ``path`` (tables on the way created if missing) by ``origin``."""
        node = self.root
        for part in path[:-1]:
            if isinstance(part, int):
                node = node.items[part]
            else:
                node = node.keys.setdefault(part, _Node(origin, keys={}))
        new = _mirror(value, lambda _: origin)
        if isinstance(path[-1], int):
            node.items[path[-1]] = new
        else:
            node.keys[path[-1]] = new

    def drop(self, list_key: str, index: int) -> None:
        """Entry ``index`` of the top-level array ``list_key`` was removed (later entries move up)."""
        del self.root.keys[list_key].items[index]

    def find(self, path: KeyPath) -> Tuple[Optional[Origin], bool]:
        """The origin of the value at ``path`` (or of the plain value the path runs into) and
        True; ``(None, False)`` when the config does not set it, so its default applies."""
        node = self.root
        for part in path:
            if node.keys is not None and isinstance(part, str) and part in node.keys:
                node = node.keys[part]
            elif node.items is not None and isinstance(part, int) and 0 <= part < len(node.items):
                node = node.items[part]
            elif node.keys is None and node.items is None:
                return node.origin, True  # a value stands where the field expects a table
            else:
                return None, False
        return node.origin, True

    def explain(self, err: Exception) -> Exception:
        """``err`` with where its field was set in front of its message (a new
        :class:`~slingsim.config.ConfigError`), or ``err`` itself when it is not
        about a field, already says where, or the field came in a dict."""
        from .config import ConfigError

        if not isinstance(err, ConfigError) or err.origin is not None:
            return err
        message = JSON_POSITION.sub("", str(err))
        if not err.field:
            return _with(err, message, None) if message != str(err) else err
        origin, present = self.find(parse_field(err.field))
        if not present:
            return _with(err, f"{message} (not set in the config: this is its default)", "default")
        if not origin.where():
            return _with(err, message, None) if message != str(err) else err
        return located(_with(err, message, None), origin)

    @contextlib.contextmanager
    def explaining(self) -> Iterator[None]:
        """Re-raise a :class:`~slingsim.config.ConfigError` from inside the block through :meth:`explain`."""
        from .config import ConfigError

        try:
            yield
        except ConfigError as err:
            explained = self.explain(err)
            if explained is err:
                raise
            raise explained from None


def _merge(base: _Node, top: _Node) -> _Node:
    """Mirror of :func:`slingsim.config.deep_merge` on node trees."""
    if base.keys is None or top.keys is None:
        return top
    keys = dict(base.keys)
    for key, node in top.keys.items():
        keys[key] = _merge(keys[key], node) if key in keys and node.keys is not None else node
    return _Node(top.origin, keys=keys)


def located(err: Exception, origin: Origin) -> Exception:
    """A ConfigError like ``err`` (same field) whose message starts with where ``origin`` is,
    with ``origin``, ``file`` and ``line`` set."""
    where = origin.where()
    new = _with(err, f"{where}: {err}", where)
    new.file, new.line = origin.file, origin.line
    return new


def _with(err: Exception, message: str, origin: Optional[str]) -> Exception:
    """A ConfigError like ``err`` (same field) with a new message and ``origin``."""
    from .config import ConfigError

    new = ConfigError(message)
    new.field = getattr(err, "field", "")
    new.origin = origin
    return new


def parse_field(text: str) -> KeyPath:
    """An engine field path as a key path: ``traffic[1].load`` -> ``("traffic", 1, "load")``."""
    path: List[Union[str, int]] = []
    for key, index in FIELD_PART.findall(text):
        path.append(int(index) if index else key)
    return tuple(path)


def field_name(path: KeyPath) -> str:
    """A key path in the engine's notation: ``("traffic", 1, "load")`` -> ``traffic[1].load``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
