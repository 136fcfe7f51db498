"""Secrets of composed stacks never leave hearth-api: nested stacks, export, abandon.

One hearth-api (abandon enabled) and one stack: a hidden parameter handed
to a provider template's parameter that the provider template does not
declare hidden (the parent's secret stays hidden all the same), a RandomString inside the nested
stack and a wait condition handle whose token signals it.  Over real HTTP
the secrets must not appear in the nested stack's events, its parameters in
stack-show, the environment, export or abandon output; a masked value given
back to adopt is not taken for the secret.
"""

from __future__ import annotations

import json

import pytest
import requests

from tests.functional.api.conftest import _start, _stop, create_token, wait_status

PROJECT = "proj-secrets"
SECRET = "s3cret-Pa55"
CHILD = """
heat_template_version: 2018-08-31
parameters:
  password: {type: string}
resources:
  salt:
    type: OS::Heat::RandomString
    properties: {length: 24, salt: {get_param: password}}
outputs:
  salted: {value: {get_attr: [salt, value]}}
"""
PARENT = {
    "heat_template_version": "2018-08-31",
    "parameters": {"password": {"type": "string", "hidden": True}},
    "resources": {
        "inner": {"type": "file:///t/child.yaml",
                  "properties": {"password": {"get_param": "password"}}},
        "handle": {"type": "OS::Heat::WaitConditionHandle"},
    },
    "outputs": {"token": {"value": {"get_attr": ["handle", "token"]}},
                "salted": {"value": {"get_attr": ["inner", "salted"]}}},
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """A server of its own, the stack created and its secrets read from its outputs."""
    home = tmp_path_factory.mktemp("hearth-secrets")
    config = home / "hearth.conf"
    config.write_text("[DEFAULT]\nenable_stack_abandon = true\nenable_stack_adopt = true\n")
    server = _start(str(home), "--config-file", str(config))
    session = requests.Session()
    session.headers["X-Auth-Token"] = create_token(server.env, PROJECT)
    base = server.url(PROJECT)
    created = session.post(f"{base}/stacks", json={
        "stack_name": "keeper", "template": PARENT, "parameters": {"password": SECRET},
        "files": {"file:///t/child.yaml": CHILD}})
    assert created.status_code == 201, created.text
    location = created.headers["Location"]
    shown = wait_status(lambda: session.get(location).json()["stack"])
    assert shown["stack_status"] == "CREATE_COMPLETE", shown["stack_status_reason"]
    outputs = {item["output_key"]: item["output_value"] for item in shown["outputs"]}
    secrets = {"password": SECRET, "token": outputs["token"], "random": outputs["salted"]}
    assert all(len(value) > 8 for value in secrets.values()), secrets
    yield session, base, location, secrets
    _stop(server)


def _nested_location(session, base, location):
    resource = session.get(f"{location}/resources/inner").json()["resource"]
    return f"{base}/stacks/{resource['physical_resource_id']}"


def _leaks(text: str, secrets: dict, allowed: tuple[str, ...] = ()) -> list[str]:
    return [name for name, value in secrets.items() if name not in allowed and value in text]


def test_the_nested_stack_shows_no_secret(stack):
    session, base, location, secrets = stack
    nested = session.get(_nested_location(session, base, location), allow_redirects=True)
    assert nested.status_code == 200, nested.text
    assert nested.json()["stack"]["parameters"]["password"] == "******"
    # its outputs are the template's own choice (as Heat): only the password must not show
    assert _leaks(nested.text, secrets, allowed=("random",)) == []
    # (with_detail shows attributes, the handle's token among them, as Heat's resource-show)
    for url in (f"{location}/events?nested_depth=3", f"{location}/resources?nested_depth=3",
                f"{location}/environment"):
        response = session.get(url)
        assert response.status_code == 200, (url, response.text)
        assert _leaks(response.text, secrets) == [], url


def test_export_masks_redacted_data_down_the_tree(stack):
    session, base, location, secrets = stack
    exported = session.get(f"{location}/export")
    assert exported.status_code == 200, exported.text
    assert _leaks(exported.text, secrets) == []  # the handle's token leaked here in plain text
    data = exported.json()
    assert data["resources"]["handle"]["resource_data"]["token"] == "******"
    inner = data["resources"]["inner"]
    assert inner["resources"]["salt"]["resource_data"]["value"] == "******"
    assert inner["environment"]["parameters"]["password"] == "******"


def test_snapshot_show_masks_redacted_data(stack):
    session, base, location, secrets = stack
    taken = session.post(f"{location}/snapshots", json={"name": "snap"})
    assert taken.status_code == 200, taken.text
    snapshot_id = taken.json()["id"]
    shown = wait_status(lambda: {"stack_status": session.get(
        f"{location}/snapshots/{snapshot_id}").json()["snapshot"]["status"]},
        suffixes=("COMPLETE", "FAILED"))  # a snapshot's status is a bare word
    assert shown["stack_status"] == "COMPLETE", shown
    response = session.get(f"{location}/snapshots/{snapshot_id}")
    assert _leaks(response.text, secrets) == [], response.text


def test_abandon_masks_secrets_and_adopt_does_not_take_the_mask(stack):
    session, base, location, secrets = stack
    abandoned = session.delete(f"{location}/abandon")
    assert abandoned.status_code == 200, abandoned.text
    assert _leaks(abandoned.text, secrets) == []
    data = abandoned.json()
    assert data["resources"]["handle"]["resource_data"]["token"] == "******"
    adopted = session.post(f"{base}/stacks", json={
        "stack_name": "adopted", "template": PARENT, "parameters": {"password": SECRET},
        "files": {"file:///t/child.yaml": CHILD}, "adopt_stack_data": json.dumps(data)})
    assert adopted.status_code == 201, adopted.text
    shown = wait_status(lambda: session.get(adopted.headers["Location"]).json()["stack"])
    assert shown["stack_status"] == "ADOPT_COMPLETE", shown["stack_status_reason"]
    outputs = {item["output_key"]: item.get("output_value") for item in shown["outputs"]}
    assert "******" not in json.dumps(outputs), outputs
