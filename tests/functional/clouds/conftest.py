"""Fixtures of the cloud functional tests: config dirs and a real moto server."""

from tests.fixtures.clouds import (  # noqa: F401
    dummy_cloud,
    local_master,
    moto_ec2,
    moto_endpoint,
    moto_image,
)
from tests.fixtures.ec2 import iam_moto  # noqa: F401
from tests.fixtures.sshd import machines, ssh_server, wheelhouse  # noqa: F401
from tests.functional.clouds.drivers import driver_setup  # noqa: F401
