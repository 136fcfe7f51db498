"""The nested-stack engine tests on PostgreSQL (not copies: re-collected here).

Overriding ``engine_db_url`` points the shared ``service`` fixture at the
private PostgreSQL server of :mod:`tests.fixtures.postgres`.
"""

import pytest

from tests.functional.nested.test_nested_stacks import *  # noqa: F403

pytestmark = pytest.mark.postgres


@pytest.fixture
def engine_db_url(postgres_url: str) -> str:
    """Run the engine on the session's PostgreSQL database, emptied for each test."""
    return postgres_url
