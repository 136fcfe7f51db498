"""Agent keys, as salt-key keeps them: one file per agent id in four directories.

``<pki_dir>/accepted/<id>``, ``pending/<id>``, ``rejected/<id>`` and
``denied/<id>`` each hold one Z85 public key (or the same records in the
server database, shared by several masters: :mod:`hearth.master.pki_store`).
An agent presents its id and key (:meth:`KeyStore.authenticate`): the
same key as the accepted one is let in; another key for an accepted id is *denied* (recorded, never
admitted); a rejected id stays refused; an unknown id becomes pending,
unless ``auto_accept``.  :meth:`KeyStore.agent_of` answers the ZAP handler
from memory, so a deleted or rejected key stops being admitted at once.

Cloud deploys get keys made in advance (Salt Cloud's pre-seeded keys):
:meth:`KeyStore.preseed` generates an agent's key pair and accepts its
public half before the agent exists (the deployer uploads both halves over
SSH).  For machines no SSH reaches, :meth:`KeyStore.enroll` generates an
*enrollment* key pair instead, kept in ``enroll/<id>`` with an expiry: the
agent proves it once on the auth port together with the key pair it made
itself (:meth:`KeyStore.redeem`), which is then accepted; the enrollment
key is refused from then on, and after it expires.  The job port never
admits an enrollment key.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from hearth.common import exception
from hearth.master.pki_store import FilePki, PkiStore
from hearth.transport import certificates, keys

LOG = logging.getLogger(__name__)

ACCEPTED, PENDING, REJECTED, DENIED = "accepted", "pending", "rejected", "denied"
CATEGORIES = (ACCEPTED, PENDING, REJECTED, DENIED)
#: The directory of enrollment keys (not a key category: never admitted to the job port).
ENROLL = "enroll"
VALID_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,254}$")


@dataclass(frozen=True)
class KeyDecision:
    """The outcome of one authentication: the category and whether it changed anything."""

    status: str
    changed: bool


class KeyStore:
    """The master's agent keys (in a :class:`~hearth.master.pki_store.PkiStore`).

    An in-memory index of the accepted keys answers the ZAP handler; with a
    shared store, :meth:`refresh` brings it up to date with the other
    masters' changes.
    """

    def __init__(self, pki_dir: str, auto_accept: bool = False,
                 clock: Callable[[], float] = time.time, store: PkiStore | None = None) -> None:
        self.pki_dir = pki_dir
        self.auto_accept = auto_accept
        self.store = store or FilePki(pki_dir, (*CATEGORIES, ENROLL))
        self._clock = clock
        self._lock = threading.Lock()
        # the ZAP thread reads these while the I/O thread changes them one key at a time
        # (each change is one dict operation: safe without the lock)
        self._accepted_by_key: dict[bytes, str] = {}
        self._key_of: dict[str, bytes] = {}
        self._accepted_at: dict[str, float] = {}   # accepted while this master runs
        self.refresh()

    # --- reading ---------------------------------------------------------

    def _ids(self, category: str) -> list[str]:
        return self.store.names(category)

    def _read(self, category: str, agent_id: str) -> bytes | None:
        value = self.store.read(category, agent_id)
        return value.strip().encode() or None if value is not None else None

    def _where(self, category: str, agent_id: str) -> str:
        """Return where an operator finds a record (a file, or the database)."""
        if isinstance(self.store, FilePki):
            return self.store.path(category, agent_id)
        return f"'stackctl key-list' (the {category} keys)"

    def refresh(self) -> list[str]:
        """Index the accepted keys again; return the ids no longer accepted with their key.

        With a shared store another master may have accepted, rejected or
        deleted keys; the caller cuts off the agents whose key went.
        """
        with self._lock:  # not between another change's read and write
            key_of = {agent_id: value.strip().encode()
                      for agent_id, value in self.store.values(ACCEPTED).items()
                      if value.strip()}
            gone = {agent_id for agent_id, key in self._key_of.items()
                    if key_of.get(agent_id) != key}
            self._accepted_by_key = {key: agent_id for agent_id, key in key_of.items()}
            self._key_of = key_of
        return sorted(gone)

    def agent_of(self, key: bytes) -> str | None:
        """Return the id under which ``key`` is accepted, or None."""
        return self._accepted_by_key.get(key)

    def accepted_ids(self) -> list[str]:
        """Return the ids of every accepted agent, sorted."""
        return self._ids(ACCEPTED)

    def listing(self) -> dict[str, list[str]]:
        """Return the ids in each category (the shape of ``salt-key -L``)."""
        return {category: self._ids(category) for category in CATEGORIES}

    def fingerprints(self, pattern: str = "*") -> dict[str, dict[str, str]]:
        """Return the fingerprint of each key whose id matches ``pattern``, by category.

        Every category is there, empty or not (the shape of ``salt-key -F``).
        """
        return {category: {agent_id: keys.fingerprint(self._read(category, agent_id) or b"")
                            for agent_id in self._ids(category)
                            if fnmatch.fnmatchcase(agent_id, pattern)}
                for category in CATEGORIES}

    # --- writing ---------------------------------------------------------

    def _write(self, category: str, agent_id: str, key: bytes) -> None:
        self.store.write(category, agent_id, key.decode() + "\n")

    def _remove(self, category: str, agent_id: str) -> bool:
        if not self.store.remove(category, agent_id):
            return False
        if category == ACCEPTED:
            key = self._key_of.pop(agent_id, None)
            if key is not None and self._accepted_by_key.get(key) == agent_id:
                del self._accepted_by_key[key]
        return True

    def _accept(self, agent_id: str, key: bytes) -> None:
        self._write(ACCEPTED, agent_id, key)
        self._index(agent_id, key)
        self._accepted_at[agent_id] = self._clock()

    def accepted_within(self, agent_id: str, seconds: float) -> bool:
        """Return whether this master accepted ``agent_id``'s key less than ``seconds`` ago."""
        accepted = self._accepted_at.get(agent_id)
        return accepted is not None and self._clock() - accepted < seconds

    def _index(self, agent_id: str, key: bytes) -> None:
        """Admit ``key`` as ``agent_id`` (and no other key for that id)."""
        previous = self._key_of.get(agent_id)
        if previous is not None and previous != key and \
                self._accepted_by_key.get(previous) == agent_id:
            del self._accepted_by_key[previous]
        self._accepted_by_key[key] = agent_id
        self._key_of[agent_id] = key

    def authenticate(self, agent_id: str, key: bytes) -> KeyDecision:
        """Decide about agent ``agent_id`` presenting ``key``; record what is new."""
        if not VALID_ID.match(agent_id or ""):
            return KeyDecision(REJECTED, False)
        if self._accepted_by_key.get(key) == agent_id:
            return KeyDecision(ACCEPTED, False)  # a fleet coming back: no read per agent
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
                        "denied (see %s)", agent_id, self._where(DENIED, agent_id))
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
            for agent_id in done:
                self._remove(ENROLL, agent_id)
            return sorted(set(done))

    # --- keys made in advance (cloud deploys) ----------------------------

    def preseed(self, agent_id: str) -> keys.KeyPair:
        """Generate a key pair for ``agent_id``, accept its public half; return both.

        A key already accepted for that id is replaced (a re-deployed
        machine); any pending, rejected or denied record of the id is cleared.
        """
        self._check_id(agent_id)
        pair = certificates.generate()
        with self._lock:
            for category in (PENDING, REJECTED, DENIED):
                self._remove(category, agent_id)
            self._accept(agent_id, pair.public)
        LOG.info("agent %s: key pre-seeded and accepted", agent_id)
        return pair

    def enroll(self, agent_id: str, ttl: float) -> keys.KeyPair:
        """Generate a single-use enrollment key pair for ``agent_id``, valid ``ttl`` seconds."""
        self._check_id(agent_id)
        if ttl <= 0:
            raise exception.BadRequest(message=f"enrollment ttl must be positive, not {ttl}")
        pair = certificates.generate()
        record = {"public": pair.public.decode(), "expires": self._clock() + ttl,
                  "used": False}
        with self._lock:
            self._write_enrollment(agent_id, record)
        LOG.info("agent %s: enrollment key issued, valid %g seconds", agent_id, ttl)
        return pair

    def redeem(self, agent_id: str, presented: bytes, new_key: bytes) -> KeyDecision:
        """Accept ``new_key`` for ``agent_id`` when ``presented`` is its unused enrollment key.

        A used, expired or unknown enrollment key is refused (denied, or
        rejected when expired), and its use is logged without any key.
        """
        if not VALID_ID.match(agent_id or "") or not certificates.is_public_key(new_key):
            return KeyDecision(REJECTED, False)
        with self._lock:
            record = self._read_enrollment(agent_id)
            if record is None or record.get("public", "").encode() != presented:
                LOG.warning("agent %s presented an enrollment key that was never issued: "
                            "refused", agent_id)
                return KeyDecision(DENIED, False)
            if record.get("used"):
                LOG.warning("agent %s presented its enrollment key again after it was used: "
                            "refused", agent_id)
                return KeyDecision(DENIED, False)
            if record.get("expires", 0) < self._clock():
                LOG.warning("agent %s presented an expired enrollment key: refused", agent_id)
                return KeyDecision(REJECTED, False)
            for category in (PENDING, REJECTED, DENIED):
                self._remove(category, agent_id)
            self._accept(agent_id, new_key)
            self._write_enrollment(agent_id, {**record, "used": True,
                                              "used_at": self._clock()})
        LOG.info("agent %s enrolled: its own key is accepted", agent_id)
        return KeyDecision(ACCEPTED, True)

    def _check_id(self, agent_id: str) -> None:
        if not VALID_ID.match(agent_id or ""):
            raise exception.BadRequest(message=f"{agent_id!r} is not a valid agent id")

    def _read_enrollment(self, agent_id: str) -> dict | None:
        try:
            record = json.loads(self.store.read(ENROLL, agent_id) or "null")
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def _write_enrollment(self, agent_id: str, record: dict) -> None:
        self.store.write(ENROLL, agent_id, json.dumps(record), private=True)
