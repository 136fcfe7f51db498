"""Tests of the signal URL helper: where the API's public base comes from."""

from types import SimpleNamespace

import pytest

from hearth.common import config
from hearth.engine.resources import signal_url


@pytest.fixture
def api_options():
    config.register_opts()
    yield lambda **values: [config.CONF.set_override(k, v, group="api")
                            for k, v in values.items()]
    for name in ("public_url", "bind_host", "bind_port"):
        config.CONF.clear_override(name, group="api")
    signal_url.set_serving_url(None)


def test_base_url_precedence(api_options):
    api_options(bind_host="10.0.0.5", bind_port=9000)
    assert signal_url.base_url() == "http://10.0.0.5:9000"
    api_options(bind_host="::1")
    assert signal_url.base_url() == "http://[::1]:9000"
    signal_url.set_serving_url("http://127.0.0.1:4321/")
    assert signal_url.base_url() == "http://127.0.0.1:4321"
    api_options(public_url="https://heat.example.com/")
    assert signal_url.base_url() == "https://heat.example.com"


def test_signal_url_of_a_resource(api_options):
    api_options(public_url="https://h.example")
    stack = SimpleNamespace(name="my stack", id="sid", row=SimpleNamespace(project_id="p1"))
    resource = SimpleNamespace(name="handle", stack=stack)
    assert signal_url.signal_url(resource) == (
        "https://h.example/v1/p1/stacks/my%20stack/sid/resources/handle/signal")
