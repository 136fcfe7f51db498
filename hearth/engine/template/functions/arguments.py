"""Shared argument checks of the intrinsic functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hearth.engine.template.function import Function


def is_list(value: Any) -> bool:
    """Return whether ``value`` is a list-like sequence (not a string)."""
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def is_map(value: Any) -> bool:
    """Return whether ``value`` is a mapping."""
    return isinstance(value, Mapping)


def unpack_list(function: Function, args: Any, minimum: int, maximum: int | None,
                usage: str) -> list[Any]:
    """Return ``args`` of ``function`` as a list of ``minimum``..``maximum`` items.

    ``args`` are the parsed arguments at validation time or the resolved
    ones at run time.  ``usage`` is the expected shape shown in the error.
    """
    if not is_list(args) or len(args) < minimum or (maximum is not None and len(args) > maximum):
        raise function.error(f'Arguments to "{function.fn_name}" must be of the form: {usage}')
    return list(args)


def unpack_map(function: Function, args: Any, required: Sequence[str],
               optional: Sequence[str], usage: str) -> dict[str, Any]:
    """Return ``args`` of ``function`` as a map with the required and allowed keys."""
    if not is_map(args) or not set(required) <= set(args):
        raise function.error(f'Arguments to "{function.fn_name}" must be of the form: {usage}')
    unknown = sorted(str(key) for key in args if key not in required and key not in optional)
    if unknown:
        raise function.error(f'"{function.fn_name}" has unknown arguments: {", ".join(unknown)}. '
                             f'Expected the form: {usage}')
    return dict(args)


def is_literal(value: Any) -> bool:
    """Return whether ``value`` contains no function call (known before resolution)."""
    if isinstance(value, Function):
        return False
    if is_map(value):
        return all(is_literal(v) for v in value.values())
    if is_list(value):
        return all(is_literal(v) for v in value)
    return True
