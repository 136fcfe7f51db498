"""Fixtures of the cloud functional tests: config dirs and a real moto server."""

from tests.fixtures.clouds import dummy_cloud, moto_ec2, moto_endpoint  # noqa: F401
