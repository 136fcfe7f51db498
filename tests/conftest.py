"""Shared pytest fixtures; each area registers its own fixture module below."""

import os
import signal
import sys
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
# Bytecode is cached: the suite starts a few thousand Python processes (stackctl, local
# engines, hearth-api, masters, agents, and its own workers); with PYTHONDONTWRITEBYTECODE
# set, a checkout keeps no __pycache__ and each of them compiled every module of Hearth (and
# of the tests) it imported from source again: a local engine's start took 1.0 CPU-s instead
# of 0.77, a stackctl command 0.18 instead of 0.11, a worker's collection 10.8 instead of 4.8.
# The caches are where Python puts them by default (__pycache__, ignored by git).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
os.environ.pop("HEARTH_CONFIG", None)
os.environ.pop("HEARTH_URL", None)
os.environ.pop("HEARTH_TOKEN", None)


def stop_local_engines(home=None, under=None, started_after=None, wait=True):
    """Stop the local engines stackctl started (every one when no argument narrows them).

    ``home``: those serving that HEARTH_HOME; ``under``: those whose home or a configuration
    file lies in that directory; ``started_after``: those not in that set of pids.  Without
    ``wait``, they are sent SIGTERM and left to end (the session's end waits for them).
    """
    from hearth.cli import local_engine
    infos = _running_engines()
    if home is not None:
        infos = [info for info in infos if info.get("home") == os.path.realpath(home)]
    if under is not None:
        inside = os.path.join(os.path.realpath(under), "")
        infos = [info for info in infos
                 if any(os.path.realpath(path).startswith(inside)
                        for path in [info.get("home") or "", *(info.get("config_files") or [])])]
    if started_after is not None:
        infos = [info for info in infos if info.get("pid") not in started_after]
    if wait:
        local_engine.stop_engines(infos)
        return
    for info in infos:
        try:
            os.kill(info["pid"], signal.SIGTERM)
        except ProcessLookupError:
            pass


def _running_engines():
    """Return the info of the local engines still running (a test's refused directory: none).

    A SIGKILLed engine leaves its info file, and its pid may since be another process's:
    only a pid whose command line is still a local engine's counts.
    """
    from hearth.cli import local_engine
    try:
        infos = local_engine.engines()
    except local_engine.LocalEngineError:
        return []
    return [info for info in infos if _is_local_engine(info.get("pid"))]


def _is_local_engine(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as command:
            return b"hearth.api.local_server" in command.read()
    except OSError:
        return False


def _engine_pids():
    return {info.get("pid") for info in _running_engines()}


@pytest.fixture(scope="session", autouse=True)
def _local_engines_stopped_at_the_end():
    yield
    stop_local_engines()


# A local engine stackctl starts lives until it has been idle for ten minutes (what a user
# wants), beating twice a second all along: one a test started and left cost the suite about
# 5 CPU-seconds after the test had ended.  So the engines a test starts stop with it (those of
# a home or configuration in its tmp_path), and those a module starts stop with the module.

@pytest.fixture(scope="module", autouse=True)
def _a_modules_local_engines_stop_with_it():
    before = _engine_pids()
    yield
    stop_local_engines(started_after=before | {None}, wait=False)


@pytest.fixture(autouse=True)
def _a_tests_local_engines_stop_with_it(request):
    yield
    tmp_path = request.node.funcargs.get("tmp_path") if hasattr(request.node, "funcargs") else None
    if tmp_path is not None:
        stop_local_engines(under=tmp_path, wait=False)


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
