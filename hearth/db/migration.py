"""Schema migrations: bring a database to the code's schema with alembic.

:func:`db_sync` (``hearth-manage db-sync``) upgrades to the newest
revision; :func:`ensure_schema` runs on a database's first use and either
migrates it (``[database] auto_migrate``) or refuses a schema the code does
not know.  Concurrent first uses are serialized: a file lock next to a
SQLite database, an advisory lock on PostgreSQL.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, create_engine, text
from sqlalchemy.engine import make_url

from hearth.common import exception

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), "migrations")
_PG_MIGRATION_LOCK_KEY = 0x4E415254  # any constant shared by every Hearth process


def alembic_config(url: str | None = None) -> Config:
    """Return the alembic configuration of Hearth's migrations (for ``url``)."""
    config = Config(os.path.join(MIGRATIONS_DIR, "alembic.ini"))
    config.set_main_option("script_location", MIGRATIONS_DIR)
    if url:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision() -> str:
    """Return the newest revision the code knows."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _revision_of(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def current_revision(url: str) -> str | None:
    """Return the database's schema revision (None for an empty database)."""
    engine = _migration_engine(url)
    try:
        with engine.connect() as connection:
            return _revision_of(connection)
    finally:
        engine.dispose()


def _migration_engine(url: str):
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        os.makedirs(os.path.dirname(os.path.abspath(parsed.database)), exist_ok=True)
    return create_engine(url)


@contextlib.contextmanager
def _migration_lock(url: str, connection: Connection) -> Iterator[None]:
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


def _check_known(revision: str | None) -> None:
    """Refuse a schema revision the code does not know (made by newer code)."""
    if revision is None:
        return
    script = ScriptDirectory.from_config(alembic_config())
    known = {rev.revision for rev in script.walk_revisions()}
    if revision not in known:
        raise exception.DatabaseSchemaTooNew(revision=revision, head=script.get_current_head())


def _upgrade(connection: Connection, url: str) -> None:
    config = alembic_config(url)
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
    connection.commit()


def db_sync(url: str) -> str:
    """Upgrade the database at ``url`` to the newest revision; return it."""
    engine = _migration_engine(url)
    try:
        with engine.connect() as connection, _migration_lock(url, connection):
            _check_known(_revision_of(connection))
            _upgrade(connection, url)
            return _revision_of(connection)
    finally:
        engine.dispose()


def ensure_schema(url: str, auto_migrate: bool = True) -> None:
    """Make sure the schema at ``url`` is the code's; migrate it when allowed.

    Raises :class:`~hearth.common.exception.DatabaseSchemaTooNew` for a
    schema written by newer code, and
    :class:`~hearth.common.exception.DatabaseNotMigrated` when the schema is
    old (or missing) and ``auto_migrate`` is off.
    """
    head = head_revision()
    engine = _migration_engine(url)
    try:
        with engine.connect() as connection:
            revision = _revision_of(connection)
            if revision == head:
                return
            _check_known(revision)
            if not auto_migrate:
                raise exception.DatabaseNotMigrated(revision=revision or "empty", head=head)
            connection.rollback()
            with _migration_lock(url, connection):
                if _revision_of(connection) != head:
                    _upgrade(connection, url)
    finally:
        engine.dispose()
