"""Fixtures of the cloud unit tests."""

from tests.fixtures.clouds import dummy_cloud  # noqa: F401
