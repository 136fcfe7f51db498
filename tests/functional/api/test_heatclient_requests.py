"""Unmodified python-heatclient, called as Heat's own functional tests call it.

heatclient sends every option it is given, unset ones as null (``"tags":
null``, ``"environment_files": null``, ``"timeout_mins": null``), and
follows a 302 by re-sending the same request; Heat takes all of that.
These calls go to a hearth-api over real HTTP.
"""

from __future__ import annotations

import time

import pytest

heatclient = pytest.importorskip("heatclient.client")

TEMPLATE = {
    "heat_template_version": "2021-04-16",
    "parameters": {"p": {"type": "string", "default": "x"}},
    "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "p"}}}},
    "outputs": {"out": {"value": {"get_attr": ["v", "value"]}}},
}

INNER = """
heat_template_version: 2021-04-16
resources:
  inner: {type: OS::Heat::None}
"""

OUTER = {
    "heat_template_version": "2021-04-16",
    "resources": {"nested": {"type": "inner.yaml"}},
    "outputs": {"ref": {"value": {"get_resource": "nested"}}},
}

#: what heat_integrationtests' stack_create / update_stack give heatclient
SUITE_OPTIONS = {"files": {}, "disable_rollback": True, "parameters": {}, "environment": {},
                 "tags": None}


@pytest.fixture(scope="module")
def heat(noauth_server):
    return heatclient.Client("1", endpoint=noauth_server.url("admin"), token="any")


def settled(heat, identity, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        stack = heat.stacks.get(identity)
        if not stack.stack_status.endswith("IN_PROGRESS") or time.monotonic() > deadline:
            return stack
        time.sleep(0.1)


def create(heat, name, template=TEMPLATE, **options):
    created = heat.stacks.create(stack_name=name, template=template,
                                 **{**SUITE_OPTIONS, "environment_files": None,
                                    "timeout_mins": None, **options})
    identity = f"{name}/{created['stack']['id']}"
    assert settled(heat, identity).stack_status == "CREATE_COMPLETE"
    return identity


def test_create_update_patch_with_the_nulls_heatclient_sends(heat):
    identity = create(heat, "hc-nulls")
    heat.stacks.update(identity, template=TEMPLATE, existing=False,
                       **{**SUITE_OPTIONS, "parameters": {"p": "put"}})
    stack = settled(heat, identity)
    assert (stack.stack_status, stack.parameters["p"]) == ("UPDATE_COMPLETE", "put")
    heat.stacks.update(identity, existing=True, parameters={"p": "patched"}, tags=None,
                       environment_files=None, timeout_mins=None)
    stack = settled(heat, identity)
    assert (stack.stack_status, stack.parameters["p"]) == ("UPDATE_COMPLETE", "patched")
    assert stack.tags == []


def test_strings_for_booleans_and_numbers(heat):
    identity = create(heat, "hc-strings", disable_rollback="False", timeout_mins="5",
                      tags="a,b")
    stack = heat.stacks.get(identity)
    assert (stack.disable_rollback, stack.timeout_mins, stack.tags) == (False, 5, ["a", "b"])


def test_previews_and_validate_with_the_nulls(heat):
    preview = heat.stacks.preview(stack_name="hc-preview", template=TEMPLATE,
                                  environment_files=None, timeout_mins=None,
                                  **SUITE_OPTIONS)
    assert preview.stack_name == "hc-preview"
    identity = create(heat, "hc-preview-update")
    changes = heat.stacks.preview_update(identity, template=TEMPLATE, show_nested=False,
                                         **{**SUITE_OPTIONS, "parameters": {"p": "new"}})
    assert [r["resource_name"] for r in changes["resource_changes"]["updated"]] == ["v"]
    changes = heat.stacks.preview_update(identity, existing=True, parameters={"p": "x"},
                                         tags=None)
    assert [r["resource_name"] for r in changes["resource_changes"]["unchanged"]] == ["v"]
    validated = heat.stacks.validate(template=TEMPLATE, environment_files=None, files={},
                                     environment={})
    assert validated["Parameters"]["p"]["Default"] == "x"


def test_mark_unhealthy_with_a_string_is_seen_at_once(heat):
    identity = create(heat, "hc-unhealthy")
    heat.resources.mark_unhealthy(identity, "v", "true", "broken")
    resource = heat.resources.get(identity, "v")
    assert (resource.resource_status, resource.resource_status_reason) \
        == ("CHECK_FAILED", "broken")


def test_nested_stack_named_by_its_arn(heat):
    """get_resource of a nested stack is its ARN; Heat's lookup answers 302 for it."""
    identity = create(heat, "hc-arn", template=OUTER, files={"inner.yaml": INNER})
    arn = heat.stacks.output_show(identity, "ref")["output"]["output_value"]
    assert arn.startswith("arn:openstack:heat::admin:stacks/hc-arn-nested-")
    assert heat.resources.get(arn, "inner").resource_status == "CREATE_COMPLETE"
    assert [r.resource_name for r in heat.resources.list(arn)] == ["inner"]
    assert heat.stacks.get(arn).stack_name == arn.split("/")[1]


def test_patch_drops_a_parameter_the_new_template_no_longer_declares(heat):
    """Heat's TemplateResourceRemovedParamTest: the stored value1 goes with its declaration."""
    main = ("heat_template_version: 2013-05-23\nparameters:\n  value1: {type: string, "
            "default: foo}\nresources:\n  my_resource:\n    type: resource.yaml\n"
            "    properties: {value1: {get_param: value1}}\n")
    nested = ("heat_template_version: 2013-05-23\nparameters:\n  value1: {type: string, "
              "default: foo}\nresources:\n  test:\n    type: OS::Heat::Value\n"
              "    properties: {value: {get_param: value1}}\n")
    nested_update = nested.replace(
        "resources:", "  value2: {type: string, default: bar}\nresources:").replace(
        "{value: {get_param: value1}}",
        "{value: {list_join: ['-', [{get_param: value1}, {get_param: value2}]]}}")
    identity = create(heat, "hc-removed-param", template=main,
                      environment={"parameters": {"value1": "spam"}},
                      files={"resource.yaml": nested})
    main_update = ("heat_template_version: 2013-05-23\nresources:\n"
                   "  my_resource: {type: resource.yaml}\n")
    heat.stacks.update(identity, template=main_update,
                       environment={"parameter_defaults": {"value2": "egg"}},
                       files={"resource.yaml": nested_update}, existing=True,
                       disable_rollback=True, parameters={}, tags=None)
    stack = settled(heat, identity)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert "value1" not in stack.parameters
    inner = heat.resources.list(identity, nested_depth=1)
    value = next(r for r in inner if r.resource_name == "test")
    nested_id = "/".join(next(link["href"] for link in value.links
                              if link["rel"] == "stack").split("/")[-2:])
    assert heat.resources.get(nested_id, "test").attributes["value"] == "foo-egg"


def test_an_attribute_the_provider_does_not_output_fails_where_read(heat):
    """As Heat: not a validation error; the output reading it carries the error."""
    outer = {"heat_template_version": "queens", "resources": {"n": {"type": "p.yaml"}},
             "outputs": {"o": {"value": {"get_attr": ["n", "nope"]}}}}
    identity = create(heat, "hc-provider-attr", template=outer,
                      files={"p.yaml": "heat_template_version: queens\nresources: {}\n"})
    output = heat.stacks.output_show(identity, "o")["output"]
    assert output["output_error"] == "The Referenced Attribute (n nope) is incorrect."
