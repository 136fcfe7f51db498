"""Migrations: an empty database is migrated to exactly the models' schema."""

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, text

from hearth.common import exception
from hearth.db import migration, models, schema_check
from hearth.db.session import Database


def schema_diff(url):
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return compare_metadata(context, models.Base.metadata)
    finally:
        engine.dispose()


def test_empty_sqlite_file_is_migrated_to_the_models(tmp_path):
    url = f"sqlite:///{tmp_path}/new/hearth.db"  # the directory is created too
    assert migration.current_revision(url) is None
    assert migration.db_sync(url) == migration.head_revision()
    assert schema_diff(url) == []


@pytest.mark.postgres
def test_postgres_is_migrated_to_the_models(postgres_shared_url):
    assert migration.current_revision(postgres_shared_url) == migration.head_revision()
    assert schema_diff(postgres_shared_url) == []


def test_db_sync_twice_is_harmless(sqlite_url):
    assert migration.db_sync(sqlite_url) == migration.head_revision()


def test_ensure_schema_migrates_on_first_use(tmp_path):
    url = f"sqlite:///{tmp_path}/auto.db"
    schema_check.ensure_schema(url, auto_migrate=True)
    assert migration.current_revision(url) == migration.head_revision()


def test_ensure_schema_without_auto_migrate(tmp_path):
    url = f"sqlite:///{tmp_path}/manual.db"
    with pytest.raises(exception.DatabaseNotMigrated,
                       match=r"schema is at revision empty but this Hearth needs "
                             + migration.head_revision() + r"\. Run 'hearth-manage db-sync'\."):
        schema_check.ensure_schema(url, auto_migrate=False)


def set_revision(url, revision):
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
    engine.dispose()


def test_newer_schema_is_refused(sqlite_url):
    set_revision(sqlite_url, "9999_from_the_future")
    message = (r"The database schema revision 9999_from_the_future is newer than this Hearth "
               r"knows \(newest known: " + migration.head_revision() + r"\)\. Upgrade Hearth, "
               r"or use another database\.")
    with pytest.raises(exception.DatabaseSchemaTooNew, match=message):
        schema_check.ensure_schema(sqlite_url)
    with pytest.raises(exception.DatabaseSchemaTooNew, match=message):
        migration.db_sync(sqlite_url)


def test_get_database_migrates_the_configured_default(hearth_home):
    from hearth.common import config
    from hearth.db import session
    # configured as a process starts (another test of this worker may have loaded a file
    # naming its own database: hearth-manage's tests do)
    config.load()
    url = f"sqlite:///{hearth_home}/hearth.db"
    database = session.get_database()
    try:
        assert database.url == url
        assert session.get_database() is database
        assert migration.current_revision(url) == migration.head_revision()
    finally:
        session.forget_database(url)


def test_sqlite_connection_settings(sqlite_url):
    database = Database(sqlite_url)
    try:
        with database.session_scope() as session:
            pragmas = {name: session.execute(text(f"PRAGMA {name}")).scalar()
                       for name in ("journal_mode", "foreign_keys", "busy_timeout")}
    finally:
        database.dispose()
    assert pragmas == {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 30000}


def test_session_scope_rolls_back_on_error(db):
    from hearth.db import api
    with pytest.raises(RuntimeError, match="boom"), db.session_scope(write=True) as session:
        session.add(models.RawTemplate(template={"a": 1}))
        session.flush()
        raise RuntimeError("boom")
    with db.session_scope() as session:
        assert session.query(models.RawTemplate).count() == 0
    assert api.raw_template_create(db, {}).id is not None


def test_sqlite_write_transactions_take_the_write_lock_first(sqlite_url):
    from sqlalchemy import event

    from hearth.db import api
    database = Database(sqlite_url)
    begins = []
    event.listen(database.engine, "before_cursor_execute",
                 lambda _c, _cur, statement, *_: begins.append(statement)
                 if statement.startswith("BEGIN") else None)
    try:
        api.raw_template_create(database, {})
        api.stack_list(database)
    finally:
        database.dispose()
    assert begins == ["BEGIN IMMEDIATE", "BEGIN DEFERRED"]


def test_declared_head_is_alembics_head():
    """The head read from the migration files' text (no alembic import) is alembic's."""
    assert schema_check.declared_head() == migration.head_revision()


def test_a_current_schema_is_checked_without_importing_alembic(tmp_path):
    """Every process checks the schema once; when it is current, alembic is not loaded."""
    import subprocess
    import sys
    url = f"sqlite:///{tmp_path / 'current.sqlite'}"
    migration.db_sync(url)
    probe = ("import sys; from hearth.db import schema_check; "
             f"schema_check.ensure_schema({url!r}); "
             "print(sorted(m for m in sys.modules if m.startswith('alembic')))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60, check=True)
    assert result.stdout.strip() == "[]"
