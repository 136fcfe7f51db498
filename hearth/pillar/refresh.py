"""An agent's in-memory pillar and its refresh (``saltutil.refresh_pillar``).

The agent holds its pillar as a :class:`LivePillar`: a dict (the loader's
``__pillar__``, updated in place) that also knows how to fetch a fresh
pillar from the master and which event to fire when a refresh completes.
Execution modules find the hook on ``__pillar__`` itself, so nothing is
registered globally; a plain dict (``stackctl call`` without an agent)
refreshes by compiling locally with this host's grains.

Hook for the agent (hearth/agent)::

    pillar = LivePillar(fetch=lambda override=None: channel.request("pillar"),
                        fire=lambda tag, data: channel.fire(tag, data))
    loader = execution_loader(opts, grains, pillar)   # keep the object: updated in place
    pillar.refresh()          # at connect, and whenever the master asks
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

LOG = logging.getLogger(__name__)

#: Fired when a refresh completed (Salt's ``/salt/minion/minion_pillar_refresh_complete``).
REFRESH_COMPLETE_TAG = "hearth/agent/pillar_refresh_complete"

Fetch = Callable[..., Mapping[str, Any]]
Fire = Callable[[str, dict[str, Any]], None]


class LivePillar(dict):
    """The pillar an agent holds, with the way to fetch a fresh one.

    ``fetch(pillar_override=None)`` returns a freshly compiled pillar (the
    agent asks the master); ``fire(tag, data)`` publishes an event.
    """

    def __init__(self, data: Mapping[str, Any] | None = None, *, fetch: Fetch,
                 fire: Fire | None = None) -> None:
        super().__init__(data or {})
        self.fetch = fetch
        self.fire = fire
        self._lock = threading.Lock()

    def compile_fresh(self, pillar_override: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return a freshly compiled pillar without keeping it."""
        return dict(self.fetch(pillar_override) if pillar_override else self.fetch())

    def refresh(self) -> dict[str, Any]:
        """Fetch the pillar, replace the held data in place, fire the completion event."""
        fresh = self.compile_fresh()
        with self._lock:
            self.clear()
            self.update(fresh)
        if self.fire is not None:
            try:
                self.fire(REFRESH_COMPLETE_TAG, {"complete": True})
            except Exception:  # noqa: BLE001 - the event is a notice; the data is in place
                LOG.warning("pillar refresh-complete event not fired", exc_info=True)
        return fresh


def local_fetch(opts: Mapping[str, Any], grains: Mapping[str, Any]) -> Fetch:
    """Return a fetch that compiles this host's pillar in-process (no master)."""
    def fetch(pillar_override: Mapping[str, Any] | None = None) -> dict[str, Any]:
        from hearth.pillar import compile_pillar, master_opts

        merged = {**master_opts(), **{k: v for k, v in opts.items() if k != "pillar_roots"}}
        agent_id = str(opts.get("id") or grains.get("id") or "local")
        return compile_pillar(agent_id, dict(grains), merged, pillar_override=pillar_override)
    return fetch


def refresh_pillar(pillar: dict[str, Any], fallback: Fetch, wait: bool = True) -> bool:
    """Refresh ``pillar`` in place: through its own hook when live, else by ``fallback``.

    Without ``wait`` a live pillar refreshes on a thread and True comes back
    at once, as Salt's ``refresh_pillar(wait=False)``; a plain dict always
    refreshes before returning.
    """
    if not isinstance(pillar, LivePillar):
        fresh = dict(fallback())
        pillar.clear()
        pillar.update(fresh)
        return True
    if wait:
        pillar.refresh()
        return True
    threading.Thread(target=pillar.refresh, name="pillar-refresh", daemon=True).start()
    return True
