"""Hypothesis strategies for the fuzz tests: configs a careless user might write,
``--set`` overrides, API calls with odd arguments, and damaged DUMPI traces.

Every generated run is tiny (the 144-endpoint example dragonfly or a
12-endpoint one, a window of under a microsecond, ``sim.max_time_ns`` capped)
so hundreds of cases take seconds; what varies is everything a user could
get wrong: wrong types, out-of-range and non-finite numbers, integers past
64 bits, unknown keys, empty tables and lists, tables swapped for values.
"""
from __future__ import annotations

import copy
import json
import math
import string
from pathlib import Path
from typing import Any, Dict, List, Tuple

from hypothesis import strategies as st

SMALL = "examples/small-dragonfly"

TINY_SIM = {"warmup_ns": 200, "duration_ns": 500, "drain_ns": 500, "max_time_ns": 50_000}
"""A window short enough that a sane case simulates in milliseconds."""

TINY_TOPOLOGY = {"groups": 3, "switches_per_group": 2, "endpoints_per_switch": 2, "global_ports_per_switch": 1}
"""12 endpoints: the network trace replays run on."""

BARRIER_JOB = {"name": "j", "workload": "barrier", "nodes": {"count": 4}, "iterations": 2}
INCAST_JOB = {"name": "j", "workload": "incast", "nodes": {"count": 4}, "iterations": 2, "bytes": 1024,
              "burst_messages": 3, "burst_gap_ns": 100.0,
              "params": {"put": True, "flush_each": True, "completion": "transmit", "target": 1}}
"""A bursty put incast with every parameter written out, so mutations reach the workload's own keys."""
CLASS = {"name": "tc1"}

TRACE = Path(__file__).resolve().parents[2] / "crates" / "slingsim-core" / "tests" / "data" / "dumpi-stencil3d-np8"
"""The DUMPI trace checked in with the engine's tests (8 ranks of a 3-D stencil)."""

NAMES = ["minimal", "ugal", "valiant", "par", "slingshot", "adaptive-1", "in-order", "dcqcn", "none",
         "poisson", "bernoulli", "random", "interleaved", "linear", "all", "incast", "permutation",
         "group_adversarial", "bisection", "uniform", "trace", "program", "alltoall", "allreduce", "barrier",
         "halo3d", "fattree", "slimfly", "aries", "megafly", "fitfly", "round-robin", "slingshot", "roce", "message"]
"""Names some key accepts, so string values sometimes get past the first check."""

KEY_CHARS = string.ascii_lowercase + "_"
TEXT_CHARS = string.ascii_letters + string.digits + "-_./ "


def leaf_paths(value: Any, path: Tuple = ()) -> List[Tuple[Tuple, Any]]:
    """Every (path, default) of a resolved config, tables and lists included."""
    out = [(path, value)] if path else []
    if isinstance(value, dict):
        for key, member in value.items():
            out += leaf_paths(member, path + (key,))
    elif isinstance(value, list):
        for index, member in enumerate(value[:1]):
            out += leaf_paths(member, path + (index,))
    return out


def catalogue() -> List[Tuple[Tuple, Any]]:
    """Every key of the small dragonfly with a job and a class, with its default."""
    from slingsim import api

    resolved = api.resolved_config(SMALL, [f"job=[{toml_value(BARRIER_JOB)}]", f"classes=[{toml_value(CLASS)}]"])
    incast = api.resolved_config(SMALL, [f"job=[{toml_value(INCAST_JOB)}]"])
    params = [(("job", 0, "params") + path, value) for path, value in leaf_paths(incast["job"][0]["params"])]
    resolved["links"]["failed"] = [{"switch": 0, "port": 9, "at_ns": 0}]
    resolved["links"]["degraded"] = [{"switch": 0, "port": 9, "lanes": 2}]
    resolved["links"]["random_failures"] = {"count": 1, "fraction": 0.1, "kind": "global", "at_ns": 0}
    resolved["links"]["reroute_after_ns"] = 1000.0
    return leaf_paths(resolved) + params


EDGE_NUMBERS = [0, -1, 1, 2, 3, 7, 2**31, 2**32, 2**53 + 1, 2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**30,
                0.5, -0.5, 1e-300, 5e-324, 1e300, 1.7976931348623157e308, -0.0,
                math.nan, math.inf, -math.inf]
"""Numbers at the edges of every range: zero, signs, 32/53/64 bits, subnormals, overflow, NaN, infinities."""

scalars = st.one_of(
    st.sampled_from(EDGE_NUMBERS),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(alphabet=TEXT_CHARS, max_size=10),
    st.sampled_from(NAMES),
)
odd_values = st.one_of(
    scalars,
    st.builds(list), st.builds(dict),  # new each draw: st.just would hand every case the same object
    st.lists(st.one_of(st.integers(-3, 300), st.sampled_from(EDGE_NUMBERS)), max_size=4),
    st.dictionaries(st.sampled_from(["count", "fraction", "list", "name", "x"]), scalars, max_size=2),
    st.lists(st.dictionaries(st.sampled_from(["switch", "port", "at_ns", "lanes", "name", "load"]),
                             st.integers(-2, 80), max_size=3), max_size=2),
)


@st.composite
def value_for(draw, default: Any) -> Any:
    """A value for a key whose default is ``default``: often near it, often anything at all."""
    if isinstance(default, (int, float)) and not isinstance(default, bool) and draw(st.integers(0, 2)):
        factor = draw(st.sampled_from([1, 2, 0.5, 10, 0.1, 0, -1, 1e-9, 1e-300, 1e9, 1e300, 2**40]))
        value = default * factor if default else factor
        return int(value) if isinstance(default, int) and math.isfinite(value) else value
    return draw(odd_values)


@st.composite
def mutation(draw) -> Tuple[Tuple, Any]:
    """One key path and the value a user put there: a known key, an unknown one, or a whole table."""
    kind = draw(st.sampled_from(["known"] * 6 + ["unknown", "table"]))
    if kind == "known":
        path, default = draw(st.sampled_from(KEYS))
        return path, draw(value_for(default))
    if kind == "unknown":
        table, _ = draw(st.sampled_from([k for k in KEYS if isinstance(k[1], dict)] + [((), {})]))
        return table + (draw(st.text(alphabet=KEY_CHARS, min_size=1, max_size=8)),), draw(odd_values)
    table = draw(st.sampled_from(["topology", "nic", "links", "switch", "routing", "sim", "congestion", "qos",
                                  "mpi", "traffic", "job", "classes"]))
    return (table,), draw(odd_values)


@st.composite
def fuzzed_config(draw) -> Dict[str, Any]:
    """A tiny config (the small dragonfly's keys, a short window, sometimes a job or a class) with
    up to four mutations (mostly one or none, so that many cases still run)."""
    cfg: Dict[str, Any] = {"sim": dict(TINY_SIM)}
    if draw(st.booleans()):
        cfg["job"] = [copy.deepcopy(draw(st.sampled_from([BARRIER_JOB, INCAST_JOB])))]
        cfg["traffic"] = [{"name": "uniform", "load": 0.3, "nodes": {"count": 8}}]
    if draw(st.booleans()):
        cfg["classes"] = [dict(CLASS)]
    for path, value in draw(st.lists(mutation(), max_size=draw(st.sampled_from([1, 1, 2, 4])))):
        put(cfg, path, copy.deepcopy(value))  # a value put twice must not become part of itself
    return cfg


def put(cfg: Dict[str, Any], path: Tuple, value: Any) -> None:
    """Set ``value`` at ``path``, creating what is missing; a path through a plain value replaces it."""
    node: Any = cfg
    for depth, part in enumerate(path[:-1]):
        nxt = path[depth + 1]
        if isinstance(node, list):
            if not isinstance(part, int) or part >= len(node):
                return
            if not isinstance(node[part], (dict, list)):
                node[part] = [] if isinstance(nxt, int) else {}
            node = node[part]
        else:
            if not isinstance(node.get(part), (dict, list)):
                node[part] = [{}] if isinstance(nxt, int) else {}
            node = node[part]
    last = path[-1]
    if isinstance(node, list):
        if isinstance(last, int) and last < len(node):
            node[last] = value
    else:
        node[last] = value


def toml_value(value: Any) -> str:
    """``value`` as a TOML literal (inline tables and arrays, ``nan`` and ``inf`` included)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML for {value!r}")


def toml_key(key: Any) -> str:
    key = str(key)
    return key if key and all(c in KEY_CHARS + string.digits + "-" for c in key) else json.dumps(key)


KEYS = catalogue()
"""(path, default) of every key a mutation may pick."""


def toml_document(cfg: Dict[str, Any], extends: str = SMALL) -> str:
    """``cfg`` as a TOML file extending ``extends``: plain keys first, then one header per table."""
    lines = [f"extends = {json.dumps(extends)}"] if extends else []
    tables = []
    for key, value in cfg.items():
        if isinstance(value, dict):
            tables.append(f"\n[{toml_key(key)}]")
            tables += [f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()]
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for entry in value:
                tables.append(f"\n[[{toml_key(key)}]]")
                tables += [f"{toml_key(k)} = {toml_value(v)}" for k, v in entry.items()]
        else:
            lines.append(f"{toml_key(key)} = {toml_value(value)}")
    return "\n".join(lines + tables) + "\n"


@st.composite
def override(draw) -> str:
    """A ``--set KEY=VALUE`` text: a known or unknown dotted key (lists by position or name) and a
    TOML value, or text that is not TOML at all."""
    path, value = draw(mutation())
    key = ".".join(str(p) for p in path)
    if draw(st.integers(0, 9)) == 0:
        key = draw(st.sampled_from([key + "..x", "." + key, key + ".", "traffic.uniform." + key.split(".")[-1],
                                    "traffic.nobody.load", "traffic.99.load", "a" + ".b" * 40]))
    text = toml_value(value) if draw(st.integers(0, 4)) else draw(st.text(alphabet=TEXT_CHARS + "[]{}=\"',",
                                                                         max_size=12))
    return f"{key}={text}"


times = st.one_of(st.sampled_from([0, 1, 100, 700, 1e6, -1, math.nan, math.inf, -math.inf, 2**64, 1e300]),
                  st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**70), 2**70),
                  st.sampled_from(["5", None, [], True]))
node_ids = st.one_of(st.integers(-2, 150), st.sampled_from([2**32, 2**64, -(2**63), 1.5, "3", None, True]))
sizes = st.one_of(st.integers(0, 1 << 20), st.sampled_from([0, 1, 2**32, 2**40, 2**63, 2**64, -1, 0.5, "8", None]))
names = st.one_of(st.none(), st.sampled_from(NAMES + ["", "tc1", "uniform", "api"]), st.integers(-1, 3))


@st.composite
def simulation_steps(draw) -> List[Tuple[str, tuple, dict]]:
    """Build a tiny simulation, then call its methods with odd arguments."""
    overrides = [f"sim.{k}={v}" for k, v in TINY_SIM.items()] + draw(st.lists(override(), max_size=2))
    steps = [("Simulation", (SMALL,), {"overrides": overrides})]
    for _ in range(draw(st.integers(1, 6))):
        name = draw(st.sampled_from(["run_until", "send", "send", "flow_end_ns", "summary", "run"]))
        if name == "run_until":
            steps.append((name, (draw(times),), {}))
        elif name == "send":
            kwargs = {k: draw(names) for k in draw(st.sets(st.sampled_from(["source", "routing", "traffic_class"])))}
            steps.append((name, (draw(node_ids), draw(node_ids), draw(sizes)), kwargs))
        elif name == "flow_end_ns":
            steps.append((name, (draw(node_ids),), {}))
        else:
            steps.append((name, (), {}))
    return steps


configs_or_presets = st.one_of(
    st.sampled_from([SMALL, "examples/small-dragonfly.toml", "no-such-preset", "", ".", "/", "/dev/null"]),
    st.builds(lambda cfg: {**cfg, "topology": dict(TINY_TOPOLOGY)}, fuzzed_config()),
    st.sampled_from([None, 3, 2.5, b"x", [], ()]),
)


@st.composite
def run_calls(draw) -> List[Tuple[str, tuple, dict]]:
    """One call of ``slingsim.run``, ``run_summary``, ``resolved_config`` or ``topology`` with odd arguments."""
    name = draw(st.sampled_from(["run", "run_summary", "resolved_config", "topology"]))
    kwargs: Dict[str, Any] = {"overrides": draw(st.one_of(
        st.lists(override(), max_size=3).map(lambda o: [f"sim.{k}={v}" for k, v in TINY_SIM.items()] + o),
        st.sampled_from(["sim.seed=3", [3], [None], ["=1"], ["x"]])))}
    if name in ("run", "run_summary", "resolved_config"):
        if draw(st.booleans()):
            kwargs["without"] = draw(st.one_of(st.lists(st.sampled_from(["uniform", "j", "x", ""]), max_size=2),
                                               st.sampled_from(["uniform", [None]])))
        if draw(st.booleans()):
            kwargs["seed"] = draw(st.one_of(st.integers(-(2**65), 2**65), st.sampled_from([1.5, True, "7", None])))
    if name in ("run", "run_summary"):
        kwargs.update(cache=False, progress=False)
    return [(name, (draw(configs_or_presets),), kwargs)]


@st.composite
def trace_damage(draw) -> List[Tuple]:
    """What to do to a copy of the trace: truncate a rank file, flip bytes, rewrite or delete files."""
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "flip", "flip", "meta", "delete", "append"]))
        rank = draw(st.integers(0, 7))
        if kind == "truncate":
            ops.append(("truncate", rank, draw(st.floats(0, 1))))
        elif kind == "flip":
            ops.append(("flip", rank, draw(st.floats(0, 1)), draw(st.integers(1, 255))))
        elif kind == "meta":
            ops.append(("meta", draw(st.sampled_from(["numprocs", "hostname", "version", "fileprefix", "extra"])),
                        draw(st.one_of(st.integers(-2, 20), st.sampled_from(["", "x", "99999999999", "1e9", "-"])))))
        elif kind == "delete":
            ops.append(("delete", rank))
        else:
            ops.append(("append", rank, draw(st.binary(min_size=1, max_size=64))))
    return ops


def damage(folder: Path, ops: List[Tuple]) -> None:
    """Apply :func:`trace_damage` operations to the trace copy in ``folder``."""
    ranks = sorted(folder.glob("*.bin"))
    meta = next(folder.glob("*.meta"))
    for op in ops:
        if op[0] == "meta":
            lines = [line for line in meta.read_text().splitlines() if not line.startswith(op[1] + "=")]
            meta.write_text("\n".join(lines + [f"{op[1]}={op[2]}"]) + "\n")
            continue
        path = ranks[op[1]]
        if not path.exists():
            continue
        if op[0] == "delete":
            path.unlink()
            continue
        data = bytearray(path.read_bytes())
        if op[0] == "truncate":
            data = data[: int(len(data) * op[2])]
        elif op[0] == "flip" and data:
            data[min(int(len(data) * op[2]), len(data) - 1)] ^= op[3]
        elif op[0] == "append":
            data += op[2]
        path.write_bytes(bytes(data))
