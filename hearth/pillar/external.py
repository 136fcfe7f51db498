"""Run the configured ext_pillar modules in order, each merged into the pillar so far.

``ext_pillar:`` is Salt's ordered list of one-key maps; the value's shape
picks the call: a scalar ``arg`` gives ``ext_pillar(id, pillar, arg)``, a
list gives ``ext_pillar(id, pillar, *list)``, a map gives
``ext_pillar(id, pillar, **map)``.  A module may be listed several times.

Unlike Salt, nothing fails silently: a malformed entry, a module that is
missing or refused by its ``__virtual__``, a module that raises and one that
returns something other than a mapping each add a message naming the module
(and its position in the list) to the errors, and are logged.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hearth.common import exception

LOG = logging.getLogger(__name__)

Merge = Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class ExtPillarCall:
    """One entry of the ``ext_pillar`` list: which module, with what arguments."""

    name: str
    position: int
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """Return how messages name the entry: ``name (ext_pillar entry N)``."""
        return f"{self.name} (ext_pillar entry {self.position})"


def _call_of(name: str, value: Any, position: int) -> ExtPillarCall:
    if isinstance(value, Mapping):
        return ExtPillarCall(str(name), position, kwargs={str(k): v for k, v in value.items()})
    if isinstance(value, list):
        return ExtPillarCall(str(name), position, args=tuple(value))
    return ExtPillarCall(str(name), position, args=(value,))


def parse_ext_pillar(config: Any, errors: list[str],
                     exclude: Sequence[str] = ()) -> list[ExtPillarCall]:
    """Return the calls of an ``ext_pillar`` list; malformed entries go to ``errors``."""
    if not config:
        return []
    if not isinstance(config, list):
        errors.append('The "ext_pillar" option is malformed: it must be a list of '
                      f'one-key maps, not {type(config).__name__}')
        return []
    calls = []
    for position, entry in enumerate(config, 1):
        if not isinstance(entry, Mapping) or not entry:
            errors.append(f'The "ext_pillar" option is malformed: entry {position} '
                          f'({entry!r}) is not a map of module name to arguments')
            continue
        calls += [_call_of(name, value, position) for name, value in entry.items()
                  if name not in exclude]
    return calls


def call_one(call: ExtPillarCall, loader: Any, agent_id: str,
             pillar: Mapping[str, Any]) -> Mapping[str, Any]:
    """Call one ext_pillar with ``pillar`` (a copy it may keep) and return its data.

    Raises ExtPillarError on any failure.
    """
    try:
        function = loader[f"{call.name}.ext_pillar"]
    except exception.HearthException as error:
        raise exception.ExtPillarError(
            name=call.label, reason=f"ext_pillar interface named {call.name} is unavailable: "
                                    f"{error}") from error
    try:
        data = function(agent_id, pillar, *call.args, **call.kwargs)
    except exception.HearthException as error:
        raise exception.ExtPillarError(name=call.label, reason=str(error)) from error
    except Exception as error:  # noqa: BLE001 - any module failure is reported, never lost
        LOG.debug("ext_pillar %s raised", call.label, exc_info=True)
        raise exception.ExtPillarError(
            name=call.label, reason=f"{type(error).__name__}: {error}") from error
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise exception.ExtPillarError(
            name=call.label, reason=f"it returned {type(data).__name__}, not a mapping")
    return data


def run_ext_pillars(calls: Sequence[ExtPillarCall], loader: Any, agent_id: str,
                    pillar: Mapping[str, Any], merge: Merge, errors: list[str],
                    live_pillar: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run ``calls`` in order over ``pillar``; return the merged pillar.

    ``live_pillar`` is the dict the modules see as ``__pillar__``; it is
    kept equal to the pillar so far before each call.
    """
    result = dict(pillar)
    for call in calls:
        snapshot = copy.deepcopy(result)
        if live_pillar is not None:
            live_pillar.clear()
            live_pillar.update(snapshot)
        try:
            data = call_one(call, loader, agent_id, snapshot)
        except exception.ExtPillarError as error:
            LOG.error("%s", error)
            errors.append(str(error))
            continue
        if data:
            result = merge(result, data)
    return result
