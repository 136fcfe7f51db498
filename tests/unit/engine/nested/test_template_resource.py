"""Provider templates as resource types: parameters are properties, outputs attributes."""

import json

import pytest

from hearth.common import exception
from hearth.engine import properties
from hearth.engine.nested import template_resource
from hearth.engine.registry import facade as facade_check
from hearth.engine.template.environment import ProviderTemplate

URL = "file:///lib/server.yaml"
SERVER = json.dumps({
    "heat_template_version": "2018-08-31",
    "parameters": {
        "flavor": {"type": "string", "description": "the size",
                   "constraints": [{"allowed_values": ["s", "m"]}]},
        "count": {"type": "number", "default": 1},
        "names": {"type": "comma_delimited_list", "default": []},
        "meta": {"type": "json", "default": {}},
        "on": {"type": "boolean", "default": True}},
    "resources": {"v": {"type": "OS::Heat::None"}},
    "outputs": {"ip": {"value": "1.2.3.4", "description": "the address"},
                "OS::stack_id": {"value": "x"}}})


def test_parameters_become_update_allowed_properties_of_their_types():
    cls = template_resource.template_class(ProviderTemplate(URL), {URL: SERVER})
    schema = cls.properties_schema
    assert {name: s.type for name, s in schema.items()} == {
        "flavor": properties.STRING, "count": properties.NUMBER, "names": properties.LIST,
        "meta": properties.MAP, "on": properties.BOOLEAN}
    assert [name for name, s in schema.items() if s.required] == ["flavor"]
    assert all(s.update_allowed for s in schema.values())
    assert schema["flavor"].description == "the size"
    assert len(schema["flavor"].constraints) == 1
    assert sorted(cls.attributes_schema) == ["OS::stack_id", "ip"]
    assert cls.has_attribute("ip") and cls.has_attribute("resource.v.anything")
    assert cls.has_attribute("address")  # as Heat: checked where it is read, not validated
    # one class per template text, built once; the URL alone works too
    assert template_resource.template_class(URL, {URL: SERVER}) is cls


def test_a_template_missing_from_files_names_it():
    with pytest.raises(exception.ResourceTypeUnavailable) as raised:
        template_resource.template_class(ProviderTemplate(URL), {})
    assert str(raised.value).startswith(
        f'Could not fetch remote template "{URL}": it is not in the files map')


def test_a_file_that_is_no_template_is_refused_with_its_name():
    with pytest.raises(exception.HearthException) as raised:
        template_resource.template_class(URL, {URL: "just: text"})
    assert URL in str(raised.value) or "version" in str(raised.value)


def _provider(url, parameters, outputs):
    text = json.dumps({"heat_template_version": "2018-08-31", "parameters": parameters,
                       "resources": {}, "outputs": outputs})
    return template_resource.template_class(ProviderTemplate(url), {url: text})


def test_facade_errors_use_heats_texts():
    facade = _provider("file:///facade.yaml", {"one": {"type": "string"},
                                               "two": {"type": "number"}},
                       {"here-it-is": {"value": 1}})
    same = _provider("file:///same.yaml", {"one": {"type": "string"},
                                           "two": {"type": "number", "default": 2}},
                     {"here-it-is": {"value": 1}, "extra": {"value": 2}})
    assert facade_check.facade_errors(same, facade, "OS::Thingy") == []
    broken = _provider("file:///broken.yaml", {"two": {"type": "string"},
                                               "three": {"type": "string"}}, {})
    assert facade_check.facade_errors(broken, facade, "OS::Thingy") == [
        "Required property one for facade OS::Thingy missing in provider",
        "Property two type mismatch between facade OS::Thingy (Number) and provider (String)",
        "Provider requires property three unknown in facade OS::Thingy",
        "Attribute here-it-is for facade OS::Thingy missing in provider"]


def test_stack_arn_is_heats_identifier_arn():
    from hearth.engine.stacks.prepare import StackIdentity
    assert StackIdentity("my stack", "42", "demo").arn() == \
        "arn:openstack:heat::demo:stacks/my%20stack/42"
