"""The thread that writes the master's job cache, in batches, and says what is safe.

The master opens the database before it serves and hands it over.  Should
this thread die (a bug: write failures are caught and logged), the master
is told (``on_death``) and stops, rather than serving on with nothing
written and nothing acknowledged.

The I/O thread queues published jobs, agents' returns and agent records;
this thread commits whatever has queued up in one transaction and then
hands the committed returns back (``on_stored``), so that the master
acknowledges a return only once it is in the database: an agent keeps a
return until then, so none is lost if the master or the database fails.
A failed write is logged and its returns are not acknowledged (the agents
resend them).
"""

from __future__ import annotations

import datetime
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from hearth.common import daemon
from hearth.db import api_agents, job_cache

LOG = logging.getLogger(__name__)

PURGE_INTERVAL = 60.0


class JobCacheWriter:
    """Write jobs, returns and agents to the database from one thread."""

    def __init__(self, database: Any, keep_seconds: int,
                 on_stored: Callable[[list[dict[str, Any]]], None],
                 on_death: Callable[[str], None]) -> None:
        self.database = database
        self._finished = threading.Event()
        self.keep_seconds = keep_seconds
        self._on_stored = on_stored
        self._queue: queue.SimpleQueue[tuple[str, Any] | None] = queue.SimpleQueue()
        self._last_purge = 0.0
        self._thread = daemon.watch_thread("job-cache writer", self._run, on_death)

    def job(self, record: dict[str, Any], then: Callable[[bool], None] | None = None) -> None:
        """Queue a published job's record; ``then(owned)`` runs once it is written (or failed).

        A master sends a job to its agents only once its record is in the
        database, so that another master sharing the database can always
        take over the job, and store its returns, should this one die.
        ``owned`` is False when another master holds the job now (the
        record was refused, :func:`hearth.db.api_agents.jobs_publish_store`).
        """
        now = datetime.datetime.now(datetime.UTC)
        self._queue.put(("job", ({**record, "expires_at": now + datetime.timedelta(
            seconds=self.keep_seconds)}, then)))

    def owned(self, jid: str, master_id: str, then: Callable[[bool], None]) -> None:
        """Queue the question whether job ``jid`` is still ``master_id``'s; answer ``then``.

        A master asks before it sends a job to more agents: a master judged
        dead while it was only paused finds its jobs taken over and sends
        nothing more for them.  A failed read answers True (the agents run
        a job sent twice once).
        """
        self._queue.put(("own", (jid, master_id, then)))

    def ret(self, ret: dict[str, Any]) -> None:
        """Queue an agent's return (with ``received_at``)."""
        self._queue.put(("ret", ret))

    def agent(self, record: dict[str, Any]) -> None:
        """Queue an agent record (id, grains or None, last_seen)."""
        self._queue.put(("agent", record))

    def forget_agents(self, agent_ids: list[str]) -> None:
        """Queue the removal of agents' records (their keys were deleted)."""
        self._queue.put(("forget", agent_ids))

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued, then stop."""
        self._queue.put(None)
        # not join(): the database layer's thread-local state can hold a finished
        # thread for seconds, and everything this waits for is done by then
        self._finished.wait(timeout)

    def _run(self) -> None:
        try:
            self._serve()
        finally:
            self._finished.set()

    def _serve(self) -> None:
        while True:
            items = [self._queue.get()]
            while True:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            stop = None in items
            batch: dict[str, list[Any]] = {"job": [], "own": [], "ret": [], "agent": [],
                                           "forget": []}
            for item in items:
                if item is not None:
                    batch[item[0]].append(item[1])
            self._write(batch, api_agents)
            if time.monotonic() - self._last_purge > PURGE_INTERVAL:
                self._last_purge = time.monotonic()
                self._guarded("purging expired jobs", job_cache.job_purge_expired,
                              self.database)
            if stop:
                return

    def _write(self, batch: dict[str, list[Any]], api: Any) -> None:
        lost: set[str] = set()
        if self.keep_seconds > 0 and batch["job"]:
            lost = self._guarded("storing jobs", api.jobs_publish_store, self.database,
                                 [record for record, _ in batch["job"]]) or set()
        for record, then in batch["job"]:
            if then is not None:
                then(record["jid"] not in lost)
        if batch["own"]:
            self._answer_owned(batch["own"], api)
        if batch["ret"]:
            if self.keep_seconds > 0:
                stored = self._guarded("storing returns", api.job_returns_store,
                                       self.database, batch["ret"])
                if stored is None:
                    return  # not acknowledged: the agents send them again
            self._on_stored(batch["ret"])
        if batch["agent"]:
            self._guarded("recording agents", api.agents_store, self.database, batch["agent"])
        if batch["forget"]:
            self._guarded("forgetting agents", api.agents_delete, self.database,
                          [agent_id for ids in batch["forget"] for agent_id in ids])

    def _answer_owned(self, questions: list[tuple[str, str, Callable[[bool], None]]],
                      api: Any) -> None:
        """Answer :meth:`owned` questions, one read per master id asked about.

        Without a job cache (``keep_jobs_seconds = 0``) no master can take a
        job over: every job is its master's.
        """
        if self.keep_seconds <= 0:
            for _, _, then in questions:
                then(True)
            return
        by_master: dict[str, set[str]] = {}
        for jid, master_id, _ in questions:
            by_master.setdefault(master_id, set()).add(jid)
        owned: dict[str, set[str] | None] = {
            master_id: self._guarded("reading whose jobs they are", api.jobs_owned,
                                     self.database, jids, master_id)
            for master_id, jids in by_master.items()}
        for jid, master_id, then in questions:
            mine = owned[master_id]
            then(mine is None or jid in mine)

    @staticmethod
    def _guarded(what: str, function: Callable[..., Any], *args: Any) -> Any:
        try:
            return function(*args)
        except Exception as error:  # noqa: BLE001 - the master keeps running; agents retry
            LOG.error("job cache: %s failed: %s", what, error)
            LOG.debug("job cache failure", exc_info=True)
            return None
