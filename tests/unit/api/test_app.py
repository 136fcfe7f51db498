"""The application over a fake engine: routing, envelopes, errors, auth, limits."""

import json

from hearth.api.auth import REQUEST_ID_HEADER
from hearth.common import config

TEMPLATE = {"heat_template_version": "2021-04-16", "resources": {}}
BASE = "http://falconframework.org/v1/proj-a"


def create(client, name="s1", **extra):
    return client.simulate_post("/v1/proj-a/stacks",
                                json={"stack_name": name, "template": TEMPLATE, **extra})


def test_versions_document_is_300_without_auth(service):
    import falcon.testing

    from hearth.api.app import build_app
    from tests.unit.api.conftest import fake_verify
    client = falcon.testing.TestClient(build_app(service, verify=fake_verify))
    result = client.simulate_get("/")
    assert result.status_code == 300
    assert result.json["versions"][0]["id"] == "v1.0"
    assert result.headers[REQUEST_ID_HEADER].startswith("req-")


def test_create_answers_201_with_location_and_links(client, service):
    result = create(client, parameters={"p": "v"}, tags="a,b", timeout_mins="5")
    assert result.status_code == 201
    href = f"{BASE}/stacks/s1/id-1"
    assert result.headers["location"] == href
    assert result.json == {"stack": {"id": "id-1", "links": [{"href": href, "rel": "self"}]}}
    name, args, kwargs = service.calls[0]
    assert kwargs["params"] == {"p": "v"}
    assert kwargs["tags"] == ["a", "b"]
    assert kwargs["timeout_mins"] == 5
    assert "disable_rollback" not in kwargs  # the service's default: True, as Heat


def test_existing_stack_is_409_with_heat_error_body(client):
    create(client)
    result = create(client)
    assert result.status_code == 409
    assert result.json == {"code": 409, "title": "Conflict",
                           "explanation": "There was a conflict when trying to complete "
                                          "your request.",
                           "error": {"type": "StackExists",
                                     "message": "The Stack (s1) already exists.",
                                     "traceback": None}}


def test_lookup_by_name_redirects_with_subpath_and_query(client):
    create(client)
    result = client.simulate_get("/v1/proj-a/stacks/s1/resources",
                                 query_string="nested_depth=2")
    assert result.status_code == 302
    assert result.headers["location"] == f"{BASE}/stacks/s1/id-1/resources?nested_depth=2"
    result = client.simulate_delete("/v1/proj-a/stacks/id-1")
    assert result.status_code == 302
    assert result.headers["location"] == f"{BASE}/stacks/s1/id-1"
    deep = client.simulate_get("/v1/proj-a/stacks/s1/resources/r/events/e1")
    assert deep.headers["location"] == f"{BASE}/stacks/s1/id-1/resources/r/events/e1"


def test_show_adds_links_and_passes_resolve_outputs(client, service):
    create(client)
    result = client.simulate_get("/v1/proj-a/stacks/s1/id-1",
                                 query_string="resolve_outputs=False")
    assert result.status_code == 200
    assert result.json["stack"]["links"] == [{"href": f"{BASE}/stacks/s1/id-1", "rel": "self"}]
    assert service.calls[-1] == ("show_stack", ("s1/id-1",), {"resolve_outputs": False})


def test_list_has_next_link_when_page_is_full_and_count(client):
    for name in ("a", "b", "c"):
        create(client, name)
    result = client.simulate_get("/v1/proj-a/stacks", query_string="limit=2&with_count=true")
    assert [s["stack_name"] for s in result.json["stacks"]] == ["a", "b"]
    assert result.json["links"] == [
        {"rel": "next", "href": f"{BASE}/stacks?limit=2&with_count=true&marker=id-2"}]
    assert result.json["count"] == 3


def test_unknown_query_key_is_ignored_as_heat_but_on_the_resource_list(client):
    assert client.simulate_get("/v1/proj-a/stacks", query_string="colour=red").status_code \
        == 200
    create(client)
    result = client.simulate_get("/v1/proj-a/stacks/s1/id-1/resources",
                                 query_string="colour=red")
    assert result.status_code == 400
    assert result.json["error"]["type"] == "BadRequest"
    assert result.json["error"]["message"].startswith("Invalid query parameter(s): colour.")


def test_malformed_json_is_400_with_reason(client):
    result = client.simulate_post("/v1/proj-a/stacks", body=b'{"stack_name": ',
                                  headers={"Content-Type": "application/json"})
    assert result.status_code == 400
    assert result.json["error"]["message"] == (
        "The request body is not valid JSON: Expecting value (line 1, column 16)")


def test_wrong_body_type_is_400_naming_the_field(client):
    result = create(client, parameters=[1])
    assert result.status_code == 400
    assert result.json["error"]["message"] == (
        "Invalid request body at 'parameters': [1] is not of type 'object'")
    result = client.simulate_post("/v1/proj-a/stacks", json={"template": TEMPLATE})
    assert result.json["error"]["message"] == (
        "Invalid request body: 'stack_name' is a required property")


def test_missing_template_and_file_url_refused(client):
    result = client.simulate_post("/v1/proj-a/stacks", json={"stack_name": "x"})
    assert (result.status_code, result.json["error"]["message"]) == (400, "No template specified")
    result = create(client, template=None, template_url="file:///etc/passwd")
    assert result.status_code == 400
    assert result.json["error"]["message"] == (
        "Could not retrieve template: the URL scheme 'file' is not allowed "
        "(allowed: http, https).")


def test_body_and_template_limits(client):
    config.CONF.set_override("max_json_body_size", 100)
    result = create(client, parameters={"p": "x" * 200})
    assert result.status_code == 400
    assert result.json["error"]["type"] == "RequestLimitExceeded"
    assert "exceeds maximum allowed size (100 bytes)" in result.json["error"]["message"]
    config.CONF.clear_override("max_json_body_size")
    config.CONF.set_override("max_template_size", 10)
    result = create(client)
    assert result.status_code == 400
    assert result.json["error"] == {
        "type": "RequestLimitExceeded", "traceback": None,
        "message": "Request limit exceeded: Template size (53 bytes) exceeds maximum allowed "
                   "size (10 bytes)."}


def test_stack_quota(client):
    config.CONF.set_override("max_stacks_per_tenant", 1)
    create(client, "one")
    result = create(client, "two")
    assert result.status_code == 400
    assert result.json["error"]["message"] == (
        "Request limit exceeded: You have reached the maximum stacks per tenant, 1. "
        "Please delete some stacks.")


def test_actions_need_exactly_one_known_key(client, service):
    create(client)
    url = "/v1/proj-a/stacks/s1/id-1/actions"
    assert client.simulate_post(url, json={"suspend": None}).text == "null"
    assert service.calls[-1] == ("stack_action", ("s1/id-1", "suspend"), {})
    cases = [({}, "No action specified"),
             ({"suspend": None, "resume": None}, "Multiple actions specified"),
             ({"explode": None}, "Invalid action explode specified; valid actions: suspend, "
                                 "resume, check, cancel_update, cancel_without_rollback.")]
    for body, message in cases:
        result = client.simulate_post(url, json=body)
        assert (result.status_code, result.json["error"]["message"]) == (400, message)


def test_update_put_and_patch_are_202(client, service):
    create(client)
    url = "/v1/proj-a/stacks/s1/id-1"
    assert client.simulate_put(url, json={"template": TEMPLATE}).status_code == 202
    assert service.calls[-1][2]["existing"] is False
    assert client.simulate_patch(url, json={"parameters": {"p": 1}}).status_code == 202
    assert service.calls[-1][2]["existing"] is True
    result = client.simulate_put(url, json={})
    assert (result.status_code, result.json["error"]["message"]) == (400, "No template specified")


def test_delete_is_204_and_unknown_stack_404(client):
    create(client)
    assert client.simulate_delete("/v1/proj-a/stacks/s1/id-1").status_code == 204
    result = client.simulate_get("/v1/proj-a/stacks/s1/id-1")
    assert result.status_code == 404
    assert result.json["error"] == {"type": "EntityNotFound", "traceback": None,
                                    "message": "The Stack (s1/id-1) could not be found."}


def test_resources_and_events_carry_links(client):
    create(client)
    stack = f"{BASE}/stacks/s1/id-1"
    resources = client.simulate_get("/v1/proj-a/stacks/s1/id-1/resources").json["resources"]
    assert resources[0]["links"] == [{"href": f"{stack}/resources/r", "rel": "self"},
                                     {"href": stack, "rel": "stack"}]
    events = client.simulate_get("/v1/proj-a/stacks/s1/id-1/events").json["events"]
    assert events[0]["links"] == [{"href": f"{stack}/resources/r/events/e1", "rel": "self"},
                                  {"href": f"{stack}/resources/r", "rel": "resource"},
                                  {"href": stack, "rel": "stack"}]


def test_mark_unhealthy_body_is_checked(client, service):
    create(client)
    url = "/v1/proj-a/stacks/s1/id-1/resources/r"
    result = client.simulate_patch(url, json={"mark_unhealthy": True,
                                              "resource_status_reason": "dead"})
    assert (result.status_code, result.text) == (200, "null")
    assert service.calls[-1] == ("resource_mark_unhealthy", ("s1/id-1", "r", True, "dead"), {})
    assert client.simulate_patch(url, json={"mark_unhealthy": "False"}).status_code == 200
    assert service.calls[-1] == ("resource_mark_unhealthy", ("s1/id-1", "r", False, None), {})
    result = client.simulate_patch(url, json={"mark_unhealthy": "yes"})
    assert result.json["error"]["message"] == (
        'Unrecognized value "yes" for "mark_unhealthy", acceptable values are: true, false.')
    result = client.simulate_patch(url, json={"mark_unhealthy": True, "colour": 1})
    assert result.json["error"]["message"] == (
        "Invalid keys in resource mark unhealthy: colour")


def test_resource_type_name_with_colons(client):
    result = client.simulate_get("/v1/proj-a/resource_types/OS%3A%3AHeat%3A%3ANone")
    assert result.json["resource_type"] == "OS::Heat::None"
    result = client.simulate_get("/v1/proj-a/resource_types/OS::Nope")
    assert result.status_code == 404
    assert result.json["error"]["message"] == "The Resource Type (OS::Nope) could not be found."


def test_options_and_method_not_allowed(client):
    result = client.simulate_options("/v1/proj-a/stacks")
    assert result.status_code == 204
    assert result.headers["allow"] == "GET, OPTIONS, POST"
    result = client.simulate_delete("/v1/proj-a/stacks")
    assert result.status_code == 405
    assert result.json["error"] == {"type": "MethodNotAllowed", "traceback": None,
                                    "message": "The method DELETE is not allowed for this "
                                               "resource."}


def test_unknown_url_is_404_in_heat_format(client):
    result = client.simulate_get("/v1/proj-a/nothing")
    assert result.status_code == 404
    assert result.json["error"]["message"] == "The resource could not be found: /v1/proj-a/nothing"


def test_auth_missing_unknown_and_wrong_tenant(client):
    result = client.simulate_get("/v1/proj-a/stacks", headers={"X-Auth-Token": ""})
    assert result.status_code == 401
    assert result.json["error"]["message"] == "Authentication required: send X-Auth-Token."
    result = client.simulate_get("/v1/proj-a/stacks", headers={"X-Auth-Token": "nope"})
    assert (result.status_code, result.json["error"]["type"]) == (401, "Unauthorized")
    result = client.simulate_get("/v1/proj-b/stacks")
    assert result.status_code == 403
    assert result.json["error"] == {"type": "InvalidTenant", "traceback": None,
                                    "message": "Searching Tenant proj-b from Tenant proj-a "
                                               "forbidden."}


def test_projects_do_not_see_each_other(client):
    create(client)
    other = client.simulate_get("/v1/proj-b/stacks/s1", headers={"X-Auth-Token": "tok-b"})
    assert other.status_code == 404
    listed = client.simulate_get("/v1/proj-b/stacks", headers={"X-Auth-Token": "tok-b"})
    assert listed.json["stacks"] == []


def test_global_tenant_is_admin_only(client):
    result = client.simulate_get("/v1/proj-a/stacks", query_string="global_tenant=true")
    assert result.status_code == 403
    assert result.json["error"]["message"] == (
        "Only the admin role may list the stacks of every project (global_tenant).")
    result = client.simulate_get("/v1/proj-a/stacks", query_string="global_tenant=true",
                                 headers={"X-Auth-Token": "tok-admin"})
    assert result.status_code == 200


def test_noauth_takes_tenant_from_url(noauth_client, service):
    result = noauth_client.simulate_post("/v1/anyone/stacks",
                                         json={"stack_name": "n", "template": TEMPLATE})
    assert result.status_code == 201
    assert service.stacks["id-1"]["project"] == "anyone"


def test_unexpected_error_is_500_without_internals(client, service):
    service.list_stacks = service.explode
    result = client.simulate_get("/v1/proj-a/stacks")
    assert result.status_code == 500
    assert "secret" not in result.text
    assert json.loads(result.text)["error"]["type"] == "RuntimeError"
