"""Shared pytest fixtures; each area registers its own fixture module below."""

import os
import tempfile

import pytest

# Never touch the user's real state: every test session gets its own HEARTH_HOME.
_SESSION_HOME = tempfile.mkdtemp(prefix="hearth-test-home-")
os.environ.setdefault("HEARTH_HOME", _SESSION_HOME)
# The local engines stackctl starts live in this process's own runtime directory
# (short path: it holds Unix sockets), and are stopped with their home or the session.
# One per process: pytest-xdist workers inherit the controller's environment, and a
# worker that ends first must not stop the engines of one still running.
if os.environ.get("HEARTH_TEST_RUNTIME_PID") != str(os.getpid()):
    os.environ["HEARTH_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="hearth-run-")
    os.environ["HEARTH_TEST_RUNTIME_PID"] = str(os.getpid())
os.environ.pop("HEARTH_CONFIG", None)
os.environ.pop("HEARTH_URL", None)
os.environ.pop("HEARTH_TOKEN", None)


def stop_local_engines(home=None):
    """Stop the local engines stackctl started on ``home`` (every one when None)."""
    from hearth.cli import local_engine
    try:
        infos = local_engine.engines()
    except local_engine.LocalEngineError:  # a test's own refused runtime directory
        return
    if home is not None:
        infos = [info for info in infos if info.get("home") == os.path.realpath(home)]
    local_engine.stop_engines(infos)


@pytest.fixture(scope="session", autouse=True)
def _local_engines_stopped_at_the_end():
    yield
    stop_local_engines()


@pytest.fixture
def hearth_home(tmp_path, monkeypatch):
    """Give one test its own empty HEARTH_HOME (its local engine stops with it)."""
    home = tmp_path / "hearth-home"
    home.mkdir()
    monkeypatch.setenv("HEARTH_HOME", str(home))
    yield home
    stop_local_engines(home)


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

# make test's workers: whole modules (a few spread), the longest first (tests/scheduling.py)
from tests.scheduling import (  # noqa: E402,F401
    pytest_runtest_logreport,
    pytest_sessionfinish,
    pytest_xdist_make_scheduler,
)
