"""Schema migrations: bring a database to the code's schema with alembic.

:func:`db_sync` (``hearth-manage db-sync``) upgrades to the newest
revision; :func:`ensure_schema` runs on a database's first use and either
migrates it (``[database] auto_migrate``) or refuses a schema the code does
not know.  Concurrent first uses are serialized: a file lock next to a
SQLite database, an advisory lock on PostgreSQL.

Every process checks the schema once, so the common case is kept cheap:
when the database already records the newest revision named by the
migration files (:func:`declared_head`, read without alembic), nothing
else is done and alembic is never imported.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sqlalchemy import Connection, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from hearth.common import exception, paths

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), "migrations")
_PG_MIGRATION_LOCK_KEY = 0x4E415254  # any constant shared by every Hearth process
#: ``revision = "0002"`` / ``down_revision = "0001"`` (or None) lines of a migration file
_REVISION_LINE = re.compile(
    r"""^(down_revision|revision)\s*(?::[^=\n]*)?=\s*(?:["']([^"']+)["']|None)""", re.M)


def alembic_config(url: str | None = None) -> Config:
    """Return the alembic configuration of Hearth's migrations (for ``url``)."""
    from alembic.config import Config  # lazy: alembic (370 ms) only to migrate
    config = Config(os.path.join(MIGRATIONS_DIR, "alembic.ini"))
    config.set_main_option("script_location", MIGRATIONS_DIR)
    if url:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision() -> str:
    """Return the newest revision the code knows."""
    from alembic.script import ScriptDirectory  # lazy: alembic only to migrate
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def declared_head() -> str | None:
    """Return the one revision no migration file builds on, read from the files' text.

    None when the files do not name exactly one such revision; then only
    alembic (:func:`head_revision`) can tell.
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


def _revision_of(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext  # lazy: alembic only to migrate
    return MigrationContext.configure(connection).get_current_revision()


def _recorded_revision(connection: Connection) -> str | None:
    """Return the revision the database records, read without alembic (None: none)."""
    try:
        return connection.scalar(text("SELECT version_num FROM alembic_version"))
    except DBAPIError:  # no such table: an empty database
        connection.rollback()
        return None


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
        paths.ensure_directory(os.path.dirname(os.path.abspath(parsed.database)),
                               "the database's directory")
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
    from alembic.script import ScriptDirectory  # lazy: alembic only to migrate
    script = ScriptDirectory.from_config(alembic_config())
    known = {rev.revision for rev in script.walk_revisions()}
    if revision not in known:
        raise exception.DatabaseSchemaTooNew(revision=revision, head=script.get_current_head())


def _upgrade(connection: Connection, url: str) -> None:
    from alembic import command  # lazy: alembic only to migrate
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
    engine = _migration_engine(url)
    try:
        with engine.connect() as connection:
            declared = declared_head()
            if declared is not None and _recorded_revision(connection) == declared:
                return
            head = head_revision()
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
