"""The contract check of a loaded module: ``__init__(opts)`` then ``__virtual__()``.

``__virtual__`` decides whether a module loads and under which name.  Each
kind of answer maps to one outcome in :data:`VIRTUAL_OUTCOMES`; a refusal
is raised as an exception that the loader keeps as the module's reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from hearth.common import exception

LOG = logging.getLogger(__name__)


def _accept(module: ModuleType, name: str, answer: Any) -> str:
    return getattr(module, "__virtualname__", name)


def _rename(module: ModuleType, name: str, answer: str) -> str:
    static = getattr(module, "__virtualname__", None)
    if static and static != answer:
        LOG.error("module %s: __virtual__ returned %r but __virtualname__ is %r; "
                  "using __virtualname__", name, answer, static)
        return static
    return answer


def _refuse(module: ModuleType, name: str, answer: Any) -> str:
    raise exception.ModuleRefused(name=name)


def _refuse_with_reason(module: ModuleType, name: str, answer: tuple) -> str:
    if answer[0]:
        return _accept(module, name, answer[0])
    raise exception.ModuleNotAvailable(name=name, reason=answer[1])


def _refuse_none(module: ModuleType, name: str, answer: None) -> str:
    LOG.warning("module %s: __virtual__ is wrongly returning None", name)
    raise exception.ModuleRefused(name=name)


def _classify(answer: Any) -> str:
    """Return the kind of a ``__virtual__`` answer, a key of VIRTUAL_OUTCOMES."""
    if answer is None:
        return "none"
    if isinstance(answer, tuple) and len(answer) == 2:
        return "tuple"
    if isinstance(answer, str):
        return "name"
    return "true" if answer else "false"


#: What each kind of ``__virtual__`` answer does.
VIRTUAL_OUTCOMES: dict[str, Callable[[ModuleType, str, Any], str]] = {
    "true": _accept,
    "name": _rename,
    "false": _refuse,
    "tuple": _refuse_with_reason,
    "none": _refuse_none,
}


def run_init(module: ModuleType, name: str, opts: Mapping[str, Any]) -> None:
    """Run the module's optional ``__init__(opts)`` hook; a failure refuses the module."""
    hook = module.__dict__.get("__init__")
    if not callable(hook):
        return
    try:
        hook(opts)
    except Exception as error:  # noqa: BLE001 - kept as the module's reason
        raise exception.ModuleNotAvailable(
            name=name, reason=f"__init__ failed: {type(error).__name__}: {error}") from error


def virtual_name(module: ModuleType, name: str) -> str:
    """Return the name ``module`` registers under, or raise its refusal.

    A module without ``__virtual__`` loads under ``__virtualname__`` or its
    file name ``name``.
    """
    gate = module.__dict__.get("__virtual__")
    if not callable(gate):
        return _accept(module, name, True)
    try:
        answer = gate()
    except Exception as error:  # noqa: BLE001 - kept as the module's reason
        raise exception.ModuleNotAvailable(
            name=name, reason="Exception raised when processing __virtual__ function for "
                              f"{name}. Module will not be loaded: {error}") from error
    return VIRTUAL_OUTCOMES[_classify(answer)](module, name, answer)
