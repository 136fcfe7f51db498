"""Engines and sessions: one :class:`Database` handle per URL.

SQLite (the embedded default)
    WAL journal (readers never block the writer), ``busy_timeout`` so that a
    second process waits for the write lock instead of failing, foreign keys
    on.  pysqlite's own transaction handling is switched off and Hearth emits
    ``BEGIN`` itself: write transactions start with ``BEGIN IMMEDIATE`` so
    that they take the write lock first and cannot fail half-way with
    ``SQLITE_BUSY`` when another process committed in between.

    Pool: a ``QueuePool`` of connections opened with
    ``check_same_thread=False``.  Under eventlet every green thread runs on
    the same OS thread, so a connection is never used by two threads at once:
    the pool hands one connection to one green thread at a time (its lock is
    a green lock once monkey-patched), and a connection that comes back from
    a ``tpool`` worker thread is only reused after it was returned, which
    SQLite (serialized mode) allows.  A busy wait blocks the OS thread, which
    only happens when another *process* writes.

PostgreSQL (psycopg2)
    eventlet's psycopg2 patcher installs a wait callback, so a query waits on
    the hub instead of blocking every green thread.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
import warnings
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from hearth.common import config, paths
from hearth.db import driver_errors, schema_check
from hearth.db.write_queue import WriteQueue

SQLITE_BUSY_TIMEOUT_MS = 30000
_BEGIN_OPTION = "hearth_sqlite_begin"


def _configure_sqlite(engine: Engine) -> None:
    """Turn on WAL, busy_timeout and foreign keys; let Hearth emit BEGIN."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        mode = connection.get_execution_options().get(_BEGIN_OPTION, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


def _make_psycopg2_green() -> None:
    """Make psycopg2 cooperate with eventlet (idempotent)."""
    with warnings.catch_warnings():  # eventlet warns about itself on import
        warnings.simplefilter("ignore")
        # lazy: eventlet's psycopg2 patch only for PostgreSQL
        from eventlet.support import psycopg2_patcher
    psycopg2_patcher.make_psycopg_green()


def get_engine(url: str) -> Engine:
    """Create a SQLAlchemy engine for ``url`` with Hearth's settings."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            paths.ensure_directory(os.path.dirname(os.path.abspath(parsed.database)),
                                   "the database's directory")
        engine = create_engine(url, connect_args={"check_same_thread": False,
                                                  "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
                               pool_size=10, max_overflow=20, pool_use_lifo=True)
        _configure_sqlite(engine)
        return engine
    if parsed.get_backend_name() == "postgresql":
        _make_psycopg2_green()
        return create_engine(url, pool_size=10, max_overflow=40, pool_pre_ping=True)
    return create_engine(url)


class Database:
    """A database handle: the engine and session factory of one URL.

    Every function of :mod:`hearth.db.api` takes a ``Database`` as its first
    argument and runs in its own short transaction.  ``writes`` is the
    group-commit queue of the engine's hot path
    (:class:`~hearth.db.write_queue.WriteQueue`); every session flushes it
    first, so no read misses and no write overtakes a queued write.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = get_engine(url)
        self.dialect = self.engine.dialect.name
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self.writes = WriteQueue(self)

    @contextlib.contextmanager
    def session_scope(self, write: bool = False) -> Iterator[Session]:
        """Yield a session in a transaction; commit on success, roll back on error.

        ``write=True`` takes SQLite's write lock when the transaction begins.
        This process's queued writes are committed first (it reads its own
        writes), except for a read made while :func:`observing`.
        """
        if write or not _OBSERVING.get():
            self.writes.flush()
        with self._sessions() as session:
            if write and self.dialect == "sqlite":
                session.connection(execution_options={_BEGIN_OPTION: "IMMEDIATE"})
            try:
                yield session
                session.commit()
            except BaseException as error:
                session.rollback()
                ours = driver_errors.translated(error)
                if ours is not None:
                    raise ours from error
                raise

    def dispose(self) -> None:
        """Commit the queued writes, then close every pooled connection."""
        self.writes.flush()
        self.engine.dispose()


#: True while serving a client's read (see :func:`observing`); per green thread.
_OBSERVING: contextvars.ContextVar[bool] = contextvars.ContextVar("hearth_db_observing",
                                                                 default=False)


@contextlib.contextmanager
def observing() -> Iterator[None]:
    """Read as an observer: see what is committed, without committing queued writes first.

    A client's read (an API GET: following an action's events, listing
    stacks) sees what a reader in another process would; it does not make
    the engine commit its queued writes early and wait for them.  Anything
    seen is still a prefix of the queue: writes commit in order.
    """
    token = _OBSERVING.set(True)
    try:
        yield
    finally:
        _OBSERVING.reset(token)


_DATABASES: dict[str, Database] = {}
_DATABASES_LOCK = threading.Lock()


def get_database(url: str | None = None) -> Database:
    """Return the shared handle of ``url`` (default: the configured database).

    On first use the schema is checked, and created or migrated when
    ``[database] auto_migrate`` is on (:func:`hearth.db.schema_check.ensure_schema`).
    """
    url = url or config.database_url()
    with _DATABASES_LOCK:
        database = _DATABASES.get(url)
        if database is None:
            config.register_opts()
            schema_check.ensure_schema(url, auto_migrate=config.CONF.database.auto_migrate)
            database = _DATABASES[url] = Database(url)
        return database


def forget_database(url: str) -> None:
    """Dispose of and drop the shared handle of ``url`` (tests, shutdown)."""
    with _DATABASES_LOCK:
        database = _DATABASES.pop(url, None)
    if database is not None:
        database.dispose()


@contextlib.contextmanager
def session_scope(url: str | None = None, write: bool = False) -> Iterator[Session]:
    """Yield a session of the shared handle of ``url`` (see :meth:`Database.session_scope`)."""
    with get_database(url).session_scope(write=write) as session:
        yield session
