"""Group commit: hot-path writes from many green threads share one transaction.

An engine records two state changes per resource and action.  Written one
transaction each, a 1000-resource stack costs 2000 commits; queued here,
the IN_PROGRESS records of every resource the walker started together go
in one transaction, and a chain's COMPLETE goes in with its successor's
IN_PROGRESS.

The rules that keep this safe:

* a write submitted with ``wait=True`` returns only once it is committed
  (a resource's IN_PROGRESS record, a plug-in's data before it waits), so
  no plug-in acts before its own state change, and every change queued
  ahead of it, is durable;
* a write submitted with ``wait=False`` (a resource's COMPLETE or FAILED
  record) is committed with the next waiting write, at the next
  :meth:`WriteQueue.flush`, or after at most ``[database]
  group_commit_delay`` seconds, whichever comes first;
* writes commit in the order they were queued, and their ``on_commit``
  callbacks (publishing events) run only after the commit, so nothing
  is shown before it is stored;
* every other database access of the process (:meth:`Database.session_scope
  <hearth.db.session.Database.session_scope>`) flushes the queue first,
  so a reader in this process always sees its own writes, and no other
  write can overtake a queued one.

A batch that fails is retried one write per transaction, so one bad write
(a row deleted meanwhile) cannot lose the others.  The failure of a write
nobody waits for is kept for its owner (:meth:`WriteQueue.take_failures`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from hearth.common import config
from hearth.db import driver_errors

if TYPE_CHECKING:
    from hearth.common.green import Event
    from hearth.db.session import Database

LOG = logging.getLogger(__name__)

#: A queued write: called with a DBAPI cursor and the SQLAlchemy dialect, inside the batch.
Write = Callable[[Any, Any], Any]


@contextlib.contextmanager
def write_transaction(db: Database) -> Iterator[Any]:
    """Yield a DBAPI cursor in a write transaction (SQLite: ``BEGIN IMMEDIATE``).

    Committed when the block ends, rolled back if it raises.
    """
    connection = db.engine.raw_connection()
    try:
        cursor = connection.cursor()
        if db.dialect == "sqlite":  # pysqlite's own transactions are off (session.py)
            cursor.execute("BEGIN IMMEDIATE")
        try:
            yield cursor
        except BaseException as error:
            connection.rollback()
            ours = driver_errors.translated(error)
            if ours is not None:
                raise ours from error
            raise
        connection.commit()
    finally:
        connection.close()


class _Job:
    """One queued write, who owns it and who waits for it."""

    __slots__ = ("write", "owner", "on_commit", "done")

    def __init__(self, write: Write, owner: str | None,
                 on_commit: Callable[[Any], None] | None, done: Event | None) -> None:
        self.write = write
        self.owner = owner
        self.on_commit = on_commit
        #: the green event its waiter waits on (None: nobody waits)
        self.done = done


class WriteQueue:
    """The group-commit queue of one :class:`~hearth.db.session.Database`."""

    def __init__(self, db: Database, delay: float | None = None) -> None:
        self.db = db
        self._delay = delay
        self._jobs: list[_Job] = []
        #: made by the first write: a process that only reads never imports eventlet
        self._lock: Any = None
        self._flush_scheduled = False
        self._timer_armed = False
        self._failures: dict[str | None, list[BaseException]] = {}
        self.commits = 0  # transactions committed (for tests and benchmarks)

    @property
    def delay(self) -> float:
        """Return the longest a write nobody waits for stays queued (seconds)."""
        if self._delay is None:
            config.register_opts()
            self._delay = config.CONF.database.group_commit_delay
        return self._delay

    @property
    def pending(self) -> bool:
        """Return whether writes are queued or being committed."""
        return bool(self._jobs) or (self._lock is not None and self._lock.locked())

    def submit(self, write: Write, *, wait: bool, owner: str | None = None,
               on_commit: Callable[[Any], None] | None = None) -> Any:
        """Queue ``write``; with ``wait`` return its result once committed (or raise its error).

        ``on_commit(result)`` runs after the commit.  ``owner`` (a stack id)
        names who hears of the failure of a write nobody waits for.
        """
        # lazy: eventlet only when an engine queues writes (stackctl --in-process reads)
        from hearth.common import green
        if self._lock is None:
            self._lock = green.Lock()
        job = _Job(write, owner, on_commit, green.Event() if wait else None)
        self._jobs.append(job)
        if job.done is None:
            if not self._flush_scheduled and not self._timer_armed:
                self._timer_armed = True
                green.spawn_after(self.delay, self._flush_by_timer)
            return None
        if not self._flush_scheduled:
            # runs once every green thread that is runnable now had its turn
            self._flush_scheduled = True
            green.spawn(self._flush_scheduled_batch)
        return job.done.wait()

    def flush(self) -> None:
        """Commit everything queued so far (and wait for a commit in progress)."""
        if not self.pending:
            return
        with self._lock:
            jobs, self._jobs = self._jobs, []
            if jobs:
                self._commit(jobs)

    def take_failures(self, owner: str | None) -> list[BaseException]:
        """Return and forget the errors of ``owner``'s writes that nobody waited for."""
        return self._failures.pop(owner, [])

    # --- the flushing threads ------------------------------------------------
    def _flush_scheduled_batch(self) -> None:
        self._flush_scheduled = False
        self.flush()

    def _flush_by_timer(self) -> None:
        self._timer_armed = False
        self.flush()

    # --- committing ----------------------------------------------------------
    def _commit(self, jobs: list[_Job]) -> None:
        try:
            results = self._run(jobs)
        except Exception as error:  # noqa: BLE001 - each write is retried on its own below
            if len(jobs) == 1:
                self._settle(jobs[0], error=error)
                return
            LOG.debug("a batch of %d writes failed (%s); retrying them one by one",
                      len(jobs), error)
            for job in jobs:
                self._commit([job])
            return
        except BaseException:
            self._jobs[:0] = jobs  # killed mid-commit: nothing taken is lost
            raise
        for job, result in zip(jobs, results, strict=True):
            self._settle(job, result)

    def _run(self, jobs: list[_Job]) -> list[Any]:
        dialect = self.db.engine.dialect
        with write_transaction(self.db) as cursor:
            results = [job.write(cursor, dialect) for job in jobs]
        self.commits += 1
        return results

    def _settle(self, job: _Job, result: Any = None, error: BaseException | None = None
                ) -> None:
        if error is None and job.on_commit is not None:
            try:
                job.on_commit(result)
            except Exception:  # noqa: BLE001 - a callback never undoes a commit
                LOG.exception("after-commit callback failed")
        if job.done is not None:
            if error is None:
                job.done.send(result)
            else:
                job.done.send_exception(error)
        elif error is not None:
            LOG.error("could not store a write of %s: %s", job.owner, error)
            self._failures.setdefault(job.owner, []).append(error)
