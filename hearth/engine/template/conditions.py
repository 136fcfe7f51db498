"""The ``conditions`` section: named conditions, evaluated lazily once each.

A condition definition is a condition expression (``equals``, ``not``,
``and``, ``or``, ``get_param`` ...) or a boolean; other conditions are named
inside ``not``/``and``/``or`` (Heat refuses a bare name as a whole
definition).  Each is parsed and evaluated on first use and remembered; a
condition that needs itself is reported with the cycle in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.common.located import line_of
from hearth.engine.template.function import resolve
from hearth.engine.template.snippet import parse_condition
from hearth.engine.template.versions import TemplateVersion

if TYPE_CHECKING:
    from hearth.engine.template.context import ResolutionContext


class Conditions:
    """Evaluate the named conditions of one template.

    The context's ``condition(name)`` must call :meth:`is_enabled` of this
    object, so that condition functions referring to other conditions reach
    the same memo and cycle check.
    """

    def __init__(self, version: TemplateVersion, context: ResolutionContext,
                 conditions_section: Mapping[str, Any] | None) -> None:
        self.version = version
        self.context = context
        self.section = conditions_section or {}
        self.section_name = version.spell("conditions")
        if not isinstance(self.section, Mapping):
            raise exception.StackValidationFailed(
                f'The "{self.section_name}" section must be a map of condition names to '
                f'expressions', path=[self.section_name], line=line_of(conditions_section))
        self._values: dict[str, bool] = {}
        self._evaluating: list[str] = []

    def names(self) -> list[str]:
        """Return the names of the defined conditions."""
        return list(self.section)

    def is_enabled(self, name_or_expression: Any, path: tuple[Any, ...] = (),
                   line: int | None = None) -> bool:
        """Return the truth of a condition name, a boolean, or an inline expression.

        ``None`` (no ``condition`` key) is true.  ``path``/``line`` locate
        the reference in errors (a resource's or output's ``condition`` key).
        """
        if name_or_expression is None:
            return True
        if isinstance(name_or_expression, bool):
            return name_or_expression
        if isinstance(name_or_expression, str):
            return self._named(name_or_expression, path, line)
        parsed = parse_condition(self.version, self.context, name_or_expression, path, line)
        return self._truth("condition", resolve(parsed), path, line)

    def evaluate_all(self) -> dict[str, bool]:
        """Evaluate every condition (validation); return name -> truth."""
        return {name: self._named(name, (self.section_name, name), line_of(self.section, name))
                for name in self.section}

    def _named(self, name: str, path: tuple[Any, ...], line: int | None) -> bool:
        if name in self._values:
            return self._values[name]
        if name not in self.section:
            raise exception.StackValidationFailed(
                f'Invalid condition "{name}"' + exception.did_you_mean(name, self.section),
                path=path, line=line)
        if name in self._evaluating:
            cycle = [*self._evaluating[self._evaluating.index(name):], name]
            raise exception.StackValidationFailed(
                "Circular definition of conditions: " + " -> ".join(cycle),
                path=[self.section_name, cycle[0]], line=line_of(self.section, cycle[0]))
        self._evaluating.append(name)
        try:
            where, where_line = (self.section_name, name), line_of(self.section, name)
            parsed = parse_condition(self.version, self.context, self.section[name], where,
                                     where_line)
            value = self._truth(f'condition "{name}"', resolve(parsed), where, where_line)
        finally:
            self._evaluating.pop()
        self._values[name] = value
        return value

    @staticmethod
    def _truth(what: str, value: Any, path: tuple[Any, ...], line: int | None) -> bool:
        if not isinstance(value, bool):
            raise exception.StackValidationFailed(
                f"The definition of {what} is invalid: {value} (a condition must be a "
                f"boolean, a condition name or a condition function)", path=path, line=line)
        return value
