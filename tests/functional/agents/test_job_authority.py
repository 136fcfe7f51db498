"""Who may run what where, through the attacker's path: projects over real HTTP.

A real hearth-api (a client of the fleet's real master, five real agents)
with a publisher_acl; each project creates stacks with its own token, as an
attacker with an account would.  What must hold (issue 20, finding 2):

* a project with no ACL rule runs nothing through a stack, on the API's own
  host or on any agent: the stack fails with a refusal naming the function,
  the target and the project, and the marker file the command would make is
  never made;
* reading an agent's pillar needs the right to run pillar.items on it;
* a project's jobs are invisible to another project (404, as if absent);
* API arguments (targets, function names, keyword names and values) never
  reach a shell or a path by Hearth's doing (Salt's CVE-2021-3197 class);
* and a project whose ACL allows test.ping on '*' still runs it from a stack.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.functional.agents.api_client import MasterApi

pytestmark = pytest.mark.slow

ACL = """
proj-ping:
  - '*':
      - test.ping
proj-web:
  - 'web*':
      - pillar.items
      - test.*
proj-ops:
  - '.*'
"""


@pytest.fixture(scope="module")
def api(fleet, tmp_path_factory):
    """A hearth-api that is the fleet master's client, with the ACL above."""
    master, _ = fleet
    directory = tmp_path_factory.mktemp("authority-api")
    acl = directory / "acl.yaml"
    acl.write_text(ACL)
    server = MasterApi(master, directory, f"publisher_acl_file = {acl}")
    yield server
    server.stop()


def create_stack(api, project, name, resources, outputs=None):
    """Create a stack as ``project`` over HTTP; return it once its create ended."""
    template = {"heat_template_version": "2021-04-16", "resources": resources,
                "outputs": outputs or {}}
    created = api.request(project, "POST", "/stacks",
                          json={"stack_name": name, "template": template})
    assert created.status_code == 201, created.text
    url = f"/stacks/{name}/{created.json()['stack']['id']}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        stack = api.request(project, "GET", url).json()["stack"]
        if not stack["stack_status"].endswith("IN_PROGRESS"):
            return stack
        time.sleep(0.2)
    raise AssertionError(f"stack {name} still in progress: {stack}")


def touch(marker, **target):
    """An Exec::Call that would create ``marker`` through a shell."""
    return {"type": "Hearth::Exec::Call",
            "properties": {"function": "cmd.run", "args": [f"touch {marker}"],
                           "kwargs": {"python_shell": True}, **target}}


@pytest.mark.parametrize("target", [{}, {"target": "*"}, {"target": "local"}],
                         ids=["engine-host", "every-agent", "local"])
def test_a_project_without_acl_rules_runs_nothing_through_a_stack(api, tmp_path, target):
    marker = tmp_path / "pwned"
    name = f"attack-{target.get('target', 'none').replace('*', 'all')}"
    stack = create_stack(api, "proj-none", name, {"call": touch(marker, **target)})
    assert stack["stack_status"] == "CREATE_FAILED"
    where = ("the engine's own host: running modules on the engine's own host is the local "
             "user's right; [api] engine_host_projects does not grant it to this project."
             if target.get("target") != "*" else
             "'*' (glob): no publisher_acl rule of the project allows cmd.run.")
    assert stack["stack_status_reason"] == (
        f"Resource CREATE failed: JobRefused: resources.call: project proj-none may not run "
        f"cmd.run on {where}")
    time.sleep(1)  # a job sent anyway would have run by now
    assert not marker.exists()


def test_an_acl_for_some_agents_does_not_reach_the_others_through_a_stack(api, tmp_path):
    marker = tmp_path / "pwned"
    stack = create_stack(api, "proj-web", "reach", {
        "call": {"type": "Hearth::Exec::Call",
                 "properties": {"function": "test.arg", "args": ["x"], "target": "*"}}})
    assert stack["stack_status"] == "CREATE_FAILED"
    assert stack["stack_status_reason"] == (
        "Resource CREATE failed: JobRefused: resources.call: project proj-web may not run "
        "test.arg on '*' (glob): its publisher_acl allows test.arg only on agents selected by "
        "'web*', and this target also selects db1, db2.")
    assert not marker.exists()


def test_a_project_allowed_test_ping_everywhere_still_runs_it_from_a_stack(api):
    stack = create_stack(api, "proj-ping", "pings", {
        "ping": {"type": "Hearth::Exec::Call",
                 "properties": {"function": "test.ping", "target": "*"}}},
        {"returns": {"value": {"get_attr": ["ping", "returns"]}},
         "jid": {"value": {"get_attr": ["ping", "jid"]}}})
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    outputs = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    assert outputs["returns"] == dict.fromkeys(("db1", "db2", "web1", "web2", "web3"), True)

    # the stack's job is the project's: listed and shown to it, to no other project
    jid = outputs["jid"]
    mine = api.request("proj-ping", "GET", f"/jobs/{jid}")
    assert mine.status_code == 200 and mine.json()["job"]["fun"] == "test.ping"
    assert jid in [job["jid"] for job in api.request("proj-ping", "GET", "/jobs").json()["jobs"]]
    for other in ("proj-web", "proj-ops", "proj-none"):
        hidden = api.request(other, "GET", f"/jobs/{jid}")
        assert hidden.status_code == 404, hidden.text
        assert hidden.json()["error"]["message"] == f"The Job ({jid}) could not be found."
        listed = api.request(other, "GET", "/jobs")
        assert jid not in [job["jid"] for job in listed.json().get("jobs", [])]


def test_reading_another_agents_pillar_is_refused(api):
    stack = create_stack(api, "proj-web", "peek", {
        "secret": {"type": "Hearth::Pillar::Data", "properties": {"agent": "db1"}}},
        {"data": {"value": {"get_attr": ["secret", "data"]}}})
    assert stack["stack_status"] == "CREATE_FAILED"
    assert stack["stack_status_reason"] == (
        "Resource CREATE failed: JobRefused: resources.secret: project proj-web may not read "
        "the pillar of agent db1: reading an agent's pillar needs the right to run "
        "pillar.items on it: its publisher_acl allows pillar.items only on agents selected by "
        "'web*', and this target also selects db1.")
    assert "main" not in json.dumps(stack)  # db1's pillar: {dbname: main}

    mine = create_stack(api, "proj-web", "own", {
        "pillar": {"type": "Hearth::Pillar::Data", "properties": {"agent": "web1"}}},
        {"data": {"value": {"get_attr": ["pillar", "data"]}}})
    assert mine["stack_status"] == "CREATE_COMPLETE", mine["stack_status_reason"]

    ops = create_stack(api, "proj-ops", "ops", {
        "pillar": {"type": "Hearth::Pillar::Data", "properties": {"agent": "db1"}}},
        {"data": {"value": {"get_attr": ["pillar", "data"]}}})
    assert ops["stack_status"] == "CREATE_COMPLETE", ops["stack_status_reason"]
    assert ops["outputs"][0]["output_value"] == {"dbname": "main"}


# --- API arguments never reach a shell or a path (Salt's CVE-2021-3197 class) -------------

@pytest.mark.parametrize("body", [
    {"target": "*; touch {marker}", "function": "test.ping"},
    {"target": "$(touch {marker})", "function": "test.ping", "target_type": "pcre"},
    {"target": "web1 and `touch {marker}`", "function": "test.ping", "target_type": "compound"},
    {"target": "../../../../{marker}", "function": "test.ping", "target_type": "nodegroup"},
    {"target": "G@role:$(touch {marker})", "function": "test.ping", "target_type": "compound"},
], ids=["glob", "pcre", "compound", "nodegroup", "grain"])
def test_target_strings_reach_no_shell(api, tmp_path, body):
    marker = tmp_path / "pwned"
    body = {key: value.format(marker=marker) for key, value in body.items()}
    answer = api.request("proj-ops", "POST", "/jobs", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["type"] in ("NoAgentsMatched", "InvalidTarget")
    time.sleep(0.5)
    assert not marker.exists()


@pytest.mark.parametrize("function", [
    "test.ping; touch {marker}", "cmd.run`touch {marker}`", "../../../../{marker}",
    "__import__('os').system('touch {marker}')", "test.{marker}",
])
def test_function_names_reach_no_shell_and_no_path(api, tmp_path, function):
    marker = tmp_path / "pwned"
    answer = api.request("proj-ops", "POST", "/jobs",
                         json={"target": "web1", "function": function.format(marker=marker)})
    assert answer.status_code == 200, answer.text
    ret = answer.json()["job"]["returns"]["web1"]
    assert ret["success"] is False and "is not available" in ret["return"]
    time.sleep(0.5)
    assert not marker.exists()


def test_keyword_names_and_values_reach_no_shell(api, tmp_path):
    marker = tmp_path / "pwned"
    hostile = f"$(touch {marker}); `touch {marker}` | touch {marker}"
    answer = api.request("proj-ops", "POST", "/jobs", json={
        "target": "web1", "function": "test.arg", "args": [hostile],
        "kwargs": {"x": hostile}, "pillar": {"p": hostile}})
    assert answer.status_code == 200, answer.text
    ret = answer.json()["job"]["returns"]["web1"]["return"]
    assert ret["args"] == [hostile] and ret["kwargs"]["x"] == hostile
    refused = api.request("proj-ops", "POST", "/jobs", json={
        "target": "web1", "function": "test.arg", "kwargs": {f"a; touch {marker}": 1}})
    assert refused.status_code in (200, 400), refused.text
    time.sleep(0.5)
    assert not marker.exists()
