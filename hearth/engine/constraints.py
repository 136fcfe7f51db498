"""Constraints on values, shared by template parameters and resource properties.

A constraint both *validates* a value (raising ``ValueError`` with Heat's
message, or with the constraint's own ``description`` when one is given)
and *describes itself* (``to_dict()`` gives the resource-type JSON Heat
shows, e.g. ``{"range": {"min": 1}, "description": "..."}``).

:class:`Schema` is the typed base that parameters and the plug-in layer's
``properties.Schema`` build on: a type name, a description, a default and a
list of constraints, with the conversions of Heat's schema types.

Custom constraints are plug-ins in the stevedore group ``hearth.constraints``;
each is a class whose instances have ``validate(value, context=None) -> bool``
and a ``message`` (a description) and optionally ``error(value) -> str``.
"""

from __future__ import annotations

import functools
import json
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from stevedore import extension

from hearth.common import exception

CUSTOM_CONSTRAINT_NAMESPACE = "hearth.constraints"

# Schema type names (Heat's property/attribute type vocabulary).
INTEGER, STRING, NUMBER, BOOLEAN, MAP, LIST, ANY = (
    "Integer", "String", "Number", "Boolean", "Map", "List", "Any")
SCHEMA_TYPES = (INTEGER, STRING, NUMBER, BOOLEAN, MAP, LIST, ANY)

_TRUE_STRINGS = frozenset(("1", "t", "true", "on", "y", "yes"))
_FALSE_STRINGS = frozenset(("0", "f", "false", "off", "n", "no"))


def str_to_num(value: Any) -> int | float:
    """Convert a number or its string form into an int (preferred) or float."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        return value  # type: ignore[return-value]
    try:
        return int(value)
    except (ValueError, TypeError):
        return float(value)


def bool_from_string(value: Any) -> bool:
    """Convert a strict boolean string (true/false/yes/no/on/off/1/0/t/f/y/n)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE_STRINGS:
        return True
    if text in _FALSE_STRINGS:
        return False
    raise ValueError(f"Unrecognized value '{value}', acceptable values are: "
                     "'0', '1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', 'y', 'yes'")


def _dumps(value: Any) -> str:
    return json.dumps(value)


class Constraint:
    """A rule a value must follow; validates and serialises itself.

    Subclasses set ``name`` (the key in the template and in ``to_dict``),
    ``valid_types`` (the schema types it may be attached to) and implement
    ``_is_valid``, ``_err_msg``, ``_str`` and ``_constraint``.
    """

    name: ClassVar[str] = ""
    valid_types: ClassVar[tuple[str, ...]] = ()

    def __init__(self, description: str | None = None) -> None:
        self.description = description

    def validate(self, value: Any, schema: Schema | None = None, context: Any = None) -> None:
        """Raise ``ValueError`` when ``value`` breaks the constraint."""
        if not self._is_valid(value, schema, context):
            raise ValueError(self.description or self._err_msg(value))

    def to_dict(self) -> dict[str, Any]:
        """Return Heat's JSON form: ``{name: body}`` plus ``description`` if any."""
        result: dict[str, Any] = {self.name: self._constraint()}
        if self.description is not None:
            result["description"] = self.description
        return result

    def __str__(self) -> str:
        """Return the human description (own description first, then the rule)."""
        return "\n".join(text for text in (self.description, self._str()) if text)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((type(self).__name__, json.dumps(self.to_dict(), sort_keys=True, default=str)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_dict()!r})"

    def _is_valid(self, value: Any, schema: Schema | None, context: Any) -> bool:
        raise NotImplementedError

    def _err_msg(self, value: Any) -> str:
        raise NotImplementedError

    def _str(self) -> str:
        raise NotImplementedError

    def _constraint(self) -> Any:
        raise NotImplementedError


def _check_numeric(values: Sequence[Any], message: str) -> None:
    for value in values:
        if value is not None and (isinstance(value, bool)
                                  or not isinstance(value, (int, float))):
            raise exception.InvalidSchemaError(message=message)


class _Bounds(Constraint):
    """Shared body of Range and Length: optional ``min`` and ``max``."""

    noun: ClassVar[str] = "value"

    def __init__(self, min: float | None = None, max: float | None = None,  # noqa: A002
                 description: str | None = None) -> None:
        super().__init__(description)
        if min is None and max is None:
            raise exception.InvalidSchemaError(
                message=f"A {self.name} constraint must have a min value and/or "
                        "a max value specified.")
        self.min = min
        self.max = max

    def _in_bounds(self, number: float) -> bool:
        return ((self.min is None or number >= self.min)
                and (self.max is None or number <= self.max))

    def _str(self) -> str:
        if self.max is None:
            return f"The {self.noun} must be at least {self.min}."
        if self.min is None:
            return f"The {self.noun} must be no greater than {self.max}."
        return f"The {self.noun} must be in the range {self.min} to {self.max}."

    def _constraint(self) -> dict[str, Any]:
        return {key: value for key, value in (("min", self.min), ("max", self.max))
                if value is not None}


class Range(_Bounds):
    """The value (a number) must lie between ``min`` and ``max`` (inclusive)."""

    name = "range"
    valid_types = (INTEGER, NUMBER)

    def __init__(self, min: float | None = None, max: float | None = None,  # noqa: A002
                 description: str | None = None) -> None:
        _check_numeric((min, max), "min/max must be numeric")
        super().__init__(min, max, description)

    def _is_valid(self, value: Any, schema: Schema | None, context: Any) -> bool:
        return self._in_bounds(str_to_num(value))

    def _err_msg(self, value: Any) -> str:
        return f"{value} is out of range (min: {self.min}, max: {self.max})"


class Length(_Bounds):
    """The length of a string, list or map must lie between ``min`` and ``max``."""

    name = "length"
    noun = "length"
    valid_types = (STRING, LIST, MAP)

    def __init__(self, min: int | None = None, max: int | None = None,  # noqa: A002
                 description: str | None = None) -> None:
        super().__init__(min, max, description)
        for bound in (min, max):
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int)):
                raise exception.InvalidSchemaError(message="min/max length must be integral")

    def _is_valid(self, value: Any, schema: Schema | None, context: Any) -> bool:
        return self._in_bounds(len(value))

    def _err_msg(self, value: Any) -> str:
        return f"length ({len(value)}) is out of range (min: {self.min}, max: {self.max})"


class Modulo(Constraint):
    """The value modulo ``step`` must equal ``offset``."""

    name = "modulo"
    valid_types = (INTEGER, NUMBER)

    def __init__(self, step: int | None = None, offset: int | None = None,
                 description: str | None = None) -> None:
        super().__init__(description)
        if step is None or offset is None:
            raise exception.InvalidSchemaError(
                message="A modulo constraint must have a step value and "
                        "an offset value specified.")
        _check_numeric((step, offset), "step/offset must be numeric")
        if int(step) != step or int(offset) != offset:
            raise exception.InvalidSchemaError(message="step/offset must be integer")
        if int(step) == 0:
            raise exception.InvalidSchemaError(message="step cannot be 0.")
        if abs(offset) >= abs(step):
            raise exception.InvalidSchemaError(
                message="offset must be smaller (by absolute value) than step.")
        if step * offset < 0:
            raise exception.InvalidSchemaError(
                message="step and offset must be both positive or both negative.")
        self.step = step
        self.offset = offset

    def _is_valid(self, value: Any, schema: Schema | None, context: Any) -> bool:
        return str_to_num(value) % self.step == self.offset

    def _err_msg(self, value: Any) -> str:
        return f"{value} is not a multiple of {self.step} with an offset of {self.offset}"

    def _str(self) -> str:
        return f"The value must be a multiple of {self.step} with an offset of {self.offset}."

    def _constraint(self) -> dict[str, Any]:
        return {"step": self.step, "offset": self.offset}


class AllowedValues(Constraint):
    """The value must be one of ``allowed`` (every item, for a list)."""

    name = "allowed_values"
    valid_types = (STRING, INTEGER, NUMBER, BOOLEAN, LIST)

    def __init__(self, allowed: Sequence[Any], description: str | None = None) -> None:
        super().__init__(description)
        if isinstance(allowed, (str, bytes)) or not isinstance(allowed, Sequence):
            raise exception.InvalidSchemaError(message="AllowedValues must be a list")
        self.allowed = tuple(allowed)

    def _is_valid(self, value: Any, schema: Schema | None, context: Any) -> bool:
        if isinstance(value, list):
            return all(item in self.allowed for item in value)
        if schema is not None:
            try:
                allowed = tuple(schema.to_schema_type(item) for item in self.allowed)
                return schema.to_schema_type(value) in allowed
            except ValueError:
                return False
        return value in self.allowed

    def _err_msg(self, value: Any) -> str:
        allowed = ", ".join(_dumps(item) for item in self.allowed)
        return f"{_dumps(value)} is not an allowed value [{allowed}]"

    def _str(self) -> str:
        return "Allowed values: " + ", ".join(_dumps(item) for item in self.allowed)

    def _constraint(self) -> list[Any]:
        return list(self.allowed)


class AllowedPattern(Constraint):
    """The value (a string) must match ``pattern`` as a whole."""

    name = "allowed_pattern"
    valid_types = (STRING,)

    def __init__(self, pattern: str, description: str | None = None) -> None:
        super().__init__(description)
        if not isinstance(pattern, str):
            raise exception.InvalidSchemaError(message="AllowedPattern must be a string")
        try:
            self._regex = re.compile(pattern)
        except re.error as exc:
            raise exception.InvalidSchemaError(
                message=f'Invalid allowed_pattern "{pattern}": {exc}') from exc
        self.pattern = pattern

    def _is_valid(self, value: Any, schema: Schema | None, context: Any) -> bool:
        text = value if isinstance(value, str) else str(value)
        return self._regex.fullmatch(text) is not None

    def _err_msg(self, value: Any) -> str:
        return f'"{value}" does not match pattern "{self.pattern}"'

    def _str(self) -> str:
        return f"Value must match pattern: {self.pattern}"

    def _constraint(self) -> str:
        return self.pattern


@functools.lru_cache(maxsize=1)
def custom_constraint_classes() -> Mapping[str, type]:
    """Return the custom constraint classes of ``hearth.constraints`` (loaded once)."""
    manager: Any = extension.ExtensionManager(CUSTOM_CONSTRAINT_NAMESPACE, invoke_on_load=False)
    return {ext.name: ext.plugin for ext in manager}


class CustomConstraint(Constraint):
    """The value must pass a named plug-in check (``hearth.constraints`` group).

    ``registry`` maps names to constraint classes; it defaults to the installed
    entry points and is a seam for tests.
    """

    name = "custom_constraint"
    valid_types = (STRING, INTEGER, NUMBER, BOOLEAN, LIST)

    def __init__(self, name: str, description: str | None = None,
                 registry: Mapping[str, type] | None = None) -> None:
        super().__init__(description)
        self.constraint_name = name
        self._registry = registry
        self._plugin: Any = None

    @property
    def registry(self) -> Mapping[str, type]:
        """Return the name → class map the constraint is looked up in."""
        return self._registry if self._registry is not None else custom_constraint_classes()

    @property
    def exists(self) -> bool:
        """Return whether a plug-in of this name is installed."""
        return self.constraint_name in self.registry

    @property
    def plugin(self) -> Any:
        """Return the plug-in instance, or None when no plug-in has this name."""
        if self._plugin is None and self.exists:
            self._plugin = self.registry[self.constraint_name]()
        return self._plugin

    def not_found_message(self) -> str:
        """Return the error for an unknown constraint name (with did-you-mean)."""
        return (f'"{self.constraint_name}" is not a known custom constraint.'
                + exception.did_you_mean(self.constraint_name, self.registry))

    def _is_valid(self, value: Any, schema: Schema | None, context: Any) -> bool:
        plugin = self.plugin
        return bool(plugin is not None and plugin.validate(value, context))

    def _err_msg(self, value: Any) -> str:
        plugin = self.plugin
        if plugin is None:
            return (f'"{value}" does not validate {self.constraint_name} '
                    "(constraint not found)")
        error = getattr(plugin, "error", None)
        if error is not None:
            return str(error(value))
        return f'"{value}" does not validate {self.constraint_name}'

    def _str(self) -> str:
        message = getattr(self.plugin, "message", None)
        return message or f"Value must be of type {self.constraint_name}"

    def _constraint(self) -> str:
        return self.constraint_name


#: Template keyword → constraint class (parameters and the plug-in layer read it).
#: (each class takes its own arguments, then ``description``)
CONSTRAINT_CLASSES: dict[str, Callable[..., Constraint]] = {
    cls.name: cls for cls in (Length, Range, Modulo, AllowedValues, AllowedPattern,
                              CustomConstraint)
}


class Schema:
    """A typed value description: type, description, default, constraints.

    ``data_type`` is one of :data:`SCHEMA_TYPES`.  Subclasses (parameter and
    property schemas) add their own keys; the conversions and constraint
    checks live here once.
    """

    def __init__(self, data_type: str, description: str | None = None,
                 default: Any = None, constraints: Sequence[Constraint] | None = None,
                 label: str | None = None, immutable: bool = False) -> None:
        if data_type not in SCHEMA_TYPES:
            raise exception.InvalidSchemaError(message=f"Invalid type ({data_type})")
        self.type = data_type
        self.description = description
        self.default = default
        self.constraints = list(constraints or [])
        self.label = label
        self.immutable = immutable

    def check_constraint_types(self) -> None:
        """Raise InvalidSchemaError if a constraint cannot apply to this type."""
        for constraint in self.constraints:
            if self.type != ANY and self.type not in constraint.valid_types:
                raise exception.InvalidSchemaError(
                    message=f"{type(constraint).__name__} constraint invalid for "
                            f"{self.type_label()}")

    def type_label(self) -> str:
        """Return the type's name as error messages spell it."""
        return self.type

    def to_schema_type(self, value: Any) -> Any:
        """Return ``value`` converted to this schema's type (ValueError if it cannot be)."""
        converter = _CONVERTERS.get(self.type)
        if converter is None:
            return value
        try:
            return converter(value)
        except (ValueError, TypeError) as exc:
            raise ValueError(f'Value "{value}" is invalid for data type "{self.type}".') from exc

    def validate_constraints(self, value: Any, context: Any = None,
                             skipped: Sequence[type[Constraint]] = ()) -> None:
        """Check ``value`` against every constraint not of a ``skipped`` class.

        Raises ``ValueError`` with the first failing constraint's message.
        """
        for constraint in self.constraints:
            if type(constraint) not in skipped:
                constraint.validate(value, self, context)

    def validate_default(self, context: Any = None) -> None:
        """Check the default against the constraints (custom constraints skipped)."""
        if self.default is not None:
            try:
                self.validate_constraints(self.default, context, (CustomConstraint,))
            except (ValueError, TypeError) as exc:
                raise exception.InvalidSchemaError(
                    message=f"Invalid default {self.default} ({exc})") from exc


def _to_integer(value: Any) -> int:
    number = str_to_num(value)
    if isinstance(number, float):
        raise ValueError(f"{number} is not an integer.")
    return number


_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    INTEGER: _to_integer,
    NUMBER: str_to_num,
    STRING: str,
    BOOLEAN: lambda value: bool_from_string(str(value)),
}
