"""Grains: facts about the host, for targeting and for modules (``__grains__``).

:func:`load_grains` returns the core grains (cached per process and id)
with the static grains saved by ``grains.setval`` laid over them.
:class:`LazyGrains` defers that work until a module first reads a grain, so
calls that never look at grains (``test.ping``) never pay for them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, MutableMapping
from functools import lru_cache
from typing import Any

from hearth.common import paths
from hearth.grains.core import core_grains

__all__ = ["LazyGrains", "load_grains", "static_grains_path", "save_static_grain"]


@lru_cache(maxsize=8)
def _cached_core(minion_id: str | None) -> dict[str, Any]:

    return core_grains(minion_id)


def static_grains_path(opts: Mapping[str, Any]) -> str | None:
    """Return the file holding grains set with ``grains.setval`` (None without a state path)."""
    state_path = opts.get("state_path")
    return os.path.join(state_path, "grains.json") if state_path else None


def _static_grains(opts: Mapping[str, Any]) -> dict[str, Any]:
    path = static_grains_path(opts)
    try:
        with open(path, encoding="utf-8") as handle:  # type: ignore[arg-type]
            return dict(json.load(handle))
    except (OSError, TypeError, ValueError):
        return {}


def save_static_grain(opts: Mapping[str, Any], key: str, value: Any) -> None:
    """Persist one static grain so later processes see it."""
    path = static_grains_path(opts)
    if not path:
        return
    grains = _static_grains(opts)
    grains[key] = value
    paths.ensure_directory(os.path.dirname(path), "the directory of static grains")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(grains, handle, indent=2, sort_keys=True)


def load_grains(opts: Mapping[str, Any]) -> dict[str, Any]:
    """Return the grains of this host: core grains, then static ones over them."""
    grains = dict(_cached_core(opts.get("id")))
    grains.update(_static_grains(opts))
    return grains


class LazyGrains(MutableMapping[str, Any]):
    """A grains mapping that gathers the grains on first access."""

    def __init__(self, opts: Mapping[str, Any]) -> None:
        self._opts = opts
        self._grains: dict[str, Any] | None = None

    def _data(self) -> dict[str, Any]:
        if self._grains is None:
            self._grains = load_grains(self._opts)
        return self._grains

    def __getitem__(self, key: str) -> Any:
        return self._data()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._data()[key] = value

    def __delitem__(self, key: str) -> None:
        del self._data()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data())

    def __len__(self) -> int:
        return len(self._data())
