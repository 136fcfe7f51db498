"""Tests of hearth.engine.resources.validation and the registry lookups it uses."""

import logging

import pytest

from hearth.common import exception
from hearth.common.located import LocatedDict
from hearth.engine import properties, resource, support
from hearth.engine.registry.types import TypeRegistry
from hearth.engine.resources.validation import validate_resource_definition
from hearth.plugins.test_resource import TestResource
from tests.unit.engine.resource_helpers import Definition, FakeStack


class Old(resource.Resource):
    """Old."""

    support_status = support.SupportStatus(support.DEPRECATED, message="Use New.")
    properties_schema = {
        "legacy": properties.Schema(properties.STRING, support_status=support.SupportStatus(
            support.DEPRECATED, message="Use modern.")),
        "modern": properties.Schema(properties.STRING)}


class Gone(resource.Resource):
    """Gone."""

    support_status = support.SupportStatus(support.HIDDEN, message="Use New.")


REGISTRY = TypeRegistry.from_mapping(
    {"OS::Heat::TestResource": TestResource, "My::Old": Old, "My::Gone": Gone})


class Env:
    """An environment whose resource_registry maps aliases (the H2 interface)."""

    class registry:  # noqa: N801 - mirrors Environment.registry
        @staticmethod
        def resolve_type(type_name, resource_name=None):
            if resource_name == "special":
                return "My::Old"
            return {"My::Alias": "OS::Heat::TestResource"}.get(type_name, type_name)


def validate(type_name, props=None, name="web", env=None, line=12, **kwargs):
    defn = Definition(name, type_name, props or {}, line=line)
    return validate_resource_definition(defn, REGISTRY, env, FakeStack(), **kwargs)


def test_valid_definition_returns_its_class():
    result = validate("OS::Heat::TestResource", {"value": "x"})
    assert result.resource_class is TestResource and result.warnings == []


def test_unknown_type_with_did_you_mean():
    with pytest.raises(exception.StackValidationFailed) as info:
        validate("OS::Heat::TestResorce")
    assert str(info.value) == (
        "template:12: resources.web.type: The Resource Type (OS::Heat::TestResorce) could "
        'not be found. Did you mean "OS::Heat::TestResource"?')


def test_property_error_names_resource_path_and_line():
    props = LocatedDict({"wait_secs": "soon"}, line=13, lines={"wait_secs": 14})
    with pytest.raises(exception.StackValidationFailed) as info:
        validate("OS::Heat::TestResource", props)
    error = info.value.located("demo.yaml")
    assert str(error) == ("demo.yaml:14: Property error: resources.web.properties.wait_secs: "
                          "Value 'soon' is not a number")


def test_line_of_the_resource_when_the_value_has_none():
    with pytest.raises(exception.StackValidationFailed) as info:
        validate("OS::Heat::TestResource", {"vale": 1})
    assert str(info.value) == ('template:12: Property error: resources.web.properties: '
                               'Unknown Property vale. Did you mean "value"?')


def test_environment_aliases_and_per_resource_overrides():
    assert validate("My::Alias", env=Env).resource_class is TestResource
    assert validate("OS::Heat::TestResource", name="special", env=Env).resource_class is Old


def test_deprecated_type_and_property_warn(caplog):
    with caplog.at_level(logging.WARNING):
        result = validate("My::Old", {"legacy": "x", "modern": "y"})
    assert result.warnings == [
        "My::Old is DEPRECATED. Use New.",
        "resources.web.properties.legacy: Property legacy is DEPRECATED. Use modern."]
    assert "Resource type My::Old is deprecated: Use New." in caplog.text


def test_hidden_type_refused_for_new_stacks_only():
    with pytest.raises(exception.StackValidationFailed) as info:
        validate("My::Gone")
    assert str(info.value) == ("template:12: resources.web.type: Resource type My::Gone is "
                               "hidden and may not be used in new stacks. Use New.")
    assert validate("My::Gone", allow_hidden=True).resource_class is Gone


def test_registry_template_factory_and_failures():
    registry = TypeRegistry(REGISTRY.manager, template_class_factory=lambda ref, files: Old)

    class TemplateEnv:
        class registry:  # noqa: N801
            @staticmethod
            def resolve_type(type_name, resource_name=None):
                return "my_server.yaml"

    assert registry.get_class("My::Server", TemplateEnv) is Old
    with pytest.raises(exception.ResourceTypeNotFound):
        REGISTRY.get_class("My::Server", TemplateEnv)
    assert REGISTRY.failures == []


def test_default_registry_has_the_builtin_types():
    from hearth.engine.nested.template_resource import default_registry
    assert default_registry() is default_registry()
    assert default_registry().get_class("OS::Heat::None").__name__ == "NoneResource"
