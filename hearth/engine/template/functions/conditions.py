"""Condition functions (equals, not, and, or) and the ``if`` macro."""

from __future__ import annotations

from typing import Any

from hearth.common import exception
from hearth.engine.template.function import ABSENT, Function, Macro, resolve
from hearth.engine.template.functions.arguments import is_list, unpack_list


def condition_value(function: Function, condition: Any) -> bool:
    """Return the truth of a condition: a bool, a condition name or an expression."""
    if isinstance(condition, bool):
        return condition
    if isinstance(condition, str):
        try:
            return function.context.condition(condition)
        except exception.StackValidationFailed as exc:
            raise (exc if exc.path else exc.prefixed(*function.path, line=function.line)) from None
    value = resolve(condition)
    if not isinstance(value, bool):
        raise function.error(f"The condition value should be boolean, after resolved the value "
                             f"is: {value!r}")
    return value


class Equals(Function):
    """Return whether two values are equal."""

    usage = "[value_1, value_2]"

    def validate(self) -> None:
        """Check the shape: exactly two values."""
        super().validate()
        if not isinstance(self.args, Function):
            unpack_list(self, self.args, 2, 2, self.usage)

    def result(self) -> bool:
        """Return ``value_1 == value_2`` after resolving both."""
        first, second = unpack_list(self, resolve(self.args), 2, 2, self.usage)
        return bool(first == second)


class Not(Function):
    """Return the negation of a condition."""

    usage = "[condition]"

    def validate(self) -> None:
        """Check that a condition is given."""
        super().validate()
        if not self.args and not isinstance(self.args, bool):
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form: {self.usage}')

    def result(self) -> bool:
        """Return ``not condition``."""
        self.validate()
        return not condition_value(self, self.args)


class And(Function):
    """Return whether all of at least two conditions are true."""

    usage = "[condition_1, condition_2, ...]"

    def validate(self) -> None:
        """Check the shape: a list of at least two conditions."""
        super().validate()
        self._arguments()

    def _arguments(self) -> list[Any]:
        if not is_list(self.args):
            raise self.error(f'Arguments to "{self.fn_name}" must be a list of conditions')
        if len(self.args) < 2:
            raise self.error(f'The minimum number of condition arguments to "{self.fn_name}" '
                             f'is 2.')
        return list(self.args)

    def conditions(self) -> list[bool]:
        """Return the truth of each condition, in order."""
        return [condition_value(self, item) for item in self._arguments()]

    def result(self) -> bool:
        """Return whether every condition is true."""
        return all(self.conditions())


class Or(And):
    """Return whether any of at least two conditions is true."""

    def result(self) -> bool:
        """Return whether some condition is true."""
        return any(self.conditions())


class If(Macro):
    """Choose one of two values by a condition."""

    usage = "[condition_name, value_if_true, value_if_false]"
    #: list items parsed as condition expressions, not as normal snippets
    condition_arguments = (0,)
    minimum_args = 3

    def _arguments(self) -> list[Any]:
        return unpack_list(self, self.args, self.minimum_args, 3, self.usage)

    @property
    def parsed(self) -> Any:
        """Return the chosen branch (evaluated once, on first use)."""
        if "_parsed" not in self.__dict__:
            condition, when_true, *when_false = self._arguments()
            chosen = when_true if condition_value(self, condition) else (
                when_false[0] if when_false else ABSENT)
            self.__dict__["_parsed"] = chosen
        return self.__dict__["_parsed"]

    def validate(self) -> None:
        """Check the shape, then validate the chosen branch."""
        if not is_list(self.args):
            self._arguments()
        super().validate()


class IfNullable(If):
    """Choose a value by a condition; without a false value the item is dropped."""

    usage = "[condition_name, value_if_true, (value_if_false)]"
    minimum_args = 2
