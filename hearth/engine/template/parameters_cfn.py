"""Parameter declarations of CloudFormation-format templates, read into schemas.

A declaration is a map of CloudFormation keys, for example the ``port``
of this ``Parameters`` section::

      port:
        Type: Number          # String, Number, CommaDelimitedList, Json, Boolean
        Default: 8080
        MinValue: 1
        MaxValue: 65535
        ConstraintDescription: a TCP port
        NoEcho: 'true'        # hidden

Each constraint is a key of its own (``MinValue``/``MaxValue`` a range,
``MinLength``/``MaxLength`` a length, ``AllowedValues``, ``AllowedPattern``),
all described by the one ``ConstraintDescription``; the result is the same
:class:`~hearth.engine.template.parameters.ParameterSchema` a HOT declaration
gives, so values, validation and the validate API are shared.  Which keys a
declaration may hold is checked with the template's structure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from hearth.common import exception
from hearth.engine import constraints as constr
from hearth.engine.template.parameters import ParameterSchema, bound

#: CloudFormation type name -> schema type
CFN_TYPES = {
    "String": constr.STRING,
    "Number": constr.NUMBER,
    "CommaDelimitedList": constr.LIST,
    "Json": constr.MAP,
    "Boolean": constr.BOOLEAN,
}

#: constraint class -> the (lower, upper) or single key it is read from, in Heat's order
_CONSTRAINT_KEYS: tuple[tuple[Callable[..., constr.Constraint], tuple[str, ...]], ...] = (
    (constr.Range, ("MinValue", "MaxValue")),
    (constr.Length, ("MinLength", "MaxLength")),
    (constr.AllowedValues, ("AllowedValues",)),
    (constr.AllowedPattern, ("AllowedPattern",)),
)


def _constraints(definition: Mapping[str, Any]) -> Iterator[constr.Constraint]:
    description = definition.get("ConstraintDescription")
    for constraint_class, keys in _CONSTRAINT_KEYS:
        if not any(key in definition for key in keys):
            continue
        if len(keys) == 2:
            yield constraint_class(bound(keys[0], definition), bound(keys[1], definition),
                                   description=description)
        else:
            yield constraint_class(definition[keys[0]], description=description)


def schema_from_definition(definition: Mapping[str, Any],
                           constraint_names: frozenset[str] = frozenset()) -> ParameterSchema:
    """Return the schema of a parameter a CloudFormation-format template declares.

    ``constraint_names`` is unused (the constraints are keys of their own);
    it keeps the signature of the HOT reader.  ``NoEcho`` hides the value
    when it reads ``true`` (any case), as Heat reads it.
    """
    type_name = definition.get("Type")
    if type_name not in CFN_TYPES:
        raise exception.InvalidSchemaError(message=f"Invalid type ({type_name})")
    schema = ParameterSchema(
        CFN_TYPES[type_name], description=definition.get("Description"),
        default=definition.get("Default"), constraints=list(_constraints(definition)),
        hidden=str(definition.get("NoEcho", "false")).lower() == "true",
        label=definition.get("Label"), type_names=CFN_TYPES)
    schema.check_constraint_types()
    return schema
