"""The structure of an environment document, as a JSON Schema.

:class:`~hearth.engine.template.environment.Environment` checks every
document against :data:`ENVIRONMENT_SCHEMA` before it reads one value of it,
so a section of the wrong shape is refused with its path and line
(InvalidEnvironment, a 400 over HTTP), never met as a TypeError half way.
Section names and null sections are checked before, with Heat's wording;
values (hook names, merge strategies) after, by the environment itself.
"""

from __future__ import annotations

from typing import Any

from hearth.common import exception
from hearth.engine.template import structure

_NAMES = {"type": "string",
          "x-messages": {"type": "names here must be strings, not {kind} ({value})"}}


def _map(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return the schema of a map with string keys (and ``values`` when given)."""
    schema: dict[str, Any] = {"type": "object", "propertyNames": _NAMES}
    if values is not None:
        schema["additionalProperties"] = values
    return schema


_OVERRIDE_VALUES = {"type": ["string", "array", "null"], "items": {"type": "string"}}

#: What each section of an environment may hold.
ENVIRONMENT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "parameters": _map(),
        "parameter_defaults": _map(),
        "parameter_merge_strategies": _map({"type": "string"}),
        "encrypted_param_names": {"type": "array", "items": {"type": "string"}},
        "event_sinks": {"type": "array", "items": {"type": "object"}},
        "resource_registry": {
            **_map({"type": ["string", "null"], "x-messages": {
                "type": "a mapping must be a type name or a template, not {kind}"}}),
            "properties": {
                "base_url": {"type": "string"},
                # a resource's overrides: type mappings, hooks, restricted_actions, and
                # maps of the overrides of its nested stack's resources (checked when read)
                "resources": {**_map({**_map({"type": ["string", "null", "object"],
                                              "x-messages": {"type": (
                                                  "must be a type name, a template or the "
                                                  "overrides of a nested stack's resource, "
                                                  "not {kind}")}}),
                                      "type": ["object", "null"],
                                      "properties": {"hooks": _OVERRIDE_VALUES,
                                                     "restricted_actions": _OVERRIDE_VALUES},
                                      "x-messages": {"type": "resource overrides must be a "
                                                             "map, not {kind}"}}),
                              "type": ["object", "null"]},
            },
        },
    },
}


def check_environment(data: Any, filename: str | None = None) -> None:
    """Raise InvalidEnvironment (path and line) when ``data`` breaks the structure."""
    structure.check_document(data, ENVIRONMENT_SCHEMA, filename, exception.InvalidEnvironment)
