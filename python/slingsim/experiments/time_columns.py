"""A job's summary read as table columns that say where its time went (docs/results.md, "Where a job's
time goes"): its rendezvous stages, how busy MPI kept the busiest CPU, how far apart its ranks finished
each collective round, and the run's share of non-minimal packets. Recipes add them to their rows."""
from __future__ import annotations

from typing import Any, Dict, Optional

RENDEZVOUS_STAGES = ("request", "match_wait", "clear_to_send", "data")
"""The stages of a rendezvous message the engine times (docs/workloads.md, `rendezvous`)."""
SPREAD_STATS = ("mean", "max")


def time_columns(summary: Dict[str, Any], job: str) -> Dict[str, Optional[float]]:
    """Columns of job ``job`` of ``summary``, None where the summary has no value (no rendezvous message,
    a job that did not finish, no collective round closed): ``rendezvous_<stage>_us`` (mean per message),
    ``mpi_cpu_us_max``, ``mpi_cpu_fraction``, ``round_spread_mean_us``, ``round_spread_max_us``,
    ``round_spread_first_us`` and ``round_spread_last_us`` (the mean spread of the first and of the last
    round index: whether the ranks drift further apart round after round) and ``nonminimal_fraction``."""
    j = summary["jobs"][job]
    rendezvous = (j.get("rendezvous") or {}).get("mean_ns") or {}
    cpu = j.get("mpi_cpu_ns") or {}
    rounds = j.get("collective_rounds") or {}
    spread = rounds.get("spread_ns") or {}
    by_round = [v for v in (rounds.get("spread_ns_by_round") or {}).get("mean") or [] if v is not None]
    return {
        **{f"rendezvous_{k}_us": _us(rendezvous.get(k)) for k in RENDEZVOUS_STAGES},
        "mpi_cpu_us_max": _us(cpu.get("max")),
        "mpi_cpu_fraction": j.get("mpi_cpu_fraction"),
        **{f"round_spread_{k}_us": _us(spread.get(k)) for k in SPREAD_STATS},
        "round_spread_first_us": _us(by_round[0]) if by_round else None,
        "round_spread_last_us": _us(by_round[-1]) if by_round else None,
        "nonminimal_fraction": summary.get("nonminimal_fraction"),
    }


def _us(ns: Optional[float]) -> Optional[float]:
    return None if ns is None else ns / 1e3
