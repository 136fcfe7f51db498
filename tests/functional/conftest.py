"""Fixtures of the functional tests: an EngineService on a fresh database."""

from tests.fixtures.engine import engine_db_url, engine_options, service  # noqa: F401
