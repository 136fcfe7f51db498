"""Returns an agent keeps on disk until the master acknowledges them.

Each return is one JSON file ``<root_dir>/returns/<jid>.json``, written
(atomically) before it is first sent and removed when the master's ``ack``
arrives, so neither an agent restart nor a master outage loses one.
"""

from __future__ import annotations

import json
import logging
import os
import time
from typing import Any

from hearth.jobs import is_jid

LOG = logging.getLogger(__name__)


class ReturnStore:
    """Unacknowledged returns in one directory."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        os.makedirs(directory, mode=0o700, exist_ok=True)
        self._sent_at: dict[str, float] = {}

    def _path(self, jid: str) -> str:
        return os.path.join(self.directory, f"{jid}.json")

    def save(self, ret: dict[str, Any]) -> None:
        """Keep ``ret`` until :meth:`acknowledge` of its jid."""
        path = self._path(ret["jid"])
        with open(f"{path}.tmp", "w", encoding="utf-8") as handle:
            json.dump(ret, handle, default=str)
        os.replace(f"{path}.tmp", path)

    def acknowledge(self, jid: str) -> None:
        """Forget the return of ``jid`` (the master stored it)."""
        self._sent_at.pop(jid, None)
        if not is_jid(jid):
            return
        try:
            os.unlink(self._path(jid))
        except FileNotFoundError:
            pass

    def kept(self, jid: str) -> dict[str, Any] | None:
        """Return the kept return of ``jid``, or None (acknowledged, or never made)."""
        if not is_jid(jid):
            return None
        try:
            with open(self._path(jid), encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError):
            return None

    def sent(self, jid: str) -> None:
        """Note that the return of ``jid`` was just sent."""
        self._sent_at[jid] = time.monotonic()

    def due(self, older_than: float | None = None) -> list[dict[str, Any]]:
        """Return the kept returns not sent in the last ``older_than`` seconds (all if None)."""
        limit = time.monotonic() - older_than if older_than is not None else None
        found = []
        for name in sorted(os.listdir(self.directory)):
            jid = name[:-5]
            if not name.endswith(".json") or not is_jid(jid):
                continue
            if limit is not None and self._sent_at.get(jid, 0.0) > limit:
                continue
            try:
                with open(os.path.join(self.directory, name), encoding="utf-8") as handle:
                    found.append(json.load(handle))
            except (OSError, ValueError) as error:
                LOG.warning("unreadable kept return %s: %s", name, error)
        return found
