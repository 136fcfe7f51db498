"""Introspection of resource types: schema JSON, template generation, listing.

The same declarations that validate templates are turned here into Heat's
resource-type JSON (``resource-type-show``), a provider template whose
parameters are the properties and whose outputs are the attributes
(``resource-type-template``), and the filtered type list.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Mapping
from typing import Any

from hearth.engine import attributes, properties, support
from hearth.engine.registry.plugin_class import PluginClass
from hearth.engine.registry.types import TypeRegistry

TEMPLATE_TYPES = ("hot", "cfn")

#: property type → HOT parameter type / CFN parameter type.
HOT_PARAMETER_TYPES = {
    properties.INTEGER: "number", properties.NUMBER: "number", properties.STRING: "string",
    properties.BOOLEAN: "boolean", properties.MAP: "json",
    properties.LIST: "comma_delimited_list",
}
CFN_PARAMETER_TYPES = {
    properties.INTEGER: "Number", properties.NUMBER: "Number", properties.STRING: "String",
    properties.BOOLEAN: "Boolean", properties.MAP: "Json",
    properties.LIST: "CommaDelimitedList",
}
#: constraint name → CFN parameter keys for its min/max (or its whole body).
CFN_CONSTRAINT_KEYS: dict[str, str | tuple[str, str]] = {
    "length": ("MinLength", "MaxLength"), "range": ("MinValue", "MaxValue"),
    "allowed_values": "AllowedValues", "allowed_pattern": "AllowedPattern",
}


def _visible(schema_map: Mapping[str, Any]) -> dict[str, Any]:
    return {name: schema for name, schema in schema_map.items()
            if schema.support_status.status != support.HIDDEN}


def description_of(resource_class: type[PluginClass]) -> str:
    """Return the class docstring, cleaned (the type's description)."""
    return inspect.getdoc(resource_class) or ""


def resource_schema(resource_class: type[PluginClass], type_name: str | None = None,
                    with_description: bool = True) -> dict[str, Any]:
    """Return Heat's resource-type JSON of ``resource_class`` (hidden members left out)."""
    attribute_schemata = {**resource_class.attributes_schema,
                          **attributes.BASE_ATTRIBUTES_SCHEMA}
    result: dict[str, Any] = {
        "resource_type": type_name or resource_class.resource_type,
        "properties": {name: schema.to_dict() for name, schema
                       in _visible(resource_class.properties_schema).items()},
        "attributes": {name: schema.to_dict() for name, schema
                       in _visible(attribute_schemata).items()},
        "support_status": resource_class.support_status.to_dict(),
    }
    if with_description:
        result["description"] = description_of(resource_class)
    return result


def _hot_parameter(schema: properties.Schema) -> dict[str, Any]:
    parameter: dict[str, Any] = {"type": HOT_PARAMETER_TYPES[schema.type]}
    if schema.description is not None:
        parameter["description"] = schema.description
    if schema.default is not None:
        parameter["default"] = schema.default
    if schema.constraints:
        parameter["constraints"] = [c.to_dict() for c in schema.constraints]
    return parameter


def _cfn_parameter(schema: properties.Schema) -> dict[str, Any]:
    parameter: dict[str, Any] = {"Type": CFN_PARAMETER_TYPES[schema.type]}
    if schema.description is not None:
        parameter["Description"] = schema.description
    if schema.default is not None:
        parameter["Default"] = schema.default
    for constraint in schema.constraints:
        body = constraint.to_dict()
        for name, keys in CFN_CONSTRAINT_KEYS.items():
            if name not in body:
                continue
            if isinstance(keys, tuple):
                for bound, key in zip(("min", "max"), keys, strict=True):
                    if body[name].get(bound) is not None:
                        parameter[key] = body[name][bound]
            else:
                parameter[keys] = body[name]
    if schema.type == properties.BOOLEAN:
        parameter["AllowedValues"] = ["True", "true", "False", "false"]
    return parameter


def generate_template(resource_class: type[PluginClass], type_name: str,
                      template_type: str = "hot") -> dict[str, Any]:
    """Return a template wrapping ``type_name``: properties → parameters, attributes → outputs."""
    if template_type not in TEMPLATE_TYPES:
        raise ValueError(f"Unknown template type {template_type!r}; use hot or cfn")
    hot = template_type == "hot"
    name = resource_class.__name__
    props = {key: schema for key, schema in _visible(resource_class.properties_schema).items()
             if schema.type != properties.ANY}
    parameters = {key: (_hot_parameter if hot else _cfn_parameter)(schema)
                  for key, schema in props.items()}
    prop_refs = {key: ({"get_param": key} if hot else
                       {"Fn::Split": [",", {"Ref": key}]} if schema.type == properties.LIST
                       else {"Ref": key})
                 for key, schema in props.items()}
    attribute_schemata = {**_visible(resource_class.attributes_schema),
                          **attributes.BASE_ATTRIBUTES_SCHEMA}
    outputs = {key: schema.as_output(name, key, template_type)
               for key, schema in attribute_schemata.items()}
    outputs["OS::stack_id"] = ({"value": {"get_resource": name}} if hot
                               else {"Value": {"Ref": name}})
    description = f"Initial template of {name}"
    if hot:
        return {"heat_template_version": "2016-10-14", "description": description,
                "parameters": parameters, "resources": {
                    name: {"type": type_name, "properties": prop_refs}},
                "outputs": outputs}
    return {"HeatTemplateFormatVersion": "2012-12-12", "Description": description,
            "Parameters": parameters, "Resources": {
                name: {"Type": type_name, "Properties": prop_refs}},
            "Outputs": outputs}


def list_types(registry: TypeRegistry, name_filter: str | None = None,
               with_description: bool = False, support_status: str | None = None
               ) -> list[Any]:
    """Return the sorted type names (or ``{resource_type, description}`` records).

    ``name_filter`` is a regular expression matched against the start of the
    name (``OS::Heat::.*``); HIDDEN types are never listed.
    """
    pattern = re.compile(name_filter) if name_filter else None
    result: list[Any] = []
    for type_name in sorted(registry.classes):
        resource_class = registry.classes[type_name]
        status = resource_class.support_status.status
        if status == support.HIDDEN:
            continue
        if support_status and status != support_status:
            continue
        if pattern and not pattern.match(type_name):
            continue
        result.append({"resource_type": type_name,
                       "description": description_of(resource_class).split("\n")[0]}
                      if with_description else type_name)
    return result


def load_failures(registry: TypeRegistry) -> Iterable[dict[str, str]]:
    """Yield a listing row for every plug-in that failed to load."""
    for failure in registry.failures:
        subject = failure.kwargs.get("type_name") or failure.kwargs.get("module", "")
        yield {"resource_type": subject, "status": "FAILED", "reason": str(failure)}
