"""Redacted resource data: stored marked, shown only as a placeholder.

A resource may keep secrets (passwords, keys) in its data with
``redact=True``.  Only the owning resource reads them back
(:func:`hearth.db.api_resources.resource_data_get` and
``resource_data_get_all``); every listing for display goes through
:func:`public_data`, which puts :data:`REDACTED` in their place.
"""

from __future__ import annotations

from collections.abc import Iterable

from hearth.db import models

REDACTED = "******"


def public_data(rows: Iterable[models.ResourceData]) -> dict[str, str | None]:
    """Return ``{key: value}`` with every redacted value replaced by :data:`REDACTED`."""
    return {row.key: REDACTED if row.redact else row.value for row in rows}
