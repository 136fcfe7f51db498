"""The same life-cycle and stack-action tests on PostgreSQL (not copies: re-collected here).

Overriding ``engine_db_url`` points the shared ``service`` fixture at the
private PostgreSQL server of :mod:`tests.fixtures.postgres`; every test
function of the SQLite modules is collected again in this module.
"""

import pytest

from tests.functional.test_stack_actions import *  # noqa: F403
from tests.functional.test_stack_lifecycle import *  # noqa: F403

pytestmark = pytest.mark.postgres


@pytest.fixture
def engine_db_url(postgres_url: str) -> str:
    """Run the engine on the session's PostgreSQL database, emptied for each test."""
    return postgres_url
