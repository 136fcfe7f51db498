"""Resource attributes: their schema, and the resolver ``get_attr`` reads.

A resource type declares ``attributes_schema = {name: Schema(...)}``; every
type also has the base ``show`` attribute.  :class:`Attributes` asks the
resource for a value (``resolver(name)``), caches it unless the schema says
CACHE_NONE, and :func:`select_from_attribute` walks a ``get_attr`` path into
the value (a missing key or index gives None, as in Heat).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hearth.common import exception
from hearth.engine import support
from hearth.engine.schema_keyed import SchemaKeyed

LOG = logging.getLogger(__name__)

TYPES = (UNKNOWN, STRING, MAP, LIST, INTEGER, BOOLEAN, NUMBER) = (
    None, "String", "Map", "List", "Integer", "Boolean", "Number")
CACHE_MODES = (CACHE_LOCAL, CACHE_NONE) = ("cache_local", "cache_none")

BASE_ATTRIBUTES = (SHOW_ATTR,) = ("show",)

#: type → the Python types a value of it may have (a mismatch only warns).
_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    STRING: (str,), MAP: (Mapping,), LIST: (list, tuple), INTEGER: (int,),
    BOOLEAN: (bool, str), NUMBER: (int, float),
}


class Schema:
    """The declaration of one attribute."""

    TYPES = TYPES
    UNKNOWN, STRING, MAP, LIST, INTEGER, BOOLEAN, NUMBER = TYPES
    CACHE_MODES = CACHE_MODES
    CACHE_LOCAL, CACHE_NONE = CACHE_MODES

    def __init__(self, description: str | None = None, type: str | None = UNKNOWN,  # noqa: A002
                 support_status: support.SupportStatus | None = None,
                 cache_mode: str = CACHE_LOCAL) -> None:
        if type not in TYPES:
            raise exception.InvalidSchemaError(message=f"Invalid type ({type})")
        if cache_mode not in CACHE_MODES:
            raise exception.InvalidSchemaError(message=f"Invalid cache mode ({cache_mode})")
        self.description = description
        self.type = type
        self.support_status = support_status or support.SupportStatus()
        self.cache_mode = cache_mode

    def to_dict(self) -> dict[str, Any]:
        """Return Heat's resource-type JSON for this attribute."""
        result: dict[str, Any] = {}
        if self.description is not None:
            result["description"] = self.description
        if self.type is not None:
            result["type"] = self.type.lower()
        return result

    def as_output(self, resource_name: str, attribute: str,
                  template_type: str = "hot") -> dict[str, Any]:
        """Return a template output reading this attribute of ``resource_name``."""
        if template_type == "hot":
            return {"value": {"get_attr": [resource_name, attribute]},
                    "description": self.description}
        return {"Value": {"Fn::GetAtt": [resource_name, attribute]},
                "Description": self.description}


#: The attribute every resource type has.
BASE_ATTRIBUTES_SCHEMA: dict[str, Schema] = {
    SHOW_ATTR: Schema("Detailed information about resource.", type=MAP, cache_mode=CACHE_NONE),
}


def select_from_attribute(value: Any, path: Sequence[Any]) -> Any:
    """Return the member of ``value`` at ``path`` (keys and list indices); None if missing."""
    current = value
    for key in path:
        if isinstance(current, Mapping):
            current = current.get(key)
        elif isinstance(current, (list, tuple)) and not isinstance(key, bool):
            try:
                current = current[int(key)]
            except (IndexError, ValueError, TypeError):
                return None
        else:
            return None
        if current is None:
            return None
    return current


class Attributes(SchemaKeyed[str]):
    """The attribute values of one resource, resolved on demand and cached.

    ``resolver(name)`` returns the current value of an attribute (the
    resource's ``_resolve_attribute``, or ``_show_resource`` for ``show``).
    """

    def __init__(self, resource_name: str, schema: Mapping[str, Schema],
                 resolver: Callable[[str], Any]) -> None:
        self.resource_name = resource_name
        self.schema = {**BASE_ATTRIBUTES_SCHEMA, **schema}
        self.resolver = resolver
        self.cached: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        if key not in self.schema:
            raise KeyError(f"{self.resource_name}: Invalid attribute {key}")
        schema = self.schema[key]
        if schema.cache_mode == CACHE_LOCAL and key in self.cached:
            return self.cached[key]
        value = self.resolver(key)
        if value is not None:
            self._check_type(key, schema, value)
            if schema.cache_mode == CACHE_LOCAL:
                self.cached[key] = value
        return value

    def get_path(self, key: str, path: Sequence[Any] = ()) -> Any:
        """Return the attribute ``key`` walked down ``path`` (``get_attr`` with a path)."""
        return select_from_attribute(self[key], path)

    def reset(self) -> None:
        """Forget every cached value (after an action changed the resource)."""
        self.cached.clear()

    def _check_type(self, key: str, schema: Schema, value: Any) -> None:
        expected = _PYTHON_TYPES.get(schema.type) if schema.type else None
        if expected and not isinstance(value, expected):
            LOG.warning("Resource %s: attribute %s is not of type %s",
                        self.resource_name, key, schema.type)
