"""Read the pillar data given to this host (``__pillar__``)."""

from __future__ import annotations

from typing import Any

from hearth.utils.data import traverse


def get(key: str, default: Any = "", merge: bool = False, delimiter: str = ":") -> Any:
    """Return the pillar value ``key`` (``a:b`` paths); ``default`` when missing.

    With ``merge`` and dict values, ``default`` is merged under the value.
    """
    value = traverse(__pillar__, key, default, delimiter)  # noqa: F821
    if merge and isinstance(value, dict) and isinstance(default, dict):
        return {**default, **value}
    return value


def items(*args: Any) -> dict[str, Any]:
    """Return all pillar data."""
    return dict(__pillar__)  # noqa: F821


def item(*keys: str, default: Any = "", delimiter: str = ":") -> dict[str, Any]:
    """Return ``{key: value}`` for each named key."""
    return {key: get(key, default, delimiter=delimiter) for key in keys}


def ls() -> list[str]:
    """Return the sorted top-level pillar keys."""
    return sorted(__pillar__)  # noqa: F821
