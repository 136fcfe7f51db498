"""Hearth::Exec::Call in real stacks whose calls run on a real master's agents.

stackctl (embedded engine, configured with the master's file) creates the
stacks; the master and five agents are the ``fleet`` of this directory's
conftest.  Each test uses stacks of its own.
"""

import json
import signal
import time

import pytest

from tests.functional.agents.api_client import MasterApi

pytestmark = pytest.mark.slow

SEVERAL = """
heat_template_version: 2018-08-31
resources:
  chosen:
    type: OS::Heat::Value
    properties: {value: web2}
  webs:
    type: Hearth::Exec::Call
    properties:
      function: test.ping
      target: G@role:web
      target_type: compound
  echo:
    type: Hearth::Exec::Call
    properties:
      function: cmd.run_all
      args: ["echo hello"]
      target: {get_attr: [chosen, value]}
  pair:
    type: Hearth::Exec::Call
    properties:
      function: grains.item
      args: [role]
      target: db1,web3
      target_type: list
      batch: "1"
  overridden:
    type: Hearth::Exec::Call
    properties:
      function: pillar.items
      kwargs: {unmask: true}
      target: db1
      pillar: {extra: {from: stack}}
outputs:
  overridden: {value: {get_attr: [overridden, returns]}}
  webs: {value: {get_attr: [webs, returns]}}
  webs_jid: {value: {get_attr: [webs, jid]}}
  said: {value: {get_attr: [echo, stdout]}}
  pair: {value: {get_attr: [pair, returns]}}
  pair_targeted: {value: {get_attr: [pair, targeted]}}
"""

FAILING = """
heat_template_version: 2018-08-31
resources:
  broken:
    type: Hearth::Exec::Call
    properties:
      function: cmd.run_all
      args: ["sh -c 'echo no space >&2; exit 3'"]
      target: db*
"""

SILENT = """
heat_template_version: 2018-08-31
parameters:
  policy: {type: string}
resources:
  ping:
    type: Hearth::Exec::Call
    properties:
      function: test.ping
      target: "*"
      timeout: 2
      on_no_return: {get_param: policy}
outputs:
  missing: {value: {get_attr: [ping, missing]}}
  returns: {value: {get_attr: [ping, returns]}}
"""

def create(master, tmp_path, name, template, *extra):
    path = tmp_path / f"{name}.yaml"
    path.write_text(template)
    return master.stackctl("stack-create", "-f", str(path), *extra, name, timeout=120)


def show(master, name):
    result = master.stackctl("stack-show", name, "--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def outputs(master, name):
    return {o["output_key"]: o["output_value"] for o in show(master, name)["outputs"]}


def test_a_stack_runs_calls_on_several_agents(fleet, tmp_path):
    master, _ = fleet
    created = create(master, tmp_path, "several", SEVERAL)
    assert created.returncode == 0, created.stdout + created.stderr
    values = outputs(master, "several")
    assert values["webs"] == {"web1": True, "web2": True, "web3": True}
    assert values["said"] == "hello"
    assert values["pair"] == {"db1": {"role": "db"}, "web3": {"role": "web"}}
    assert values["pair_targeted"] == ["db1", "web3"]
    assert values["overridden"] == {"db1": {"dbname": "main", "extra": {"from": "stack"}}}
    with master.client() as client:
        job = client.job_status(values["webs_jid"])
    assert job.fun == "test.ping" and job.targeted == ["web1", "web2", "web3"]
    assert set(job.returns) == {"web1", "web2", "web3"}
    deleted = master.stackctl("stack-delete", "-y", "several")
    assert deleted.returncode == 0, deleted.stderr


def test_failing_agents_fail_the_resource_by_name(fleet, tmp_path):
    master, _ = fleet
    created = create(master, tmp_path, "failing", FAILING, "--disable-rollback")
    assert created.returncode != 0
    stack = show(master, "failing")
    assert stack["stack_status"] == "CREATE_FAILED"
    reason = stack["stack_status_reason"]
    assert "failed on 2 of 2 targeted agents" in reason, reason
    assert "db1 failed with retcode 3" in reason and "db2 failed with retcode 3" in reason


def test_a_stopped_agent_is_named_unless_ignored(fleet, tmp_path):
    master, agents = fleet
    stopped = next(agent for agent in agents if agent.id == "web3")
    stopped.signal(signal.SIGSTOP)
    try:
        strict = create(master, tmp_path, "strict", SILENT, "-P", "policy=fail",
                        "--disable-rollback")
        lenient = create(master, tmp_path, "lenient", SILENT, "-P", "policy=ignore")
    finally:
        stopped.signal(signal.SIGCONT)
    assert strict.returncode != 0
    reason = show(master, "strict")["stack_status_reason"]
    assert "failed on 1 of 5 targeted agents: web3 did not return [" in reason, reason
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr
    values = outputs(master, "lenient")
    assert list(values["missing"]) == ["web3"]
    assert values["missing"]["web3"] in ("No response", "Not connected")
    assert sorted(values["returns"]) == ["db1", "db2", "web1", "web2"]


SLOW = """
heat_template_version: 2018-08-31
resources:
  nap:
    type: Hearth::Exec::Call
    properties:
      function: test.sleep
      args: [60]
      target: web1
      timeout: 90
"""


@pytest.fixture(scope="module")
def api(fleet, tmp_path_factory):
    """hearth-api as the engine (stack actions of one process can be cancelled).

    The project may run anything on any agent (its stacks act with its rights).
    """
    master, _ = fleet
    directory = tmp_path_factory.mktemp("exec-call-api")
    acl = directory / "acl.yaml"
    acl.write_text("proj:\n  - '.*'\n")
    server = MasterApi(master, directory, f"publisher_acl_file = {acl}")
    yield server
    server.stop()


def wait_for(condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("condition not met in time")


def test_deleting_a_stack_stops_waiting_for_its_call(api):
    created = api.request("proj", "POST", "/stacks",
                          json={"stack_name": "slow", "template": SLOW})
    assert created.status_code == 201, created.text
    location = f"/stacks/slow/{created.json()['stack']['id']}"

    def nap_in_progress():
        answer = api.request("proj", "GET", f"{location}/resources/nap")
        return answer.ok and answer.json()["resource"]["resource_status"] == (
            "CREATE_IN_PROGRESS")

    wait_for(nap_in_progress)
    started = time.monotonic()
    assert api.request("proj", "DELETE", location).status_code == 204

    def gone():
        answer = api.request("proj", "GET", location)
        return answer.status_code == 404 or (
            answer.ok and answer.json()["stack"]["stack_status"] == "DELETE_COMPLETE")

    wait_for(gone, timeout=30)
    assert time.monotonic() - started < 30  # not the call's 60 seconds
