"""The wait condition, signal and hook engine tests on PostgreSQL (re-collected, not copied)."""

import pytest

from tests.functional.signals.test_wait_condition import *  # noqa: F403

pytestmark = pytest.mark.postgres


@pytest.fixture
def engine_db_url(postgres_url: str) -> str:
    """Run the engine on the session's PostgreSQL database, emptied for each test."""
    return postgres_url
