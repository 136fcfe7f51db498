"""Is a database's schema the code's?  The check every process makes on a database's first use.

:func:`ensure_schema` runs when a process first opens a database
(:func:`hearth.db.session.get_database`).  The common case is kept cheap:
when the database already records the newest revision named by the
migration files (:func:`declared_head`, read from their text), nothing else
is done.  Otherwise the migration module (:mod:`hearth.db.migration`, over
alembic: 370 ms of imports) is loaded, once, to refuse a schema the code
does not know, or to migrate (``[database] auto_migrate``).  Concurrent
first uses are serialized by :func:`migration_lock`: a file lock next to a
SQLite database, an advisory lock on PostgreSQL.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from collections.abc import Iterator

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from hearth.common import paths

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), "migrations")
_PG_MIGRATION_LOCK_KEY = 0x4E415254  # any constant shared by every Hearth process
#: ``revision = "0002"`` / ``down_revision = "0001"`` (or None) lines of a migration file
_REVISION_LINE = re.compile(
    r"""^(down_revision|revision)\s*(?::[^=\n]*)?=\s*(?:["']([^"']+)["']|None)""", re.M)


def declared_head() -> str | None:
    """Return the one revision no migration file builds on, read from the files' text.

    None when the files do not name exactly one such revision; then only
    alembic (:func:`hearth.db.migration.head_revision`) can tell.
    """
    revisions, parents = set(), set()
    versions = os.path.join(MIGRATIONS_DIR, "versions")
    for name in os.listdir(versions):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(versions, name), encoding="utf-8") as handle:
            for key, value in _REVISION_LINE.findall(handle.read()):
                (revisions if key == "revision" else parents).add(value)
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def recorded_revision(connection: Connection) -> str | None:
    """Return the revision the database records, read without alembic (None: none)."""
    try:
        return connection.scalar(text("SELECT version_num FROM alembic_version"))
    except DBAPIError:  # no such table: an empty database
        connection.rollback()
        return None


def migration_engine(url: str) -> Engine:
    """Return a plain engine for ``url`` (a SQLite file's directory made first)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        paths.ensure_directory(os.path.dirname(os.path.abspath(parsed.database)),
                               "the database's directory")
    return create_engine(url)


@contextlib.contextmanager
def migration_lock(url: str, connection: Connection) -> Iterator[None]:
    """Hold a lock that serializes migrations of one database across processes."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        with open(os.path.abspath(parsed.database) + ".migrate-lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    elif parsed.get_backend_name() == "postgresql":
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _PG_MIGRATION_LOCK_KEY})
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"),
                               {"key": _PG_MIGRATION_LOCK_KEY})
            connection.commit()
    else:
        yield


def ensure_schema(url: str, auto_migrate: bool = True) -> None:
    """Make sure the schema at ``url`` is the code's; migrate it when allowed.

    Raises :class:`~hearth.common.exception.DatabaseSchemaTooNew` for a
    schema written by newer code, and
    :class:`~hearth.common.exception.DatabaseNotMigrated` when the schema is
    old (or missing) and ``auto_migrate`` is off.
    """
    engine = migration_engine(url)
    try:
        with engine.connect() as connection:
            declared = declared_head()
            if declared is not None and recorded_revision(connection) == declared:
                return
            # lazy: alembic (370 ms) only when the schema is not the code's newest
            from hearth.db import migration

            migration.bring_to_head(connection, url, auto_migrate)
    finally:
        engine.dispose()
