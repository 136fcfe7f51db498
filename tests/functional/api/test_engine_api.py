"""EngineService's API-facing calls through the real hearth-api: validate, versions,
types, services, export, abandon, mark-unhealthy, hidden parameters, tenancy."""

from __future__ import annotations

import pytest
import requests

from tests.functional.api.conftest import _start, _stop, wait_status

SECRET_TEMPLATE = """heat_template_version: 2021-04-16
parameters:
  secret:
    type: string
    hidden: true
  shown:
    type: string
    default: visible
resources:
  n:
    type: OS::Heat::None
"""


def _session(token: str) -> requests.Session:
    session = requests.Session()
    session.headers["X-Auth-Token"] = token
    return session


def _create(session: requests.Session, base: str, name: str, template: str = SECRET_TEMPLATE,
            **fields) -> str:
    response = session.post(f"{base}/stacks", json={"stack_name": name, "template": template,
                                                    **fields})
    assert response.status_code == 201, response.text
    location = response.headers["Location"]
    stack = wait_status(lambda: session.get(location).json()["stack"])
    assert stack["stack_status"] == "CREATE_COMPLETE", stack
    return location


@pytest.fixture(scope="module")
def client(api_server, tokens):
    """(session of project A, its base URL)."""
    return _session(tokens["a"]), api_server.url("proj-a")


@pytest.fixture(scope="module")
def secret_stack(client):
    session, base = client
    return _create(session, base, "secretive",
                   parameters={"secret": "s3cr3t"},
                   environment={"parameter_defaults": {"secret": "default-s3cr3t"}})


def _error(response: requests.Response, status: int) -> str:
    assert response.status_code == status, response.text
    return response.json()["error"]["message"]


def test_validate_answers_heats_object(client):
    session, base = client
    body = session.post(f"{base}/validate", json={"template": SECRET_TEMPLATE}).json()
    assert body["Parameters"]["secret"]["NoEcho"] == "true"
    assert body["Parameters"]["shown"]["Default"] == "visible"
    assert "Environment" in body


def test_validate_checks_types_and_properties_against_the_plugins(client):
    session, base = client
    unknown = session.post(f"{base}/validate", json={"template": {
        "heat_template_version": "2021-04-16", "resources": {"x": {"type": "OS::No::Such"}}}})
    assert "The Resource Type (OS::No::Such) could not be found." in _error(unknown, 400)
    out_of_range = session.post(f"{base}/validate", json={"template": {
        "heat_template_version": "2021-04-16", "resources": {"r": {
            "type": "OS::Heat::RandomString", "properties": {"length": 2000}}}}})
    assert _error(out_of_range, 400) == (
        "Property error: resources.r.properties.length: 2000 is out of range "
        "(min: 1, max: 512)")


def test_validate_reads_the_environment_registry(client):
    session, base = client
    response = session.post(f"{base}/validate", json={
        "template": {"heat_template_version": "2021-04-16",
                     "resources": {"x": {"type": "My::Alias"}}},
        "environment": {"resource_registry": {"My::Alias": "OS::Heat::None"}}})
    assert response.status_code == 200, response.text


def test_template_versions_and_functions(client):
    session, base = client
    versions = session.get(f"{base}/template_versions").json()["template_versions"]
    wallaby = next(v for v in versions if v["version"] == "heat_template_version.2021-04-16")
    assert wallaby == {"version": "heat_template_version.2021-04-16", "type": "hot",
                       "aliases": ["heat_template_version.wallaby"]}
    functions = session.get(
        f"{base}/template_versions/heat_template_version.2021-04-16/functions").json()
    names = [f["functions"] for f in functions["template_functions"]]
    assert "get_param" in names and "equals" not in names
    with_conditions = session.get(
        f"{base}/template_versions/heat_template_version.2021-04-16/functions",
        params={"with_condition_func": "true"}).json()["template_functions"]
    assert "equals" in [f["functions"] for f in with_conditions]
    missing = session.get(f"{base}/template_versions/heat_template_version.1999-01-01/functions")
    assert _error(missing, 404) == (
        "Template with version heat_template_version.1999-01-01 not found")


def test_resource_types_list_filters_and_schema(client):
    session, base = client
    listed = session.get(f"{base}/resource_types", params={"name": "OS::Heat::N"}).json()
    assert listed == {"resource_types": ["OS::Heat::None"]}
    described = session.get(f"{base}/resource_types", params={
        "name": "OS::Heat::None", "with_description": "true"}).json()["resource_types"]
    assert described[0]["resource_type"] == "OS::Heat::None" and described[0]["description"]
    assert session.get(f"{base}/resource_types", params={"version": "1999.1"}).json() == {
        "resource_types": []}
    bad = session.get(f"{base}/resource_types", params={"name": "(("})
    assert _error(bad, 400).startswith("Invalid resource type name filter '((': ")
    schema = session.get(f"{base}/resource_types/OS::Heat::RandomString").json()
    assert schema["resource_type"] == "OS::Heat::RandomString"
    assert "length" in schema["properties"] and "value" in schema["attributes"]
    unknown = session.get(f"{base}/resource_types/OS::No::Such")
    assert _error(unknown, 404).startswith("The Resource Type (OS::No::Such) could not be found.")


def test_resource_type_templates(client):
    session, base = client
    cfn = session.get(f"{base}/resource_types/OS::Heat::Value/template").json()
    assert cfn["HeatTemplateFormatVersion"] == "2012-12-12"
    hot = session.get(f"{base}/resource_types/OS::Heat::Value/template",
                      params={"template_type": "hot"}).json()
    assert hot["resources"]["Value"]["type"] == "OS::Heat::Value"


def test_services_list_this_engine_up(client):
    session, base = client
    services = session.get(f"{base}/services").json()["services"]
    assert [s["status"] for s in services] == ["up"]
    assert services[0]["binary"] and services[0]["engine_id"] == services[0]["id"]


def test_hidden_parameters_never_leave_the_engine(client, secret_stack):
    session, _ = client
    shown = session.get(secret_stack).json()["stack"]["parameters"]
    assert shown["secret"] == "******" and shown["shown"] == "visible"
    environment = session.get(f"{secret_stack}/environment").json()
    assert environment["parameters"]["secret"] == "******"
    assert environment["parameter_defaults"]["secret"] == "******"
    exported = session.get(f"{secret_stack}/export").json()
    assert exported["environment"]["parameters"]["secret"] == "******"
    assert "s3cr3t" not in str(exported)


CFN_SECRET = """
AWSTemplateFormatVersion: 2010-09-09
Parameters:
  Password: {Type: String, NoEcho: 'true'}
  Token: {Type: String, NoEcho: 'TRUE'}
Resources:
  n: {Type: 'OS::Heat::None'}
"""
HOT_TRUTHY = """
heat_template_version: 2021-04-16
parameters:
  secret: {type: string, hidden: 'false'}
resources:
  n: {type: OS::Heat::None}
"""


@pytest.mark.parametrize(("template", "parameters"), [
    (CFN_SECRET, {"Password": "cfn-s3cr3t", "Token": "cfn-t0ken"}),
    (HOT_TRUTHY, {"secret": "truthy-s3cr3t"})], ids=["cfn-noecho", "hot-truthy-hidden"])
def test_a_parameter_hidden_as_the_template_reads_it_is_masked_everywhere(
        client, template, parameters):
    # one reading of "hidden" (the version's parameter reader): the stack's
    # environment and export read the raw map's "hidden: true" only, so a CFN
    # NoEcho value or a truthy "hidden" one left the engine there
    session, base = client
    location = _create(session, base, f"masked-{len(parameters)}", template=template,
                       parameters=parameters)
    shown = session.get(location).json()["stack"]["parameters"]
    environment = session.get(f"{location}/environment").json()
    exported = session.get(f"{location}/export").json()
    for name in parameters:
        assert shown[name] == environment["parameters"][name] == "******"
        assert exported["environment"]["parameters"][name] == "******"
    assert not any(value in str([environment, exported]) for value in parameters.values())


def test_export_returns_heats_abandon_data(client, secret_stack):
    session, _ = client
    data = session.get(f"{secret_stack}/export").json()
    assert (data["name"], data["action"], data["status"]) == ("secretive", "CREATE",
                                                              "COMPLETE")
    assert data["id"] == secret_stack.rsplit("/", 1)[1]
    assert data["project_id"] == "proj-a"
    assert data["template"]["resources"] == {"n": {"type": "OS::Heat::None"}}
    assert set(data["resources"]["n"]) == {"name", "type", "action", "status", "resource_id",
                                           "metadata", "resource_data"}
    assert session.get(secret_stack).json()["stack"]["stack_status"] == "CREATE_COMPLETE"


def test_abandon_is_refused_unless_enabled(client, secret_stack):
    session, _ = client
    response = session.delete(f"{secret_stack}/abandon")
    assert _error(response, 400) == "Stack Abandon is not supported."


def test_another_project_cannot_reach_the_stack(api_server, tokens, secret_stack):
    other = _session(tokens["b"])
    path = secret_stack.split("/stacks/", 1)[1]
    base_b = api_server.url("proj-b")
    for suffix in ("/export", "/environment", "/resources/n"):
        assert other.get(f"{base_b}/stacks/{path}{suffix}").status_code == 404
    patch = other.patch(f"{base_b}/stacks/{path}/resources/n", json={"mark_unhealthy": True})
    assert patch.status_code == 404


def test_mark_unhealthy_and_back(client):
    session, base = client
    location = _create(session, base, "patient",
                       template="heat_template_version: 2021-04-16\n"
                                "resources:\n  n:\n    type: OS::Heat::None\n")
    resource = f"{location}/resources/n"
    response = session.patch(resource, json={"mark_unhealthy": True,
                                             "resource_status_reason": "broken disk"})
    assert response.status_code == 200 and response.json() is None
    shown = session.get(resource).json()["resource"]
    assert (shown["resource_status"], shown["resource_status_reason"]) == (
        "CHECK_FAILED", "broken disk")
    physical = shown["physical_resource_id"]
    session.patch(f"{location}/resources/{physical}", json={"mark_unhealthy": False})
    shown = session.get(resource).json()["resource"]
    assert (shown["resource_status"], shown["resource_status_reason"]) == (
        "CHECK_COMPLETE", "state changed by resource_mark_unhealthy api")
    missing = session.patch(f"{location}/resources/nope", json={"mark_unhealthy": True})
    assert _error(missing, 404) == "The Resource (nope) could not be found in Stack patient."
    events = session.get(f"{location}/events", params={"resource_name": "n"}).json()["events"]
    # newest first, as Heat's events without sort keys
    assert [e["resource_status"] for e in events][:2] == ["CHECK_COMPLETE", "CHECK_FAILED"]


@pytest.fixture(scope="module")
def abandon_server(tmp_path_factory):
    home = tmp_path_factory.mktemp("hearth-api-abandon")
    config = home / "hearth.conf"
    config.write_text("[DEFAULT]\nenable_stack_abandon = true\n")
    server = _start(str(home), "--noauth", "--config-file", str(config))
    yield server
    _stop(server)


def test_abandon_forgets_the_stack_and_returns_its_data(abandon_server):
    session, base = requests.Session(), abandon_server.url("proj-x")
    session.headers["X-Auth-Token"] = "any"
    location = _create(session, base, "leaving", parameters={"secret": "x"})
    response = session.delete(f"{location}/abandon")
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["name"] == "leaving" and list(data["resources"]) == ["n"]
    assert session.get(f"{base}/stacks").json()["stacks"] == []
