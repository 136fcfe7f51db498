"""Snapshots, restore, abandon and adopt over real HTTP with python-heatclient, unchanged.

One hearth-api for the module, with Test::Disk and abandon/adopt enabled;
the client calls exactly what ``heat stack-snapshot``/``snapshot-*``/
``stack-restore``/``stack-abandon``/``stack-adopt`` call.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.functional.api.conftest import _start, _stop, create_token, wait_status

heatclient = pytest.importorskip("heatclient.client")
heat_exc = pytest.importorskip("heatclient.exc")

PLUGINS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "keeping_plugins")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    home = tmp_path_factory.mktemp("hearth-api-keeping")
    config = home / "hearth.conf"
    config.write_text(f"[DEFAULT]\nplugin_dirs = {PLUGINS}\nenable_stack_abandon = true\n"
                      "enable_stack_adopt = true\nmax_snapshots_per_stack = 2\n")
    started = _start(str(home), "--config-file", str(config))
    started.ledger = home / "ledger"
    started.ledger.write_text("")
    yield started
    _stop(started)


@pytest.fixture(scope="module")
def heat(server):
    token = create_token(server.env, "proj-keep")
    return heatclient.Client("1", endpoint=server.url("proj-keep"), token=token)


def template(server, size: int) -> dict:
    return {"heat_template_version": "2021-04-16",
            "resources": {"a": {"type": "Test::Disk",
                                "properties": {"size": size, "ledger": str(server.ledger)}}},
            "outputs": {"size": {"value": {"get_attr": ["a", "size"]}}}}


def _wait(heat, identity):
    return wait_status(lambda: heat.stacks.get(identity, resolve_outputs=False).to_dict())


def test_snapshot_life_cycle(heat, server):
    stack_id = heat.stacks.create(stack_name="snappy", template=template(server, 3))["stack"]["id"]
    assert _wait(heat, stack_id)["stack_status"] == "CREATE_COMPLETE"
    taken = heat.stacks.snapshot("snappy", "first")
    assert set(taken) == {"id", "name", "action", "status", "status_reason", "data",
                          "creation_time"}
    assert (taken["name"], taken["action"]) == ("first", "CREATE")
    assert _wait(heat, stack_id)["stack_status"] == "SNAPSHOT_COMPLETE"
    listed = heat.stacks.snapshot_list("snappy")["snapshots"]
    assert [(s["id"], s["status"]) for s in listed] == [(taken["id"], "COMPLETE")]
    shown = heat.stacks.snapshot_show("snappy", taken["id"])["snapshot"]
    assert shown["data"]["resources"]["a"]["resource_data"] == {"backup": "3"}

    heat.stacks.update(stack_id, template=template(server, 8))
    assert _wait(heat, stack_id)["stack_status"] == "UPDATE_COMPLETE"
    heat.stacks.restore("snappy", taken["id"])
    assert _wait(heat, stack_id)["stack_status"] == "RESTORE_COMPLETE"
    assert heat.stacks.output_show("snappy", "size")["output"]["output_value"] == 3

    heat.stacks.snapshot("snappy")
    _wait(heat, stack_id)
    with pytest.raises(heat_exc.HTTPBadRequest) as refused:  # max_snapshots_per_stack = 2
        heat.stacks.snapshot("snappy")
    assert "You have reached the maximum snapshots per stack, 2." in str(refused.value)
    heat.stacks.snapshot_delete("snappy", taken["id"])
    assert len(heat.stacks.snapshot_list("snappy")["snapshots"]) == 1
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.snapshot_show("snappy", taken["id"])
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stacks.restore("snappy", taken["id"])


def test_abandon_then_adopt(heat, server):
    stack_id = heat.stacks.create(stack_name="nomad", template=template(server, 5),
                                  tags="a,b")["stack"]["id"]
    assert _wait(heat, stack_id)["stack_status"] == "CREATE_COMPLETE"
    data = heat.stacks.abandon("nomad")
    assert (data["name"], data["id"], data["tags"]) == ("nomad", stack_id, ["a", "b"])
    physical = data["resources"]["a"]["resource_id"]
    assert "nomad" not in [s.stack_name for s in heat.stacks.list()]

    # as ``heat stack-adopt``: the data goes as the JSON text of the file
    created = heat.stacks.create(stack_name="settled", adopt_stack_data=json.dumps(data),
                                 disable_rollback=True, parameters={}, files={})
    adopted = _wait(heat, created["stack"]["id"])
    assert adopted["stack_status"] == "ADOPT_COMPLETE"
    resource = heat.resources.get(created["stack"]["id"], "a")
    assert (resource.physical_resource_id, resource.resource_status) == (physical,
                                                                         "ADOPT_COMPLETE")
    with pytest.raises(heat_exc.HTTPBadRequest) as refused:
        heat.stacks.create(stack_name="broken", adopt_stack_data="[1, 2]")
    # Heat 27.0.1's answer, word for word
    assert "Invalid adopt data: The template is not a JSON object or YAML mapping." in str(
        refused.value)
    with pytest.raises(heat_exc.HTTPBadRequest) as refused:
        heat.stacks.create(stack_name="broken", adopt_stack_data="{}")
    assert "Invalid adopt data: 'template'" in str(refused.value)


def test_stackctl_over_http(heat, server, tmp_path):
    """The same commands through ``stackctl --url`` (the HTTP backend)."""
    import subprocess
    import sys
    token = create_token(server.env, "proj-keep")
    stackctl = os.path.join(os.path.dirname(sys.executable), "stackctl")

    def run(*args):
        done = subprocess.run([stackctl, "--url", server.url("proj-keep"), "--token", token,
                               *args], capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    stack_id = heat.stacks.create(stack_name="remote", template=template(server, 4))["stack"]["id"]
    _wait(heat, stack_id)
    taken = json.loads(run("stack-snapshot", "-n", "over-http", "remote"))
    assert (taken["name"], taken["status"]) == ("over-http", "COMPLETE")
    heat.stacks.update(stack_id, template=template(server, 1))
    _wait(heat, stack_id)
    assert "Stack remote RESTORE_COMPLETE" in run("stack-restore", "remote", taken["id"])
    assert heat.stacks.output_show("remote", "size")["output"]["output_value"] == 4
    data_file = tmp_path / "remote.json"
    run("stack-abandon", "-O", str(data_file), "remote")
    assert "Stack back ADOPT_COMPLETE" in run("stack-adopt", "-a", str(data_file), "back")
