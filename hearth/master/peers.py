"""A master among the others that share its database: heartbeats, liveness, takeover.

Several masters may use one server database (PostgreSQL): agents that list
them fail over from one to the next (:mod:`hearth.agent.masters`), and the
masters share the job cache and, with ``[master] key_store = database``,
the agents' keys.  A thread of each master (:class:`MasterPeers`), every
``heartbeat_interval`` seconds:

* counts a heartbeat in the master's row (:mod:`hearth.db.api_masters`);
* reads the other masters' rows: one whose count has not moved for
  ``peer_timeout`` seconds of this master's clock, or that said it stopped,
  is dead; this master claims the jobs it left unfinished (each job is
  claimed by one master only) and hands them to its I/O thread, which
  continues them (:mod:`hearth.master.takeover`), then forgets the dead
  master;
* with a shared key store, notices a change another master made (the
  store's revision) and indexes the accepted keys again; the agents whose
  key went are cut off by the I/O thread;
* records a digest of its pillar configuration and tree
  (:mod:`hearth.master.pillar_digest`) and warns when a live peer's
  differs: an agent failing over between them would get another pillar.

At start, :func:`check_peers` refuses to serve beside a live master with
another key pair: the agents that fail over from one to the other would
refuse one of them (:func:`hearth.agent.connection.verify_master_key`).
"""

from __future__ import annotations

import datetime
import logging
import os
import platform
import threading
import time
from collections.abc import Callable
from typing import Any

from hearth.agent.masters import MasterAddress
from hearth.common import daemon
from hearth.common.exception import DaemonStartFailed
from hearth.db import api_masters
from hearth.db.timeutils import utcnow
from hearth.master.keys import KeyStore
from hearth.master.settings import MasterSettings
from hearth.transport import keys

LOG = logging.getLogger(__name__)


def peer_record(master_id: str, settings: MasterSettings, public: bytes) -> dict[str, Any]:
    """Return how the other masters sharing the database see this one."""
    address = MasterAddress(settings.client_host, settings.port, settings.auth_port)
    return {"id": master_id, "host": platform.node(), "pid": os.getpid(),
            "address": str(address), "fingerprint": keys.fingerprint(public)}


def check_peers(masters: list[dict[str, Any]], record: dict[str, Any],
                settings: MasterSettings, now: datetime.datetime) -> None:
    """Raise DaemonStartFailed when a live master of the database has another key pair.

    Live here means a heartbeat within ``2 * peer_timeout`` by the database
    rows' clock (this check runs once, at start, before any heartbeat is seen).
    """
    recent = now - datetime.timedelta(seconds=2 * settings.peer_timeout)
    for peer in masters:
        if peer["stopped"] or peer["beat_at"] < recent or peer["id"] == record["id"]:
            continue
        if peer["fingerprint"] != record["fingerprint"]:
            raise DaemonStartFailed(reason=(
                f"the master at {peer['address']} (host {peer['host']}, pid {peer['pid']}) "
                f"shares this database with another key pair (fingerprint "
                f"{peer['fingerprint']}; this master's is {record['fingerprint']}): agents "
                f"failing over from one to the other would refuse one of them. Give every "
                f"master the same key pair: copy master.key and master.key_secret from one "
                f"master's [master] pki_dir to the others' before they start"))


class MasterPeers:
    """The thread that beats for this master and watches the others (module docstring)."""

    def __init__(self, database: Any, record: dict[str, Any], settings: MasterSettings,
                 key_store: KeyStore, *, on_death: Callable[[str], None],
                 on_adopt: Callable[[dict[str, Any], list[dict[str, Any]]], None],
                 on_keys_gone: Callable[[list[str]], None],
                 on_fenced: Callable[[], None] = lambda: None,
                 pillar_digest: Callable[[], str] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Register this master (``record``) and start watching.

        ``on_adopt(peer, job_records)`` and ``on_keys_gone(agent_ids)`` are
        called on this thread; ``on_death(reason)`` if it dies;
        ``on_fenced()`` when this master finds its row gone (another master
        took it for dead and took its jobs over).
        ``pillar_digest()`` is recorded at each heartbeat and compared with
        the peers'.  Raise DaemonStartFailed when a live peer has another
        key pair.
        """
        self._api = api_masters
        self._database = database
        self.record = record
        self.id = record["id"]
        self._interval = settings.heartbeat_interval
        self._timeout = settings.peer_timeout
        self._on_adopt, self._on_keys_gone = on_adopt, on_keys_gone
        self._on_fenced = on_fenced
        self._keys = key_store
        self._clock = clock
        self._pillar_digest = pillar_digest
        #: (peer id, its digest, this master's) already warned about
        self._pillar_warned: set[tuple[str, str, str]] = set()
        #: peer id -> (its heartbeat count, when this master saw the count change)
        self._seen: dict[str, tuple[int, float]] = {}
        #: the masters as this master last saw them (``stats``)
        self.view: list[dict[str, Any]] = []
        self._revision = key_store.store.revision() if key_store.store.shared else 0
        check_peers(api_masters.masters_list(database), record, settings, utcnow())
        api_masters.master_register(database, record)
        self._stopped = threading.Event()
        self._thread = daemon.watch_thread("peer watch", self._run, on_death)

    def close(self, timeout: float = 2.0) -> None:
        """Stop beating and record that this master stopped (the others take over at once)."""
        self._stopped.set()
        self._thread.join(timeout)
        try:
            self._api.master_stop(self._database, self.id)
        except Exception as error:  # noqa: BLE001 - the others judge it by its silence then
            LOG.error("could not record this master's stop in the database: %s", error)

    def _run(self) -> None:
        failing = False
        while not self._stopped.wait(self._interval):
            try:
                self.beat()
            except Exception as error:  # noqa: BLE001 - the database may come back
                if not failing:
                    LOG.error("masters: heartbeat failed (the database?): %s", error)
                    LOG.debug("heartbeat failure", exc_info=True)
                failing = True
                continue
            if failing:
                LOG.warning("masters: heartbeats recorded again")
            failing = False

    def beat(self) -> None:
        """Count a heartbeat, judge the other masters, take over the dead ones' jobs."""
        api, database = self._api, self._database
        digest = self._digest()
        if not api.master_beat(database, self.id, digest):
            LOG.warning("this master's row was gone from the database (another master "
                        "judged it stopped and took over its unfinished jobs); registered "
                        "again, it drops the jobs it lost")
            api.master_register(database, self.record)
            self._on_fenced()
        now, view, seen = self._clock(), [], {}
        for peer in api.masters_list(database):
            if peer["id"] == self.id:
                view.append({**self._shown(peer), "alive": True, "self": True})
                continue
            beats, since = self._seen.get(peer["id"], (peer["beats"], now))
            if beats != peer["beats"]:
                since = now
            seen[peer["id"]] = (peer["beats"], since)
            silent = now - since
            if peer["stopped"] or silent > self._timeout:
                self._take_over(peer, "stopped" if peer["stopped"] else
                                f"has not beaten for {silent:.1f} s")
                continue
            view.append({**self._shown(peer), "alive": True, "self": False,
                         "silent": round(silent, 1),
                         "pillar": self._compare_pillar(peer, digest)})
        self._seen, self.view = seen, view
        self._watch_keys()

    def _digest(self) -> str | None:
        """Return this master's pillar digest (None without one, or when it cannot be read)."""
        if self._pillar_digest is None:
            return None
        try:
            return self._pillar_digest()
        except Exception as error:  # noqa: BLE001 - compiling reports a broken configuration
            LOG.debug("masters: no pillar digest: %s", error)
            return None

    def _compare_pillar(self, peer: dict[str, Any], digest: str | None) -> str:
        """Return ``same``, ``differs`` or ``unknown``; warn once about a difference."""
        theirs = peer.get("pillar_digest")
        if digest is None or not theirs:
            return "unknown"
        if theirs == digest:
            return "same"
        if (peer["id"], theirs, digest) not in self._pillar_warned:
            self._pillar_warned.add((peer["id"], theirs, digest))
            LOG.warning("the master at %s (host %s, pid %s) compiles pillar from another "
                        "configuration than this one (the [pillar] options, its config_file or "
                        "the files of pillar_roots differ): an agent failing over between them "
                        "gets another pillar. Give every master the same pillar configuration "
                        "and tree", peer["address"], peer["host"], peer["pid"])
        return "differs"

    @staticmethod
    def _shown(peer: dict[str, Any]) -> dict[str, Any]:
        return {"id": peer["id"], "address": peer["address"], "host": peer["host"],
                "pid": peer["pid"], "fingerprint": peer["fingerprint"]}

    def _take_over(self, peer: dict[str, Any], why: str) -> None:
        """Claim a dead master's unfinished jobs, hand them to the I/O thread, forget it."""
        api = self._api
        jids = api.jobs_claim(self._database, peer["id"], self.id)
        if jids:
            self._on_adopt(peer, api.jobs_load(self._database, jids))
        api.master_forget(self._database, peer["id"])
        LOG.warning("the master at %s (host %s, pid %s) %s: this master takes over its %d "
                    "unfinished job(s)%s", peer["address"], peer["host"], peer["pid"], why,
                    len(jids), f": {', '.join(jids)}" if jids else "")

    def _watch_keys(self) -> None:
        """Index the accepted keys again when another master changed the shared store."""
        store = self._keys.store
        if not store.shared:
            return
        revision = store.revision()
        if revision != self._revision:
            self._revision = revision
            self._on_keys_gone(self._keys.refresh())
