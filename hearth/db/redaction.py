"""Redacted resource data: stored marked, shown only as a placeholder.

A resource may keep secrets (passwords, keys) in its data with
``redact=True``.  Only the owning resource reads them back
(:func:`hearth.db.api_resources.resource_data_get` and
``resource_data_get_all``); every listing for display goes through
:func:`public_data`, which puts :data:`~hearth.common.secret_mask.SECRET_MASK` in their place.
"""

from __future__ import annotations

from collections.abc import Iterable

from hearth.common.secret_mask import SECRET_MASK
from hearth.db import models


def public_data(rows: Iterable[models.ResourceData]) -> dict[str, str | None]:
    """Return ``{key: value}`` with every redacted value replaced by the secret mask."""
    return {row.key: SECRET_MASK if row.redact else row.value for row in rows}
