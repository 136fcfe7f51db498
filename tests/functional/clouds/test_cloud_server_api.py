"""Hearth::Cloud::Server through hearth-api over real HTTP (a monkey-patched engine).

The driver calls run on real threads of the API's process; the stack's
events carry the driver's stages, and delete leaves no node.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.clouds import DUMMY_PROVIDERS, hearth_conf, write_cloud_config
from tests.functional.api.conftest import _start, _stop

STACKCTL = str(Path(sys.executable).with_name("stackctl"))
TEMPLATE = """
heat_template_version: 2018-08-31
resources:
""" + "".join(f"""  s{i}:
    type: Hearth::Cloud::Server
    properties: {{provider: slow, image: Ubuntu 9.10, size: Small}}
""" for i in range(3)) + """
outputs:
  ips: {value: [{get_attr: [s0, public_ips, 0]}, {get_attr: [s1, state]}]}
"""


@pytest.fixture
def api(tmp_path, monkeypatch):
    """A hearth-api whose configuration names a slow-booting Dummy provider."""
    providers = {"slow": {**DUMMY_PROVIDERS["my-dummy"], "boot_seconds": 1}}
    cloud_dir = write_cloud_config(tmp_path / "cloud", providers)
    config = hearth_conf(tmp_path / "hearth.conf", cloud_dir)
    monkeypatch.setenv("HEARTH_CONFIG", str(config))
    home = tmp_path / "home"
    home.mkdir()
    server = _start(str(home), "--noauth")
    yield server, config
    _stop(server)


def stackctl(env, *args):
    done = subprocess.run([STACKCTL, *args], env=env, text=True, capture_output=True,
                          timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.slow
def test_servers_through_the_rest_api(api, tmp_path):
    server, config = api
    (tmp_path / "servers.yaml").write_text(TEMPLATE)
    http = {**server.env, "HEARTH_URL": server.url("admin"), "HEARTH_CONFIG": str(config)}
    created = stackctl(http, "stack-create", "-f", str(tmp_path / "servers.yaml"), "web")
    assert "Stack web CREATE_COMPLETE" in created.stdout, created.stdout + created.stderr
    for stage in ("creating", "requesting", "querying", "created"):
        assert re.search(rf"\[s0\]: CREATE_IN_PROGRESS  Cloud node web-s0-\w+: {stage}\n",
                         created.stdout), created.stdout
    shown = json.loads(stackctl(http, "stack-show", "web", "--format", "json").stdout)
    ips = next(o["output_value"] for o in shown["outputs"] if o["output_key"] == "ips")
    assert ips[0].startswith("127.0.") and ips[1] == "RUNNING"
    local = {**server.env, "HEARTH_CONFIG": str(config)}
    local.pop("HEARTH_URL", None)
    nodes = json.loads(stackctl(local, "cloud-nodes", "--format", "json").stdout)
    assert sorted(name.rsplit("-", 1)[0] for name in nodes["slow"]["libcloud"]) == [
        "web-s0", "web-s1", "web-s2"]
    assert len(nodes["slow"]["libcloud"]) == 3
    deleted = stackctl(http, "stack-delete", "-y", "web")
    assert "Stack web DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr
    after = json.loads(stackctl(local, "cloud-nodes", "--format", "json").stdout)
    assert after["slow"]["libcloud"] == {}
