"""MPI traces as slingsim MPI programs.

DUMPI traces (SST's MPI tracer) are read by the engine; OTF2 traces (Score-P)
by :mod:`slingsim.trace.otf2`. Both give one program format, the serde form
of ``crates/slingsim-core/src/mpi/op.rs``: ``{"ranks", "comms", "ops",
"warnings"}``. How calls become operations is in ``docs/traces.md``.

>>> program = load("traces/dumpi-stencil3d-np8")        # doctest: +SKIP
>>> info("traces/dumpi-stencil3d-np8")["matched_messages"]  # doctest: +SKIP
488

Scaling or dropping the compute between calls is a replay setting, not done here.
"""
from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any, Dict, Optional, Tuple, Union

PathLike = Union[str, Path]

DUMPI = "dumpi"
OTF2 = "otf2"


def trace_format(path: PathLike) -> str:
    """``"dumpi"`` for a ``.meta`` file or a directory holding one, ``"otf2"`` for
    a ``.otf2`` anchor file or a directory holding one; ``FileNotFoundError`` if
    ``path`` does not exist, ``ValueError`` for anything else."""
    p = Path(path)
    if p.is_file():
        if p.suffix == ".meta":
            return DUMPI
        if p.suffix == ".otf2":
            return OTF2
        raise ValueError(f"{p}: not a trace; give a DUMPI .meta file, an OTF2 .otf2 anchor file, "
                         "or the directory holding one")
    if p.is_dir():
        found = [fmt for fmt, pattern in ((DUMPI, "*.meta"), (OTF2, "*.otf2")) if any(p.glob(pattern))]
        if len(found) == 1:
            return found[0]
        if not found:
            raise ValueError(f"{p}: no DUMPI .meta file and no OTF2 .otf2 anchor file in this directory")
        raise ValueError(f"{p}: holds both a DUMPI and an OTF2 trace; name the .meta or .otf2 file to read")
    raise FileNotFoundError(errno.ENOENT, f"{p}: no such file or directory", str(p))


def load(path: PathLike) -> Dict[str, Any]:
    """The MPI program of a trace as a dict (ranks, comms, ops, warnings)."""
    if trace_format(path) == DUMPI:
        from .. import _core

        return json.loads(_core.read_dumpi(str(path)))
    program, _ = _read_otf2(path)
    return program


def info(path: PathLike) -> Dict[str, Any]:
    """Summary of a trace: ranks, calls (the traced run's MPI calls by name), bytes
    sent, matched_messages and unmatched_messages (static MPI matching), warnings."""
    from .. import _core

    if trace_format(path) == DUMPI:
        return json.loads(_core.dumpi_info(str(path)))
    program, calls = _read_otf2(path)
    return json.loads(_core.program_info(json.dumps(program), json.dumps(dict(calls))))


def _read_otf2(path: PathLike) -> Tuple[Dict[str, Any], Dict[str, int]]:
    """``(program, calls)`` of an OTF2 trace, through :func:`slingsim.trace.otf2.read_otf2`."""
    try:
        from .otf2 import read_otf2

        return read_otf2(path)
    except ImportError as err:  # the otf2 package's own error says how to install it
        raise ImportError(f"{path}: reading OTF2 traces needs slingsim.trace.otf2 and the otf2 package: {err}") from err


DEFAULT_SEED = 1
"""``sim.seed`` of a config that does not set one: a generated program's random choices derive from it."""


def workload_program(
    workload: str,
    ranks: int,
    iterations: Optional[int] = None,
    params: Optional[Dict[str, Any]] = None,
    seed: int = DEFAULT_SEED,
    compute_scale: float = 1.0,
) -> Dict[str, Any]:
    """The program a job running the named ``workload`` (``"amg"``, ``"multigrid"``,
    ``"halo3d"``, ...; docs/workloads.md) gets on ``ranks`` ranks in a run of
    master seed ``seed``, with its ``params`` and ``iterations``: the same
    operations :func:`slingsim.run` would replay."""
    from .. import _core

    job: Dict[str, Any] = {"workload": workload, "params": dict(params or {}), "compute_scale": compute_scale}
    if iterations is not None:
        job["iterations"] = iterations
    return json.loads(_core.generate_program(json.dumps(job), int(ranks), int(seed)))


def write_dumpi(program: Dict[str, Any], out: PathLike, prefix: str = "dumpi") -> Dict[str, Any]:
    """Write ``program`` (a dict as :func:`load` or :func:`workload_program` give) as the
    DUMPI trace ``out/PREFIX.meta`` with one ``PREFIX-NNNN.bin`` per rank, so other
    simulators can replay it and :func:`load` reads back the same operations.

    Returns ``{"meta": path, "calls": {MPI call: count}, "left_out": {kind: count}}``:
    iteration marks and rank timers are no MPI call and are left out (counted);
    what DUMPI cannot hold raises ``slingsim.ConfigError`` naming the rank and
    operation (docs/traces.md, "Writing DUMPI").
    """
    from .. import _core

    return json.loads(_core.write_dumpi(json.dumps(program), str(out), prefix))
