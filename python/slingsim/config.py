"""Loading, resolving and editing simulation configs.

A config is the TOML document described in ``docs/config.md``, held in
Python as a plain dict. This module turns a file path or a preset name into
that dict (following ``extends`` chains between presets), applies dotted-key
overrides such as ``routing.algorithm=ugal``, drops named traffic sources,
and serialises the result to the JSON text the engine reads. The engine owns
the schema and validates every field; this module only knows the document's
shape (tables, and arrays of named tables such as ``[[traffic]]``) and
refuses what JSON cannot carry (:mod:`slingsim.config_values`). While it
assembles a config it keeps where each value was set
(:class:`~slingsim.origins.Sources`), so an error names the user's file and
line or the override they typed.
"""
from __future__ import annotations

import copy
import datetime
import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from .config_values import MAX_DEPTH, check_depth, check_shape, check_values, table_kind
from .origins import Origin, Sources, located
from .toml_lines import KeyPath, key_lines

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
    raises this class for every config the engine rejects.

    Once the error has been traced to what the user wrote, ``origin`` says
    where the field was set, as the message starts: ``"mix.toml:14"``,
    ``"--set traffic.0.load=7"`` (``"override 'traffic.0.load=7'"`` from
    Python), ``"--seed 7"``, or ``"default"`` when the config does not set
    it; ``file`` and ``line`` hold the file and line when a file set it.
    ``origin`` is None while not traced (a field of a dict handed to the API)."""

    field: str = ""
    origin: Optional[str] = None
    file: Optional[Path] = None
    line: Optional[int] = None


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
    source can be addressed by name. Inside a study run with ``--set``
    (:mod:`slingsim.study_overrides`) the study's overrides are applied.
    """
    from .study_overrides import loaded_with_study_overrides  # a study's --set, if one is running

    return loaded_with_study_overrides(load_traced(path_or_preset)[0])


def load_traced(path_or_preset: Union[str, Path]) -> Tuple[Config, Sources]:
    """:func:`load_config`, and where each value was set (file and line, through ``extends``)."""
    path = _locate(str(path_or_preset))
    cfg, sources = _load_with_extends(path, chain=())
    return name_entries(cfg), sources


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


def _load_with_extends(path: Path, chain: tuple) -> Tuple[Config, Sources]:
    """Read one TOML file and deep-merge it over the config it ``extends`` (child wins),
    with where each value of the result was set."""
    resolved = path.resolve()
    if resolved in chain:
        cycle = " -> ".join(p.name for p in (*chain, resolved))
        raise ConfigError(f"extends: cycle between config files ({cycle}); remove one `extends`")
    try:
        text = path.read_bytes().decode("utf-8")
        cfg = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: not valid TOML ({err}); fix the syntax") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to read; a config's keys sit at most "
                          f"{MAX_DEPTH} levels down") from None
    check_depth(cfg, str(path))
    sources = Sources.of_file(cfg, path, key_lines(text))
    _anchor_trace_paths(cfg, path.parent)
    parent_name = cfg.pop("extends", None)
    sources.root.keys.pop("extends", None)
    if parent_name is None:
        return cfg, sources
    if not isinstance(parent_name, str):
        raise ConfigError(f"{path}: extends must be a preset name or a file path string")
    parent, parent_sources = _load_with_extends(_locate_parent(parent_name, path), (*chain, resolved))
    return deep_merge(parent, cfg), parent_sources.merged_under(sources)


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
    except RecursionError:
        raise ConfigError(f"value {text[:40]}...: nested too deeply; a config's keys sit at most "
                          f"{MAX_DEPTH} levels down") from None
    if isinstance(value, (datetime.date, datetime.time)):
        return text
    return value


def apply_overrides(cfg: Config, overrides: Iterable[str]) -> Config:
    """A copy of ``cfg`` with each ``dotted.key=value`` override applied in order.

    ``traffic.<name>.key`` addresses a ``[[traffic]]`` entry by name and
    ``traffic.<index>.key`` by position; missing tables are created. A table
    cannot be replaced by a plain value or a list (``topology=[]``): set its
    keys instead.
    """
    return _apply_overrides(cfg, overrides, None)


def _apply_overrides(cfg: Config, overrides: Iterable[str], sources: Optional[Sources]) -> Config:
    """:func:`apply_overrides`, recording each override in ``sources`` if given."""
    if isinstance(overrides, (str, bytes)):
        raise ConfigError(f"overrides: {overrides!r} is one string; give a list of key=value strings, "
                          f"e.g. [{overrides!r}]")
    result = copy.deepcopy(cfg)
    for override in overrides:
        if not isinstance(override, str):
            raise ConfigError(f"override {override!r}: expected a key=value string, e.g. routing.algorithm=ugal")
        key, sep, text = override.partition("=")
        key = key.strip()
        if not sep or not key or not text.strip():
            raise ConfigError(
                f"override {override!r}: expected key=value, e.g. routing.algorithm=ugal"
            )
        parts = key.split(".")
        if len(parts) > MAX_DEPTH:
            raise ConfigError(
                f"override {override[:60]}...: the key has {len(parts)} parts; a config's keys sit at most "
                f"{MAX_DEPTH} levels down (e.g. traffic.0.nodes.count)"
            )
        if any(not part.strip() for part in parts):
            raise ConfigError(f"override {override!r}: empty part in the key {key!r}; write dotted keys like sim.seed")
        value = parse_value(text.strip())
        check_depth(value, f"override {key}")
        origin = Origin("override", text=override.strip())
        try:
            path = _set_path(result, parts, value, key)
        except ConfigError as err:
            raise (located(err, origin) if err.field else err) from None
        if sources is not None:
            sources.set(path, value, origin)
    return name_entries(result)


def _set_path(cfg: Config, parts: List[str], value: Any, key: str) -> KeyPath:
    """Set ``value`` at the dotted path ``parts`` inside ``cfg``; returns the path it set, with
    list entries by position."""
    node: Any = cfg
    path: List[Union[str, int]] = []
    for depth, part in enumerate(parts[:-1]):
        where = ".".join(parts[: depth + 1])
        if isinstance(node, list):
            index = _entry_index(node, part, where, parts[depth - 1])
            node = node[index]
            path.append(index)
        elif table_kind(tuple(path) + (part,)) == "array" and part not in node:
            raise ConfigError(f"override {key}: the config has no [[{where}]] entries; add one first, in the "
                              f"TOML file or as a list: --set {where}=[{{...}}]")
        else:
            node = node.setdefault(part, {})
            path.append(part)
        if not isinstance(node, (dict, list)):
            raise ConfigError(f"override {key}: {where} is a value, not a table; set it as {where}=...")
    last = parts[-1]
    if isinstance(node, list):
        raise ConfigError(
            f"override {key}: {'.'.join(parts[:-1])} is a list of sources; "
            f"address a field of one entry by name or position, e.g. {'.'.join(parts[:-1])}.0.{last}=..."
        )
    path.append(last)
    check_shape(tuple(path), value)
    node[last] = value
    return tuple(path)


def _entry_index(entries: list, selector: str, where: str, list_key: str) -> int:
    """Index of the entry named ``selector`` (or at position ``selector``) in a named list."""
    names = [str(entry.get("name", f"{list_key}{i}")) if isinstance(entry, dict) else f"{list_key}{i}"
             for i, entry in enumerate(entries)]
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
    return _without(cfg, names, None)


def _without(cfg: Config, names: Iterable[str], sources: Optional[Sources]) -> Config:
    """:func:`without`, dropping the same entries from ``sources`` if given."""
    if isinstance(names, (str, bytes)):
        raise ConfigError(f"without: {names!r} is one string; give a list of names, e.g. [{names!r}]")
    if not hasattr(names, "__iter__"):
        raise ConfigError(f"without: {names!r} is not a list of names; give e.g. ['aggressor']")
    result = name_entries(copy.deepcopy(cfg))
    for name in names:
        for list_key in DROPPABLE_LISTS:
            entries = result.get(list_key) or []
            if not isinstance(entries, list):
                # Without a name to drop, resolving the config reports this with its file and line.
                raise ConfigError(f"{list_key}: must be a list of tables ([[{list_key}]] in TOML) to drop "
                                  f"{name!r} from, got {type(entries).__name__} {entries!r}")
            dropped = [i for i, entry in enumerate(entries) if isinstance(entry, dict) and entry.get("name") == name]
            if dropped:
                result[list_key] = [entry for i, entry in enumerate(entries) if i not in dropped]
                for index in reversed(dropped) if sources is not None else ():
                    sources.drop(list_key, index)
                break
        else:
            known = [e.get("name") for k in DROPPABLE_LISTS for e in result.get(k) or [] if isinstance(e, dict)]
            raise ConfigError(
                f"without {name!r}: no traffic source or job of that name; "
                f"known names: {', '.join(map(str, known)) or '(none)'}"
            )
    return result


def set_seed(cfg: Config, seed: int) -> Config:
    """A copy of ``cfg`` with ``sim.seed`` set."""
    return _set_seed(cfg, seed, None)


def _set_seed(cfg: Config, seed: int, sources: Optional[Sources]) -> Config:
    """:func:`set_seed`, recording the seed in ``sources`` if given."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ConfigError(f"sim.seed: {seed!r} is not an integer from 0 to 2^64 - 1; give e.g. seed=7")
    result = apply_overrides(cfg, [f"sim.seed={seed}"])
    if sources is not None:
        sources.set(("sim", "seed"), seed, Origin("seed", text=str(seed)))
    return result


def resolve(
    config_or_preset: Union[str, Path, Config],
    overrides: Iterable[str] = (),
    without_names: Iterable[str] = (),
    seed: Union[int, None] = None,
) -> Config:
    """The config a run uses: loaded (or copied, if already a dict), overridden, sources dropped, seeded,
    its values checked (:func:`~slingsim.config_values.check_values`)."""
    return resolve_traced(config_or_preset, overrides, without_names, seed)[0]


def resolve_traced(
    config_or_preset: Union[str, Path, Config],
    overrides: Iterable[str] = (),
    without_names: Iterable[str] = (),
    seed: Union[int, None] = None,
) -> Tuple[Config, Sources]:
    """:func:`resolve`, and where each value of the result was set. A value the
    checks refuse is named with its place: ``mix.toml:14: sim.duration_ns: ...``."""
    if isinstance(config_or_preset, dict):
        check_depth(config_or_preset, "config")
        cfg = name_entries(copy.deepcopy(config_or_preset))
        sources = Sources.given(cfg)
    elif isinstance(config_or_preset, (str, Path)):
        cfg, sources = load_traced(config_or_preset)
    else:
        raise ConfigError(f"config: {config_or_preset!r} is a {type(config_or_preset).__name__}; give a preset "
                          "name, a TOML file path or a config dict")
    cfg = _without(_apply_overrides(cfg, overrides, sources), without_names, sources)
    if seed is not None:
        cfg = _set_seed(cfg, seed, sources)
    with sources.explaining():
        check_values(cfg)
    return inline_otf2_traces(cfg), sources


def to_json(cfg: Config) -> str:
    """The config as the JSON text the engine reads."""
    try:
        return json.dumps(cfg, indent=2, sort_keys=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as err:
        check_values(cfg)  # names the key JSON cannot hold
        raise ConfigError(f"config holds a value JSON cannot represent ({err}); use numbers, strings, "
                          "lists or tables") from None
