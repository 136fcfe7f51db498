"""Differential tests of composition: nested templates get one answer on every path.

Each case is a directory of templates (a parent, the provider templates and
``get_file`` targets it names, an environment whose ``resource_registry``
maps types to templates) that goes through validate, preview and create on
five paths: the in-process EngineService, ``stackctl`` subprocesses
(embedded and ``--url``), ``hearth-api`` over HTTP with ``requests`` and
python-heatclient.  The request bodies of the first, HTTP and heatclient
paths are what heatclient's own helpers build from the directory (the
``files`` map, references rewritten to ``file://`` URLs); the stackctl paths
read the directory themselves.  Validate objects, previews (a nested stack
is a nested list, as Heat shows it), final statuses, their reasons, outputs
and error messages must agree across paths.
"""

from __future__ import annotations

import json
import re
import time
import uuid

import pytest
import requests

from hearth.common import exception
from tests.fixtures.engine import CTX
from tests.functional import paths, stackctl_process

heatclient = pytest.importorskip("heatclient.client")
template_utils = pytest.importorskip("heatclient.common.template_utils")
heat_exc = pytest.importorskip("heatclient.exc")

PROJECT = "proj-composition"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

CHILD = """
heat_template_version: 2018-08-31
parameters:
  greeting: {type: string, default: hi}
  loud: {type: boolean, default: false}
conditions:
  is_loud: {get_param: loud}
resources:
  word:
    type: OS::Heat::Value
    properties: {value: {get_param: greeting}}
  shout:
    type: OS::Heat::Value
    condition: is_loud
    properties: {value: {str_replace: {template: $w!, params: {$w: {get_param: greeting}}}}}
outputs:
  said: {value: {get_attr: [word, value]}}
  shouted: {value: {if: [is_loud, {get_attr: [shout, value]}, quiet]}}
"""

def _parent(resources: dict, outputs: dict | None = None) -> str:
    return json.dumps({"heat_template_version": "2018-08-31", "resources": resources,
                       "outputs": {key: {"value": value}
                                   for key, value in (outputs or {}).items()}}, indent=1)


BAD_PROPERTY = """
heat_template_version: 2018-08-31
resources:
  word:
    type: OS::Heat::Value
    properties: {value: x, colour: blue}
"""

#: seven levels of provider templates (heatclient's helpers cannot read a recursive one)
LEVELS = {f"level{index}.yaml": _parent(
    {"down": {"type": f"level{index + 1}.yaml" if index < 6 else "OS::Heat::None"}})
    for index in range(7)}

FAILING = """
heat_template_version: 2018-08-31
resources:
  broken:
    type: OS::Heat::TestResource
    properties: {fail: true}
"""


#: name -> (files of the directory, environment or None); the parent is main.yaml
CASES = {
    "provider_by_file": ({"child.yaml": CHILD, "main.yaml": _parent(
        {"quiet": {"type": "child.yaml", "properties": {"greeting": "hello"}},
         "loud": {"type": "child.yaml", "properties": {"greeting": "hey", "loud": True}}},
        {"quiet_said": {"get_attr": ["quiet", "said"]},
         "loud_shouted": {"get_attr": ["loud", "shouted"]},
         "member": {"get_attr": ["loud", "resource.shout", "value"]}})}, None),
    "provider_by_registry": ({"child.yaml": CHILD, "main.yaml": _parent(
        {"w": {"type": "My::Word", "properties": {"greeting": "reg", "loud": True}}},
        {"shouted": {"get_attr": ["w", "shouted"]},
         "said": {"get_attr": ["w", "resource.word", "value"]}})},
        {"resource_registry": {"My::Word": "child.yaml"}}),
    "stack_with_outputs": ({"child.yaml": CHILD, "main.yaml": _parent(
        {"inner": {"type": "OS::Heat::Stack", "properties": {
            "template": {"get_file": "child.yaml"},
            "parameters": {"greeting": "in", "loud": True}}}},
        {"all": {"get_attr": ["inner", "outputs"]},
         "said": {"get_attr": ["inner", "outputs", "said"]},
         "member": {"get_attr": ["inner", "resource.shout", "value"]}})}, None),
    "group_attributes": ({"main.yaml": _parent(
        {"g": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": 3, "resource_def": {"type": "OS::Heat::Value",
                                         "properties": {"value": "m-%index%"}}}}},
        {"first": {"get_attr": ["g", "resource.0.value"]},
         "values": {"get_attr": ["g", "value"]},
         "attributes": {"get_attr": ["g", "attributes", "value"]},
         "refs": {"list_join": [",", {"get_attr": ["g", "refs"]}]}})}, None),
    "group_of_providers": ({"child.yaml": CHILD, "main.yaml": _parent(
        {"g": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": 2, "resource_def": {"type": "My::Word",
                                         "properties": {"greeting": "g%index%",
                                                        "loud": True}}}}},
        {"first": {"get_attr": ["g", "resource.1.shouted"]},
         "all": {"get_attr": ["g", "said"]}})},
        {"resource_registry": {"My::Word": "child.yaml"}}),
    "chain": ({"main.yaml": _parent(
        {"c": {"type": "OS::Heat::ResourceChain", "properties": {
            "resources": ["OS::Heat::Value", "OS::Heat::Value"],
            "resource_properties": {"value": "linked"}}}},
        {"first": {"get_attr": ["c", "resource.0.value"]},
         "attributes": {"get_attr": ["c", "attributes", "value"]}})}, None),
    "nested_bad_property": ({"bad.yaml": BAD_PROPERTY, "main.yaml": _parent(
        {"n": {"type": "bad.yaml"}})}, None),
    "nested_missing_file": ({"main.yaml": _parent(
        {"n": {"type": "OS::Heat::Stack",
               "properties": {"template": {"get_file": "file:///nowhere/missing.yaml"}}}})},
        None),
    "registry_missing_file": ({"main.yaml": _parent({"n": {"type": "My::Gone"}})},
                              {"resource_registry": {"My::Gone": "file:///nowhere/gone.yaml"}}),
    "depth_limit": ({**LEVELS, "main.yaml": _parent({"n": {"type": "level0.yaml"}})}, None),
    "group_member_fails": ({"failing.yaml": FAILING, "main.yaml": _parent(
        {"g": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": 2, "resource_def": {"type": "failing.yaml"}}}},
        {"refs": {"get_attr": ["g", "refs"]}})}, None),
}


def comparable(answer: dict) -> dict:
    """Return ``answer`` without what differs by nature.

    Ids, names and the project in ARNs differ by path; which member of a group
    is named when several fail at once is whichever failed first (Heat's too).
    """
    answer = {key: value for key, value in answer.items() if key != "location"}
    text = UUID.sub("ID", json.dumps(answer))
    text = re.sub(r"arn:openstack:heat::[^:]*:", "arn:openstack:heat::PROJECT:", text)
    text = re.sub(r"(resources\.g\.resources\.)\d+\.", r"\1MEMBER.", text)
    return json.loads(re.sub(r"s-[0-9a-f]{8}[\w-]*", "STACK", text))


def preview_tree(resources: list) -> list:
    """Return ``[(name, type, properties)]`` of a preview, nested stacks as nested lists."""
    return [preview_tree(item) if isinstance(item, list)
            else [item["resource_name"], item["resource_type"], item.get("properties")]
            for item in resources]


def _reason(text: str | None) -> str:
    return UUID.sub("ID", text or "")


class Requests:
    """hearth-api over HTTP with the bodies heatclient's helpers build."""

    name = "http"

    def __init__(self, session: requests.Session, base: str) -> None:
        self.session, self.base = session, base

    def _answer(self, response: requests.Response, shape) -> dict:
        assert response.status_code < 500, response.text
        if response.status_code >= 400:
            return {"error": paths.message(response.json()["error"]["message"])}
        return {"ok": shape(response.json())}

    def validate(self, body: dict) -> dict:
        return self._answer(self.session.post(f"{self.base}/validate", json=body),
                            lambda answer: answer)

    def preview(self, body: dict) -> dict:
        response = self.session.post(f"{self.base}/stacks/preview",
                                     json={**body, "stack_name": "pv"})
        return self._answer(response, lambda answer: preview_tree(answer["stack"]["resources"]))

    def create(self, body: dict) -> dict:
        response = self.session.post(f"{self.base}/stacks",
                                     json={**body, "stack_name": f"s-{uuid.uuid4().hex[:8]}"})
        refused = self._answer(response, lambda answer: answer)
        if "error" in refused:
            return refused
        location = response.headers["Location"]
        deadline = time.monotonic() + 60
        while True:
            stack = self.session.get(location).json()["stack"]
            if not stack["stack_status"].endswith("IN_PROGRESS") or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        return {"status": stack["stack_status"], "reason": _reason(stack["stack_status_reason"]),
                "outputs": paths.outputs_map(stack["outputs"])}


class Heatclient:
    """python-heatclient's StackManager."""

    name = "heatclient"

    def __init__(self, client) -> None:
        self.client = client

    def _call(self, call, shape) -> dict:
        try:
            return {"ok": shape(call())}
        except heat_exc.HTTPException as exc:
            assert int(exc.code) < 500, str(exc)
            return {"error": paths.message(exc.error["error"]["message"])}

    def validate(self, body: dict) -> dict:
        return self._call(lambda: self.client.stacks.validate(**body), lambda answer: answer)

    def preview(self, body: dict) -> dict:
        return self._call(lambda: self.client.stacks.preview(stack_name="pv", **body),
                          lambda stack: preview_tree(stack.to_dict()["resources"]))

    def create(self, body: dict) -> dict:
        created = self._call(lambda: self.client.stacks.create(
            stack_name=f"s-{uuid.uuid4().hex[:8]}", **body), lambda answer: answer)
        if "error" in created:
            return created
        stack_id = created["ok"]["stack"]["id"]
        deadline = time.monotonic() + 60
        while True:
            stack = self.client.stacks.get(stack_id)
            if not stack.stack_status.endswith("IN_PROGRESS") or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        return {"status": stack.stack_status, "reason": _reason(stack.stack_status_reason),
                "outputs": paths.outputs_map(stack.to_dict().get("outputs"))}


class Embedded:
    """The in-process EngineService, given heatclient's request body."""

    name = "embedded"

    def __init__(self, service) -> None:
        self.service = service

    def _call(self, call, shape) -> dict:
        try:
            return {"ok": shape(call())}
        except exception.HearthException as exc:
            return {"error": paths.message(str(exc))}

    def validate(self, body: dict) -> dict:
        return self._call(lambda: self.service.catalog.validate_template(
            CTX, body["template"], files=body["files"], environment=body["environment"]),
            lambda answer: answer)

    def preview(self, body: dict) -> dict:
        return self._call(lambda: self.service.preview_stack(
            CTX, "pv", body["template"], files=body["files"], environment=body["environment"]),
            lambda stack: preview_tree(stack["resources"]))

    def create(self, body: dict) -> dict:
        created = self._call(lambda: self.service.create_stack(
            CTX, f"s-{uuid.uuid4().hex[:8]}", body["template"], files=body["files"],
            environment=body["environment"]), lambda answer: answer)
        if "error" in created:
            return created
        stack_id = created["ok"]["id"]
        self.service.wait(CTX, stack_id)
        stack = self.service.show_stack(CTX, stack_id)
        return {"status": stack["stack_status"], "reason": _reason(stack["stack_status_reason"]),
                "outputs": paths.outputs_map(stack["outputs"])}


class Stackctl:
    """``stackctl`` subprocesses reading the case's directory (embedded or ``--url``)."""

    def __init__(self, name: str, home, extra_env: dict | None = None) -> None:
        self.name, self.home, self.extra_env = name, home, extra_env or {}

    def run(self, *args: str):
        import subprocess
        env = {**stackctl_process.environment(self.home), **self.extra_env}
        return subprocess.run([stackctl_process.STACKCTL, *args], env=env, text=True,
                              capture_output=True, stdin=subprocess.DEVNULL, timeout=120)

    @staticmethod
    def _args(directory) -> list[str]:
        env = directory / "env.yaml"
        return ["-f", str(directory / "main.yaml"), *(["-e", str(env)] if env.exists() else [])]

    def validate(self, directory) -> dict:
        done = self.run("template-validate", *self._args(directory), "--format", "json")
        if done.returncode:
            return {"error": paths.message(done.stderr)}
        return {"ok": json.loads(done.stdout)}

    def create(self, directory) -> dict:
        name = f"s-{uuid.uuid4().hex[:8]}"
        # the API's default: no rollback (stackctl rolls back unless told not to)
        done = self.run("stack-create", *self._args(directory), "--disable-rollback", name)
        shown = self.run("stack-show", name, "--format", "json")
        if shown.returncode:
            return {"error": paths.message(done.stderr)}  # refused: no stack was stored
        stack = json.loads(shown.stdout)
        return {"status": stack["stack_status"], "reason": _reason(stack["stack_status_reason"]),
                "outputs": paths.outputs_map(stack.get("outputs"))}


@pytest.fixture(scope="module")
def token(api_server):
    from tests.functional.api.conftest import create_token
    return create_token(api_server.env, PROJECT)


@pytest.fixture(scope="module")
def remote_paths(api_server, token):
    session = requests.Session()
    session.headers["X-Auth-Token"] = token
    client = heatclient.Client("1", endpoint=api_server.url(PROJECT), token=token)
    return Requests(session, api_server.url(PROJECT)), Heatclient(client)


def _directory(tmp_path, name: str):
    files, environment = CASES[name]
    directory = tmp_path / name
    directory.mkdir()
    for file_name, text in files.items():
        (directory / file_name).write_text(text)
    if environment is not None:
        (directory / "env.yaml").write_text(json.dumps(environment))
    return directory


def request_body(directory) -> tuple[dict, str | None]:
    """Return the body heatclient's helpers build from a case's directory, and their error.

    Where they cannot (a file that is not there), the body holds what can be
    read, without the missing file: what a client that does not check sends.
    """
    try:
        return _heatclient_body(directory), None
    except heat_exc.CommandError as exc:
        env = directory / "env.yaml"
        return {"template": (directory / "main.yaml").read_text(), "files": {},
                "environment": json.loads(env.read_text()) if env.exists() else {}}, str(exc)


def _heatclient_body(directory) -> dict:
    files, template = template_utils.get_template_contents(str(directory / "main.yaml"))
    env = directory / "env.yaml"
    env_files, environment = template_utils.process_multiple_environments_and_files(
        [str(env)] if env.exists() else [])
    return {"template": template, "files": {**files, **env_files}, "environment": environment}


def _agree(answers: dict) -> None:
    shapes = {json.dumps(comparable(value), sort_keys=True) for value in answers.values()}
    assert len(shapes) == 1, json.dumps(answers, indent=1, default=str)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_composition_has_one_answer_on_every_path(service, remote_paths, api_server, token,
                                                  stackctl_home, tmp_path, name):
    directory = _directory(tmp_path, name)
    body, client_refusal = request_body(directory)
    local = Stackctl("stackctl", stackctl_home)
    url = Stackctl("stackctl --url", stackctl_home,
                   {"HEARTH_URL": api_server.url(PROJECT), "HEARTH_TOKEN": token})
    api_paths = (Embedded(service), *remote_paths)

    validated = {path.name: path.validate(body) for path in api_paths}
    if client_refusal:  # a file is missing: stackctl, as heatclient, refuses before sending
        for path in (local, url):
            for answer in (path.validate(directory), path.create(directory)):
                assert answer["error"].startswith(client_refusal), (client_refusal, answer)
        local = url = None
    validated.update({path.name: path.validate(directory) for path in (local, url) if path})
    _agree(validated)
    previewed = {path.name: path.preview(body) for path in api_paths}
    _agree(previewed)
    if "error" in validated["http"]:
        assert previewed["http"] == validated["http"]

    created = {path.name: path.create(body) for path in api_paths}
    created.update({path.name: path.create(directory) for path in (local, url) if path})
    _agree(created)
    if "error" in validated["http"]:
        assert created["http"] == validated["http"]
    EXPECTED.get(name, lambda *answers: None)(validated, previewed, created)


def _created_outputs(outputs: dict):
    def check(validated, previewed, created):
        assert created["http"]["status"] == "CREATE_COMPLETE", created["http"]
        assert comparable(created["http"])["outputs"] == outputs
    return check


def _refused(text: str):
    def check(validated, previewed, created):
        assert text in validated["http"].get("error", ""), validated["http"]
    return check


#: what the agreed answer is, where it is known (Heat's semantics)
EXPECTED = {
    "provider_by_file": _created_outputs({"quiet_said": "hello", "loud_shouted": "hey!",
                                          "member": "hey!"}),
    "provider_by_registry": _created_outputs({"shouted": "reg!", "said": "reg"}),
    "stack_with_outputs": _created_outputs({"all": {"said": "in", "shouted": "in!"},
                                            "said": "in", "member": "in!"}),
    "group_of_providers": _created_outputs({"first": "g1!", "all": ["g0", "g1"]}),
    "nested_bad_property": _refused("colour"),
    "depth_limit": _refused("Recursion depth exceeds"),
    # the function's own path, once (it read "resources.resources.n...")
    "nested_missing_file": _refused('resources.n.properties.template: get_file: No content '
                                    'found in the "files" section for get_file path: '
                                    'file:///nowhere/missing.yaml'),
}
