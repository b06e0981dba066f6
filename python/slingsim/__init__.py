"""slingsim: packet-level simulation of Slingshot-class HPC interconnects.

Quick start::

    import slingsim
    result = slingsim.run("slingshot-malbec", overrides=["routing.algorithm=ugal"])
    result.summary["latency_ns"]["p99"]
    result.write("out/malbec-ugal")

See ``docs/getting-started.md``; configs are documented in ``docs/config.md``.
"""
from . import trace
from .api import Simulation, engine_version, resolved_config, run, run_summary, topology, topology_graphml
from .cluster import BatchCluster
from .config import ConfigError, apply_overrides, available_presets, load_config, to_json, without
from .provenance import VERSION as __version__
from .result import Result
from .store import ResultStore
from .sweep import run_many, sweep_load

__all__ = [
    "BatchCluster",
    "ConfigError",
    "Result",
    "ResultStore",
    "Simulation",
    "__version__",
    "apply_overrides",
    "available_presets",
    "engine_version",
    "load_config",
    "resolved_config",
    "run",
    "run_many",
    "run_summary",
    "sweep_load",
    "to_json",
    "topology",
    "topology_graphml",
    "trace",
    "without",
]
