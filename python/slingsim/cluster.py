"""Where a study's simulations run: a Dask client for each kind of ``scheduler``.

- ``None``: a local cluster of threads in this process, one per core (the
  engine releases the GIL). It is quiet: its servers listen on 127.0.0.1
  only, on ports the system picks, with no dashboard, so two runs at once
  neither clash nor warn.
- ``"tcp://host:port"`` (or ``tls://``, ``inproc://``, ``ws://``,
  ``wss://``): a running Dask scheduler; its workers need slingsim.
- a ``distributed.Client`` made by the caller: used as is, and left open.
- a :class:`BatchCluster`: workers started as batch jobs through
  dask-jobqueue (Slurm), stopped when the study ends.

``"sync"`` (serial, in this process, no Dask) is handled by the caller.
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Union

ADDRESS_PREFIXES = ("tcp://", "tls://", "inproc://", "ws://", "wss://")
"""Schemes of a Dask scheduler address."""

BATCH_KINDS = ("slurm",)
"""Batch systems ``--cluster`` supports (through dask-jobqueue)."""

SchedulerLike = Union[None, str, "BatchCluster", Any]
"""``scheduler`` of the API: None, ``"sync"``, an address, a :class:`BatchCluster` or a ``distributed.Client``."""


def default_workers() -> int:
    """Cores this process may use: one simulation thread per core."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


@dataclass
class BatchCluster:
    """Dask workers run as batch jobs (dask-jobqueue); ``docs/getting-started.md#batch-clusters``.

    ``jobs`` batch jobs, each one Dask worker with ``cores`` simulation
    threads, ``memory`` (e.g. ``"16GB"``) and ``walltime`` (``HH:MM:SS``);
    ``options`` are further keyword arguments of dask-jobqueue's cluster
    class (``queue``, ``account``, ``job_extra_directives``, ``interface``,
    ``log_directory``, ...); ``start_timeout_s`` is how long to wait for the
    first worker to join before giving up with an error.
    """

    kind: str = "slurm"
    jobs: int = 1
    cores: Optional[int] = None
    memory: Optional[str] = None
    walltime: Optional[str] = None
    options: Dict[str, Any] = field(default_factory=dict)
    start_timeout_s: float = 3600.0

    def __post_init__(self) -> None:
        if self.kind not in BATCH_KINDS:
            raise ValueError(f"cluster: {self.kind!r} is not supported; choose one of: {', '.join(BATCH_KINDS)}")
        for name in ("jobs", "cores"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"cluster {name}: {value!r} is not a whole number of at least 1")
        if self.memory is not None:
            from dask.utils import parse_bytes

            try:
                parse_bytes(self.memory)
            except (ValueError, TypeError):
                raise ValueError(f"cluster memory: {self.memory!r} is not a size; give e.g. 4GB or 16GiB") from None
        if self.walltime is not None and not _valid_walltime(str(self.walltime)):
            raise ValueError(
                f"cluster walltime: {self.walltime!r} is not a Slurm time; give MM, HH:MM:SS or D-HH:MM:SS"
            )
        if not (self.start_timeout_s > 0):
            raise ValueError(f"cluster start_timeout_s: {self.start_timeout_s!r} must be a positive number of seconds")

    @classmethod
    def from_profile(cls, path: Union[str, Path], **overrides: Any) -> "BatchCluster":
        """A cluster described by a TOML profile: one table named after the batch
        system (``[slurm]``) with ``jobs``, ``cores``, ``memory``, ``walltime``,
        ``start_timeout_s`` and any dask-jobqueue option; ``overrides`` that
        are not None win over the file."""
        from .config import tomllib

        file = Path(path)
        try:
            with open(file, "rb") as handle:
                document = tomllib.load(handle)
        except FileNotFoundError:
            raise FileNotFoundError(2, f"cluster profile {file}: no such file", str(file)) from None
        except tomllib.TOMLDecodeError as err:
            raise ValueError(f"cluster profile {file}: not valid TOML ({err})") from None
        kinds = [k for k in document if isinstance(document[k], dict)]
        wanted = overrides.pop("kind", None)
        kind = wanted or (kinds[0] if len(kinds) == 1 else None)
        if kind is None or kind not in document:
            raise ValueError(
                f"cluster profile {file}: expected one table naming the batch system, e.g. [slurm]; found "
                f"{', '.join(f'[{k}]' for k in kinds) or 'none'}"
            )
        settings = dict(document[kind])
        known = {"jobs", "cores", "memory", "walltime", "start_timeout_s"}
        given = {k: settings.pop(k) for k in list(settings) if k in known}
        given.update({k: v for k, v in overrides.items() if v is not None})
        return cls(kind=kind, options=settings, **given)

    def start(self) -> Any:
        """Start the batch cluster (no jobs yet); returns the dask-jobqueue cluster."""
        try:
            from dask_jobqueue import SLURMCluster
        except ImportError:
            raise ImportError(
                "--cluster slurm needs dask-jobqueue; install it with: pip install 'slingsim[cluster]'"
            ) from None
        import dask

        cores = self.cores or dask.config.get("jobqueue.slurm.cores", None)
        memory = self.memory or dask.config.get("jobqueue.slurm.memory", None)
        if not cores or not memory:
            raise ValueError(
                "cluster slurm: give the cores and memory of each job (--cores 8 --memory 16GB, "
                "or cores/memory in a --cluster-profile)"
            )
        options = dict(self.options)
        # One worker process per job, one thread per core: the engine releases the GIL.
        options.setdefault("processes", 1)
        options.setdefault("python", sys.executable)
        scheduler_options = {"dashboard": False, "dashboard_address": ":0", **options.pop("scheduler_options", {})}
        if self.walltime is not None:
            options["walltime"] = str(self.walltime)
        try:
            return SLURMCluster(cores=cores, memory=memory, scheduler_options=scheduler_options,
                                silence_logs=logging.ERROR, **options)
        except TypeError as err:
            raise ValueError(f"cluster slurm: {err}; see dask-jobqueue's SLURMCluster for the options") from None


def _valid_walltime(text: str) -> bool:
    """Whether ``text`` is a Slurm time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS."""
    days, _, rest = text.rpartition("-")
    if days and not days.isdigit():
        return False
    parts = rest.split(":")
    return 1 <= len(parts) <= 3 and all(p.isdigit() for p in parts)


def check_scheduler(scheduler: SchedulerLike) -> None:
    """Raise ValueError unless ``scheduler`` is one of the kinds in the module docstring (or ``"sync"``)."""
    if scheduler is None or scheduler == "sync" or isinstance(scheduler, BatchCluster):
        return
    if isinstance(scheduler, str):
        if scheduler.startswith(ADDRESS_PREFIXES):
            return
    else:
        from distributed import Client

        if isinstance(scheduler, Client):
            return
    raise ValueError(
        f"scheduler: {scheduler!r} is not a scheduler; give tcp://host:port, 'sync' for serial in-process runs, "
        "a distributed.Client, a BatchCluster, or nothing for a local cluster"
    )


@contextlib.contextmanager
def dask_client(scheduler: SchedulerLike, workers: Optional[int] = None) -> Iterator[Any]:
    """A Dask client for ``scheduler`` (see the module docstring), closed afterwards unless the caller owns it."""
    from distributed import Client

    check_scheduler(scheduler)
    if isinstance(scheduler, Client):
        yield scheduler
        return
    if scheduler is None:
        with _local_cluster(workers) as cluster, Client(cluster) as client:
            yield client
        return
    if isinstance(scheduler, BatchCluster):
        with _batch_client(scheduler) as client:
            yield client
        return
    with Client(scheduler) as client:
        yield client


@contextlib.contextmanager
def _local_cluster(workers: Optional[int]) -> Iterator[Any]:
    """Threads in this process talking in-process (no sockets); its HTTP servers on 127.0.0.1 at
    system-chosen ports, no dashboard."""
    from distributed import LocalCluster

    cluster = LocalCluster(
        n_workers=workers or default_workers(),
        threads_per_worker=1,
        processes=False,
        dashboard_address="127.0.0.1:0",
        worker_dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"dashboard": False},
        silence_logs=logging.ERROR,
    )
    try:
        yield cluster
    finally:
        cluster.close()


@contextlib.contextmanager
def _batch_client(spec: BatchCluster) -> Iterator[Any]:
    """A client of a started batch cluster with ``spec.jobs`` jobs and at least one worker joined."""
    from distributed import Client

    cluster = spec.start()
    try:
        cluster.scale(jobs=spec.jobs)
        with Client(cluster) as client:
            try:
                client.wait_for_workers(1, timeout=spec.start_timeout_s)
            except TimeoutError:
                raise RuntimeError(
                    f"cluster {spec.kind}: no worker joined within {spec.start_timeout_s:g} s; check the "
                    f"batch queue (squeue) and the job settings; the job script was:\n{cluster.job_script()}"
                ) from None
            yield client
    finally:
        cluster.close()
