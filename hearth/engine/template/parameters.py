"""Template parameters: schemas, values with Heat's conversions, validation.

A :class:`Parameters` object holds one :class:`Parameter` per declared
parameter plus the pseudo parameters of the template's format (see
:mod:`~hearth.engine.template.pseudo_parameters`).  A HOT declaration is read here
(:func:`schema_from_definition`), a CloudFormation one by
:mod:`~hearth.engine.template.parameters_cfn`; the template version says
which.  Values come from the user (``-P`` and the environment's
``parameters``), defaults from the template or the environment's
``parameter_defaults``.  Every error names the parameter and, where the
template is located, the line of its declaration.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from hearth.common import document_bounds, exception
from hearth.common.located import line_of
from hearth.common.secret_mask import SECRET_MASK
from hearth.engine import constraints as constr

#: HOT type name → schema type
HOT_TYPES = {
    "string": constr.STRING,
    "number": constr.NUMBER,
    "comma_delimited_list": constr.LIST,
    "json": constr.MAP,
    "boolean": constr.BOOLEAN,
}
#: schema type → the ``Type`` the validate API shows
API_TYPES = {
    constr.STRING: "String",
    constr.NUMBER: "Number",
    constr.LIST: "CommaDelimitedList",
    constr.MAP: "Json",
    constr.BOOLEAN: "Boolean",
}
#: constraint class → validate API keys for its (attribute, key) pairs
API_CONSTRAINT_KEYS: dict[type, tuple[tuple[str, str], ...]] = {
    constr.Length: (("min", "MinLength"), ("max", "MaxLength")),
    constr.Range: (("min", "MinValue"), ("max", "MaxValue")),
    constr.Modulo: (("step", "Step"), ("offset", "Offset")),
    constr.AllowedValues: (("allowed", "AllowedValues"),),
    constr.AllowedPattern: (("pattern", "AllowedPattern"),),
    constr.CustomConstraint: (("constraint_name", "CustomConstraint"),),
}
#: keys allowed inside a constraint body that is a map
_BOUND_KEYS = {"range": ("min", "max"), "length": ("min", "max"),
               "modulo": ("step", "offset")}

class ParameterSchema(constr.Schema):
    """The schema of one parameter: type, constraints, hidden, tags.

    ``type_names`` is how the declaring template names the types (HOT's
    ``number``, CloudFormation's ``Number``), for messages.
    """

    def __init__(self, data_type: str, description: str | None = None, default: Any = None,
                 constraints: Sequence[constr.Constraint] | None = None, hidden: bool = False,
                 label: str | None = None, immutable: bool = False,
                 tags: Sequence[str] | None = None,
                 type_names: Mapping[str, str] = HOT_TYPES) -> None:
        super().__init__(data_type, description=description, default=default,
                         constraints=constraints, label=label, immutable=immutable)
        self.hidden = hidden
        self.tags = list(tags or [])
        self.type_names = type_names

    def type_label(self) -> str:
        """Return the type as the template spells it (``number``), as Heat's messages do."""
        return next((name for name, schema_type in self.type_names.items()
                     if schema_type == self.type), self.type)

    def hot_type(self) -> str:
        """Return HOT's name of the type (``comma_delimited_list``), whatever the format."""
        return next((name for name, schema_type in HOT_TYPES.items()
                     if schema_type == self.type), self.type)

    def validate_default(self, context: Any = None) -> None:
        """Check the default, split first for comma_delimited_list (as Heat)."""
        if self.default is None:
            return
        try:
            value = parse_list(self.default) if self.type == constr.LIST else self.default
            self.validate_constraints(value, context, (constr.CustomConstraint,))
        except (ValueError, TypeError) as exc:
            raise exception.InvalidSchemaError(
                message=f"Invalid default {self.default} ({exc})") from exc


def _flag(value: Any) -> bool:
    # Heat takes hidden/immutable by truthiness: even the string "false" hides.
    return bool(value)


def bound(key: str, body: Mapping[str, Any]) -> Any:
    """Return a range or length bound as a number (as given when it is not one)."""
    value = body.get(key)
    if value is None or isinstance(value, bool):
        return value
    try:
        return constr.str_to_num(value)
    except (ValueError, TypeError):
        return value  # the constraint class reports "must be numeric"


def _constraint_from_definition(item: Any, allowed_names: frozenset[str]) -> constr.Constraint:
    """Build one constraint from ``{name: body, description: ...}``."""
    if not isinstance(item, Mapping):
        raise exception.InvalidSchemaError(
            message="Invalid parameter constraints, expected a mapping")
    for key in item:
        if key != "description" and key not in allowed_names:
            raise exception.InvalidSchemaError(
                message=f"Invalid key '{key}' for parameter constraints."
                        + exception.did_you_mean(key, sorted(allowed_names)))
    names = [key for key in item if key != "description"]
    if not names:
        raise exception.InvalidSchemaError(message="No constraint expressed")
    name, body = names[0], item[names[0]]
    description = item.get("description")
    if name in _BOUND_KEYS:
        if not isinstance(body, Mapping):
            raise exception.InvalidSchemaError(
                message=f"Invalid {name} constraint, expected a mapping")
        for key in body:
            if key not in _BOUND_KEYS[name]:
                raise exception.InvalidSchemaError(
                    message=f"Invalid key '{key}' for {name} constraint")
        first, second = _BOUND_KEYS[name]
        return constr.CONSTRAINT_CLASSES[name](bound(first, body), bound(second, body),
                                               description=description)
    return constr.CONSTRAINT_CLASSES[name](body, description=description)


def schema_from_definition(definition: Mapping[str, Any],
                           constraint_names: frozenset[str]) -> ParameterSchema:
    """Return the schema of a parameter declared by ``definition``."""
    hot_type = definition.get("type")
    if hot_type not in HOT_TYPES:
        raise exception.InvalidSchemaError(message=f"Invalid type ({hot_type})")
    items = definition.get("constraints")
    if items is not None and not isinstance(items, list):
        raise exception.InvalidSchemaError(message="Invalid parameter constraints, expected "
                                                   "a list")
    tags = definition.get("tags")
    if tags is not None and not isinstance(tags, list):
        raise exception.InvalidSchemaError(message="Tags property should be a list")
    schema = ParameterSchema(
        HOT_TYPES[hot_type], description=definition.get("description"),
        default=definition.get("default"),
        constraints=[_constraint_from_definition(item, constraint_names)
                     for item in items or ()],
        hidden=_flag(definition.get("hidden", False)), label=definition.get("label"),
        immutable=_flag(definition.get("immutable", False)), tags=tags)
    schema.check_constraint_types()
    return schema


# --- values: one parser per schema type ----------------------------------

def parse_list(value: Any) -> list[str]:
    """Convert a comma_delimited_list value: a list (items as text) or ``"a,b"``."""
    if isinstance(value, list):
        return [str(item) for item in value]
    if value == "":
        return []
    try:
        items: list[str] = value.split(",")
    except AttributeError as exc:
        raise ValueError(f"Value must be a comma-delimited list string: {exc}") from None
    return items


def parse_json(value: Any) -> Any:
    """Convert a json value: a map/list, or JSON text (empty text stays empty)."""
    try:
        text = value if isinstance(value, str) else json.dumps(value)
        return document_bounds.load_json(text) if text else value
    except (ValueError, TypeError) as exc:
        raise ValueError(f"Value must be valid JSON: {exc}") from None


def parse_number(value: Any) -> int | float:
    """Convert a number value (an int or float, or its text)."""
    if isinstance(value, bool):
        raise ValueError(f"could not convert {value!r} to a number")
    return constr.str_to_num(value)


#: schema type → (convert the raw value, validate its constraints after conversion?)
_PARSERS: dict[str, tuple[Callable[[Any], Any], bool]] = {
    constr.STRING: (str, False),
    constr.NUMBER: (parse_number, False),
    constr.BOOLEAN: (constr.bool_from_string, False),
    constr.LIST: (parse_list, True),
    constr.MAP: (parse_json, True),
}


class Parameter:
    """One parameter: its schema, the user's value and a default override.

    ``section`` is how the template spells its parameters section (errors
    are located at ``<section>.<name>``).
    """

    __slots__ = ("name", "schema", "user_value", "user_default", "line", "section")

    def __init__(self, name: str, schema: ParameterSchema, user_value: Any = None,
                 user_default: Any = None, line: int | None = None,
                 section: str = "parameters") -> None:
        self.name = name
        self.schema = schema
        self.user_value = user_value
        self.user_default = user_default
        self.line = line
        self.section = section

    def has_default(self) -> bool:
        """Return whether a template or environment default exists."""
        return self.user_default is not None or self.schema.default is not None

    def default(self) -> Any:
        """Return the default (the environment's parameter_defaults first)."""
        return self.user_default if self.user_default is not None else self.schema.default

    def raw_value(self) -> Any:
        """Return the value as given (user value, else default); raise if none."""
        if self.user_value is not None:
            return self.user_value
        if self.has_default():
            return self.default()
        raise exception.UserParameterMissing(key=self.name)

    def value(self) -> Any:
        """Return the value converted to the parameter's type."""
        parse, _ = _PARSERS[self.schema.type]
        try:
            return parse(self.raw_value())
        except (ValueError, TypeError) as exc:
            raise self._invalid(str(exc)) from None

    def validate(self, validate_value: bool = True, context: Any = None) -> None:
        """Check the schema's default, and the value when ``validate_value``."""
        try:
            self.schema.validate_default(context)
        except exception.InvalidSchemaError as exc:
            raise self._invalid(str(exc)) from None
        if not validate_value:
            return
        raw = self.raw_value()
        parse, constrain_parsed = _PARSERS[self.schema.type]
        try:
            parsed = parse(raw)
            if self.schema.type != constr.MAP:
                self.schema.validate_constraints(parsed if constrain_parsed else raw, context)
        except (ValueError, TypeError) as exc:
            raise self._invalid(str(exc)) from None

    def _invalid(self, reason: str) -> exception.InvalidParameterValue:
        return exception.InvalidParameterValue(
            f"Parameter '{self.name}' is invalid: {reason}",
            path=[self.section, self.name], line=self.line)

    def display_value(self) -> str:
        """Return the value as text, ``******`` when hidden."""
        if self.schema.hidden:
            return SECRET_MASK
        value = self.value()
        if self.schema.type == constr.LIST:
            return ",".join(value)
        if self.schema.type == constr.MAP:
            return json.dumps(value)
        return str(value)

    def validate_output(self) -> dict[str, Any]:
        """Return this parameter's entry of the validate API's ``Parameters``."""
        result: dict[str, Any] = {
            "Type": API_TYPES[self.schema.type],
            "Description": self.schema.description or "",
            "NoEcho": "true" if self.schema.hidden else "false",
            "Label": self.schema.label or self.name,
        }
        if self.has_default():
            result["Default"] = self.default()
        if self.user_value:
            result["Value"] = self.user_value
        if self.schema.tags:
            result["Tags"] = self.schema.tags
        descriptions = []
        for constraint in self.schema.constraints:
            for attribute, key in API_CONSTRAINT_KEYS[type(constraint)]:
                value = getattr(constraint, attribute)
                if value is not None:
                    result[key] = list(value) if isinstance(value, tuple) else value
            if constraint.description:
                descriptions.append(constraint.description)
        if descriptions:
            result["ConstraintDescription"] = " ".join(descriptions)
        return result


class Parameters(Mapping[str, Any]):
    """All parameters of a template, as a mapping name → converted value.

    ``version`` (a TemplateVersion) says how declarations are read, which
    pseudo parameters exist and how the section is spelled;
    ``schema_section`` is the template's ``parameters`` section,
    ``user_params`` the user's values (``-P``), ``env_params`` the
    environment's ``parameters`` (the user's win) and ``param_defaults``
    the environment's ``parameter_defaults``.
    """

    def __init__(self, version: Any, schema_section: Mapping[str, Any] | None,
                 user_params: Mapping[str, Any] | None = None,
                 env_params: Mapping[str, Any] | None = None,
                 param_defaults: Mapping[str, Any] | None = None,
                 validate_value: bool = True, *, stack_name: str | None = None,
                 stack_id: str | None = None, project_id: str | None = None,
                 filename: str | None = None) -> None:
        section = schema_section or {}
        self.filename = filename
        self.version = version
        self.section = section
        self.user_params = {**(env_params or {}), **(user_params or {})}
        self.validate_value = validate_value
        defaults = param_defaults or {}
        self.section_name = version.spell("parameters")
        self.params: dict[str, Parameter] = {}
        for name, definition in section.items():
            self.params[name] = Parameter(
                name, self._schema(name, definition), self.user_params.get(name),
                defaults.get(name), line_of(section, name), self.section_name)
        self.pseudo_names = tuple(pseudo.name for pseudo in version.pseudo_parameters)
        for pseudo in version.pseudo_parameters:
            value = pseudo.value(stack_name or "", stack_id, project_id)
            self.params[pseudo.name] = Parameter(pseudo.name, ParameterSchema(
                constr.STRING, description=pseudo.description, default=value))

    def _schema(self, name: str, definition: Any) -> ParameterSchema:
        try:
            schema: ParameterSchema = self.version.parameter_reader(
                definition, frozenset(self.version.constraint_names))
            return schema
        except exception.InvalidSchemaError as exc:
            raise exception.InvalidParameterValue(
                f"Parameter '{name}' is invalid: {exc}", path=[self.section_name, name],
                line=line_of(self.section, name), filename=self.filename) from None

    def validate(self, context: Any = None) -> None:
        """Check for unknown user parameters, then every parameter in order."""
        for name in self.user_params:
            if name not in self.section:
                raise exception.UnknownUserParameter(
                    name, exception.did_you_mean(name, self.section))
        for name in self.section:
            try:
                self.params[name].validate(self.validate_value, context)
            except exception.StackValidationFailed as exc:
                raise exc.located(self.filename) from None

    def __contains__(self, name: object) -> bool:
        """Return whether ``name`` is declared (or pseudo); its value is not computed.

        Mapping's default would read the value, so a parameter whose value
        is not known yet (a provider template's property fed by another
        resource's attribute, while validating) would seem undeclared.
        """
        return name in self.params

    def __getitem__(self, name: str) -> Any:
        if name not in self.params:
            raise KeyError(name)
        try:
            return self.params[name].value()
        except exception.StackValidationFailed as exc:
            raise exc.located(self.filename) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)

    def hidden_names(self) -> tuple[str, ...]:
        """Return the names of the hidden parameters (HOT's ``hidden``, CFN's ``NoEcho``)."""
        return tuple(name for name, param in self.params.items() if param.schema.hidden)

    def non_pseudo_names(self) -> list[str]:
        """Return the declared parameter names, in template order."""
        return [name for name in self.params if name not in self.pseudo_names]

    def validate_output(self) -> dict[str, dict[str, Any]]:
        """Return the validate API's ``Parameters`` object."""
        return {name: self.params[name].validate_output() for name in self.non_pseudo_names()}

    def display_values(self) -> dict[str, str]:
        """Return every parameter's value as text (hidden ones as ``******``)."""
        return {name: param.display_value() for name, param in self.params.items()}

    def immutable_modified(self, new: Parameters) -> list[str]:
        """Return the immutable parameters whose value differs in ``new``."""
        return [name for name in self.non_pseudo_names()
                if name in new.params and new.params[name].schema.immutable
                and self.params[name].value() != new.params[name].value()]


def validate_parameter_groups(groups: Any, parameter_names: Sequence[str],
                              filename: str | None = None) -> None:
    """Check ``parameter_groups`` as Heat does.

    It must be a list of groups, each naming known parameters, and no
    parameter may be in two groups.
    """
    if not groups:
        return

    def fail(message: str, label: Any = None, line: int | None = None
             ) -> exception.StackValidationFailed:
        path = ["parameter_groups"] if label is None else ["parameter_groups", label]
        return exception.StackValidationFailed(message, error="Parameter Groups error",
                                               path=path, line=line or line_of(groups),
                                               filename=filename)

    if not isinstance(groups, list):
        raise fail("The parameter_groups should be a list.")
    seen: list[Any] = []
    for group in groups:
        label = group.get("label", "") if isinstance(group, Mapping) else ""
        members = group.get("parameters") if isinstance(group, Mapping) else None
        line = line_of(group)
        if members is None:
            raise fail("The parameters must be provided for each parameter group.", label, line)
        if not isinstance(members, list):
            raise fail("The parameters of parameter group should be a list.", label, line)
        for index, name in enumerate(members):
            line = line_of(members, index)
            if name in seen:
                raise fail(f"The {name} parameter must be assigned to one parameter "
                           "group only.", label, line)
            seen.append(name)
            if name not in parameter_names:
                raise fail(f"The grouped parameter {name} does not reference a valid "
                           f"parameter.{exception.did_you_mean(name, parameter_names)}",
                           label, line)
