"""A provider template's required properties, relaxed by parameter_defaults."""

from __future__ import annotations

from types import SimpleNamespace

from hearth.engine import properties
from hearth.engine.registry.provider_defaults import with_parameter_defaults


class Provider:
    """A stand-in provider class: two required properties, one optional."""

    properties_schema = {
        "a": properties.Schema(properties.Schema.STRING, required=True),
        "b": properties.Schema(properties.Schema.STRING, required=True),
        "c": properties.Schema(properties.Schema.STRING),
    }


def test_a_default_makes_only_its_property_optional():
    relaxed = with_parameter_defaults(Provider, SimpleNamespace(param_defaults={"a": 1, "z": 2}))
    assert issubclass(relaxed, Provider)
    assert {name: s.required for name, s in relaxed.properties_schema.items()} == {
        "a": False, "b": True, "c": False}
    # the provider's own schema is untouched, and the same defaults give the same class
    assert Provider.properties_schema["a"].required
    assert with_parameter_defaults(Provider, SimpleNamespace(param_defaults={"a": 3})) is relaxed


def test_without_matching_defaults_the_class_itself_is_returned():
    for env in (None, SimpleNamespace(param_defaults={}),
                SimpleNamespace(param_defaults={"c": 1, "zz": 2})):
        assert with_parameter_defaults(Provider, env) is Provider
