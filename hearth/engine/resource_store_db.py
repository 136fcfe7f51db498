"""The database-backed :class:`~hearth.engine.resource_store.ResourceStore`.

Resources are keyed by ``resource.db_id`` (the row id the stack gave them
when it first recorded their state); a resource without a row yet keeps its
data in memory until it gets one.
"""

from __future__ import annotations

import json
from typing import Any

from hearth.db import api_resources
from hearth.db.session import Database


def _encode(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


class DbResourceStore:
    """Store resource data, metadata and physical ids through :mod:`hearth.db.api_resources`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def load_data(self, resource: Any) -> dict[str, Any]:
        """Return the resource's data items."""
        if getattr(resource, "db_id", None) is None:
            return {}
        return dict(api_resources.resource_data_get_all(self.db, resource.db_id))

    def save_data(self, resource: Any, key: str, value: Any, redact: bool) -> None:
        """Store one item (strings as they are, anything else as JSON)."""
        api_resources.resource_data_set(self.db, resource.db_id, key, _encode(value), redact)

    def delete_data(self, resource: Any, key: str) -> None:
        """Remove one item."""
        api_resources.resource_data_delete(self.db, resource.db_id, key)

    def save_metadata(self, resource: Any, metadata: Any) -> None:
        """Replace the metadata."""
        api_resources.resource_update(self.db, resource.db_id, metadata=metadata)

    def set_resource_id(self, resource: Any, resource_id: str | None) -> None:
        """Store the physical id (written with the next state change if no row exists yet)."""
        if getattr(resource, "db_id", None) is not None:
            api_resources.resource_update(self.db, resource.db_id,
                                          physical_resource_id=resource_id)
