"""Small helpers on nested data, shared by the grains and pillar modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def traverse(data: Any, key: str, default: Any = None, delimiter: str = ":") -> Any:
    """Return ``data[a][b]...`` for the key ``a:b:...``, or ``default`` when any step is missing.

    List elements are reached by their index (``users:0:name``).
    """
    value = data
    for part in str(key).split(delimiter):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.lstrip("-").isdigit() and \
                -len(value) <= int(part) < len(value):
            value = value[int(part)]
        else:
            return default
    return value
