"""``NestedParameters`` of the validate API, against real Heat 27's answer.

The expected answer was recorded from real Heat (the oracle of
``shared/reference/heat-oracle.md``) for the same templates: a provider
template by file URL nesting another by relative name, and a type mapped to
a template in the environment; ``OS::Heat::Stack`` (which Heat's oracle
cannot run without a Keystone catalog) follows the same shape.
"""

from __future__ import annotations

import json

import pytest

from hearth.common import exception
from hearth.common.context import RequestContext

CTX = RequestContext.local()

INNER = {"heat_template_version": "2021-04-16", "description": "inner tmpl",
         "parameters": {"ip": {"type": "string", "default": "d", "description": "inner p"}},
         "resources": {"leaf": {"type": "OS::Heat::None"}},
         "outputs": {"o": {"value": {"get_param": "ip"}}}}
MID = {"heat_template_version": "2021-04-16", "description": "mid tmpl",
       "parameters": {"mp": {"type": "number", "default": 3}},
       "resources": {"deep": {"type": "inner.yaml", "properties": {"ip": "x"}},
                     "mnone": {"type": "OS::Heat::None"}}}
PARENT = {"heat_template_version": "2021-04-16", "description": "parent tmpl",
          "parameters": {"pp": {"type": "string", "default": "z"}},
          "resources": {"stk": {"type": "My::Inner", "properties": {"ip": "v"}},
                        "prov": {"type": "file:///tmp/mid.yaml", "properties": {"mp": 5}},
                        "top": {"type": "OS::Heat::None"}}}
FILES = {"file:///tmp/mid.yaml": json.dumps(MID), "inner.yaml": json.dumps(INNER)}
ENV = {"resource_registry": {"My::Inner": "inner.yaml"}}


def _inner(value: str, type_name: str) -> dict:
    return {"Description": "inner tmpl", "Type": type_name,
            "Parameters": {"ip": {"Default": "d", "Description": "inner p", "Label": "ip",
                                  "NoEcho": "false", "Type": "String", "Value": value}}}


#: Heat 27.0.1's NestedParameters for PARENT, FILES and ENV
HEAT_NESTED = {
    "prov": {"Description": "mid tmpl", "Type": "file:///tmp/mid.yaml",
             "Parameters": {"mp": {"Default": 3, "Description": "", "Label": "mp",
                                   "NoEcho": "false", "Type": "Number", "Value": 5}},
             "NestedParameters": {"deep": _inner("x", "inner.yaml")}},
    "stk": _inner("v", "My::Inner"),
}


@pytest.fixture(scope="module")
def catalog():
    from hearth.common import config
    from hearth.engine.service.catalog import Catalog
    config.load(config_files=[])
    return Catalog()


def test_show_nested_answers_heats_nested_parameters(catalog):
    result = catalog.validate_template(CTX, PARENT, files=FILES, environment=ENV,
                                       show_nested=True)
    assert result["NestedParameters"] == HEAT_NESTED
    assert list(result) == ["Description", "Parameters", "NestedParameters", "Environment"]
    plain = catalog.validate_template(CTX, PARENT, files=FILES, environment=ENV)
    assert "NestedParameters" not in plain
    assert {key: value for key, value in result.items() if key != "NestedParameters"} == plain


def test_os_heat_stack_and_parameter_groups(catalog):
    inner = dict(INNER, parameter_groups=[{"label": "g", "parameters": ["ip"]}])
    template = {"heat_template_version": "2021-04-16", "resources": {
        "stk": {"type": "OS::Heat::Stack",
                "properties": {"template": json.dumps(inner), "parameters": {"ip": "q"}}},
        "bare": {"type": "OS::Heat::Stack", "properties": {"template": json.dumps(INNER)}}}}
    nested = catalog.validate_template(CTX, template, show_nested=True)["NestedParameters"]
    assert nested["stk"] == dict(_inner("q", "OS::Heat::Stack"),
                                 ParameterGroups=[{"label": "g", "parameters": ["ip"]}])
    # a parameter the resource does not give has no Value, as at the top level
    assert "Value" not in nested["bare"]["Parameters"]["ip"]


def test_no_nested_stack_no_nested_parameters(catalog):
    template = {"heat_template_version": "2021-04-16",
                "resources": {"top": {"type": "OS::Heat::None"}}}
    assert "NestedParameters" not in catalog.validate_template(CTX, template, show_nested=True)


def test_an_invalid_nested_template_fails_as_without_show_nested(catalog):
    broken = dict(INNER, resources={"leaf": {"type": "OS::Heat::Nope"}})
    files = dict(FILES, **{"inner.yaml": json.dumps(broken)})
    errors = []
    for show_nested in (False, True):
        with pytest.raises(exception.StackValidationFailed) as caught:
            catalog.validate_template(CTX, PARENT, files=files, environment=ENV,
                                      show_nested=show_nested)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert "OS::Heat::Nope" in errors[0]


def test_groups_show_one_member_as_heat_does(catalog):
    """Heat validates a group's nested stack at size 1 (member "0"); recorded from Heat 27."""
    inner = {"heat_template_version": "2021-04-16", "description": "inner tmpl",
             "parameters": {"ip": {"type": "string", "default": "d"}},
             "resources": {"leaf": {"type": "OS::Heat::None"}}}
    template = {"heat_template_version": "2021-04-16", "resources": {
        "grp": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": 3, "resource_def": {"type": "inner.yaml",
                                         "properties": {"ip": "m%index%"}}}},
        "grp2": {"type": "OS::Heat::ResourceGroup", "properties": {
            "count": 2, "resource_def": {"type": "OS::Heat::None"}}},
        "chain": {"type": "OS::Heat::ResourceChain", "properties": {
            "resources": ["OS::Heat::None", "OS::Heat::None"]}}}}
    nested = catalog.validate_template(CTX, template, files={"inner.yaml": json.dumps(inner)},
                                       show_nested=True)["NestedParameters"]
    member = {"Type": "inner.yaml", "Description": "inner tmpl", "Parameters": {"ip": {
        "Type": "String", "Description": "", "NoEcho": "false", "Label": "ip",
        "Default": "d", "Value": "m0"}}}
    assert nested == {
        "grp": {"Type": "OS::Heat::ResourceGroup", "Description": "No description",
                "Parameters": {}, "NestedParameters": {"0": member}},
        "grp2": {"Type": "OS::Heat::ResourceGroup", "Description": "No description",
                 "Parameters": {}},
        "chain": {"Type": "OS::Heat::ResourceChain", "Description": "No description",
                  "Parameters": {}}}
