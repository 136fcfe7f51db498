"""Inject a family's dunders (``__salt__``, ``__opts__``, ...) into a module.

``__opts__`` is per module: the module's own ``__opts__`` dict (if it
declares one) supplies defaults, and the configuration always wins over
them (Salt applies module defaults over the configuration; Hearth does not).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from hearth.loader.family import ModuleFamily


def module_opts(module: ModuleType, opts: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``opts`` over the module's own ``__opts__`` defaults."""
    own = module.__dict__.get("__opts__")
    defaults = dict(own) if isinstance(own, Mapping) else {}
    defaults.update(opts)
    return defaults


def inject(module: ModuleType, family: ModuleFamily, values: Mapping[str, Any]) -> None:
    """Set each of the family's dunders found in ``values`` on ``module``."""
    for name in family.dunders:
        if name in values:
            setattr(module, name, values[name])
