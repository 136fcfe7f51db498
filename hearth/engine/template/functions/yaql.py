"""The ``yaql`` function: evaluate a yaql expression over data, with limits."""

from __future__ import annotations

import collections.abc  # noqa: F401 - yaql uses collections.abc without importing it
import functools
from typing import Any

from hearth.common import config
from hearth.engine.template.function import Function, resolve
from hearth.engine.template.functions.arguments import is_map, unpack_map


@functools.lru_cache(maxsize=1)
def _yaql() -> Any:
    """Return the yaql library (its factory loaded), imported on first use."""
    # lazy: yaql (tens of ms) only for templates that call yaql
    import yaql.language.factory

    return yaql


@functools.lru_cache(maxsize=4)
def _parser(limit_iterators: int, memory_quota: int) -> Any:
    """Return a yaql parser with the given limits (one per limit pair)."""
    return _yaql().language.factory.YaqlFactory().create(options={
        "yaql.limitIterators": limit_iterators,
        "yaql.memoryQuota": memory_quota,
        "yaql.convertTuplesToLists": True,
        "yaql.convertSetsToLists": True,
    })


@functools.lru_cache(maxsize=1)
def _root_context() -> Any:
    return _yaql().create_context()


class Yaql(Function):
    """Evaluate a yaql expression over the given data."""

    usage = '{"expression": string, "data": any}'

    def _arguments(self, args: Any) -> tuple[Any, Any]:
        if not is_map(args):
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form: {self.usage}')
        parts = unpack_map(self, args, ("expression", "data"), (), self.usage)
        return parts["expression"], parts["data"]

    def _parse(self, expression: Any) -> Any:
        if not isinstance(expression, str):
            raise self.error(f'The "expression" argument to {self.fn_name} must contain a '
                             f'string.')
        config.register_opts()
        limits = config.CONF.yaql
        try:
            return _parser(limits.limit_iterators, limits.memory_quota)(expression)
        except Exception as exc:  # noqa: BLE001 - yaql raises many unrelated exception types
            raise self.error(f"Bad expression {exc}.") from None

    def validate(self) -> None:
        """Check the shape and parse a literal expression."""
        super().validate()
        if isinstance(self.args, Function):
            return
        expression, _data = self._arguments(self.args)
        if not isinstance(expression, Function):
            self._parse(expression)

    def result(self) -> Any:
        """Return the expression's value with the data as ``$.data``."""
        expression, data = self._arguments(resolve(self.args))
        statement = self._parse(expression)
        try:
            return statement.evaluate({"data": data}, _root_context().create_child_context())
        except Exception as exc:  # noqa: BLE001 - any yaql failure is the template's error
            raise self.error(str(exc)) from None
