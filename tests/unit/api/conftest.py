"""Fixtures of the API unit tests: a Falcon test client over a fake engine."""

from __future__ import annotations

from types import SimpleNamespace

import falcon.testing
import pytest

from hearth.api.app import build_app
from hearth.common import config, exception
from tests.unit.api.fakes import FakeService

TOKENS = {
    "tok-a": SimpleNamespace(project_id="proj-a", user="alice", roles=()),
    "tok-b": SimpleNamespace(project_id="proj-b", user="bob", roles=()),
    "tok-admin": SimpleNamespace(project_id="proj-a", user="root", roles=("admin",)),
}


def fake_verify(secret: str) -> SimpleNamespace:
    """Return the record of a known test token; Unauthorized otherwise."""
    try:
        return TOKENS[secret]
    except KeyError:
        raise exception.Unauthorized(message="The token is unknown, expired or revoked.") \
            from None


@pytest.fixture(autouse=True)
def _config():
    config.register_opts()
    yield
    config.CONF.clear_override("max_json_body_size")
    config.CONF.clear_override("max_template_size")
    config.CONF.clear_override("max_stacks_per_tenant")


@pytest.fixture
def service() -> FakeService:
    return FakeService()


@pytest.fixture
def client(service) -> falcon.testing.TestClient:
    return falcon.testing.TestClient(build_app(service, verify=fake_verify),
                                     headers={"X-Auth-Token": "tok-a"})


@pytest.fixture
def noauth_client(service) -> falcon.testing.TestClient:
    return falcon.testing.TestClient(build_app(service, noauth=True))
