"""Fixtures of the cloud functional tests: config dirs and a real moto server."""

from tests.fixtures.clouds import dummy_cloud, moto_ec2, moto_endpoint, moto_image  # noqa: F401
from tests.functional.clouds.drivers import driver_setup  # noqa: F401
