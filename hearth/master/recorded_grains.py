"""Grains recorded master-side: what the master itself holds true about an agent.

An agent reports its grains in its hello, and anyone who holds an accepted
key can report anything.  Recorded grains come from the master's side
instead: the cloud profile that created the machine (written with its
pre-seeded key, before the agent first runs) or the operator accepting a
key (``stackctl key-accept ID --grain role=db``).  Pillar top files and
publisher_acl rule targets match on these (plus the id and nodegroups),
never on reported grains unless ``[master] trust_agent_grains`` says so.

One JSON object per agent in ``<pki_dir>/grains/<id>``, beside the keys, so
they live and die with the key (deleting a key deletes them); with
``[master] key_store = database``, in the database beside the keys
(:mod:`hearth.master.pki_store`), shared by the masters.  Ids are checked as
key ids are, so a name can never leave the directory.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from hearth.common import exception
from hearth.master.keys import VALID_ID
from hearth.master.pki_store import FilePki, PkiStore

LOG = logging.getLogger(__name__)

CATEGORY = "grains"


class RecordedGrains:
    """The recorded grains of every agent, in the master's pki store."""

    def __init__(self, pki_dir: str, store: PkiStore | None = None) -> None:
        self.store = store or FilePki(pki_dir)

    @staticmethod
    def _check(agent_id: str) -> str:
        if not VALID_ID.match(agent_id or ""):
            raise exception.BadRequest(message=f"{agent_id!r} is not a valid agent id")
        return agent_id

    def get(self, agent_id: str) -> dict[str, Any]:
        """Return ``agent_id``'s recorded grains (``{}`` when none or unreadable)."""
        try:
            text = self.store.read(CATEGORY, self._check(agent_id))
            grains = json.loads(text) if text is not None else {}
        except (ValueError, exception.BadRequest) as error:
            LOG.error("recorded grains of agent %s are unreadable (ignored): %s", agent_id,
                      error)
            return {}
        return grains if isinstance(grains, dict) else {}

    def update(self, agent_id: str, grains: Mapping[str, Any]) -> dict[str, Any]:
        """Record ``grains`` over ``agent_id``'s recorded ones (a None value removes one).

        Return the agent's recorded grains after the change.
        """
        if not isinstance(grains, Mapping) or not all(isinstance(k, str) for k in grains):
            raise exception.BadRequest(message="recorded grains must be a map of names")
        merged = {**self.get(agent_id), **grains}
        merged = {key: value for key, value in merged.items() if value is not None}
        self.store.write(CATEGORY, self._check(agent_id),
                         json.dumps(merged, indent=1, sort_keys=True, default=str),
                         private=True)
        return merged

    def forget(self, agent_ids: Iterable[str]) -> None:
        """Remove the recorded grains of ``agent_ids`` (their keys were deleted)."""
        for agent_id in agent_ids:
            if VALID_ID.match(agent_id or ""):
                self.store.remove(CATEGORY, agent_id)
