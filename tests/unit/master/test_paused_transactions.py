"""A master paused mid-write does not hold the other master's writes (PostgreSQL)."""

import time

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from hearth.master.storage import end_paused

pytestmark = pytest.mark.postgres


def test_a_transaction_left_idle_is_ended_and_its_locks_freed(postgres_url):
    paused = create_engine(postgres_url, poolclass=NullPool)
    other = create_engine(postgres_url, poolclass=NullPool,
                          connect_args={"options": "-c lock_timeout=5000"})
    end_paused(paused, 0.5)
    try:
        with paused.connect() as connection:
            connection.execute(text("INSERT INTO master (id, host, pid, address, fingerprint, "
                                    "beats, started_at, beat_at, stopped) VALUES ('p', 'h', 1, "
                                    "'a', 'f', 0, now(), now(), false)"))
            time.sleep(1.5)  # "paused" inside its transaction, holding the row's lock
            # the other master's write of the same row goes through: PostgreSQL ended the
            # paused session and rolled its insert back
            with other.begin() as writer:
                writer.execute(text("INSERT INTO master (id, host, pid, address, fingerprint, "
                                    "beats, started_at, beat_at, stopped) VALUES ('p', 'h', 2, "
                                    "'b', 'f', 0, now(), now(), false)"))
            with pytest.raises(Exception, match="idle-in-transaction timeout|closed|terminat"):
                connection.execute(text("SELECT 1"))
    finally:
        paused.dispose()
        other.dispose()
