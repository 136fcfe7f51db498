"""Agent keys and pillar through the operations table: stackctl locally, and --url over HTTP.

A real master (no auto_accept) with keys made by raw CURVE peers, and a real
hearth-api that is its client, with a publisher_acl granting wheel (key)
functions to some projects.  ``stackctl key-*`` and ``pillar-*`` run as
processes: without ``--url`` through the master with its client key, with
``--url`` through hearth-api; both answer the same, in Salt's shapes.
"""

import json
import subprocess
from pathlib import Path

import jsonschema
import pytest
import requests
import zmq

from hearth.api.schemas import RESPONSES
from hearth.transport import keys as transport_keys
from tests.fixtures.agents import STACKCTL, MasterProcess, stop_all
from tests.functional.agents.api_client import MasterApi

pytestmark = pytest.mark.slow

ACL = """
proj-keys:
  - '@wheel'
proj-lister:
  - '@wheel':
      - key.list_all
      - 'key.finger.*'
proj-web:
  - 'web*':
      - pillar.items
"""
SALT_CATEGORIES = {"minions", "minions_denied", "minions_pre", "minions_rejected"}
SECRET = "hush-hush-4711"


def present_key(master, agent_id):
    """Present ``agent_id`` with a new key on the master's auth port (it becomes pending)."""
    context = zmq.Context()
    try:
        socket = context.socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.curve_publickey, socket.curve_secretkey = zmq.curve_keypair()
        socket.curve_serverkey = transport_keys.AUTH_BOOTSTRAP.public
        socket.connect(f"tcp://127.0.0.1:{master.auth_port}")
        socket.send_json({"id": agent_id})
        assert socket.poll(5000), "the auth port did not answer"
        socket.recv_json()
        socket.close()
    finally:
        context.term()


@pytest.fixture(scope="module")
def setup(tmp_path_factory, sqlite_template):
    """A master with web1 and db1 accepted and a pillar for each, and hearth-api over it."""
    from tests.functional.agents.conftest import _migrated_sqlite

    directory = tmp_path_factory.mktemp("keys-api")
    pillar = directory / "master" / "pillar"
    pillar.mkdir(parents=True)
    (pillar / "top.sls").write_text("base:\n  'web*':\n    - web\n  'db*':\n    - db\n")
    (pillar / "web.sls").write_text(f"site: www\npassword: {SECRET}\n")
    (pillar / "db.sls").write_text("dbpassword: root-only\n")
    master = MasterProcess(directory / "master", auto_accept=False,
                           database=_migrated_sqlite(sqlite_template, directory / "master"))
    master.start()
    api = None
    try:
        master.wait_ready()
        for agent_id in ("web1", "db1"):
            present_key(master, agent_id)
            accepted = master.stackctl("key-accept", agent_id, "--yes")
            assert accepted.returncode == 0, accepted.stderr
        acl = directory / "acl.yaml"
        acl.write_text(ACL)
        api = MasterApi(master, directory, f"publisher_acl_file = {acl}")
        yield master, api
    finally:
        if api is not None:
            api.stop()
        stop_all([master])


def local(setup, *args):
    """Run stackctl on the master's host, without --url (the master, with its client key)."""
    master, _ = setup
    return master.stackctl(*args)


def remote(setup, project, *args):
    """Run the same stackctl command through hearth-api as ``project``."""
    master, api = setup
    return master.stackctl("--url", api.server.url(project), "--token", api.token(project),
                           *args)


def ok(result):
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def refused(result, text):
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout == ""
    assert text in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_key_list_is_salt_keys_shape_and_the_same_both_ways(setup):
    present_key(setup[0], "new1")
    listed = json.loads(ok(local(setup, "key-list", "--format", "json")))
    assert set(listed) == SALT_CATEGORIES
    assert listed["minions"] == ["db1", "web1"] and "new1" in listed["minions_pre"]
    for project in ("proj-keys", "proj-lister"):
        assert json.loads(ok(remote(setup, project, "key-list", "--format", "json"))) == listed
    # and --in-process: the services in stackctl's own process, the same answer
    assert json.loads(ok(local(setup, "--in-process", "key-list", "--format", "json"))) == \
        listed
    # salt-key -l: one category, by its word or its start
    for status, category in (("acc", "minions"), ("un", "minions_pre"),
                             ("rejected", "minions_rejected")):
        one = json.loads(ok(remote(setup, "proj-lister", "key-list", "-l", status, "--format",
                                   "json")))
        assert one == {category: listed[category]}
    ambiguous = local(setup, "key-list", "-l", "a")
    assert ambiguous.returncode == 2 and "'a' is not one of accepted (acc)" in ambiguous.stderr
    table = ok(remote(setup, "proj-keys", "key-list", "--format", "value"))
    assert ok(local(setup, "key-list", "--format", "value")) == table
    assert "web1 Accepted\n" in table and "new1 Unaccepted\n" in table
    # salt-key's order: Accepted, Denied, Unaccepted, Rejected
    assert table.index("web1 Accepted") < table.index("new1 Unaccepted")


def test_a_project_without_a_wheel_grant_is_refused_every_key_operation(setup):
    refused(remote(setup, "proj-web", "key-list"),
            "ERROR: project proj-web may not list the agent keys: agent keys are the master "
            "operator's; no '@wheel' entry of the project's publisher_acl grants "
            "key.list_all.")
    refused(remote(setup, "proj-lister", "key-accept", "new1", "--yes"),
            "project proj-lister may not accept the keys matching 'new1'")
    refused(remote(setup, "proj-web", "key-finger"), "grants key.finger_master.")
    _, api = setup
    for method, path, body in (("GET", "/keys", None),
                               ("POST", "/keys/delete", {"match": "*"}),
                               ("GET", "/keys/fingerprints", None)):
        answer = api.request("proj-web", method, path, json=body)
        assert answer.status_code == 403, answer.text
        assert answer.json()["error"]["type"] == "Forbidden"
        assert "web1" not in answer.text
    assert "new1" in json.loads(ok(local(setup, "key-list", "--format", "json")))[
        "minions_pre"]


def test_the_admin_role_grants_no_key_function(setup):
    _, api = setup
    token = subprocess.run(
        [str(Path(STACKCTL).with_name("hearth-manage")), *api.files, "token-create",
         "--project", "proj-web", "--role", "admin", "--format", "value"],
        env=api.server.env, capture_output=True, text=True, timeout=60,
        check=True).stdout.strip()
    answer = requests.get(f"{api.server.url('proj-web')}/keys", timeout=60,
                          headers={"X-Auth-Token": token})
    assert answer.status_code == 403, answer.text
    assert "grants key.list_all" in answer.json()["error"]["message"]


@pytest.mark.parametrize(("path", "body", "message"), [
    ("/keys/accept", {}, "'match' is a required property"),
    ("/keys/accept", {"match": 5}, "5 is not of type 'string'"),
    ("/keys/accept", {"match": ""}, "should be non-empty"),
    ("/keys/reject", {"match": "x", "grains": {}}, "Additional properties are not allowed"),
    ("/keys/accept", {"match": "x", "include_rejected": "maybe"}, "is not of type 'boolean'"),
    ("/keys/delete", {"match": "a\u0000b"}, "may not contain a NUL character"),
    ("/keys/delete", ["web1"], "is not of type 'object'"),
])
def test_garbage_is_a_clear_400(setup, path, body, message):
    _, api = setup
    answer = api.request("proj-keys", "POST", path, json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["type"] == "BadRequest"
    assert message in answer.json()["error"]["message"]


def test_a_body_that_is_not_json_is_a_400(setup):
    _, api = setup
    answer = requests.post(f"{api.server.url('proj-keys')}/keys/accept", data=b"{not json",
                           headers={"X-Auth-Token": api.token("proj-keys"),
                                    "Content-Type": "application/json"}, timeout=60)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["type"] == "BadRequest"


def test_accept_reject_delete_over_http_act_on_the_master(setup):
    master, api = setup
    present_key(master, "spare1")
    assert remote(setup, "proj-keys", "key-accept", "spare1", "--yes").stdout == \
        "Accepted key: spare1\n"
    assert "spare1" in json.loads(ok(local(setup, "key-list", "--format", "json")))["minions"]
    assert ok(remote(setup, "proj-keys", "key-reject", "spare*", "--yes")) == \
        "Rejected key: spare1\n"
    listed = json.loads(ok(local(setup, "key-list", "--format", "json")))
    assert "spare1" in listed["minions_rejected"] and "spare1" not in listed["minions"]
    answer = api.request("proj-keys", "POST", "/keys/delete", json={"match": "spare1"})
    assert answer.status_code == 200 and answer.json() == {"keys": ["spare1"]}
    assert "spare1" not in str(json.loads(ok(local(setup, "key-list", "--format", "json"))))
    # nothing matches: a 404 naming the glob, the same words locally
    missing = remote(setup, "proj-keys", "key-delete", "spare1", "--yes")
    assert missing.returncode == 1 and "spare1" in missing.stderr
    assert "could not be found" in missing.stderr
    assert local(setup, "key-delete", "spare1", "--yes").stderr == missing.stderr


def test_only_the_local_user_records_grains_at_acceptance(setup):
    present_key(setup[0], "graint1")
    refused(remote(setup, "proj-keys", "key-accept", "graint1", "--grain", "role=db", "--yes"),
            "project proj-keys may not record grains of the agents matching 'graint1': "
            "recorded grains decide which pillar an agent gets")
    assert "graint1" in json.loads(ok(local(setup, "key-list", "--format", "json")))[
        "minions_pre"]


def test_fingerprints_in_salt_keys_shape_the_same_both_ways(setup):
    master_finger = json.loads(ok(local(setup, "key-finger", "--format", "json")))
    assert json.loads(ok(remote(setup, "proj-lister", "key-finger", "--format", "json"))) == \
        master_finger
    every = json.loads(ok(local(setup, "key-finger", "--all", "--format", "json")))
    assert set(every) == {"local", *SALT_CATEGORIES}
    assert every["local"] == {"master.key": master_finger["fingerprint"]}
    accepted = (setup[0].pki_dir / "accepted" / "web1").read_text().strip()
    assert every["minions"]["web1"] == transport_keys.fingerprint(accepted)
    one = json.loads(ok(remote(setup, "proj-lister", "key-finger", "web1", "--format", "json")))
    assert one == {"minions": {"web1": every["minions"]["web1"]}, "minions_denied": {},
                   "minions_pre": {}, "minions_rejected": {}}
    table = ok(remote(setup, "proj-keys", "key-finger", "web*", "--format", "value"))
    assert table == f"web1 Accepted {every['minions']['web1']}\n"


def test_pillar_show_and_top_are_the_same_both_ways(setup):
    shown = ok(local(setup, "pillar-show", "web1", "--unmask", "--format", "json"))
    assert json.loads(shown) == {"web1": {"site": "www", "password": SECRET}}
    assert ok(remote(setup, "proj-web", "pillar-show", "web1", "--unmask", "--format",
                     "json")) == shown
    masked = remote(setup, "proj-web", "pillar-show", "web1")
    assert SECRET not in masked.stdout and "Values are masked" in masked.stderr
    assert ok(local(setup, "--in-process", "pillar-show", "web1", "--unmask", "--format",
                    "json")) == shown
    top = ok(local(setup, "pillar-top", "web1", "--format", "json"))
    assert [(entry["target"], entry["sls"]) for entry in json.loads(top)["base"]] == \
        [("web*", ["web"])]
    assert ok(remote(setup, "proj-web", "pillar-top", "web1", "--format", "json")) == top


def test_another_agents_pillar_is_refused_and_never_leaks(setup):
    master, api = setup
    for agent in ("db1", "nosuch1"):  # known or not: the same refusal
        refused(remote(setup, "proj-web", "pillar-show", agent),
                f"ERROR: project proj-web may not read the pillar of agent {agent}: reading "
                "an agent's pillar needs the right to run pillar.items on it")
        answer = api.request("proj-web", "GET", f"/agents/{agent}/pillar")
        assert answer.status_code == 403 and "root-only" not in answer.text
    refused(remote(setup, "proj-keys", "pillar-top", "web1"), "may not read the pillar")
    with master.client() as listener:
        stream = listener.events("", timeout=2)
        answer = api.request("proj-web", "GET", "/agents/web1/pillar")
        events = list(stream)
    assert answer.status_code == 200
    assert answer.json() == {"pillar": {"site": "www", "password": SECRET}}
    jsonschema.validate(answer.json(), RESPONSES["Pillar"])
    # secret data is never logged nor sent on the master's bus
    assert SECRET not in json.dumps(events, default=str)
    assert SECRET not in master.log_text()


def test_local_compiles_have_no_url_form(setup):
    refused(remote(setup, "proj-web", "pillar-show", "web1", "--local"),
            "--local compiles here, without a master or an API: it has no --url form")
