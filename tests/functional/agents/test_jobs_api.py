"""hearth-api's jobs and agents endpoints over real HTTP, against a real master and agents.

The API runs with the fleet master's configuration (so it is the master's
client) plus a publisher_acl file; tokens come from hearth-manage.  Every
answer is held against the schema the OpenAPI document names for it.
"""

import json
import subprocess
import time
from pathlib import Path

import jsonschema
import pytest
import requests

from hearth.api.schemas import RESPONSES
from tests.fixtures.agents import STACKCTL
from tests.functional.agents.api_client import MasterApi

pytestmark = pytest.mark.slow

ACL = """
proj-web:
  - test.ping
  - 'web*':
      - cmd.run
      - 'test.(arg|sleep)'
proj-ops:
  - '.*'
proj-db:
  - 'db*':
      - pillar.items
proj-webs:
  - 'N@webs':
      - test.ping
proj-claimed:
  - 'G@role:db':
      - test.ping
"""


@pytest.fixture(scope="module")
def api(fleet, tmp_path_factory):
    """A hearth-api that is a client of the fleet's master, with a publisher_acl."""
    master, _ = fleet
    directory = tmp_path_factory.mktemp("jobs-api")
    acl = directory / "acl.yaml"
    acl.write_text(ACL)
    server = MasterApi(master, directory, f"publisher_acl_file = {acl}")
    yield server
    server.stop()


def call(api, project, method, path, response=None, **kwargs):
    answer = api.request(project, method, path, **kwargs)
    if response is not None and answer.ok:
        jsonschema.validate(answer.json(), RESPONSES[response])
    return answer


def error_of(answer):
    body = answer.json()
    assert set(body) == {"code", "title", "explanation", "error"}
    return body["error"]


def listed_agents(answer):
    assert answer.status_code == 200, answer.text
    return {agent["id"]: agent for agent in answer.json()["agents"]}


def test_agents_with_grains_and_last_seen(api):
    agents = listed_agents(call(api, "proj-ops", "GET", "/agents", "AgentList"))
    assert sorted(agents) == ["db1", "db2", "web1", "web2", "web3"]
    assert agents["db1"]["grains"]["role"] == "db" and agents["db1"]["grains"]["id"] == "db1"
    assert all(agent["connected"] and agent["last_seen"] for agent in agents.values())
    assert all(set(agent) == {"id", "grains", "connected", "last_seen"}
               for agent in agents.values())


@pytest.mark.parametrize(("project", "expected"), [
    ("proj-web", ["db1", "db2", "web1", "web2", "web3"]),  # test.ping on any agent
    ("proj-db", ["db1", "db2"]),                            # pillar.items on 'db*'
    ("proj-webs", ["web1", "web2", "web3"]),                # a nodegroup
    ("proj-none", []),                                      # no rule: none
    ("proj-claimed", []),  # role is what the agents say of themselves, not the master's fact
])
def test_a_project_sees_the_agents_its_publisher_acl_lets_it_target(api, project, expected):
    agents = listed_agents(call(api, project, "GET", "/agents", "AgentList"))
    assert sorted(agents) == expected


def test_the_admin_role_sees_every_agent(api):
    token = subprocess.run(
        [str(Path(STACKCTL).with_name("hearth-manage")), *api.files, "token-create",
         "--project", "proj-none", "--role", "admin", "--format", "value"],
        env=api.server.env, capture_output=True, text=True, timeout=60,
        check=True).stdout.strip()
    answer = requests.get(f"{api.server.url('proj-none')}/agents", timeout=60,
                          headers={"X-Auth-Token": token})
    assert sorted(listed_agents(answer)) == ["db1", "db2", "web1", "web2", "web3"]


def test_another_projects_agents_or_a_bad_token_list_nothing(api):
    # proj-db's token on proj-ops's URL, a made-up token, no token: refused, no agent named
    url = f"{api.server.url('proj-ops')}/agents"
    for headers, status in (({"X-Auth-Token": api.token("proj-db")}, 403),
                            ({"X-Auth-Token": "not-a-token"}, 401), ({}, 401)):
        answer = requests.get(url, headers=headers, timeout=60)
        assert answer.status_code == status, answer.text
        assert error_of(answer)["type"] in ("Forbidden", "InvalidTenant", "Unauthorized")
        assert not any(agent in answer.text for agent in ("db1", "web1"))


def test_run_a_job_and_find_it_again(api):
    answer = call(api, "proj-web", "POST", "/jobs", "Job",
                  json={"target": "G@role:web", "target_type": "compound",
                        "function": "cmd.run", "args": ["echo hi"]})
    assert answer.status_code == 200, answer.text
    job = answer.json()["job"]
    assert job["done"] and job["missing"] == {}
    assert job["targeted"] == ["web1", "web2", "web3"]
    assert {agent: r["return"] for agent, r in job["returns"].items()} == {
        "web1": "hi", "web2": "hi", "web3": "hi"}

    listed = call(api, "proj-web", "GET", "/jobs", "JobList").json()["jobs"]
    assert job["jid"] in [j["jid"] for j in listed]
    shown = call(api, "proj-web", "GET", f"/jobs/{job['jid']}", "Job").json()["job"]
    assert shown["returns"] == job["returns"] and shown["fun"] == "cmd.run"

    # another project neither lists nor finds it
    assert job["jid"] not in [j["jid"] for j in
                              call(api, "proj-ops", "GET", "/jobs").json()["jobs"]]
    hidden = call(api, "proj-ops", "GET", f"/jobs/{job['jid']}")
    assert hidden.status_code == 404
    assert error_of(hidden)["message"] == f"The Job ({job['jid']}) could not be found."


def test_a_per_call_pillar_override(api):
    answer = call(api, "proj-ops", "POST", "/jobs", "Job",
                  json={"target": "db2", "function": "pillar.items",
                        "kwargs": {"unmask": True}, "pillar": {"extra": 1}})
    assert answer.status_code == 200, answer.text
    assert answer.json()["job"]["returns"]["db2"]["return"] == {"dbname": "main", "extra": 1}


def test_async_answers_at_once_with_the_job_id(api):
    answer = call(api, "proj-web", "POST", "/jobs", "JobPublished",
                  json={"target": "web1,web2", "target_type": "list",
                        "function": "test.sleep", "args": [1], "async": True})
    assert answer.status_code == 202, answer.text
    published = answer.json()
    assert published["targeted"] == ["web1", "web2"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        job = call(api, "proj-web", "GET", f"/jobs/{published['jid']}", "Job").json()["job"]
        if job["done"]:
            break
        time.sleep(0.2)
    assert set(job["returns"]) == {"web1", "web2"}


@pytest.mark.parametrize(("project", "body", "message"), [
    ("proj-web", {"target": "*", "function": "cmd.run", "args": ["id"]},
     "project proj-web may not run cmd.run on '*' (glob): its publisher_acl allows cmd.run "
     "only on agents selected by 'web*', and this target also selects db1, db2."),
    ("proj-web", {"target": "web1", "function": "file.remove", "args": ["/tmp/x"]},
     "project proj-web may not run file.remove on 'web1' (glob): no publisher_acl rule of "
     "the project allows file.remove."),
    ("proj-none", {"target": "*", "function": "test.ping"},
     "project proj-none may not run test.ping on '*' (glob): no publisher_acl rule of the "
     "project allows test.ping."),
])
def test_refused_publishes_are_403_with_the_reason(api, project, body, message):
    answer = call(api, project, "POST", "/jobs", json=body)
    assert answer.status_code == 403
    assert error_of(answer) == {"type": "Forbidden", "message": message, "traceback": None}


@pytest.mark.parametrize(("body", "error_type", "message"), [
    ({"target": "web1 and", "target_type": "compound", "function": "test.ping"},
     "InvalidTarget", "Invalid target 'web1 and' (compound): expected a target or '(' after "
                      "'and' at the end"),
    ({"target": "nosuch*", "function": "test.ping"}, "NoAgentsMatched",
     "No agents matched the target 'nosuch*' (glob). No command was sent, no jid was "
     "assigned."),
    ({"target": "*"}, "BadRequest",
     "Invalid request body: 'function' is a required property"),
])
def test_bad_requests_are_400(api, body, error_type, message):
    answer = call(api, "proj-ops", "POST", "/jobs", json=body)
    assert answer.status_code == 400
    error = error_of(answer)
    assert (error["type"], error["message"]) == (error_type, message)


def test_the_openapi_document_describes_the_endpoints(api):
    paths = requests.get(f"{api.root}/v1/openapi.json", timeout=10).json()["paths"]
    assert set(paths["/v1/{tenant_id}/jobs"]) == {"get", "post"}
    assert set(paths["/v1/{tenant_id}/jobs/{jid}"]) == {"get"}
    assert set(paths["/v1/{tenant_id}/agents"]) == {"get"}


def stackctl_over_http(api, project, *args):
    return subprocess.run([STACKCTL, "--url", api.server.url(project), "--token",
                           api.token(project), "run", *args],
                          env=api.server.env, capture_output=True, text=True, timeout=120)


def test_stackctl_run_over_http_gets_the_same_acl(api):
    allowed = stackctl_over_http(api, "proj-web", "-L", "web1,db2", "test.ping",
                                 "--format", "json")
    assert allowed.returncode == 0, allowed.stderr
    assert json.loads(allowed.stdout) == {"db2": True, "web1": True}

    refused = stackctl_over_http(api, "proj-web", "*", "cmd.run", "id")
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        "ERROR: project proj-web may not run cmd.run on '*' (glob): its publisher_acl allows "
        "cmd.run only on agents selected by 'web*', and this target also selects db1, db2.")

    unmatched = stackctl_over_http(api, "proj-web", "nosuch*", "test.ping")
    assert unmatched.returncode == 2
    assert "No agents matched the target 'nosuch*'" in unmatched.stderr

    published = stackctl_over_http(api, "proj-web", "web2", "test.arg", "1", "--async")
    assert published.returncode == 0, published.stderr
    assert published.stdout.startswith("Executed command with job ID: ")


def stackctl_url(api, project, *args):
    return subprocess.run([STACKCTL, "--url", api.server.url(project), "--token",
                           api.token(project), *args],
                          env=api.server.env, capture_output=True, text=True, timeout=120)


def test_stackctl_job_list_and_show_over_http_see_the_projects_jobs(api):
    ran = stackctl_over_http(api, "proj-web", "-L", "web1", "test.arg", "x", "--async")
    assert ran.returncode == 0, ran.stderr
    jid = ran.stdout.strip().rsplit(" ", 1)[-1]
    listed = stackctl_url(api, "proj-web", "job-list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    assert jid in [job["jid"] for job in json.loads(listed.stdout)]
    other = stackctl_url(api, "proj-ops", "job-list", "--format", "json")
    assert other.returncode == 0, other.stderr
    assert jid not in [job["jid"] for job in json.loads(other.stdout)]
    shown = stackctl_url(api, "proj-web", "job-show", jid, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["jid"] == jid
    hidden = stackctl_url(api, "proj-ops", "job-show", jid)
    assert (hidden.returncode, hidden.stderr) == (1, f"ERROR: The Job ({jid}) could not be "
                                                     "found.\n")


def test_stackctl_agent_list_over_http_lists_what_the_project_may_target(api):
    listed = stackctl_url(api, "proj-db", "agent-list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    agents = json.loads(listed.stdout)
    assert [agent["id"] for agent in agents] == ["db1", "db2"]
    assert all(agent["grains"]["role"] == "db" and agent["connected"] for agent in agents)
    table = stackctl_url(api, "proj-webs", "agent-list", "--format", "value")
    assert [line.split()[0] for line in table.stdout.splitlines()] == ["web1", "web2", "web3"]
    nothing = stackctl_url(api, "proj-none", "agent-list", "--format", "json")
    assert (nothing.returncode, json.loads(nothing.stdout)) == (0, [])
    forged = subprocess.run([STACKCTL, "--url", api.server.url("proj-ops"), "--token",
                             api.token("proj-db"), "agent-list"], env=api.server.env,
                            capture_output=True, text=True, timeout=120)
    assert forged.returncode == 1 and "db1" not in forged.stdout + forged.stderr
    assert forged.stderr.startswith("ERROR: "), forged.stderr
