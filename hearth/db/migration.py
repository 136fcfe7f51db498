"""Schema migrations: bring a database to the code's schema with alembic.

:func:`db_sync` (``hearth-manage db-sync``) upgrades to the newest
revision; :func:`bring_to_head` is the part of a database's first use
(:func:`hearth.db.schema_check.ensure_schema`) that runs when its schema is
not the newest: it migrates it (``[database] auto_migrate``) or refuses a
schema the code does not know.  Only those paths load this module, and
with it alembic; the lock that serializes concurrent migrations is
:func:`hearth.db.schema_check.migration_lock`.
"""

from __future__ import annotations

import os

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from hearth.common import exception
from hearth.db.schema_check import MIGRATIONS_DIR, migration_engine, migration_lock


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
    engine = migration_engine(url)
    try:
        with engine.connect() as connection:
            return _revision_of(connection)
    finally:
        engine.dispose()


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
    engine = migration_engine(url)
    try:
        with engine.connect() as connection, migration_lock(url, connection):
            _check_known(_revision_of(connection))
            _upgrade(connection, url)
            return _revision_of(connection)
    finally:
        engine.dispose()


def bring_to_head(connection: Connection, url: str, auto_migrate: bool) -> None:
    """Migrate the database of ``connection`` to the newest revision, or refuse.

    Raises :class:`~hearth.common.exception.DatabaseSchemaTooNew` for a
    schema written by newer code, and
    :class:`~hearth.common.exception.DatabaseNotMigrated` when the schema is
    old (or missing) and ``auto_migrate`` is off.
    """
    head = head_revision()
    revision = _revision_of(connection)
    if revision == head:
        return
    _check_known(revision)
    if not auto_migrate:
        raise exception.DatabaseNotMigrated(revision=revision or "empty", head=head)
    connection.rollback()
    with migration_lock(url, connection):
        if _revision_of(connection) != head:
            _upgrade(connection, url)
