"""Resource properties: their schema, and the values a resource reads.

A resource type declares ``properties_schema = {name: Schema(...)}``.  The
same declaration validates the template's values, serialises itself for
``resource-type-show``, generates docs and provider-template parameters.
:class:`Properties` is the mapping a resource reads: ``props['port']``
resolves intrinsic functions, applies the default, converts the value to
its type and (during :meth:`Properties.validate`) checks the constraints.
As in Heat, a property written as null reads as its type's empty value
('' / 0 / [] / {} / False) and one not written at all (nor defaulted) as None.

Errors are :class:`~hearth.common.exception.StackValidationFailed` with
``error="Property error"``; their path grows through nested LIST and MAP
members (``properties.ports.2.name``) and carries the template line of the
innermost located value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hearth.common import exception
from hearth.common.located import line_of
from hearth.engine import constraints, support
from hearth.engine.schema_keyed import K, SchemaKeyed
from hearth.engine.template import function

TYPES = (INTEGER, STRING, NUMBER, BOOLEAN, MAP, LIST, ANY) = constraints.SCHEMA_TYPES

PROPERTY_ERROR = "Property error"

#: What a property written as null (and not defaulted) reads as.
EMPTY_VALUES: dict[str, Any] = {
    INTEGER: 0, NUMBER: 0, STRING: "", BOOLEAN: False, ANY: None}
_EMPTY_FACTORIES: dict[str, Callable[[], Any]] = {MAP: dict, LIST: list}


def empty_value(data_type: str) -> Any:
    """Return Heat's empty value of ``data_type`` ('' / 0 / [] / {} / False / None)."""
    factory = _EMPTY_FACTORIES.get(data_type)
    return factory() if factory else EMPTY_VALUES[data_type]


class Schema(constraints.Schema):
    """The declaration of one property.

    ``schema`` describes members: for a LIST one ``Schema`` (every item),
    for a MAP a ``{key: Schema}`` dict (known keys).  ``update_allowed``
    says a change is applied in place (otherwise the resource is
    replaced); ``immutable`` says it may never change.
    """

    TYPES = TYPES
    INTEGER, STRING, NUMBER, BOOLEAN, MAP, LIST, ANY = TYPES
    KEYS = ("type", "description", "default", "schema", "required", "constraints",
            "update_allowed", "immutable")

    def __init__(self, data_type: str, description: str | None = None, default: Any = None,
                 schema: Schema | Mapping[str, Schema] | None = None, required: bool = False,
                 constraints: Sequence[Any] | None = None, update_allowed: bool = False,
                 immutable: bool = False,
                 support_status: support.SupportStatus | None = None,
                 allow_conversion: bool = False) -> None:
        super().__init__(data_type, description=description, default=default,
                         constraints=constraints, immutable=immutable)
        self.required = required
        self.update_allowed = update_allowed
        self.support_status = support_status or support.SupportStatus()
        self.allow_conversion = allow_conversion
        self.schema = schema
        self._check_declaration()

    def _check_declaration(self) -> None:
        """Raise InvalidSchemaError for a declaration that cannot work (a plug-in bug)."""
        def fail(message: str) -> None:
            raise exception.InvalidSchemaError(message=message)

        if isinstance(self.schema, Schema) and self.type != LIST:
            fail(f"Single schema valid only for {LIST}, not {self.type}")
        if self.schema is not None and self.type not in (LIST, MAP):
            fail(f"Schema valid only for {LIST} or {MAP}, not {self.type}")
        if self.update_allowed and self.immutable:
            fail("Options update_allowed and immutable cannot both be True")
        self.check_constraint_types()
        self.validate_default()

    def member_schemata(self) -> dict[Any, Schema] | None:
        """Return MAP member schemata, or None (LIST members: :meth:`item_schema`)."""
        return dict(self.schema) if isinstance(self.schema, Mapping) else None

    def item_schema(self) -> Schema | None:
        """Return the schema of every LIST item, if declared."""
        return self.schema if isinstance(self.schema, Schema) else None

    @classmethod
    def from_parameter(cls, param: Any) -> Schema:
        """Return the property schema of a provider template's parameter.

        ``param`` needs ``type`` (a HOT parameter type name), ``description``,
        ``required`` (or no default) and ``constraints``.  Properties of a
        template resource are update_allowed: the template decides.
        """
        param_type = str(getattr(param, "type", "json")).lower()
        data_type = _PARAMETER_TYPES.get(param_type, MAP)
        required = getattr(param, "required", None)
        if required is None:
            required = getattr(param, "default", None) is None
        return cls(data_type, description=getattr(param, "description", None),
                   required=bool(required),
                   constraints=list(getattr(param, "constraints", None) or []),
                   update_allowed=True,
                   allow_conversion=param_type in ("json", "comma_delimited_list"))

    def to_dict(self) -> dict[str, Any]:
        """Return Heat's resource-type JSON for this property."""
        result: dict[str, Any] = {"type": self.type.lower()}
        if self.description is not None:
            result["description"] = self.description
        if self.default is not None:
            result["default"] = self.default
        if self.schema is not None:
            members = ({"*": self.schema} if isinstance(self.schema, Schema)
                       else self.schema)
            result["schema"] = {str(k): s.to_dict() for k, s in members.items()}
        result["required"] = self.required
        if self.constraints:
            result["constraints"] = [_constraint_dict(c) for c in self.constraints]
        result["update_allowed"] = self.update_allowed
        result["immutable"] = self.immutable
        return result

    def __repr__(self) -> str:
        return f"Schema({self.type!r})"


_PARAMETER_TYPES = {"string": STRING, "number": NUMBER, "comma_delimited_list": LIST,
                    "json": MAP, "boolean": BOOLEAN}


def _constraint_dict(constraint: Any) -> dict[str, Any]:
    to_dict = getattr(constraint, "to_dict", None)
    return to_dict() if to_dict else dict(constraint)


# --- conversion: one function per type, chosen from a table ---------------

def _to_integer(value: Any) -> int:
    try:
        number = _to_number(value)
    except ValueError:
        number = None
    if isinstance(number, float) and number.is_integer():
        number = int(number)
    if not isinstance(number, int) or isinstance(value, bool):
        raise TypeError(f"Value '{value}' is not an integer")
    return number


def _to_number(value: Any) -> int | float:
    if isinstance(value, bool):
        raise ValueError(f"Value '{value}' is not a number")
    if isinstance(value, (int, float)):
        return value
    try:
        return int(value)
    except (TypeError, ValueError):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ValueError(f"Value '{value}' is not a number") from None


def _to_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int)):
        return str(value)
    raise ValueError(f"Value must be a string; got {value!r}")


def _to_boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        normalised = value.lower()
        if normalised not in ("true", "false"):
            raise ValueError(f'"{normalised}" is not a valid boolean')
        return normalised == "true"
    raise TypeError(f'"{value}" is not a valid boolean')


def _to_map(value: Any) -> Any:
    if not isinstance(value, Mapping):
        raise TypeError(f'"{value}" is not a map')
    return value


def _to_list(value: Any) -> Any:
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise TypeError(f'"{value!r}" is not a list')
    return value


_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    INTEGER: _to_integer, NUMBER: _to_number, STRING: _to_string, BOOLEAN: _to_boolean,
    MAP: _to_map, LIST: _to_list, ANY: lambda value: value,
}


def _convert_lenient(schema: Schema, value: Any) -> Any:
    """Accept a JSON string for a MAP, or a comma-separated string for a LIST."""
    if schema.type == LIST and isinstance(value, str):
        return [item.strip() for item in value.split(",")] if value else []
    if schema.type == MAP and isinstance(value, (str, list)):
        return value
    return value


def convert(schema: Schema, value: Any) -> Any:
    """Return ``value`` converted to ``schema``'s type (members untouched).

    Raises TypeError/ValueError with Heat's message when it does not fit.
    """
    if schema.allow_conversion:
        value = _convert_lenient(schema, value)
        if schema.type == MAP and not isinstance(value, Mapping):
            return value
    return _CONVERTERS[schema.type](value)


def _unknown(value: Any, raw: Any) -> bool:
    """Return whether ``value`` is not known yet (it comes from a resource not created)."""
    return value is None and isinstance(raw, function.Function) and function.is_unknown(raw)


def _split_path(parent_name: str | Sequence[Any] | None) -> list[Any]:
    if parent_name is None:
        return []
    if isinstance(parent_name, str):
        return [int(p) if p.isdigit() else p for p in parent_name.split(".") if p]
    return list(parent_name)


class _PropertyValues(SchemaKeyed[K]):
    """Values read through their schemata, keyed by ``K``: what Properties and LIST items share.

    ``data`` is the raw snippet (it may hold Function objects and located
    containers); ``resolver`` turns a raw value into a plain one.
    ``parent_name`` is the path in front of every error (a dotted string or
    a sequence of segments).  ``context`` is passed to custom constraints.
    """

    def __init__(self, schema: Mapping[K, Schema], data: Mapping[K, Any] | None,
                 resolver: Callable[[Any], Any] = function.resolve,
                 parent_name: str | Sequence[Any] | None = None, context: Any = None,
                 source: Any = None) -> None:
        self.schema: dict[K, Schema] = dict(schema)
        self.data: Mapping[K, Any] = data if data is not None else {}
        self.resolve = resolver
        self.parent_name = parent_name
        self.path = _split_path(parent_name)
        self.context = context
        # Where template lines come from (the raw data unless a parent resolved it).
        self._source = source if source is not None else self.data

    # --- the Mapping a plug-in reads ---------------------------------------

    def __getitem__(self, key: K) -> Any:
        return self._value(key, validate=False)

    def get_user_value(self, key: K) -> Any:
        """Return the value the template gave (resolved, converted), or None if unset."""
        if key not in self.schema:
            raise KeyError(f"Invalid Property {key}")
        if key not in self.data:
            return None
        value = self._resolve_raw(key)
        return None if value is function.ABSENT else value

    # --- validation --------------------------------------------------------

    def validate(self, with_value: bool = True) -> None:
        """Check keys, required properties and (``with_value``) every value.

        Raises StackValidationFailed(error="Property error") whose path is
        this mapping's path plus the property (and member) keys.
        """
        for key in self.data:
            if key not in self.schema:
                hint = exception.did_you_mean(str(key), map(str, self.schema))
                raise self._error(f"Unknown Property {key}.{hint}" if hint
                                  else f"Unknown Property {key}", [], line_of(self._source, key))
        for key in self.schema:
            if with_value:
                self._value(key, validate=True)
            elif self.schema[key].required and key not in self.data:
                raise self._error(f"Property {key} not assigned", [], line_of(self._source))

    def _error(self, message: str, segments: Sequence[Any], line: int | None
               ) -> exception.StackValidationFailed:
        return exception.StackValidationFailed(
            message, error=PROPERTY_ERROR, path=[*self.path, *segments], line=line)

    # --- reading one value -------------------------------------------------

    def _resolve_raw(self, key: K) -> Any:
        try:
            return self.resolve(self.data[key])
        except exception.StackValidationFailed:
            raise
        except Exception as exc:  # noqa: BLE001 - a function's failure becomes a property error
            raise self._error(str(exc), [key], line_of(self._source, key)) from exc

    def _value(self, key: K, validate: bool) -> Any:
        if key not in self.schema:
            raise KeyError(f"Invalid Property {key}")
        schema = self.schema[key]
        raw = _child(self._source, key)
        given = key in self.data
        value = self._resolve_raw(key) if given else None
        if value is function.ABSENT:
            value, given = None, False
        if value is None:
            if validate and _unknown(value, raw):
                return None
            if schema.default is not None:
                value = schema.default
            elif schema.required and validate:
                raise self._error(f"Property {key} not assigned", [], line_of(self._source))
            else:
                # As in Heat: an explicit null reads as the type's empty value,
                # a property not written at all reads as None.
                return empty_value(schema.type) if given else None
        return self._typed(key, schema, value, validate)

    def _typed(self, key: Any, schema: Schema, value: Any, validate: bool) -> Any:
        """Convert ``value`` (and its members) and check constraints when validating."""
        line = line_of(self._source, key)
        try:
            converted = convert(schema, value)
        except (TypeError, ValueError) as exc:
            raise self._error(str(exc), [key], line) from exc
        converted = self._members(key, schema, converted, validate)
        if validate:
            try:
                schema.validate_constraints(converted, self.context)
            except ValueError as exc:
                raise self._error(str(exc), [key], line) from exc
        return converted

    def _members(self, key: Any, schema: Schema, value: Any, validate: bool) -> Any:
        """Read LIST items / MAP members through their own schemata."""
        members = schema.member_schemata()
        item = schema.item_schema()
        if (members is None and item is None) or not isinstance(value, (Mapping, list)):
            return value
        raw = _child(self._source, key)
        source = raw if isinstance(raw, (Mapping, list)) else value
        path = [*self.path, key]
        if isinstance(value, list) and item is not None:
            items = _ListItems(dict.fromkeys(range(len(value)), item), dict(enumerate(value)),
                               resolver=_identity, parent_name=path, context=self.context,
                               source=source)
            if validate:
                items.validate()
            return [items[i] for i in range(len(value))]
        if isinstance(value, Mapping) and members is not None:
            nested = Properties(members, value, resolver=_identity, parent_name=path,
                                context=self.context, source=source)
            if validate:
                nested.validate()
            return {name: nested[name] for name in nested.schema}
        return value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.data!r})"


class _ListItems(_PropertyValues[int]):
    """The items of a LIST property, keyed by index, each read through the item schema."""


class Properties(_PropertyValues[str]):
    """The property values of one resource (or of one nested MAP member), keyed by name.

    A plug-in reads ``self.properties[name]``: the template's value resolved,
    defaulted and converted to its type; :meth:`validate` checks them all.
    """

    # --- updates -----------------------------------------------------------

    def update_allowed_diff(self, after: Properties) -> dict[str, Any]:
        """Return the changed properties ``{key: new value}`` between self and ``after``."""
        return prop_diff(self, after)

    def replacement_keys(self, diff: Mapping[str, Any]) -> list[str]:
        """Return the changed keys that are not update_allowed (they force replacement)."""
        return sorted(k for k in diff if not self.schema[k].update_allowed)

    def immutable_keys(self, diff: Mapping[str, Any]) -> list[str]:
        """Return the changed keys declared immutable (the update is refused)."""
        return sorted(k for k in diff if self.schema[k].immutable)


def _child(container: Any, key: Any) -> Any:
    """Return ``container[key]`` of a raw map or list, or None."""
    if isinstance(container, Mapping):
        return container.get(key)
    if isinstance(container, list) and isinstance(key, int) and 0 <= key < len(container):
        return container[key]
    return None


def _identity(value: Any) -> Any:
    return value


def prop_diff(old: Properties, new: Properties) -> dict[str, Any]:
    """Return ``{key: new value}`` for every property whose value changed."""
    keys = set(old.schema) | set(new.schema)
    diff = {}
    for key in sorted(keys):
        before = old.get_user_value(key) if key in old.schema else None
        after = new.get_user_value(key) if key in new.schema else None
        if before != after:
            diff[key] = new[key] if key in new.schema else None
    return diff


def schemata(schema_map: Mapping[str, Schema]) -> dict[str, Schema]:
    """Return a plain dict of property schemata (checks every value is a Schema)."""
    for name, value in schema_map.items():
        if not isinstance(value, Schema):
            raise exception.InvalidSchemaError(
                message=f"Property {name}: expected a properties.Schema, "
                        f"got {type(value).__name__}")
    return dict(schema_map)
