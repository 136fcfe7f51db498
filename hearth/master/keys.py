"""Agent keys, as salt-key keeps them: one file per agent id in four directories.

``<pki_dir>/accepted/<id>``, ``pending/<id>``, ``rejected/<id>`` and
``denied/<id>`` each hold one Z85 public key.  An agent presents its id and
key (:meth:`KeyStore.authenticate`): the same key as the accepted one is
let in; another key for an accepted id is *denied* (recorded, never
admitted); a rejected id stays refused; an unknown id becomes pending,
unless ``auto_accept``.  :meth:`KeyStore.agent_of` answers the ZAP handler
from memory, so a deleted or rejected key stops being admitted at once.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import re
import threading
from dataclasses import dataclass

from hearth.common import exception

LOG = logging.getLogger(__name__)

ACCEPTED, PENDING, REJECTED, DENIED = "accepted", "pending", "rejected", "denied"
CATEGORIES = (ACCEPTED, PENDING, REJECTED, DENIED)
VALID_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,254}$")


@dataclass(frozen=True)
class KeyDecision:
    """The outcome of one authentication: the category and whether it changed anything."""

    status: str
    changed: bool


class KeyStore:
    """The master's agent keys on disk, with an in-memory index of the accepted ones."""

    def __init__(self, pki_dir: str, auto_accept: bool = False) -> None:
        self.pki_dir = pki_dir
        self.auto_accept = auto_accept
        self._lock = threading.Lock()
        for category in CATEGORIES:
            os.makedirs(os.path.join(pki_dir, category), mode=0o700, exist_ok=True)
        self._accepted_by_key: dict[bytes, str] = {}
        for agent_id in self._ids(ACCEPTED):
            key = self._read(ACCEPTED, agent_id)
            if key:
                self._accepted_by_key[key] = agent_id

    # --- reading ---------------------------------------------------------

    def _path(self, category: str, agent_id: str) -> str:
        return os.path.join(self.pki_dir, category, agent_id)

    def _ids(self, category: str) -> list[str]:
        try:
            return sorted(name for name in os.listdir(os.path.join(self.pki_dir, category))
                          if not name.startswith("."))
        except OSError:
            return []

    def _read(self, category: str, agent_id: str) -> bytes | None:
        try:
            with open(self._path(category, agent_id), "rb") as handle:
                return handle.read().strip() or None
        except OSError:
            return None

    def agent_of(self, key: bytes) -> str | None:
        """Return the id under which ``key`` is accepted, or None."""
        return self._accepted_by_key.get(key)

    def accepted_ids(self) -> list[str]:
        """Return the ids of every accepted agent, sorted."""
        return self._ids(ACCEPTED)

    def listing(self) -> dict[str, list[str]]:
        """Return the ids in each category (the shape of ``salt-key -L``)."""
        return {category: self._ids(category) for category in CATEGORIES}

    # --- writing ---------------------------------------------------------

    def _write(self, category: str, agent_id: str, key: bytes) -> None:
        path = self._path(category, agent_id)
        temporary = f"{path}.tmp"
        with open(temporary, "wb") as handle:
            handle.write(key + b"\n")
        os.replace(temporary, path)

    def _remove(self, category: str, agent_id: str) -> bool:
        try:
            os.unlink(self._path(category, agent_id))
        except FileNotFoundError:
            return False
        if category == ACCEPTED:
            self._accepted_by_key = {k: v for k, v in self._accepted_by_key.items()
                                     if v != agent_id}
        return True

    def _accept(self, agent_id: str, key: bytes) -> None:
        self._write(ACCEPTED, agent_id, key)
        self._index(agent_id, key)

    def _index(self, agent_id: str, key: bytes) -> None:
        """Admit ``key`` as ``agent_id`` (and no other key for that id)."""
        index = {k: v for k, v in self._accepted_by_key.items() if v != agent_id}
        index[key] = agent_id
        self._accepted_by_key = index

    def authenticate(self, agent_id: str, key: bytes) -> KeyDecision:
        """Decide about agent ``agent_id`` presenting ``key``; record what is new."""
        if not VALID_ID.match(agent_id or ""):
            return KeyDecision(REJECTED, False)
        with self._lock:
            accepted = self._read(ACCEPTED, agent_id)
            if accepted is not None:
                if accepted == key:
                    # also how a key accepted on disk by someone else (pre-seeded) gets in
                    changed = self._accepted_by_key.get(key) != agent_id
                    if changed:
                        self._index(agent_id, key)
                    return KeyDecision(ACCEPTED, changed)
                return self._deny(agent_id, key)
            if self._read(REJECTED, agent_id) is not None:
                return KeyDecision(REJECTED, False)
            pending = self._read(PENDING, agent_id)
            if pending is not None and pending != key:
                return self._deny(agent_id, key)
            if self.auto_accept:
                self._remove(PENDING, agent_id)
                self._accept(agent_id, key)
                return KeyDecision(ACCEPTED, True)
            if pending is None:
                self._write(PENDING, agent_id, key)
                return KeyDecision(PENDING, True)
            return KeyDecision(PENDING, False)

    def _deny(self, agent_id: str, key: bytes) -> KeyDecision:
        changed = self._read(DENIED, agent_id) != key
        if changed:
            self._write(DENIED, agent_id, key)
            LOG.warning("agent %s presented a key that differs from its recorded one: "
                        "denied (see %s)", agent_id, self._path(DENIED, agent_id))
        return KeyDecision(DENIED, changed)

    def _matching(self, pattern: str, categories: tuple[str, ...]) -> list[tuple[str, str]]:
        found = [(category, agent_id) for category in categories
                 for agent_id in self._ids(category) if fnmatch.fnmatchcase(agent_id, pattern)]
        if not found:
            raise exception.AgentKeyNotFound(pattern, f" in {'/'.join(categories)}")
        return found

    def accept(self, pattern: str, include_rejected: bool = False) -> list[str]:
        """Accept the pending keys whose ids match the glob ``pattern``; return the ids."""
        sources = (PENDING, REJECTED) if include_rejected else (PENDING,)
        with self._lock:
            done = []
            for category, agent_id in self._matching(pattern, sources):
                key = self._read(category, agent_id)
                self._remove(category, agent_id)
                self._accept(agent_id, key or b"")
                done.append(agent_id)
            return done

    def reject(self, pattern: str) -> list[str]:
        """Reject the pending and accepted keys matching ``pattern``; return the ids."""
        with self._lock:
            done = []
            for category, agent_id in self._matching(pattern, (PENDING, ACCEPTED)):
                key = self._read(category, agent_id)
                self._remove(category, agent_id)
                self._write(REJECTED, agent_id, key or b"")
                done.append(agent_id)
            return done

    def delete(self, pattern: str) -> list[str]:
        """Delete the keys matching ``pattern`` in every category; return the ids."""
        with self._lock:
            done = []
            for category, agent_id in self._matching(pattern, CATEGORIES):
                self._remove(category, agent_id)
                done.append(agent_id)
            return sorted(set(done))
