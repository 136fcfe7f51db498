"""Snapshot/restore and abandon/adopt on PostgreSQL (the SQLite tests, re-collected here).

Overriding ``engine_db_url`` points the shared ``service`` fixture at the
private PostgreSQL server of :mod:`tests.fixtures.postgres`.
"""

import pytest

from tests.functional.test_keeping_engine import (  # noqa: F401
    keeper,
    ledger,
    movable,
    test_abandon_then_adopt_keeps_the_physical_resources,
    test_snapshot_restore_and_delete,
)

pytestmark = pytest.mark.postgres


@pytest.fixture
def engine_db_url(postgres_url: str) -> str:
    """Run the engine on the session's PostgreSQL database, emptied for each test."""
    return postgres_url
