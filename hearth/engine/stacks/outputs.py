"""Resolve a stack's outputs on demand, each with its own error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from hearth.engine.resources import shown
from hearth.engine.template import function

if TYPE_CHECKING:
    from hearth.engine.template.context import ResolutionContext
    from hearth.engine.template.template import Template


class Declaring(Protocol):
    """What lists a stack's outputs: its template and the context they resolve in."""

    @property
    def template(self) -> Template:
        """Return the stack's template."""

    @property
    def context(self) -> ResolutionContext:
        """Return the context the outputs resolve in."""


class Resolving(Declaring, Protocol):
    """What resolves a stack's outputs: a :class:`~hearth.engine.stacks.stack.Stack`."""

    def secrets(self) -> list[str]:
        """Return the values no output may show."""


def _field(definition: Any, key: str) -> Any:
    if isinstance(definition, Mapping):
        return definition.get(key)
    return getattr(definition, key, None)


def description(definition: Any) -> str:
    """Return an output's description (Heat's default when it has none)."""
    return _field(definition, "description") or "No description given"


def output_definitions(stack: Declaring) -> dict[str, Any]:
    """Return ``{key: output definition}`` of the stack's template (parsed snippets).

    As Heat, an output whose condition is false is kept, in template order,
    with no value: it is listed and shown with ``output_value`` null.
    """
    enabled = dict(stack.template.outputs(stack.context) or {})
    declared = stack.template.section("outputs") or {}
    description_key = stack.template.key("description")
    return {key: enabled[key] if key in enabled else _disabled(raw, description_key)
            for key, raw in declared.items()}


def _disabled(raw: Any, description_key: str) -> dict[str, Any]:
    return {"value": None, "description": _field(raw, description_key)}


def list_outputs(stack: Declaring) -> list[dict[str, Any]]:
    """Return ``[{"output_key", "description"}]`` without resolving values."""
    return [{"output_key": key, "description": description(definition)}
            for key, definition in output_definitions(stack).items()]


def resolve_output(stack: Resolving, key: str, definition: Any) -> dict[str, Any]:
    """Return one output object; a resolution error goes to ``output_error``."""
    result: dict[str, Any] = {"output_key": key, "description": description(definition)}
    try:
        value = function.resolve(_field(definition, "value"))
        result["output_value"] = shown.mask(value, stack.secrets())
    except Exception as error:  # noqa: BLE001 - each output carries its own error
        result["output_value"] = None
        # as Heat: the error alone (the output's key already says where)
        result["output_error"] = getattr(error, "error_message", None) or str(error)
    return result


def resolve_outputs(stack: Resolving) -> list[dict[str, Any]]:
    """Return every output object, in template order."""
    return [resolve_output(stack, key, definition)
            for key, definition in output_definitions(stack).items()]
