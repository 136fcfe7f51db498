"""Fetching a host's pillar afresh, and the event that says a refresh completed.

On an agent the pillar comes from the master (``saltutil.refresh_pillar``
asks it over the agent's channel and fires :data:`REFRESH_COMPLETE_TAG`);
on a host without an agent (``stackctl call``) :func:`local_fetch` compiles
it in-process with this host's grains and the ``[pillar]`` configuration,
as ``salt-call --local`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hearth.pillar import compile_pillar, master_opts

#: Fired when an agent holds its refreshed pillar (Salt's ``minion_pillar_refresh_complete``).
REFRESH_COMPLETE_TAG = "hearth/agent/pillar_refresh_complete"

Fetch = Callable[..., Mapping[str, Any]]


def local_fetch(opts: Mapping[str, Any], grains: Mapping[str, Any]) -> Fetch:
    """Return ``fetch(pillar_override=None)`` compiling this host's pillar in-process."""
    def fetch(pillar_override: Mapping[str, Any] | None = None) -> dict[str, Any]:

        merged = {**master_opts(), **opts}
        agent_id = str(opts.get("id") or grains.get("id") or "local")
        return compile_pillar(agent_id, dict(grains), merged, pillar_override=pillar_override)
    return fetch


def replace_held(pillar: dict[str, Any], fresh: Mapping[str, Any]) -> None:
    """Replace the contents of the held ``pillar`` dict in place (the loader keeps the object)."""
    pillar.clear()
    pillar.update(fresh)
