"""A driver written as Salt's own are (salt_drivers/saltbox.py) runs with only its imports changed.

Through stackctl cloud-* and a stack's Hearth::Cloud::Server: every create
passes ``__opts__["sock_dir"]`` and ``__opts__["transport"]`` to
``__utils__["cloud.fire_event"]``, checks its profile with
``config.is_profile_configured``, waits with ``salt.utils.cloud.wait_for_ip``
and keeps Salt's node index and cache under the cachedir.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.fixtures.clouds import write_cloud_config
from tests.functional.stackctl_process import run

DRIVERS = Path(__file__).with_name("salt_drivers")

STACK = """
heat_template_version: 2018-08-31
resources:
  box:
    type: Hearth::Cloud::Server
    properties: {provider: toy, image: rock, size: tiny}
outputs:
  ip: {value: {get_attr: [box, public_ips, 0]}}
"""


@pytest.fixture
def site(hearth_home, tmp_path):
    """Return stackctl(*args) on a config with the saltbox driver and update_cachedir on."""
    state = tmp_path / "state"
    cloud_dir = write_cloud_config(
        tmp_path / "cloud", {"toy": {"driver": "saltbox", "path": str(tmp_path / "box.json")}},
        {"box": {"provider": "toy", "image": "pebble", "size": "tiny"}},
        main={"update_cachedir": True})
    config = tmp_path / "hearth.conf"
    config.write_text(f"[DEFAULT]\nstate_path = {state}\ncloud_dirs = {DRIVERS}\n"
                      f"[cloud]\nconfig_dir = {cloud_dir}\n")

    def stackctl(*args):
        done = run(hearth_home, *args, config=config, timeout=120)
        assert "Traceback" not in done.stderr, done.stderr
        return done
    stackctl.cache = state / "cache"
    stackctl.nodes_file = tmp_path / "box.json"
    stackctl.directory = tmp_path
    return stackctl


def nodes(site):
    return json.loads(site.nodes_file.read_text()) if site.nodes_file.exists() else {}


def test_a_salt_driver_creates_lists_acts_and_destroys(site):
    made = site("cloud-create", "-p", "box", "b1", "--format", "json")
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["b1"]["state"] == "running"
    assert nodes(site)["b1"]["public_ips"] == ["192.0.2.7"]
    stages = [line.split(":")[0] for line in made.stderr.splitlines()
              if line.startswith("hearth/cloud/b1/")]
    assert stages == ["hearth/cloud/b1/creating", "hearth/cloud/b1/requesting",
                      "hearth/cloud/b1/created"]
    index = json.loads((site.cache / "index.json").read_text())
    assert index == {"b1": {"id": "b1", "profile": "box", "driver": "saltbox",
                            "provider": "toy"}}
    listed = json.loads(site("cloud-nodes", "--format", "json").stdout)
    assert listed == {"toy": {"saltbox": {"b1": {
        key: nodes(site)["b1"][key] for key in ("id", "image", "size", "state",
                                               "private_ips", "public_ips")}}}}
    cached = site.cache / "active" / "saltbox" / "toy" / "b1.json"
    assert json.loads(cached.read_text())["id"] == nodes(site)["b1"]["id"]
    selected = json.loads(site("cloud-nodes", "--select", "image", "--format", "json").stdout)
    assert selected == {"toy": {"saltbox": {"b1": {"image": "pebble"}}}}
    rebooted = site("cloud-action", "reboot", "b1", "--format", "json")
    assert json.loads(rebooted.stdout) == {"toy": {"saltbox": {"b1": {"Rebooting": "b1"}}}}
    assert "hearth/cloud/b1/rebooting" in rebooted.stderr
    wrong = site("cloud-function", "show_instance", "toy")
    assert wrong.stderr.strip().splitlines()[-1] == (
        "ERROR: The show_instance action must be called with -a or --action.")
    gone = site("cloud-destroy", "b1", "--yes", "--format", "json")
    assert json.loads(gone.stdout) == {"toy": {"saltbox": {"b1": True}}}
    assert nodes(site) == {} and not cached.exists()
    assert json.loads((site.cache / "index.json").read_text()) == {}


def test_a_salt_drivers_errors_are_one_clear_line(site):
    missing = site("cloud-create", "-p", "box", "b2", "--set", "image=granite")
    assert missing.stderr.strip().splitlines()[-1] == (
        "ERROR: The specified image, 'granite', could not be found.")
    assert nodes(site) == {}
    unknown = site("cloud-action", "show_instance", "nowhere")
    assert unknown.stderr.strip().splitlines()[-1] == (
        "ERROR: The Cloud node (nowhere in any configured cloud provider) could not be found.")


@pytest.mark.slow
def test_a_salt_driver_serves_a_stack(site):
    (site.directory / "box.yaml").write_text(STACK)
    made = site("stack-create", "-f", str(site.directory / "box.yaml"), "toys")
    assert "Stack toys CREATE_COMPLETE" in made.stdout, made.stdout + made.stderr
    name, = nodes(site)
    assert name.startswith("toys-box-") and nodes(site)[name]["image"] == "rock"
    shown = json.loads(site("stack-show", "toys", "--format", "json").stdout)
    assert shown["outputs"][0]["output_value"] == "192.0.2.7"
    index = yaml.safe_load((site.cache / "index.json").read_text())
    assert index[name]["profile"] is None  # made from a provider, not a profile
    deleted = site("stack-delete", "-y", "toys")
    assert "Stack toys DELETE_COMPLETE" in deleted.stdout, deleted.stdout + deleted.stderr
    assert nodes(site) == {}
