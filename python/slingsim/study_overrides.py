"""Overrides a user gives a whole study: ``slingsim experiment NAME --set ...`` and ``slingsim validate --set ...``.

A recipe builds its configs itself (presets, node splits, victims, aggressors). ``--set KEY=VALUE``
changes every one of them; ``--set KIND:KEY=VALUE`` only those whose network is of one family
(``topology.kind``: ``aries``, ``dragonfly``, ...), so a study that sets Slingshot against Aries can
change one side alone, e.g. ``--set aries:nic.outstanding_release=each``.

They change a study's mechanisms, not its set-up: only the sections in :data:`OVERRIDABLE` may be
set, and of the topology only the keys in :data:`OVERRIDABLE_TOPOLOGY_KEYS`. The rest of the
topology, the jobs, the traffic and the simulation windows are what a recipe's checks (shared
switches, node splits, caps) are computed from, so a change there would leave those checks describing
a set-up that did not run. The wiring keys move global links between the switches of a group and
leave every node on its switch, so those checks still hold.

They are applied twice. When a recipe loads a preset or file (:func:`slingsim.config.load_config`), so
what it derives from the config (a victim's start time from the NICs' rate, say) sees them. And in
:func:`slingsim.sweep.fan_out`, which every recipe's runs pass through, after each config is resolved and
before its cache key is taken, so they hold over anything the recipe set itself: a run with an override
is stored apart from the run without it, and the config each run records (``provenance.json``) shows
the value used.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from .config import Config

TOPOLOGY_KINDS = ("dragonfly", "slimfly", "fitfly", "megafly", "fattree", "aries")
"""Network families a scoped override can name (the engine's ``topology.kind`` values)."""

OVERRIDABLE = ("nic", "links", "switch", "routing", "congestion", "qos", "mpi", "host")
"""Config sections ``--set`` may change in a study: the network's and hosts' mechanisms."""

OVERRIDABLE_TOPOLOGY_KEYS = ("topology.arrangement", "topology.cabling")
"""Topology keys ``--set`` may change in a study: which switches hold a dragonfly's global links,
which the papers do not give (docs/topologies.md)."""


@dataclass(frozen=True)
class StudyOverride:
    """One ``--set`` of a study: the text as given, the family it is limited to (None: every
    config) and the ``KEY=VALUE`` assignment."""

    text: str
    kind: Optional[str]
    assignment: str


def parse_override(text: str) -> StudyOverride:
    """``[KIND:]KEY=VALUE``, or a ValueError naming the option, what is wrong and what is allowed."""
    key, eq, _ = text.partition("=")
    if not eq or not key.strip():
        raise ValueError(f"--set {text!r}: expected [KIND:]KEY=VALUE, e.g. nic.outstanding_release=each "
                         f"or aries:nic.outstanding_release=each")
    kind: Optional[str] = None
    if ":" in key:
        kind, key = (part.strip() for part in key.split(":", 1))
        if kind not in TOPOLOGY_KINDS:
            raise ValueError(f"--set {text!r}: no network family {kind!r}; choose one of: "
                             f"{', '.join(TOPOLOGY_KINDS)}")
    section = key.strip().split(".", 1)[0]
    if (section not in OVERRIDABLE or "." not in key) and key.strip() not in OVERRIDABLE_TOPOLOGY_KEYS:
        raise ValueError(f"--set {text!r}: a study's {section or 'key'!r} is part of its set-up and cannot be "
                         f"changed; --set may change a key of: {', '.join(OVERRIDABLE)} (e.g. routing.algorithm=ugal), "
                         f"and {' and '.join(OVERRIDABLE_TOPOLOGY_KEYS)}")
    return StudyOverride(text, kind, f"{key.strip()}={text.partition('=')[2]}")


def parse_overrides(texts: Iterable[str]) -> Tuple[StudyOverride, ...]:
    """Every ``--set`` of a study, checked before anything runs."""
    return tuple(parse_override(t) for t in texts)


@dataclass
class AppliedOverrides:
    """The overrides in force and how many configs each changed."""

    overrides: Tuple[StudyOverride, ...]
    changed: Dict[str, int] = field(default_factory=dict)

    def unmatched(self) -> List[str]:
        """Overrides that changed no config: their family never ran."""
        return [o.text for o in self.overrides if not self.changed.get(o.text)]


_ACTIVE: ContextVar[Optional[AppliedOverrides]] = ContextVar("slingsim_study_overrides", default=None)


@contextmanager
def study_overrides(texts: Iterable[str]) -> Iterator[AppliedOverrides]:
    """Apply ``texts`` to every run the study inside the block starts; yields what they changed."""
    applied = AppliedOverrides(parse_overrides(texts))
    token = _ACTIVE.set(applied)
    try:
        yield applied
    finally:
        _ACTIVE.reset(token)


def _overrides_for(cfg: Config) -> List[StudyOverride]:
    """The active study's overrides that apply to ``cfg``'s network family (none outside a study)."""
    applied = _ACTIVE.get()
    if applied is None:
        return []
    kind = cfg.get("topology", {}).get("kind")
    return [o for o in applied.overrides if o.kind is None or o.kind == kind]


def with_study_overrides(cfg: Config) -> Config:
    """``cfg`` (resolved) with the active overrides that apply to its family, resolved again so the
    engine checks each value (its error names the override); ``cfg`` itself if none apply."""
    mine = _overrides_for(cfg)
    if not mine:
        return cfg
    from .api import resolved_config

    changed = resolved_config(cfg, overrides=[o.assignment for o in mine])
    applied = _ACTIVE.get()
    for o in mine:
        applied.changed[o.text] = applied.changed.get(o.text, 0) + 1
    return changed


def loaded_with_study_overrides(cfg: Config) -> Config:
    """A config just loaded from a preset or file, with the active overrides of its family applied, so
    what a recipe derives from it (a victim's start after the incast's onset, from the NICs' rate, say)
    sees the values the runs will use. Not counted: :func:`with_study_overrides` applies them again to
    every run, after anything the recipe set itself, and counts there."""
    mine = _overrides_for(cfg)
    if not mine:
        return cfg
    from .api import resolved_config
    from .config import apply_overrides

    assignments = [o.assignment for o in mine]
    resolved_config(cfg, overrides=assignments)  # the engine checks each value here, its error naming the --set
    return apply_overrides(cfg, assignments)


def unmatched_message(unmatched: List[str], what: str) -> str:
    """The error for overrides that changed nothing in the runs of ``what`` (a recipe, or the recipes
    validated)."""
    return (f"--set {', '.join(repr(u) for u in unmatched)}: no run of {what} was on a network of that family, "
            f"so the override changed nothing; the results written are those of the unchanged study")
