"""Choose what a loaded module exports, as ``module.function`` records.

The steps, in order: candidate names (``__load__``, else ``__all__``, else
every global), public names only (no leading underscore), callables
*defined in* the module or its own sub-modules (so a package or a zip's
bundled sub-packages export, imported helpers do not), public names via
``__func_alias__``, ``@depends`` resolved against the module's globals,
and the ``__outputter__`` a function asks for.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from hearth.utils.decorators import resolve_depends


@dataclass(frozen=True)
class LoadedFunction:
    """One exported function, as the loader registered it."""

    key: str
    function: Callable[..., Any]
    module: str
    outputter: str | None = None

    @property
    def doc(self) -> str | None:
        """Return the function's raw docstring (None without one)."""
        return inspect.getdoc(self.function)


def candidate_names(module: ModuleType) -> Iterable[str]:
    """Return the names a module offers: ``__load__``, ``__all__`` or all globals."""
    for attribute in ("__load__", "__all__"):
        names = module.__dict__.get(attribute)
        if names is not None:
            return list(names)
    return list(module.__dict__)


def defined_in(module: ModuleType, value: Any) -> bool:
    """Return whether ``value`` is a function defined in ``module`` (or a sub-module)."""
    if isinstance(value, functools.partial):
        value = value.func
    if not inspect.isfunction(value):
        return False
    origin = getattr(value, "__module__", None) or ""
    return origin == module.__name__ or origin.startswith(module.__name__ + ".")


def exported_functions(module: ModuleType, virtual: str) -> dict[str, LoadedFunction]:
    """Return the functions ``module`` exports under the virtual name ``virtual``."""
    aliases = module.__dict__.get("__func_alias__") or {}
    outputters = module.__dict__.get("__outputter__") or {}
    exported = {}
    for name in candidate_names(module):
        value = module.__dict__.get(name)
        if name.startswith("_") or not defined_in(module, value):
            continue
        resolved = resolve_depends(value, module.__dict__)
        if resolved is None:
            continue
        public = aliases.get(name, name)
        key = f"{virtual}.{public}"
        exported[key] = LoadedFunction(key, resolved, virtual,
                                       outputters.get(public, outputters.get(name)))
    return exported
