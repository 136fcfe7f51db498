"""Signals over real HTTP and through stackctl: handle tokens, heatclient, hooks.

One hearth-api (token auth) serves the module; its ``[api] public_url``
comes from a configuration file that the stackctl processes (embedded
engine, same HEARTH_HOME) read too, so a handle's endpoint names the API
whichever process created it.
"""

from __future__ import annotations

import json
import shlex
import socket
import subprocess
import time

import pytest
import requests
import yaml

from tests.functional import stackctl_process
from tests.functional.api.conftest import ApiServer, _stop, create_token, wait_status

pytestmark = pytest.mark.slow  # each test runs stackctl or heatclient against a server

heatclient = pytest.importorskip("heatclient.client")
heat_exc = pytest.importorskip("heatclient.exc")

WAIT = """
heat_template_version: 2018-08-31
resources:
  handle: {type: OS::Heat::WaitConditionHandle}
  wait:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: handle}, timeout: 60}
outputs:
  data: {value: {get_attr: [wait, data]}}
"""

HOOKED = """
heat_template_version: 2018-08-31
resources:
  a: {type: OS::Heat::None}
  b: {type: OS::Heat::None, depends_on: a}
"""
HOOK_ENV = {"resource_registry": {"resources": {"b": {"hooks": "pre-create"}}}}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """hearth-api on a known port, its public_url configured (stackctl reads the same file)."""
    home = tmp_path_factory.mktemp("signals-home")
    port = _free_port()
    config = home / "hearth.conf"
    config.write_text(f"[api]\npublic_url = http://127.0.0.1:{port}/\n")
    env = stackctl_process.environment(home, config)
    process = subprocess.Popen(
        [stackctl_process.STACKCTL.replace("stackctl", "hearth-api"), "--host", "127.0.0.1",
         "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    line = process.stdout.readline()
    if "listening on" not in line:
        process.kill()
        raise RuntimeError(f"hearth-api did not start: {line}{process.stderr.read()}")
    api = ApiServer(root=f"http://127.0.0.1:{port}", env=env, process=process)
    api.home, api.config, api.secrets = home, config, []
    yield api
    _stop(api)
    log = process.stderr.read()
    assert api.secrets and not [secret for secret in api.secrets if secret in log]


def _client(server, project: str):
    return heatclient.Client("1", endpoint=server.url(project),
                             token=create_token(server.env, project))


def _poll(get, done, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while True:
        value = get()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


def _handle_state(heat, stack: str):
    try:
        return heat.resources.get(stack, "handle")
    except heat_exc.HTTPNotFound:
        return None


def test_curl_with_the_handle_token_while_stackctl_waits(server, tmp_path):
    template = tmp_path / "wait.yaml"
    template.write_text(WAIT)
    creating = stackctl_process.start(server.home, "stack-create", "-f", str(template), "wc",
                                      config=server.config)
    try:
        heat = _client(server, "admin")  # stackctl's embedded project
        handle = _poll(lambda: _handle_state(heat, "wc"),
                       lambda h: h is not None and h.resource_status == "CREATE_COMPLETE")
        curl_cli, token = handle.attributes["curl_cli"], handle.attributes["token"]
        server.secrets.append(token)  # never in the API's log (checked at the end)
        endpoint = handle.attributes["endpoint"]
        stack_id = heat.stacks.get("wc").id
        assert endpoint == (f"{server.root}/v1/admin/stacks/wc/{stack_id}"
                            "/resources/handle/signal")

        # the token is good for nothing else: another route, another resource, a user's job
        headers = {"X-Auth-Token": token, "Content-Type": "application/json"}
        assert requests.get(f"{server.url('admin')}/stacks", headers=headers,
                            timeout=10).status_code == 401
        other = endpoint.replace("/resources/handle/", "/resources/wait/")
        assert requests.post(other, headers=headers, data="{}", timeout=10).status_code == 401
        wrong = requests.post(endpoint, headers={**headers, "X-Auth-Token": token + "x"},
                              data="{}", timeout=10)
        assert wrong.status_code == 401

        # a machine signals with curl_cli alone: no user token
        command = [*shlex.split(curl_cli), "--data-binary",
                   '{"status": "SUCCESS", "data": "ready"}']
        answer = subprocess.run(command, capture_output=True, text=True, timeout=30)
        assert answer.returncode == 0 and " 200 " in answer.stdout.splitlines()[0], answer.stdout
        out, err = creating.communicate(timeout=60)
    finally:
        if creating.poll() is None:
            creating.kill()
            creating.communicate()
    assert creating.returncode == 0, err
    assert "CREATE_COMPLETE" in out
    assert heat.stacks.output_show(stack_id, "data")["output"]["output_value"] == (
        '{"1": "ready"}')
    reasons = [e.resource_status_reason for e in heat.events.list(stack_id)]
    assert "Signal: status:SUCCESS reason:Signal 1 received" in reasons
    # never in events, stackctl's output or the API's log
    assert token not in json.dumps([e.to_dict() for e in heat.events.list(stack_id)])
    assert token not in out + err

    heat.stacks.delete(stack_id)
    wait_status(lambda: _status_or_deleted(heat, stack_id))
    assert requests.post(endpoint, headers=headers, data="{}", timeout=10).status_code == 401


def _pending_hooks(server) -> list:
    polled = stackctl_process.run(server.home, "hook-poll", "hk", "--nested-depth", "1",
                                  "--format", "json", config=server.config)
    assert polled.returncode == 0, polled.stderr
    return json.loads(polled.stdout)


def _status_or_deleted(heat, identity):
    try:
        return heat.stacks.get(identity, resolve_outputs=False).to_dict()
    except heat_exc.HTTPNotFound:
        return {"stack_status": "DELETE_COMPLETE"}


def test_heatclient_signals_and_hooks(server):
    heat = _client(server, "proj-sig")
    created = heat.stacks.create(stack_name="hc", template=yaml.safe_load(WAIT))["stack"]
    stack_id = created["id"]
    _poll(lambda: _handle_state(heat, stack_id),
          lambda h: h is not None and h.resource_status == "CREATE_COMPLETE")
    with pytest.raises(heat_exc.HTTPBadRequest) as error:
        heat.resources.signal(stack_id, "wait", data={"status": "SUCCESS"})
    assert "signal is not supported for resource." in str(error.value)
    with pytest.raises(heat_exc.HTTPBadRequest) as error:
        heat.resources.signal(stack_id, "handle", data={"status": "MAYBE"})
    assert "Metadata format invalid" in str(error.value)
    heat.resources.signal(stack_id, "handle", data={"data": "via heatclient"})
    stack = wait_status(lambda: heat.stacks.get(stack_id, resolve_outputs=False).to_dict())
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert heat.resources.metadata(stack_id, "handle") == {
        "1": {"data": "via heatclient", "reason": "Signal 1 received", "status": "SUCCESS"}}
    # another project's user cannot signal it, even through its own token
    stranger = create_token(server.env, "proj-other")
    answer = requests.post(f"{server.url('proj-sig')}/stacks/hc/{stack_id}/resources/handle/"
                           "signal", headers={"X-Auth-Token": stranger}, json={}, timeout=10)
    assert answer.status_code == 403

    hooked = heat.stacks.create(stack_name="hooks", template=yaml.safe_load(HOOKED),
                                environment=HOOK_ENV)["stack"]["id"]
    paused = "CREATE paused until Hook pre-create is cleared"
    events = _poll(lambda: heat.events.list(hooked),
                   lambda evs: any(e.resource_status_reason == paused for e in evs))
    assert [e.resource_name for e in events if e.resource_status_reason == paused] == ["b"]
    heat.resources.signal(hooked, "b", data={"unset_hook": "pre-create"})
    stack = wait_status(lambda: heat.stacks.get(hooked, resolve_outputs=False).to_dict())
    assert stack["stack_status"] == "CREATE_COMPLETE"
    assert "Hook pre-create is cleared" in [e.resource_status_reason
                                            for e in heat.events.list(hooked)]


NESTED_HOOKED = HOOKED + """  group:
    type: OS::Heat::ResourceGroup
    properties: {count: 2, resource_def: {type: OS::Heat::None}}
"""
# Heat's nested overrides: hooks on member "0" inside the group's nested stack
NESTED_HOOK_ENV = {"resource_registry": {"resources": {
    "b": {"hooks": "pre-create"}, "group": {"0": {"hooks": "pre-create"}}}}}


def test_stackctl_hook_poll_clear_and_resource_signal(server, tmp_path):
    template, env_file = tmp_path / "hooked.yaml", tmp_path / "env.yaml"
    template.write_text(NESTED_HOOKED)
    env_file.write_text(yaml.safe_dump(NESTED_HOOK_ENV))
    creating = stackctl_process.start(server.home, "stack-create", "-f", str(template), "-e",
                                      str(env_file), "hk", config=server.config)
    try:
        stackctl_process.read_until(creating, "paused until Hook pre-create")
        paused = "CREATE paused until Hook pre-create is cleared"
        pending = _poll(lambda: _pending_hooks(server), lambda rows: len(rows) == 2)
        assert sorted((p["resource_name"], p["resource_status_reason"], p["stack_name"] == "hk")
                      for p in pending) == [("0", paused, False), ("b", paused, True)]
        # the member inside the group's nested stack by heatclient's path syntax
        cleared = stackctl_process.run(server.home, "hook-clear", "--pre-create", "hk", "b*",
                                       "group/0", config=server.config)
        assert cleared.returncode == 0, cleared.stderr
        out, err = creating.communicate(timeout=60)
    finally:
        if creating.poll() is None:
            creating.kill()
            creating.communicate()
    assert creating.returncode == 0, err
    assert "CREATE_COMPLETE" in out
    done = stackctl_process.run(server.home, "hook-poll", "hk", config=server.config)
    assert done.returncode != 0 and "Stack status CREATE_COMPLETE not IN_PROGRESS" in done.stderr

    # resource-signal: -D and -f as heatclient, refused clearly
    details = tmp_path / "signal.json"
    details.write_text('{"data": 1}')
    both = stackctl_process.run(server.home, "resource-signal", "hk", "b", "-D", "{}", "-f",
                                str(details), config=server.config)
    assert both.returncode == 2 and "Can only specify one of data and data-file" in both.stderr
    not_map = stackctl_process.run(server.home, "resource-signal", "hk", "b", "-D", "[1]",
                                   config=server.config)
    assert not_map.returncode == 2 and "Data should be a JSON dict" in not_map.stderr
    refused = stackctl_process.run(server.home, "resource-signal", "hk", "b", "-f",
                                   str(details), config=server.config)
    assert refused.returncode != 0
    assert "signal is not supported for resource." in refused.stderr
    assert "Traceback" not in refused.stderr
