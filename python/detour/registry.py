"""What the core's registry (`crates/detour-core/src/registry.rs`) says of
each scheme, as Python reads it: the one source of the names, descriptions,
config sections, activity counters, plot colours and baselines that the
CLI, the plots and the demo use, so a new scheme needs no Python edit."""

from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple

from . import _detour


class SchemeInfo(NamedTuple):
    """One registered scheme's entry."""

    name: str
    about: str
    #: Its config section (`[scheme.<section>]`), "" for none.
    section: str
    #: Counters that show it acting (all 0: the `scheme_idle` warning).
    activity: Tuple[str, ...]
    #: "#rrggbb", or None for the one `plots` derives from the name.
    colour: Optional[str]
    #: The scheme it is measured against; None for `conventional`.
    baseline: Optional[str]


def schemes() -> List[SchemeInfo]:
    """Every registered scheme, in the registry's order."""
    return [SchemeInfo(n, a, s, tuple(act), c, b) for n, a, s, act, c, b in _detour.schemes()]


def policies(key: str) -> List[Tuple[str, str]]:
    """(name, description) of every registered policy of the family that
    config key `key` names (`ftl.gc_policy`, `scheduler.order`,
    `ftl.mapping`), in registry order."""
    return [(name, about) for k, name, about in _detour.policies() if k == key]


def gc_policies() -> List[str]:
    """The names `ftl.gc_policy` takes (the importers' reasons list them)."""
    return [name for name, _about in policies("ftl.gc_policy")]


def scheme(name: str) -> SchemeInfo:
    """The entry of scheme `name` (KeyError naming it if none)."""
    found = next((e for e in schemes() if e.name == name), None)
    if found is None:
        raise KeyError(f"no registered scheme `{name}`")
    return found
