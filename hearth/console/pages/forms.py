"""Launch and update forms built from a template's parameters, as Heat validates them.

The fields come from the API's template validation (Heat's
``POST /validate`` answer: each parameter's type, label, description,
default, ``NoEcho`` and constraints), as Horizon builds its launch form: a
choice for ``AllowedValues``, a password field for a hidden parameter, a
checkbox for a boolean, a number field with its range.  The constraints
shown are hints; the engine checks them and its error says which failed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.common.secret_mask import SECRET_MASK

#: Form fields of parameters are named with this prefix (``param:NAME``).
PREFIX = "param:"


@dataclass
class ParameterField:
    """One parameter of the form."""

    name: str
    label: str
    description: str
    kind: str  # text, password, number, checkbox, select, textarea
    value: str
    choices: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    required: bool = False

    @property
    def field_name(self) -> str:
        """Return the form field's name."""
        return PREFIX + self.name


def _hints(schema: Mapping[str, Any]) -> list[str]:
    hints = []
    for low, high, what in (("MinLength", "MaxLength", "characters"),
                            ("MinValue", "MaxValue", "")):
        if low in schema or high in schema:
            bounds = (f"at least {schema[low]}" if low in schema else "",
                      f"at most {schema[high]}" if high in schema else "")
            hints.append(" and ".join(b for b in bounds if b) + (f" {what}" if what else ""))
    if schema.get("AllowedPattern"):
        hints.append(f"matches {schema['AllowedPattern']}")
    if schema.get("ConstraintDescription"):
        hints.append(str(schema["ConstraintDescription"]))
    return hints


def _kind(schema: Mapping[str, Any]) -> str:
    if schema.get("AllowedValues"):
        return "select"
    if str(schema.get("NoEcho")).lower() == "true":
        return "password"
    return {"Number": "number", "Boolean": "checkbox", "Json": "textarea",
            "CommaDelimitedList": "text"}.get(str(schema.get("Type")), "text")


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value)
    return str(value)


def parameter_fields(validation: Mapping[str, Any], current: Mapping[str, Any],
                     posted: Mapping[str, Any]) -> list[ParameterField]:
    """Return the fields of a template's parameters.

    A field's value is what was posted, else the stack's ``current`` value
    (a hidden one never: the API masks it), else the default.
    """
    fields = []
    for name, schema in (validation.get("Parameters") or {}).items():
        kind = _kind(schema)
        if PREFIX + name in posted and kind != "password":
            value = _text(posted[PREFIX + name])
        elif name in current and current[name] != SECRET_MASK and kind != "password":
            value = _text(current[name])
        else:
            value = "" if kind == "password" else _text(schema.get("Default"))
        fields.append(ParameterField(
            name=name, label=str(schema.get("Label") or name),
            description=str(schema.get("Description") or ""), kind=kind, value=value,
            choices=[_text(choice) for choice in schema.get("AllowedValues") or ()],
            hints=_hints(schema), required="Default" not in schema and name not in current))
    return fields


def parameter_values(form: Mapping[str, Any]) -> dict[str, str]:
    """Return the parameters a posted form gives (an empty hidden field gives none).

    A checkbox's field is ``"true"`` when ticked; the form sends a hidden
    ``"false"`` before it, so an unticked box says false.
    """
    values = {}
    for key, value in form.items():
        if key.startswith(PREFIX) and isinstance(value, str):
            if value == "" and form.get(f"hidden:{key[len(PREFIX):]}"):
                continue
            values[key[len(PREFIX):]] = value
    return values
