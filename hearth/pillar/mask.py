"""Mask pillar values for display, as Salt 3008.3 does (``**********``).

Recorded from Salt 3008.3: ``pillar.items``, ``pillar.get`` and
``pillar.item`` answer with every *truthy* leaf (text, number, boolean,
bytes) replaced by ``**********`` (bytes by ``b'**********'``), inside
dicts and lists alike; keys stay visible, and falsy leaves (``False``,
``''``, ``0``, ``None``) are shown as they are.  ``pillar.raw`` is not
masked.  ``unmask=True`` (``--unmask`` in stackctl) shows the values;
``pillar_mask_output: False`` changes the default of ``pillar.items`` only.
"""

from __future__ import annotations

from typing import Any

PLACEHOLDER = "**********"


def mask(value: Any) -> Any:
    """Return ``value`` with every truthy leaf replaced by the placeholder."""
    if isinstance(value, dict):
        return {key: mask(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask(item) for item in value]
    if isinstance(value, bytes) and value:
        return PLACEHOLDER.encode()
    if isinstance(value, (str, int, float, bool)) and value:
        return PLACEHOLDER
    return value


def shown(value: Any, unmask: bool) -> Any:
    """Return ``value`` as it is with ``unmask``, else masked."""
    return value if unmask else mask(value)
