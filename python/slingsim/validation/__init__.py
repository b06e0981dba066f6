"""``slingsim validate``: every recipe run and set beside the papers' numbers, in one table.

A :class:`Claim` is one thing a paper says about one of its figures: a number (the mean switch
latency is 350 ns) and an ordering or shape (Slingshot suffers less than Aries, two NICs carry twice
what one carries). Each claim reads its recipe's outcome: the rows and the checks the recipe stored
with its table, the same figures ``slingsim experiment NAME --json`` prints. A row of the report
says what the paper gives, what we measure, whether the ordering holds and whether the magnitude is
within 2x of the paper's (only where the paper states a number), and whether the recipe verified that
the parts of the network the figure is about were shared (``shares_checked``) or, for one-node or
one-link figures, that the set-up was what the figure needs (the recipe's ``*_checked`` keys).

The package, in the order a row is made:

- ``readers.py``: :class:`Outcome`, what one recipe produced, and the readers claims take of it;
- ``claims.py``: :class:`Claim` and :data:`CLAIMS`, every claim in the order of the table;
- ``causes.py``: :data:`KNOWN_CAUSES`, the cause the measurements found for each difference, and
  :data:`FULL_MODE_READS`, what full mode found where it reads a claim otherwise than quick mode;
- ``rows.py``: :func:`claim_row`, a claim's row with its verdicts, and the counts of the rows;
- ``report.py``: the rows as text, the table's cells and the Markdown of docs/validation.md;
- ``run.py``: :func:`run_validation`, which runs the recipes and returns the rows.

The recipes run one after another, each through the same Dask path as a sweep, on one client opened
for the whole validation; a recipe that fails is reported as such and the others still run.
"""
from __future__ import annotations

# The package's interface: what the CLI, the tests and scripts import from ``slingsim.validation``.
from .causes import FULL_MODE_READS, KNOWN_CAUSES
from .claims import CLAIMS, Claim, experiments_of
from .readers import ALONE_FRACTION, TABLE_2_NETWORKS, Outcome, check
from .report import (HEADERS, difference_line, difference_lines, experiments_anchor, full_mode_line, full_mode_lines,
                     markdown, table_cells, undecided_line, undecided_lines)
from .rows import (MAGNITUDE_FACTOR, claim_row, differing, differs, shares_status, summary_counts, undecided_rows,
                   within_factor)
from .run import run_recipe, run_validation

__all__ = [
    "ALONE_FRACTION",
    "CLAIMS",
    "FULL_MODE_READS",
    "HEADERS",
    "KNOWN_CAUSES",
    "MAGNITUDE_FACTOR",
    "TABLE_2_NETWORKS",
    "Claim",
    "Outcome",
    "check",
    "claim_row",
    "difference_line",
    "difference_lines",
    "differing",
    "differs",
    "experiments_anchor",
    "full_mode_line",
    "full_mode_lines",
    "experiments_of",
    "markdown",
    "run_recipe",
    "run_validation",
    "shares_status",
    "summary_counts",
    "table_cells",
    "undecided_line",
    "undecided_lines",
    "undecided_rows",
    "within_factor",
]
