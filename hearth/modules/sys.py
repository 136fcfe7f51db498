"""Introspect the loaded execution modules: docs, function lists, argspecs, reload."""

from __future__ import annotations

import fnmatch
import inspect
from typing import Any

__virtualname__ = "sys"


def _matching(patterns: tuple[str, ...]) -> list[str]:
    names = list(__salt__)  # noqa: F821 - injected by the loader; loads every module
    if not patterns:
        return names
    selected = set()
    for pattern in patterns:
        glob = pattern if any(ch in pattern for ch in "*?[") or "." in pattern else pattern + ".*"
        selected.update(name for name in names if fnmatch.fnmatchcase(name, glob))
    return sorted(selected)


def doc(*args: str) -> dict[str, str | None]:
    """Return the docstrings of the functions matching the globs (all without one).

    CLI Example: ``stackctl call sys.doc test``
    """
    return {name: __salt__.function(name).doc for name in _matching(args)}  # noqa: F821


def list_functions(*args: str) -> list[str]:
    """Return the sorted ``module.function`` names matching the globs."""
    return _matching(args)


def list_modules(*args: str) -> list[str]:
    """Return the sorted names of the loaded modules matching the globs."""
    modules = sorted(__salt__.modules)  # noqa: F821
    if not args:
        return modules
    return sorted({m for m in modules for glob in args if fnmatch.fnmatchcase(m, glob)})


def argspec(module: str = "") -> dict[str, Any]:
    """Return each matching function's args, defaults, varargs and kwargs."""
    result = {}
    for name in _matching((module,) if module else ()):
        signature = inspect.signature(__salt__[name])  # noqa: F821
        params = signature.parameters.values()
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        defaults = [p.default for p in positional if p.default is not p.empty]
        result[name] = {
            "args": [p.name for p in positional] or None,
            "defaults": defaults or None,
            "varargs": any(p.kind == p.VAR_POSITIONAL for p in params),
            "kwargs": any(p.kind == p.VAR_KEYWORD for p in params),
        }
    return result


def reload_modules() -> bool:
    """Reload every module (refused ones are evaluated again); return True."""
    __salt__.refresh()  # noqa: F821
    return True
