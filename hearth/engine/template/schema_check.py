"""The JSON Schema keywords the structure checks use, evaluated on plain data.

:mod:`hearth.engine.template.structure` describes a template's (and an
environment's) structure as a JSON Schema (draft 2020-12) and turns each
failure into a located message.  Those schemas use a small subset of the
vocabulary: ``type``, ``properties``, ``additionalProperties``,
``required``, ``enum``, ``items``, ``anyOf``, ``propertyNames`` and
``minProperties``; this module evaluates exactly that subset, with
jsonschema's semantics and error fields (``validator``,
``validator_value``, ``instance``, ``schema``, ``absolute_path``), so that
every stackctl process does not import jsonschema (about a tenth of a
second).  Keys it does not know (``$schema``, ``x-messages``) are ignored,
as JSON Schema ignores unknown keywords; any other keyword is refused
(ValueError), never skipped.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable, Iterator, Mapping
from typing import Any

#: Keys of a schema that are not keywords evaluated here (annotations, our messages).
IGNORED = frozenset({"$schema", "x-messages", "title", "description"})


@dataclasses.dataclass
class SchemaError:
    """One failed keyword: which, its value, the instance and schema, where (from the root)."""

    validator: str
    validator_value: Any
    instance: Any
    schema: Mapping[str, Any]
    absolute_path: list[Any]
    message: str


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


#: JSON type name -> test, as jsonschema's draft 2020-12 type checker.
TYPES: dict[str, Callable[[Any], bool]] = {
    "array": lambda value: isinstance(value, list),
    "boolean": lambda value: isinstance(value, bool),
    "integer": _is_integer,
    "null": lambda value: value is None,
    "number": lambda value: isinstance(value, numbers.Number) and not isinstance(value, bool),
    "object": lambda value: isinstance(value, dict),
    "string": lambda value: isinstance(value, str),
}


def _equal(one: Any, two: Any) -> bool:
    """Return JSON equality (``True`` is not ``1``), as jsonschema's ``enum``."""
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, bool) or isinstance(two, bool):
        return type(one) is type(two) and one == two
    return one == two


Found = Iterator[tuple[str, str]]  # (keyword, message) of the instance itself


def _type(value: Any, instance: Any, schema: Mapping[str, Any]) -> Found:
    names = value if isinstance(value, list) else [value]
    if not any(TYPES[name](instance) for name in names):
        yield "type", f"{instance!r} is not of type {', '.join(repr(n) for n in names)}"


def _required(value: Any, instance: Any, schema: Mapping[str, Any]) -> Found:
    if isinstance(instance, dict):
        for key in value:
            if key not in instance:
                yield "required", f"{key!r} is a required property"


def _enum(value: Any, instance: Any, schema: Mapping[str, Any]) -> Found:
    if not any(_equal(allowed, instance) for allowed in value):
        yield "enum", f"{instance!r} is not one of {value!r}"


def _min_properties(value: Any, instance: Any, schema: Mapping[str, Any]) -> Found:
    if isinstance(instance, dict) and len(instance) < value:
        yield "minProperties", f"{instance!r} should be non-empty"


def _additional_closed(value: Any, instance: Any, schema: Mapping[str, Any]) -> Found:
    if value is False and isinstance(instance, dict):
        known = schema.get("properties", {})
        extras = sorted((key for key in instance if key not in known), key=str)
        if extras:
            yield ("additionalProperties",
                   f"Additional properties are not allowed ({', '.join(map(repr, extras))} "
                   f"{'was' if len(extras) == 1 else 'were'} unexpected)")


Nested = Iterator[SchemaError]


def _any_of(value: Any, instance: Any, schema: Mapping[str, Any], path: tuple[Any, ...]
            ) -> Nested:
    if all(_fails(instance, option, path) for option in value):
        yield SchemaError("anyOf", value, instance, schema, list(path),
                          f"{instance!r} is not valid under any of the given schemas")


def _items(value: Any, instance: Any, schema: Mapping[str, Any], path: tuple[Any, ...]
           ) -> Nested:
    if isinstance(instance, list):
        for index, item in enumerate(instance):
            yield from iter_errors(item, value, (*path, index))


def _properties(value: Any, instance: Any, schema: Mapping[str, Any], path: tuple[Any, ...]
                ) -> Nested:
    if isinstance(instance, dict):
        for key, sub_schema in value.items():
            if key in instance:
                yield from iter_errors(instance[key], sub_schema, (*path, key))


def _additional(value: Any, instance: Any, schema: Mapping[str, Any], path: tuple[Any, ...]
                ) -> Nested:
    if isinstance(instance, dict) and isinstance(value, dict):
        known = schema.get("properties", {})
        for key in instance:
            if key not in known:
                yield from iter_errors(instance[key], value, (*path, key))


def _property_names(value: Any, instance: Any, schema: Mapping[str, Any],
                    path: tuple[Any, ...]) -> Nested:
    if isinstance(instance, dict):
        for key in instance:
            yield from iter_errors(key, value, path)


#: Keywords that judge the instance itself.
OWN_KEYWORDS = {"type": _type, "required": _required, "enum": _enum,
                "minProperties": _min_properties, "additionalProperties": _additional_closed}
#: Keywords that judge the instance's parts (or alternatives) by sub-schemas.
SUB_KEYWORDS = {"properties": _properties, "additionalProperties": _additional,
                "items": _items, "anyOf": _any_of, "propertyNames": _property_names}


def _fails(instance: Any, schema: Mapping[str, Any], path: tuple[Any, ...]) -> bool:
    return next(iter_errors(instance, schema, path), None) is not None


def iter_errors(instance: Any, schema: Mapping[str, Any],
                path: tuple[Any, ...] = ()) -> Iterator[SchemaError]:
    """Yield every error of ``instance`` against ``schema`` (keywords in the schema's order).

    A keyword of JSON Schema that is not evaluated here raises ValueError.
    """
    for keyword, value in schema.items():
        if keyword in IGNORED:
            continue
        own, nested = OWN_KEYWORDS.get(keyword), SUB_KEYWORDS.get(keyword)
        if own is None and nested is None:
            raise ValueError(f"JSON Schema keyword {keyword!r} is not supported here")
        if own is not None:
            for failed, message in own(value, instance, schema):
                yield SchemaError(failed, value, instance, schema, list(path), message)
        if nested is not None:
            yield from nested(value, instance, schema, path)
