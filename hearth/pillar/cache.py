"""The compiled-pillar cache (``pillar_cache``): per agent and pillarenv, with a TTL.

One cache per process (the master's), in memory, thread-safe.  Salt's
``pillar_cache`` is the same trade-off: while an entry is fresh, changes to
the pillar sources are not seen; :meth:`PillarCache.clear` (called by a
refresh) forgets an agent's entries.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from typing import Any

Key = tuple[str, str]


class PillarCache:
    """Compiled pillars by (agent id, pillarenv), each with the time it was stored."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: dict[Key, tuple[float, dict[str, Any]]] = {}

    def get(self, key: Key, ttl: float) -> dict[str, Any] | None:
        """Return a copy of the entry of ``key`` if younger than ``ttl`` seconds."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            stored, pillar = entry
            if self._clock() - stored >= ttl:
                del self._entries[key]
                return None
            return copy.deepcopy(pillar)

    def put(self, key: Key, pillar: dict[str, Any]) -> None:
        """Store a copy of ``pillar`` under ``key``."""
        with self._lock:
            self._entries[key] = (self._clock(), copy.deepcopy(pillar))

    def clear(self, agent_id: str | None = None) -> None:
        """Forget the entries of ``agent_id`` (every entry when None)."""
        with self._lock:
            for key in [k for k in self._entries if agent_id is None or k[0] == agent_id]:
                del self._entries[key]


#: The process's cache (the master compiles for every agent through it).
PILLAR_CACHE = PillarCache()
