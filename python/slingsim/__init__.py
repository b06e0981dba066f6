"""slingsim: packet-level simulation of Slingshot-class HPC interconnects.

Quick start::

    import slingsim
    result = slingsim.run("slingshot-malbec", overrides=["routing.algorithm=ugal"])
    result.summary["latency_ns"]["p99"]
    result.write("out/malbec-ugal")

See ``docs/getting-started.md``; configs are documented in ``docs/config.md``.
"""
from .api import Simulation, engine_version, run, topology, topology_graphml
from .config import ConfigError, apply_overrides, available_presets, load_config, to_json, without
from .result import Result
from .sweep import run_many, sweep_load

__all__ = [
    "topology_graphml",
    "ConfigError",
    "Result",
    "Simulation",
    "apply_overrides",
    "available_presets",
    "engine_version",
    "load_config",
    "run",
    "run_many",
    "sweep_load",
    "to_json",
    "topology",
    "without",
]
