"""The options several subcommands share: the types of their values, how they
are added to a subcommand (``add_*``), and how the API reads them
(``store_of``, ``scheduler_of``)."""
from __future__ import annotations

import argparse
from typing import List

from ..cluster import BATCH_KINDS

CONFIG_HELP = (
    "a TOML config file, or a preset name: slingshot-malbec, slingshot-shandy, slingshot-max, "
    "examples/small-dragonfly, ... (see python/slingsim/configs/)"
)


class VersionAction(argparse.Action):
    """``--version``: print the version and source commit, then exit."""

    def __init__(self, option_strings: List[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest=dest, nargs=0, default=argparse.SUPPRESS,
                         help="print slingsim's version and git commit, then exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from ..provenance import VERSION, source_commit

        print(f"slingsim {VERSION} (commit {source_commit()})")
        parser.exit()


def parse_loads(text: str) -> List[float]:
    """``--loads`` value: comma-separated offered loads, each a number >= 0."""
    loads = []
    for item in text.split(","):
        item = item.strip()
        try:
            load = float(item)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{item!r} is not a number; give offered loads like 0.1,0.2,0.5"
            ) from None
        if load != load or load < 0:
            raise argparse.ArgumentTypeError(
                f"{item} is not a valid load; loads are fractions of injection bandwidth, 0 or more"
            )
        loads.append(load)
    return loads


def _whole(text: str, what: str = "an integer") -> int:
    """The integer ``text`` holds, or an argparse error saying it is not ``what``."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def positive_int(text: str) -> int:
    """``--workers`` value: an integer of at least 1."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be 1 or more")
    return value


def non_negative_int(text: str) -> int:
    """A count that may be zero (``gpcnet --warmup-iterations``)."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; give 0 or more")
    return value


def seed_int(text: str) -> int:
    """``--seed`` value: a non-negative integer."""
    value = _whole(text, "an integer seed")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; seeds are 0 or more")
    return value


def add_set(parser: argparse.ArgumentParser) -> None:
    """``--set KEY=VALUE``: a change to one config."""
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
        help="override a config key, e.g. routing.algorithm=ugal, traffic.uniform.load=0.4 "
             "(a source by name) or traffic.0.load=0.4 (by position); values are TOML; repeatable",
    )


def add_study_set(parser: argparse.ArgumentParser) -> None:
    """``--set [KIND:]KEY=VALUE``: a change to every run of a study."""
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="[KIND:]KEY=VALUE",
        help="change a mechanism in every run of the study (KEY=VALUE) or in the runs on one network "
             "family (KIND: aries, dragonfly, slimfly, fitfly, megafly, fattree), e.g. "
             "aries:nic.outstanding_release=each; keys of nic, links, switch, routing, congestion, qos, mpi "
             "and host only; values are TOML; repeatable (docs/experiments.md#changing-a-mechanism)",
    )


def add_scheduler(parser: argparse.ArgumentParser) -> None:
    """Where the simulations run: ``--scheduler``/``--workers``, or a batch cluster (read by ``scheduler_of``)."""
    parser.add_argument(
        "--scheduler", metavar="ADDR",
        help="Dask scheduler: tcp://host:port of a running scheduler, or 'sync' to run serially "
             "in this process; default: a quiet local cluster with one thread per core",
    )
    parser.add_argument("--workers", type=positive_int, metavar="N",
                        help="threads of the local cluster (default: number of cores)")
    batch = parser.add_argument_group("batch cluster (dask-jobqueue; pip install 'slingsim[cluster]')")
    batch.add_argument("--cluster", choices=BATCH_KINDS,
                       help="run the simulations as Dask workers in batch jobs of this system")
    batch.add_argument("--jobs", type=positive_int, metavar="N", help="batch jobs to start (default 1)")
    batch.add_argument("--cores", type=positive_int, metavar="N",
                       help="cores of each job, one simulation thread each")
    batch.add_argument("--memory", metavar="SIZE", help="memory of each job, e.g. 16GB")
    batch.add_argument("--walltime", metavar="TIME", help="time limit of each job, e.g. 01:00:00")
    batch.add_argument("--cluster-profile", metavar="FILE",
                       help="TOML file with a [slurm] table: jobs, cores, memory, walltime, start_timeout_s and "
                            "any dask-jobqueue option (queue, account, job_extra_directives, ...); the options "
                            "above override it")


def add_store(parser: argparse.ArgumentParser) -> None:
    """``--cache DIR`` / ``--no-cache``: the result store (read by ``store_of``)."""
    parser.add_argument("--cache", metavar="DIR",
                        help="result store folder: runs found there are read instead of simulated, new ones are "
                             "added (default: $SLINGSIM_CACHE or ~/.cache/slingsim)")
    parser.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the result store: simulate every run")


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress bars or notes."""
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress bars and no notes on stderr (errors are still printed)")


def store_of(args: argparse.Namespace) -> object:
    """The ``cache`` argument of the API for ``--cache DIR`` / ``--no-cache``: a folder, True or False."""
    if getattr(args, "no_cache", False):
        if args.cache:
            raise ValueError("--cache and --no-cache: give one of them")
        return False
    return args.cache or True


def scheduler_of(args: argparse.Namespace) -> object:
    """The ``scheduler`` argument of the API: ``--scheduler``, or a BatchCluster for ``--cluster``/``--cluster-profile``."""
    batch = {"jobs": args.jobs, "cores": args.cores, "memory": args.memory, "walltime": args.walltime}
    if args.cluster is None and args.cluster_profile is None:
        given = [f"--{k}" for k, v in batch.items() if v is not None]
        if given:
            raise ValueError(f"{', '.join(given)}: only with --cluster slurm or --cluster-profile FILE")
        return args.scheduler
    if args.scheduler is not None:
        raise ValueError("--scheduler and --cluster: give one of them (a batch cluster brings its own scheduler)")
    from ..cluster import BatchCluster

    if args.cluster_profile is not None:
        return BatchCluster.from_profile(args.cluster_profile, kind=args.cluster, **batch)
    return BatchCluster(kind=args.cluster, **{k: v for k, v in batch.items() if v is not None})
