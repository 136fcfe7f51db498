"""hearth-manage db-sync and db-version."""

from hearth.cli import manage


def write_config(tmp_path, url):
    path = tmp_path / "hearth.conf"
    path.write_text(f"[database]\nconnection = {url}\n")
    return str(path)


def newest_migration():
    """Return the revision of the newest migration file (they are numbered in order)."""
    import pathlib

    import hearth.db.migrations as migrations
    versions = pathlib.Path(migrations.__file__).parent / "versions"
    return max(path.name.split("_")[0] for path in versions.glob("[0-9]*_*.py"))


def test_db_sync_and_version(tmp_path, capsys):
    url = f"sqlite:///{tmp_path}/manage.db"
    conf = write_config(tmp_path, url)
    head = newest_migration()
    assert manage.main(["--config-file", conf, "db-version"]) == 0
    assert f"revision: none (empty database); newest known: {head}" in capsys.readouterr().out
    assert manage.main(["--config-file", conf, "db-sync"]) == 0
    assert capsys.readouterr().out == f"Database schema is at revision {head}.\n"
    assert manage.main(["--config-file", conf, "db-version"]) == 0
    assert f"Database schema revision: {head}; newest known: {head}" in capsys.readouterr().out


def test_db_sync_refuses_newer_schema(tmp_path, capsys, sqlite_url):
    from sqlalchemy import create_engine, text
    engine = create_engine(sqlite_url)
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = 'zz_future'"))
    engine.dispose()
    assert manage.main(["--config-file", write_config(tmp_path, sqlite_url), "db-sync"]) == 1
    assert "ERROR: The database schema revision zz_future is newer" in capsys.readouterr().err


def test_no_command_prints_help(capsys):
    assert manage.main([]) == 2
    assert "db-sync" in capsys.readouterr().out
