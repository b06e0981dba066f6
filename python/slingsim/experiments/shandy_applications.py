"""[DeSensi20] Fig. 11: congestion impact on applications using all 1024 nodes of Shandy.

The paper splits Shandy between an application (MILC, HPCG, LAMMPS, FFT) and
an incast or all-to-all aggressor, 25/75, 50/50 and 75/25, with the random
placement (the one that congests most, its Fig. 10), and finds congestion
control protecting the applications at full scale: at most 3.55x (LAMMPS
beside an incast on 75% of the nodes). Here the applications are the proxy
workloads of ``congestion_heatmap`` on the ``slingshot-shandy`` preset,
victims starting once the aggressor is in its steady state (:mod:`.onset`). Unlike the
paper's MILC and HPCG, the proxies run on any node count, so no point is
missing. ``quick`` uses 256 nodes and the 25% victim share only.

The recipe reports only if every application meets its aggressor
(``congestion_heatmap.victim_shares``: it spans at least two switches and
one of its switches or groups also holds aggressor nodes), checked on the
nodes each run placed the jobs on (random placement: the engine draws them).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import pyarrow as pa

from .. import provenance
from ..cluster import SchedulerLike
from ..store import CacheLike
from .congestion_heatmap import identical_points, max_impact, plot, run_points, study_points, summarise_shares
from .output import study_output
from .stop_rules import check_stop_rule, stop_rule_checks, study_params

SYSTEMS = {"Slingshot": "slingshot-shandy"}
APPLICATIONS = ("MILC", "HPCG", "LAMMPS", "FFT")
SPLITS = (0.75, 0.5, 0.25)
"""Application share of the nodes (aggressor 25, 50, 75%)."""
NODES, QUICK_NODES = 1024, 256


def points(quick: bool = False):
    """Every (labels, isolated config, congested config) of the figure.

    The applications start by :func:`.onset.victim_start_ns` (one aggressor message from every sender on
    each of Shandy's two rails through the incast target's NIC: 16.1 ms beside 768 aggressor nodes, 4.0 ms
    beside the quick 192; 1 ms beside the all-to-all).
    Hundreds of senders opening their first windows at once put megabytes into the fabric, and the
    incast's target drains them at its line rate: with 768 aggressor nodes LAMMPS measured 10.4x at
    1 ms, 3.6x at 3 ms and 1.18x at 6 ms (the steady state the paper measures)."""
    return study_points(quick, placement="random", systems=SYSTEMS, nodes=QUICK_NODES if quick else NODES,
                        splits=(0.25,) if quick else SPLITS, victims=APPLICATIONS)


def run_shandy_applications(
    out_dir: Union[str, Path] = "out/shandy-applications",
    quick: bool = False,
    scheduler: SchedulerLike = None,
    workers: Optional[int] = None,
    progress: bool = True,
    cache: CacheLike = True,
    stop_rule: Optional[str] = None,
) -> pa.Table:
    """Run the figure; write ``shandy_applications.parquet`` and ``shandy_applications.png``; return the table."""
    check_stop_rule(stop_rule)
    started = provenance.now()
    chosen = points(quick)
    rows, summaries, shares = run_points(chosen, scheduler, workers, progress, cache, name="shandy-applications",
                                         stop_rule=stop_rule)
    checks = {**key_figures(rows), "shares_checked": True, "shares": summarise_shares(chosen, shares)["Slingshot"],
              **stop_rule_checks(rows, stop_rule)}
    with study_output(out_dir, summaries, started, study_params(quick, stop_rule)) as out:
        out.write(shandy_applications=rows)
        plot(rows, out.path / "shandy_applications.png", out.provenance)
        return out.table(rows, checks)


def key_figures(rows: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The largest impact and where (application, aggressor, application share), the largest per aggressor,
    and how many applications the aggressor left exactly untouched."""
    top = max((r for r in rows if r["impact"] is not None), key=lambda r: r["impact"])
    biggest, censored = max_impact(rows)
    return {
        "max_impact": biggest,
        "max_impact_censored": censored,
        "max_at": {k: top[k] for k in ("victim", "aggressor", "victim_share")},
        "max_impact_by_aggressor": {a: max_impact([r for r in rows if r["aggressor"] == a])[0]
                                    for a in dict.fromkeys(r["aggressor"] for r in rows)},
        "identical_points": identical_points(rows),
        "paper": {"source": "[DeSensi20] Sec. III-A, Fig. 11", "max_impact": 3.55,
                  "max_at": {"victim": "LAMMPS", "aggressor": "incast", "victim_share": 0.25}},
    }
