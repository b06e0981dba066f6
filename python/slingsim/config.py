"""Loading, resolving and editing simulation configs.

A config is the TOML document described in ``docs/config.md``, held in
Python as a plain dict. This module turns a file path or a preset name into
that dict (following ``extends`` chains between presets), applies dotted-key
overrides such as ``routing.algorithm=ugal``, drops named traffic sources,
and serialises the result to the JSON text the engine reads. The engine owns
the schema and validates every field; this module only knows the document's
shape (tables, and arrays of named tables such as ``[[traffic]]``).
"""
from __future__ import annotations

import copy
import datetime
import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

PRESET_DIR = Path(__file__).parent / "configs"
"""Folder holding the preset TOML files (``python/slingsim/configs/`` in the repository)."""

NAMED_LISTS = ("traffic", "job", "classes")
"""Top-level arrays of tables whose entries carry a unique ``name``."""

DROPPABLE_LISTS = ("traffic", "job")
"""Named lists whose entries ``without`` may drop (sources and jobs, not classes)."""

Config = Dict[str, Any]


class ConfigError(ValueError):
    """A config cannot be loaded, edited or accepted by the engine; the message
    names the field and the fix. Engine errors carry the field's path in
    ``field`` (empty when no single field is at fault); the compiled module
    raises this class for every config the engine rejects."""

    field: str = ""


def available_presets() -> List[str]:
    """Names accepted by :func:`load_config`, e.g. ``slingshot-malbec`` or ``examples/incast-mix``."""
    return sorted(
        path.relative_to(PRESET_DIR).with_suffix("").as_posix()
        for path in PRESET_DIR.rglob("*.toml")
    )


def load_config(path_or_preset: Union[str, Path]) -> Config:
    """Load a config from a TOML file path or a preset name, with ``extends`` resolved.

    A string that names an existing file is read as TOML; otherwise it is
    looked up as a preset in :data:`PRESET_DIR`. Traffic sources without a
    ``name`` get their default one (``traffic0``, ``traffic1``, ...) so every
    source can be addressed by name.
    """
    path = _locate(str(path_or_preset))
    cfg = _load_with_extends(path, chain=())
    return name_entries(cfg)


def _locate(path_or_preset: str) -> Path:
    """The file a path or preset name refers to, or a ConfigError listing the presets."""
    as_path = Path(path_or_preset)
    if as_path.is_file():
        return as_path
    preset = PRESET_DIR / (path_or_preset.removesuffix(".toml") + ".toml")
    if preset.is_file():
        return preset
    raise ConfigError(
        f"config {path_or_preset!r}: no such file and no such preset; "
        f"give a TOML file path or one of the presets: {', '.join(available_presets())}"
    )


def _load_with_extends(path: Path, chain: tuple) -> Config:
    """Read one TOML file and deep-merge it over the config it ``extends`` (child wins)."""
    resolved = path.resolve()
    if resolved in chain:
        cycle = " -> ".join(p.name for p in (*chain, resolved))
        raise ConfigError(f"extends: cycle between config files ({cycle}); remove one `extends`")
    try:
        with open(path, "rb") as handle:
            cfg = tomllib.load(handle)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML ({err}); fix the syntax") from None
    _anchor_trace_paths(cfg, path.parent)
    parent_name = cfg.pop("extends", None)
    if parent_name is None:
        return cfg
    if not isinstance(parent_name, str):
        raise ConfigError(f"{path}: extends must be a preset name or a file path string")
    parent = _load_with_extends(_locate_parent(parent_name, path), (*chain, resolved))
    return deep_merge(parent, cfg)


def _anchor_trace_paths(cfg: Config, folder: Path) -> None:
    """Make the jobs' relative ``trace`` paths relative to the config file that names them."""
    for job in cfg.get("job", []) if isinstance(cfg.get("job"), list) else []:
        trace = job.get("trace") if isinstance(job, dict) else None
        if isinstance(trace, str) and not Path(trace).is_absolute():
            job["trace"] = str((folder / trace).resolve())


def inline_otf2_traces(cfg: Config) -> Config:
    """Jobs replaying an OTF2 trace get its program inline (the engine reads
    DUMPI itself; OTF2 is read here through the ``otf2`` package)."""
    for i, job in enumerate(cfg.get("job", []) if isinstance(cfg.get("job"), list) else []):
        if not isinstance(job, dict) or job.get("workload") != "trace" or not isinstance(job.get("trace"), str):
            continue
        from . import trace

        try:
            fmt = trace.trace_format(job["trace"])
        except FileNotFoundError as err:
            raise FileNotFoundError(err.errno, f"job[{i}].trace: {err.strerror}", err.filename) from None
        except ValueError as err:
            raise ConfigError(f"job[{i}].trace: {err}") from None
        if fmt == trace.OTF2:
            job["program"] = trace.load(job.pop("trace"))
            job["workload"] = "program"
    return cfg


def _locate_parent(name: str, child: Path) -> Path:
    """Resolve an ``extends`` value: a path relative to the child file, else a preset name."""
    for relative in (child.parent / name, child.parent / f"{name}.toml"):
        if relative.is_file():
            return relative
    return _locate(name)


def deep_merge(base: Config, top: Config) -> Config:
    """A new dict with ``top`` merged over ``base``: tables merge key by key, anything else is replaced."""
    merged = copy.deepcopy(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def name_entries(cfg: Config) -> Config:
    """Give every unnamed entry of a named list (``[[traffic]]``, ``[[job]]``) its default name ``<list><index>``."""
    for list_key in NAMED_LISTS:
        entries = cfg.get(list_key)
        if not isinstance(entries, list):
            continue
        for index, entry in enumerate(entries):
            if isinstance(entry, dict) and "name" not in entry:
                entry["name"] = f"{list_key}{index}"
    return cfg


def parse_value(text: str) -> Any:
    """Parse an override value as TOML (``true``, ``3``, ``0.5``, ``"x"``, ``[1, 2]``); a bare word stays a string."""
    try:
        value = tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text
    if isinstance(value, (datetime.date, datetime.time)):
        return text
    return value


def apply_overrides(cfg: Config, overrides: Iterable[str]) -> Config:
    """A copy of ``cfg`` with each ``dotted.key=value`` override applied in order.

    ``traffic.<name>.key`` addresses a ``[[traffic]]`` entry by name and
    ``traffic.<index>.key`` by position; missing tables are created.
    """
    result = copy.deepcopy(cfg)
    for override in overrides:
        key, sep, text = override.partition("=")
        key = key.strip()
        if not sep or not key or not text.strip():
            raise ConfigError(
                f"override {override!r}: expected key=value, e.g. routing.algorithm=ugal"
            )
        _set_path(result, key.split("."), parse_value(text.strip()), key)
    return name_entries(result)


def _set_path(cfg: Config, parts: List[str], value: Any, key: str) -> None:
    """Set ``value`` at the dotted path ``parts`` inside ``cfg``."""
    node: Any = cfg
    for depth, part in enumerate(parts[:-1]):
        where = ".".join(parts[: depth + 1])
        if isinstance(node, list):
            node = node[_entry_index(node, part, where, parts[depth - 1])]
        elif depth == 0 and part in NAMED_LISTS and part not in node:
            raise ConfigError(f"override {key}: the config has no [[{part}]] entries; add one to the TOML file first")
        else:
            node = node.setdefault(part, {})
        if not isinstance(node, (dict, list)):
            raise ConfigError(f"override {key}: {where} is a value, not a table; set it as {where}=...")
    last = parts[-1]
    if isinstance(node, list):
        raise ConfigError(
            f"override {key}: {'.'.join(parts[:-1])} is a list of sources; "
            f"address a field of one entry by name or position, e.g. {'.'.join(parts[:-1])}.0.{last}=..."
        )
    node[last] = value


def _entry_index(entries: list, selector: str, where: str, list_key: str) -> int:
    """Index of the entry named ``selector`` (or at position ``selector``) in a named list."""
    names = [entry.get("name", f"{list_key}{i}") for i, entry in enumerate(entries)]
    if selector.isdigit():
        index = int(selector)
        if index < len(entries):
            return index
        raise ConfigError(
            f"{where}: there are {len(entries)} {list_key} entries (0..{len(entries) - 1}); "
            f"use a valid position or a name: {', '.join(names) or '(none)'}"
        )
    if names.count(selector) > 1:
        raise ConfigError(f"{where}: several {list_key} entries are named {selector!r}; make names unique")
    if selector in names:
        return names.index(selector)
    raise ConfigError(
        f"{where}: no {list_key} entry named {selector!r}; known names: {', '.join(names) or '(none)'}"
    )


def without(cfg: Config, names: Iterable[str]) -> Config:
    """A copy of ``cfg`` without the named traffic sources or jobs (an isolated baseline)."""
    result = name_entries(copy.deepcopy(cfg))
    for name in names:
        for list_key in DROPPABLE_LISTS:
            entries = result.get(list_key) or []
            kept = [entry for entry in entries if entry.get("name") != name]
            if len(kept) != len(entries):
                result[list_key] = kept
                break
        else:
            known = [e.get("name") for k in DROPPABLE_LISTS for e in result.get(k) or []]
            raise ConfigError(
                f"without {name!r}: no traffic source or job of that name; "
                f"known names: {', '.join(known) or '(none)'}"
            )
    return result


def set_seed(cfg: Config, seed: int) -> Config:
    """A copy of ``cfg`` with ``sim.seed`` set."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"sim.seed: {seed!r} is not a non-negative integer; give e.g. seed=7")
    return apply_overrides(cfg, [f"sim.seed={seed}"])


def resolve(
    config_or_preset: Union[str, Path, Config],
    overrides: Iterable[str] = (),
    without_names: Iterable[str] = (),
    seed: Union[int, None] = None,
) -> Config:
    """The config a run uses: loaded (or copied, if already a dict), overridden, sources dropped, seeded."""
    if isinstance(config_or_preset, dict):
        cfg = name_entries(copy.deepcopy(config_or_preset))
    else:
        cfg = load_config(config_or_preset)
    cfg = inline_otf2_traces(without(apply_overrides(cfg, overrides), without_names))
    return cfg if seed is None else set_seed(cfg, seed)


def to_json(cfg: Config) -> str:
    """The config as the JSON text the engine reads."""
    try:
        return json.dumps(cfg, indent=2, sort_keys=False)
    except TypeError as err:
        raise ConfigError(f"config holds a value JSON cannot represent ({err}); use numbers, strings, lists or tables") from None
