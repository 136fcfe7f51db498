"""Merge two pillar sources with one of Salt's strategies (``pillar_source_merging_strategy``).

The strategies are a table (:data:`STRATEGIES`); each takes the pillar so
far and the next source and returns a new dict, leaving both inputs intact.

- ``recurse``: dicts merge key by key, all the way down; a later scalar or
  list replaces the earlier one, unless ``merge_lists`` (then the later
  list's new items are appended to the earlier list, without duplicates).
- ``overwrite``: a top-level key of the later source replaces the earlier
  value wholesale; other keys are kept.
- ``aggregate``: top-level keys merge; below them the later dict decides
  which keys remain (keys only the earlier dict had are dropped) and lists
  are replaced, as Salt's yamlex aggregation does without ``!aggregate``
  markers.
- ``none``: ``recurse`` without list merging (Salt then also restricts the
  pillar to one environment; :mod:`hearth.pillar.top` does that part).
- ``smart``: ``aggregate`` when the renderer ends in ``yamlex``, else
  ``recurse`` (Hearth renders ``jinja|yaml``, so ``recurse``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from hearth.common import exception

Merge = Callable[[Mapping[str, Any], Mapping[str, Any], bool], dict[str, Any]]


def update(dest: dict[str, Any], upd: Mapping[str, Any],
           merge_lists: bool = False) -> dict[str, Any]:
    """Deep-update ``dest`` with ``upd`` in place and return it (Salt's dictupdate.update)."""
    for key, value in upd.items():
        current = dest.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            dest[key] = update(current, value, merge_lists)
        elif merge_lists and isinstance(current, list) and isinstance(value, list):
            dest[key] = current + [item for item in value if item not in current]
        else:
            dest[key] = copy.deepcopy(value)
    return dest


def merge_recurse(old: Mapping[str, Any], new: Mapping[str, Any],
                  merge_lists: bool = False) -> dict[str, Any]:
    """Return ``old`` deep-merged with ``new``; lists replaced unless ``merge_lists``."""
    return update(copy.deepcopy(dict(old)), new, merge_lists)


def merge_overwrite(old: Mapping[str, Any], new: Mapping[str, Any],
                    merge_lists: bool = False) -> dict[str, Any]:
    """Return ``old`` with each top-level key of ``new`` replaced wholesale."""
    merged = copy.deepcopy(dict(old))
    merged.update(copy.deepcopy(dict(new)))
    return merged


def _aggregate_below(old: Any, new: Any) -> Any:
    """Merge below the top level: the later dict's keys only, the later value otherwise."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        return {key: _aggregate_below(old[key], value) if key in old else copy.deepcopy(value)
                for key, value in new.items()}
    return copy.deepcopy(new)


def merge_aggregate(old: Mapping[str, Any], new: Mapping[str, Any],
                    merge_lists: bool = False) -> dict[str, Any]:
    """Return the top-level union of ``old`` and ``new``, each shared key merged below."""
    merged = copy.deepcopy(dict(old))
    for key, value in new.items():
        merged[key] = _aggregate_below(old[key], value) if key in old else copy.deepcopy(value)
    return merged


def merge_none(old: Mapping[str, Any], new: Mapping[str, Any],
               merge_lists: bool = False) -> dict[str, Any]:
    """Return ``merge_recurse`` of the two, never merging lists (as Salt's ``none``)."""
    return merge_recurse(old, new, False)


#: strategy name -> merge function.  ``smart`` is resolved by :func:`strategy_for`.
STRATEGIES: dict[str, Merge] = {
    "recurse": merge_recurse,
    "overwrite": merge_overwrite,
    "aggregate": merge_aggregate,
    "none": merge_none,
}

#: every name ``pillar_source_merging_strategy`` accepts.
STRATEGY_NAMES = ("smart", *STRATEGIES)


def strategy_for(name: str, renderer: str = "jinja|yaml") -> Merge:
    """Return the merge function of strategy ``name`` (``smart`` resolved for ``renderer``).

    Raises :class:`~hearth.common.exception.PillarConfigError` for an
    unknown name (Salt logs a warning and falls back to ``recurse``).
    """
    if name == "smart":
        last = renderer.split("|")[-1]
        name = "aggregate" if last == "yamlex" or renderer.startswith("yamlex_") else "recurse"
    try:
        return STRATEGIES[name]
    except KeyError:
        raise exception.PillarConfigError(
            message=f"Unknown pillar_source_merging_strategy {name!r}; use one of "
                    f"{', '.join(STRATEGY_NAMES)}.{exception.did_you_mean(name, STRATEGY_NAMES)}"
        ) from None


def merge(old: Mapping[str, Any], new: Mapping[str, Any], strategy: str = "smart",
          merge_lists: bool = False, renderer: str = "jinja|yaml") -> dict[str, Any]:
    """Return ``old`` merged with the later source ``new`` by ``strategy``."""
    return strategy_for(strategy, renderer)(old, new, merge_lists)
