"""Check a template's structure with a JSON Schema built per version.

The schema is not written by hand for each version: :func:`build_schema`
derives it from the version's key-set data (``sections``,
``resource_keys``, ``output_keys``, ``parameter_keys``, ``parameter_types``,
``deletion_policies``), its ``spelling`` (CloudFormation-format templates
write ``Resources``, ``Type``, ``Value``...) and ``open_definitions``.
jsonschema's errors are rewritten into Hearth's located messages through
the ``x-messages`` table attached to each sub-schema (keyed by the
jsonschema keyword that failed), and the best error (deepest path, then
first by line) is the one reported, so the result is deterministic.
:func:`check_document` runs the same steps for any located document and
schema (the environment's structure is one).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import jsonschema

from hearth.common import exception
from hearth.common.located import line_of

_MAP = {"type": "object"}
_FUNCTION_OR_MAP = {"type": ["object", "null"]}
_TEXT = {"type": "string", "x-messages": {"type": "must be a string, not {kind}"}}

#: Generic messages, per failing jsonschema keyword, when a schema has none.
GENERIC_MESSAGES = {
    "type": "must be {expected}, not {kind}",
    "required": 'is missing "{missing}"',
    "additionalProperties": '"{key}" is not a valid keyword here.{hint}',
    "enum": '"{value}" is not one of {allowed}',
    "minProperties": "must not be empty",
}

_KINDS = {dict: "a map", list: "a list", str: "a string", bool: "a boolean",
          int: "a number", float: "a number", type(None): "null"}
_EXPECTED = {"object": "a map", "array": "a list", "string": "a string", "null": "null",
             "boolean": "a boolean", "number": "a number", "integer": "an integer"}


def _definition(keys: frozenset[str], required: str | None, what: str,
                properties: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Return the schema of one definition (resource, output, parameter)."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {key: dict((properties or {}).get(key, {})) for key in sorted(keys)},
        "additionalProperties": False,
        "x-messages": {
            "type": f"{what} must be a map, not {{kind}}",
            "additionalProperties": f'"{{key}}" is not a valid keyword inside {what}.{{hint}}',
        },
    }
    if required:
        schema["required"] = [required]
        schema["x-messages"]["required"] = f'{what} must contain a "{required}" key'
    return schema


def _field_type(field: str, expected: str) -> dict[str, Any]:
    """Return a resource field's type check with Heat's message."""
    return {"x-messages": {"type": f"Resource {{name}} {field} type must be {expected}"}}


#: Heat's wording of a broken resource definition, per template format
_RESOURCE_MESSAGES = {
    "hot": {"type": '"resources" must contain a map of resource maps. Found a [{pytype}] '
                    'instead',
            "required": "Each resource must contain a type key."},
    "cfn": {"type": "Resources must contain Resource. Found a [{pytype}] instead",
            "required": "Each Resource must contain a Type key."},
}


def _named_map(item_schema: Mapping[str, Any], section: str,
               names: Mapping[str, Any] | None = None) -> dict[str, Any]:
    schema = {"type": ["object", "null"], "additionalProperties": item_schema,
              "x-messages": {"type": f'the "{section}" section must be a map, not {{kind}}'}}
    if names is not None:
        schema["propertyNames"] = names
    return schema


#: What a resource may be named: no "/" (Heat: the name is a segment of the resource's
#: URLs), no NUL (a database column holds the name; PostgreSQL refuses U+0000 in text).
RESOURCE_NAME = {"allOf": [
    {"not": {"type": "string", "pattern": "/"},
     "x-messages": {"not": 'Resource name may not contain "/"'}},
    {"not": {"type": "string", "pattern": "\u0000"},
     "x-messages": {"not": "Resource name may not contain a NUL character (U+0000)"}},
]}


#: The key sets of a TemplateVersion the schema is built from.
KEY_SETS = ("sections", "resource_keys", "output_keys", "parameter_keys",
            "parameter_types", "deletion_policies")


def build_schema(version: Any) -> dict[str, Any]:
    """Return the JSON Schema of templates of ``version`` (a TemplateVersion)."""
    return _build_schema(*(frozenset(getattr(version, name)) for name in KEY_SETS),
                         tuple(sorted(version.spelling.items())), version.open_definitions,
                         version.type)


@functools.cache
def _build_schema(sections: frozenset[str], resource_keys: frozenset[str],
                  output_keys: frozenset[str], parameter_keys: frozenset[str],
                  parameter_types: frozenset[str], deletion_policies: frozenset[str],
                  spelling: tuple[tuple[str, str], ...], open_definitions: bool,
                  template_type: str) -> dict[str, Any]:
    spelled = dict(spelling)

    def spell(name: str) -> str:
        return spelled.get(name, name)

    def fields(schemas: dict[str, Any]) -> dict[str, Any]:
        return {spell(name): schema for name, schema in schemas.items()}

    def field_type(name: str, expected: str) -> dict[str, Any]:
        return _field_type(spell(name), expected)

    resource = _definition(resource_keys, spell("type"), "a resource definition", fields({
        "type": {"type": "string", **field_type("type", "string")},
        "properties": {**_FUNCTION_OR_MAP, **field_type("properties", "object")},
        "metadata": {**_FUNCTION_OR_MAP, **field_type("metadata", "object")},
        "update_policy": {**_FUNCTION_OR_MAP, **field_type("update_policy", "object")},
        "description": {"type": "string", **field_type("description", "string")},
        "depends_on": {"type": ["string", "array", "null"],
                       "items": {"type": "string", "x-messages": {
                           "type": f"Resource {{name}} {spell('depends_on')} must be a list "
                                   "of strings"}},
                       **field_type("depends_on", "list or string")},
        "deletion_policy": {"anyOf": [{"enum": sorted(deletion_policies)}, _MAP],
                            "x-messages": {"anyOf": 'Invalid deletion policy "{value}"'}},
    }))
    # Heat's own wording for each broken definition (recorded from Heat 27.0.1).
    resource["x-messages"] = {
        **_RESOURCE_MESSAGES[template_type],
        "additionalProperties": '"{key}" is not a valid keyword inside a resource '
                                "definition{more}"}
    output = _definition(output_keys, spell("value"), "an output definition",
                         fields({"description": _TEXT}))
    output["x-messages"].update({
        "type": "Output definitions must be a map. Found a {typename} instead",
        "required": f"Each output definition must contain a {spell('value')} key."})
    if open_definitions:  # other keys are ignored, as Heat ignores them
        del resource["additionalProperties"], output["additionalProperties"]
    parameter = _definition(parameter_keys, spell("type"), "a parameter definition", fields({
        "type": {"enum": sorted(parameter_types),
                 "x-messages": {"enum": "Invalid type ({value})"}},
        "label": _TEXT,
        "description": _TEXT,
        "hidden": {},  # Heat takes any value by truthiness
        "immutable": {},
        "constraints": {"type": ["array", "null"], "items": _MAP, "x-messages": {
            "type": "Invalid parameter constraints for parameter {name}, expected a list"}},
        "tags": {"type": "array", "items": _TEXT, "x-messages": {
            "type": "Tags property should be a list for parameter: {name}"}},
    }))
    parameter["x-messages"] = {
        "type": "Invalid parameter ({name}), expected a mapping",
        "required": "Missing parameter type for parameter: {name}",
        "additionalProperties": "Invalid key '{key}' for parameter ({name}){more}"}
    group = {
        "type": "object", "required": ["parameters"], "additionalProperties": False,
        "properties": {"label": _TEXT, "description": _TEXT,
                       "parameters": {"type": "array", "x-messages": {
                           "type": "The parameters of parameter group should be a list."}}},
        "x-messages": {"type": "a parameter group must be a map, not {kind}",
                       "required": "The parameters must be provided for each parameter group.",
                       "additionalProperties":
                           '"{key}" is not a valid keyword inside a parameter group.{hint}'},
    }
    section_schemas = fields({
        "description": {**_TEXT, "x-messages": {"type": "the description must be a string, "
                                                        "not {kind}"}},
        "parameter_groups": {"type": ["array", "null"], "items": group, "x-messages": {
            "type": "The parameter_groups should be a list."}},
        "parameters": _named_map(parameter, spell("parameters")),
        "mappings": _named_map({"type": ["object", "null"], "x-messages": {
            "type": "a mapping must be a map of keys to maps, not {kind}"}},
            spell("mappings")),
        "resources": _named_map(resource, spell("resources"), RESOURCE_NAME),
        "outputs": _named_map(output, spell("outputs")),
        "conditions": _named_map({}, spell("conditions")),
    })
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {name: section_schemas.get(name, {}) for name in sorted(sections)},
        "additionalProperties": False,
        "x-messages": {"additionalProperties":
                       "The template section is invalid: {key}{more}"},
    }


def _kind(value: Any) -> str:
    for cls, name in _KINDS.items():
        if type(value) is cls or (cls not in (bool, int) and isinstance(value, cls)):
            return name
    return type(value).__name__


def _plain_type(value: Any) -> type:
    """Return the type Heat would name for ``value`` (a located list is a list)."""
    return next((cls for cls in (dict, list) if isinstance(value, cls)), type(value))


def _unexpected_keys(error: jsonschema.ValidationError) -> list[Any]:
    allowed = set(error.schema.get("properties", {}))
    keys = [key for key in error.instance if key not in allowed]
    return sorted(keys, key=lambda key: (line_of(error.instance, key) or 0, str(key)))


def _path(error: jsonschema.ValidationError) -> list[Any]:
    """Return where ``error`` is: a key refused by ``propertyNames`` is its own last step."""
    path = list(error.absolute_path)
    if "propertyNames" in error.schema_path:
        path.append(error.instance)
    return path


def _fields(error: jsonschema.ValidationError) -> dict[str, Any]:
    path = _path(error)
    fields: dict[str, Any] = {"value": error.instance, "kind": _kind(error.instance),
                              "name": path[1] if len(path) > 1 else "",
                              "typename": type(error.instance).__name__,
                              "pytype": repr(_plain_type(error.instance))}
    if error.validator == "type":
        expected = error.validator_value
        expected = expected if isinstance(expected, list) else [expected]
        fields["expected"] = " or ".join(_EXPECTED.get(name) or str(name) for name in expected)
    elif error.validator == "required":
        fields["missing"] = next((key for key in error.validator_value
                                  if key not in error.instance), "")
    elif error.validator == "additionalProperties":
        key = _unexpected_keys(error)[0]
        fields["key"] = key
        fields["hint"] = exception.did_you_mean(key, error.schema.get("properties", {}))
        fields["more"] = "." + fields["hint"] if fields["hint"] else ""
    elif error.validator == "enum":
        fields["allowed"] = ", ".join(str(v) for v in error.validator_value)
    return fields


def _line(document: Any, error: jsonschema.ValidationError) -> int | None:
    """Return the line of the offending key (or value) of ``error``."""
    container, key = None, None
    node = document
    for step in _path(error):
        container, key = node, step
        node = node[step]
    if error.validator == "additionalProperties":
        return line_of(error.instance, _unexpected_keys(error)[0])
    if error.validator == "required" or container is None:
        return line_of(node) if isinstance(node, (dict, list)) else line_of(container, key)
    return line_of(container, key)


def _to_validation_error(document: Any, error: jsonschema.ValidationError,
                         filename: str | None,
                         error_class: type[exception.StackValidationFailed]
                         ) -> exception.StackValidationFailed:
    template = error.schema.get("x-messages", {}).get(error.validator) \
        or GENERIC_MESSAGES.get(error.validator, error.message)
    return error_class(
        template.format(**_fields(error)), path=_path(error),
        line=_line(document, error), filename=filename)


def _rank(document: Any, error: jsonschema.ValidationError) -> tuple[Any, ...]:
    line = _line(document, error) or 0
    path = _path(error)
    return (-len(path), line, [str(step) for step in path])


def _validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema)


def schema_errors(document: Any, schema: dict[str, Any], filename: str | None = None,
                  error_class: type[exception.StackValidationFailed]
                  = exception.StackValidationFailed) -> list[exception.StackValidationFailed]:
    """Return every error of ``document`` against ``schema``, best first (deepest, then line).

    Messages come from the ``x-messages`` tables of the schema (else
    :data:`GENERIC_MESSAGES`); each error is an ``error_class`` carrying its
    path and line.
    """
    errors: Sequence[jsonschema.ValidationError] = sorted(
        _validator(schema).iter_errors(document), key=lambda error: _rank(document, error))
    return [_to_validation_error(document, error, filename, error_class) for error in errors]


def check_document(document: Any, schema: dict[str, Any], filename: str | None = None,
                   error_class: type[exception.StackValidationFailed]
                   = exception.StackValidationFailed) -> None:
    """Raise the best error of ``document`` against ``schema`` (see :func:`schema_errors`)."""
    errors = schema_errors(document, schema, filename, error_class)
    if errors:
        raise errors[0]


def find_errors(document: Mapping[str, Any], version: Any,
                filename: str | None = None) -> list[exception.StackValidationFailed]:
    """Return every structural error of a template, best first (deepest, then by line)."""
    return schema_errors(document, build_schema(version), filename)


def validate_structure(document: Mapping[str, Any], version: Any,
                       filename: str | None = None) -> None:
    """Raise the best StackValidationFailed if ``document`` breaks the version's structure."""
    check_document(document, build_schema(version), filename)
