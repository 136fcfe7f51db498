"""Several OS processes race for one stack lock: exactly one wins, on SQLite and PostgreSQL."""

import os
import subprocess
import sys
import time
from datetime import timedelta

import pytest

from hearth.db import api
from hearth.db.timeutils import utcnow
from tests.unit.db.helpers import make_stack

RACERS = 4
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


def race(url, stack_id, mode, tmp_path):
    sync_dir = tmp_path / "sync"
    sync_dir.mkdir()
    processes = [subprocess.Popen(
        [sys.executable, "-m", "tests.unit.db.lock_racer", url, stack_id, f"racer-{i}",
         str(sync_dir), mode],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(RACERS)]
    deadline = time.monotonic() + 60
    while len(list(sync_dir.glob("ready-*"))) < RACERS:
        assert time.monotonic() < deadline, "racers did not start"
        assert all(p.poll() is None for p in processes), [p.communicate() for p in processes]
        time.sleep(0.01)
    (sync_dir / "go").touch()
    results = []
    for process in processes:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        results.append(out.strip())
    return results


def test_processes_race_to_acquire(db, db_url, tmp_path):
    stack = make_stack(db)
    results = race(db_url, stack.id, "acquire", tmp_path)
    assert sorted(results) == ["lost"] * (RACERS - 1) + ["won"]
    assert api.lock_get_engine_id(db, stack.id).startswith("racer-")


def test_processes_race_to_steal_from_dead_engine(db, db_url, tmp_path):
    stack = make_stack(db)
    api.engine_register(db, "dead", host="h", pid=1, binary="b",
                        now=utcnow() - timedelta(seconds=60))
    api.lock_acquire(db, stack.id, "dead")
    results = race(db_url, stack.id, "take", tmp_path)
    assert sorted(results) == ["lost"] * (RACERS - 1) + ["won"]
    assert api.lock_get_engine_id(db, stack.id).startswith("racer-")


@pytest.mark.postgres
def test_psycopg2_queries_yield_to_other_green_threads(postgres_url):
    """Two green threads each sleep 0.4 s in PostgreSQL: together they take ~0.4 s."""
    import eventlet
    from sqlalchemy import text

    from hearth.db.session import Database

    database = Database(postgres_url)

    def sleep_in_database():
        with database.session_scope() as session:
            session.execute(text("SELECT pg_sleep(0.4)"))

    try:
        sleep_in_database()  # open a pooled connection first
        started = time.monotonic()
        threads = [eventlet.spawn(sleep_in_database) for _ in range(2)]
        for thread in threads:
            thread.wait()
        elapsed = time.monotonic() - started
    finally:
        database.dispose()
    assert elapsed < 0.75, f"queries ran one after the other ({elapsed:.2f}s)"
