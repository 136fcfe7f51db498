"""The group engine tests on PostgreSQL (not copies: re-collected here)."""

import pytest

from tests.functional.groups.test_groups_engine import *  # noqa: F403

pytestmark = pytest.mark.postgres


@pytest.fixture
def engine_db_url(postgres_url: str) -> str:
    """Run the engine on the session's PostgreSQL database, emptied for each test."""
    return postgres_url
