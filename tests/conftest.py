"""Shared pytest fixtures; each area registers its own fixture module below."""

import os
import tempfile

import pytest

# Never touch the user's real state: every test session gets its own HEARTH_HOME.
_SESSION_HOME = tempfile.mkdtemp(prefix="hearth-test-home-")
os.environ.setdefault("HEARTH_HOME", _SESSION_HOME)
os.environ.pop("HEARTH_CONFIG", None)
os.environ.pop("HEARTH_URL", None)
os.environ.pop("HEARTH_TOKEN", None)


@pytest.fixture
def hearth_home(tmp_path, monkeypatch):
    """Give one test its own empty HEARTH_HOME."""
    home = tmp_path / "hearth-home"
    home.mkdir()
    monkeypatch.setenv("HEARTH_HOME", str(home))
    return home


# Databases: a private PostgreSQL server, and fresh migrated databases per test
# (``db_url``/``db`` run a test on SQLite and on PostgreSQL).
from tests.fixtures.postgres import (  # noqa: E402,F401
    db,
    db_url,
    postgres_server,
    postgres_shared_url,
    postgres_url,
    sqlite_template,
    sqlite_url,
)
