"""Read and set the grains of this host (``__grains__``)."""

from __future__ import annotations

from typing import Any

from hearth.grains import save_static_grain
from hearth.utils.data import traverse


def items(sanitize: bool = False) -> dict[str, Any]:
    """Return every grain."""
    return dict(__grains__)  # noqa: F821 - injected by the loader


def get(key: str, default: Any = "", delimiter: str = ":") -> Any:
    """Return the grain ``key``; nested values by ``a:b`` paths, ``default`` when missing.

    CLI Example: ``stackctl call grains.get ip4_interfaces:eth0``
    """
    return traverse(__grains__, key, default, delimiter)  # noqa: F821


def item(*keys: str) -> dict[str, Any]:
    """Return the named grains as a dict (missing ones are left out)."""
    return {key: __grains__[key] for key in keys if key in __grains__}  # noqa: F821


def ls() -> list[str]:
    """Return the sorted names of every grain."""
    return sorted(__grains__)  # noqa: F821


def setval(key: str, val: Any, destructive: bool = False) -> dict[str, Any]:
    """Set the static grain ``key`` to ``val`` (kept across runs); return ``{key: val}``."""
    __grains__[key] = val  # noqa: F821
    save_static_grain(__opts__, key, val)  # noqa: F821
    return {key: val}
