"""One hearth-api for the whole directory and a python-heatclient of one project.

With ``HEAT_ORACLE_ENDPOINT`` set (e.g. ``http://127.0.0.1:18734/v1/admin``, a real Heat
started by heat_allinone.py of the reference's heat-oracle), the same scenarios run
against real Heat instead: that is how their expected values were checked.
"""

from __future__ import annotations

import os

import pytest

from tests.functional.api.conftest import _start, _stop, create_token

heatclient = pytest.importorskip("heatclient.client")


@pytest.fixture(scope="package")
def heat(tmp_path_factory):
    """A heatclient (token of a plain member) against a hearth-api of this directory."""
    oracle = os.environ.get("HEAT_ORACLE_ENDPOINT")
    if oracle:
        yield heatclient.Client("1", endpoint=oracle, token="oracle")
        return
    home = tmp_path_factory.mktemp("hearth-heat-functional")
    # as Heat's functional gate (.zuul.yaml HEAT_ENABLE_ADOPT_ABANDON: devstack sets both)
    config = home / "hearth.conf"
    config.write_text("[DEFAULT]\nenable_stack_abandon = true\nenable_stack_adopt = true\n")
    server = _start(str(home), "--config-file", str(config))
    try:
        token = create_token(server.env, "heat-functional")
        yield heatclient.Client("1", endpoint=server.url("heat-functional"), token=token)
    finally:
        _stop(server)
