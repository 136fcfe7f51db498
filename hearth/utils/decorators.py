"""Decorators for execution modules: ``depends``, with Salt's semantics.

``@depends`` only *records* what a function needs; the loader checks the
record against the module's globals when it registers the module (under its
registered virtual name), so the check happens once, after ``__virtual__``.
A dependency is satisfied when:

* it is a name of a module global that exists and is truthy (with
  ``version=``, that global's ``__version__`` must be at least ``version``);
* it is the literal ``True`` (``False`` never is);
* with ``retcode=N``: running it as a command (split like a shell would,
  no shell) exits with N; with ``nonzero_retcode=True``/``False``: it exits
  non-zero / zero.

When a dependency is not met, the function is replaced by
``fallback_function`` under the same name, or removed.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

F = Callable[..., Any]


@dataclass(frozen=True)
class Dependencies:
    """What one ``@depends`` line asks for."""

    names: tuple[Any, ...]
    fallback_function: F | None = None
    retcode: int | None = None
    nonzero_retcode: bool | None = None
    version: str | None = None

    @property
    def are_commands(self) -> bool:
        """Return whether the names are commands whose exit code decides."""
        return self.retcode is not None or self.nonzero_retcode is not None


def depends(*dependencies: Any, fallback_function: F | None = None, retcode: int | None = None,
            nonzero_retcode: bool | None = None, version: str | None = None
            ) -> Callable[[F], F]:
    """Declare what the decorated function needs (see the module docstring)."""
    record = Dependencies(tuple(dependencies), fallback_function, retcode, nonzero_retcode,
                          version)

    def decorate(function: F) -> F:
        function.__depends__ = (*getattr(function, "__depends__", ()), record)  # type: ignore[attr-defined]
        return function

    return decorate


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in str(text).split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def _command_exit(command: str) -> int | None:
    try:
        return subprocess.run(shlex.split(command), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, check=False).returncode
    except OSError:
        return None


def _command_met(record: Dependencies, command: str) -> bool:
    code = _command_exit(command)
    if code is None:
        return False
    if record.retcode is not None:
        return code == record.retcode
    return (code != 0) == record.nonzero_retcode


def _name_met(record: Dependencies, name: Any, module_globals: Mapping[str, Any]) -> bool:
    if isinstance(name, bool):
        return name
    value = module_globals.get(name)
    if not value:
        return False
    if record.version is None:
        return True
    found = getattr(value, "__version__", None)
    return found is not None and _version_tuple(found) >= _version_tuple(record.version)


def unmet_dependencies(record: Dependencies, module_globals: Mapping[str, Any]) -> list[str]:
    """Return the dependencies of ``record`` that are not met, as text."""
    check = (lambda name: _command_met(record, name)) if record.are_commands else (
        lambda name: _name_met(record, name, module_globals))
    return [str(name) for name in record.names if not check(name)]


def resolve_depends(function: F, module_globals: Mapping[str, Any]) -> F | None:
    """Return what to register for ``function``: itself, its fallback, or None (removed)."""
    for record in getattr(function, "__depends__", ()):
        if unmet_dependencies(record, module_globals):
            return record.fallback_function
    return function
