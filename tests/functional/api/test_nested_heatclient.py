"""Nested stacks over real HTTP with python-heatclient, files gathered as heatclient does.

``heatclient.common.template_utils`` reads the template, its provider
templates and ``get_file`` targets and the environment's registry entries
into the ``files`` map; hearth-api gets nothing else.
"""

from __future__ import annotations

import pytest

from tests.functional.api.conftest import create_token, wait_status

heatclient = pytest.importorskip("heatclient.client")
template_utils = pytest.importorskip("heatclient.common.template_utils")
exc = pytest.importorskip("heatclient.exc")

SERVER = """
heat_template_version: 2018-08-31
parameters:
  flavor: {type: string}
resources:
  disk:
    type: OS::Heat::Value
    properties: {value: {get_param: flavor}}
outputs:
  disk: {value: {get_attr: [disk, value]}}
  OS::stack_id: {value: {get_param: OS::stack_id}}
"""

MAIN = """
heat_template_version: 2018-08-31
resources:
  web:
    type: server.yaml
    properties: {flavor: small}
  db:
    type: My::Server
    properties: {flavor: large}
  inline:
    type: OS::Heat::Stack
    properties:
      template: {get_file: server.yaml}
      parameters: {flavor: tiny}
outputs:
  web_disk: {value: {get_attr: [web, disk]}}
  db_disk: {value: {get_attr: [db, resource.disk, value]}}
  inline_disk: {value: {get_attr: [inline, outputs, disk]}}
  web_ref: {value: {get_resource: web}}
"""

FAILING = """
heat_template_version: 2018-08-31
resources:
  broken:
    type: OS::Heat::TestResource
    properties: {fail: true}
"""


@pytest.fixture(scope="module")
def heat(api_server):
    """A heatclient of a project of its own."""
    token = create_token(api_server.env, "proj-nested")
    return heatclient.Client("1", endpoint=api_server.url("proj-nested"), token=token)


@pytest.fixture
def request_args(tmp_path):
    """The create arguments heatclient's own helpers build from a directory of templates."""
    (tmp_path / "server.yaml").write_text(SERVER)
    (tmp_path / "failing.yaml").write_text(FAILING)
    (tmp_path / "main.yaml").write_text(MAIN)
    (tmp_path / "env.yaml").write_text("resource_registry:\n  My::Server: server.yaml\n")
    files, template = template_utils.get_template_contents(str(tmp_path / "main.yaml"))
    env_files, env = template_utils.process_multiple_environments_and_files(
        [str(tmp_path / "env.yaml")])
    return {"template": template, "files": {**files, **env_files}, "environment": env}


def _wait(heat, identity):
    return wait_status(lambda: heat.stacks.get(identity, resolve_outputs=False).to_dict())


def test_preview_lists_each_nested_stack_as_its_resources(heat, request_args):
    preview = heat.stacks.preview(stack_name="pv", **request_args).to_dict()
    shapes = [[(r["resource_name"], r["resource_type"]) for r in nested]
              for nested in preview["resources"]]
    assert shapes == [[("disk", "OS::Heat::Value")]] * 3


def test_nested_stacks_created_read_and_deleted_over_http(heat, request_args):
    stack_id = heat.stacks.create(stack_name="nest", **request_args)["stack"]["id"]
    assert _wait(heat, stack_id)["stack_status"] == "CREATE_COMPLETE"
    outputs = {o["output_key"]: o["output_value"]
               for o in heat.stacks.get(stack_id).to_dict()["outputs"]}
    web = heat.resources.get(stack_id, "web").to_dict()
    nested = heat.stacks.get(web["physical_resource_id"]).to_dict()
    assert outputs["web_disk"] == "small" and outputs["db_disk"] == "large"
    assert outputs["inline_disk"] == "tiny"
    # the provider template's OS::stack_id output is its reference
    assert outputs["web_ref"] == nested["id"]
    assert nested["stack_name"].startswith("nest-web-")
    assert nested["stack_status"] == "CREATE_COMPLETE"
    assert [r.resource_name for r in heat.resources.list(nested["id"])] == ["disk"]

    heat.stacks.delete(stack_id)
    final = wait_status(lambda: _status_or_deleted(heat, stack_id))
    assert final["stack_status"] == "DELETE_COMPLETE"
    # as Heat: a deleted stack is still shown by its id
    assert _status_or_deleted(heat, nested["id"])["stack_status"] == "DELETE_COMPLETE"


def test_a_failing_nested_member_fails_the_parent_with_heats_reason(heat, request_args):
    request_args["template"] = {"heat_template_version": "2018-08-31", "resources": {
        "group": {"type": request_args["template"]["resources"]["web"]["type"].replace(
            "server.yaml", "failing.yaml")}}}
    folder = request_args["template"]["resources"]["group"]["type"]
    request_args["files"][folder] = FAILING
    stack_id = heat.stacks.create(stack_name="nestfail", disable_rollback=True,
                                  **request_args)["stack"]["id"]
    stack = _wait(heat, stack_id)
    assert (stack["stack_status"], stack["stack_status_reason"]) == (
        "CREATE_FAILED", "Resource CREATE failed: ValueError: resources.group.resources."
                         "broken: Test Resource failed broken")
    heat.stacks.delete(stack_id)
    assert wait_status(lambda: _status_or_deleted(heat, stack_id))["stack_status"] == \
        "DELETE_COMPLETE"


def test_a_provider_template_missing_from_files_is_a_clear_400(heat):
    template = {"heat_template_version": "2018-08-31",
                "resources": {"web": {"type": "server.yaml"}}}
    for call in (lambda: heat.stacks.validate(template=template),
                 lambda: heat.stacks.create(stack_name="nofile", template=template)):
        with pytest.raises(exc.HTTPBadRequest) as raised:
            call()
        assert 'resources.web.type: Could not fetch remote template "server.yaml"' in str(
            raised.value)
    with pytest.raises(exc.HTTPNotFound):
        heat.stacks.get("nofile")


def test_only_yaml_and_template_names_are_templates_even_in_the_files_map(heat):
    # Heat's rule (the client's and the engine's): "server.yml" or a URL without
    # one of the suffixes is a type name, unknown here, though the file was sent
    template = {"heat_template_version": "2018-08-31",
                "resources": {"web": {"type": "server.yml"}}}
    files = {"server.yml": SERVER}
    for name in ("server.yml", "http://example.com/server"):
        template["resources"]["web"]["type"] = name
        with pytest.raises(exc.HTTPBadRequest) as raised:
            heat.stacks.validate(template=template, files=files)
        assert f"resources.web.type: The Resource Type ({name}) could not be found." in str(
            raised.value)
    with pytest.raises(exc.HTTPBadRequest):
        heat.stacks.create(stack_name="yml", template=template, files=files)


def _status_or_deleted(heat, identity):
    try:
        return heat.stacks.get(identity, resolve_outputs=False).to_dict()
    except exc.HTTPNotFound:
        return {"stack_status": "DELETE_COMPLETE"}


def test_a_provider_property_fed_by_an_attribute_validates_and_creates(heat, request_args):
    # the value exists only once "group" is created: validation takes it as
    # unknown (it said "The Parameter (flavor) was not provided"), as Heat does
    web_type = request_args["template"]["resources"]["web"]["type"]
    request_args["template"] = {"heat_template_version": "2018-08-31", "resources": {
        "group": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": 2, "resource_def": {"type": "OS::Heat::RandomString"}}},
        "web": {"type": web_type,
                "properties": {"flavor": {"get_attr": ["group", "resource.1.value"]}}},
        "db": {"type": "My::Server",
               "properties": {"flavor": {"get_attr": ["group", "resource.0.value"]}}}},
        "outputs": {"web": {"value": {"get_attr": ["web", "disk"]}},
                    "db": {"value": {"get_attr": ["db", "disk"]}},
                    "names": {"value": {"get_attr": ["group", "value"]}}}}
    heat.stacks.validate(**request_args)
    stack_id = heat.stacks.create(stack_name="fed", **request_args)["stack"]["id"]
    assert _wait(heat, stack_id)["stack_status"] == "CREATE_COMPLETE"
    outputs = {o["output_key"]: o["output_value"]
               for o in heat.stacks.get(stack_id).to_dict()["outputs"]}
    assert [outputs["db"], outputs["web"]] == outputs["names"]
    heat.stacks.delete(stack_id)
    assert wait_status(lambda: _status_or_deleted(heat, stack_id))["stack_status"] == \
        "DELETE_COMPLETE"
