"""The database-backed :class:`~hearth.engine.resources.store.ResourceStore`.

Resources are keyed by ``resource.db_id`` (the row id the stack gave them
when it first recorded their state); a resource without a row yet keeps its
data in memory until it gets one.

After :meth:`DbResourceStore.defer` (the engine calls it before a plug-in's
``handle_<action>``) the physical id and data items a plug-in
sets are held back and written with the resource's next write:
:meth:`Stack.record_resource_state <hearth.engine.stacks.stack.Stack.record_resource_state>`
takes them (:meth:`DbResourceStore.take_pending`) into the state change's
own transaction, and the engine calls :meth:`DbResourceStore.flush` before
it polls or waits.  So a resource that needs no waiting costs one commit
for its whole action instead of three, and nothing a plug-in set is ever
left unwritten while the engine waits.
"""

from __future__ import annotations

import json
from typing import Any

from hearth.common import exception
from hearth.db import api_batch, api_resources
from hearth.db.session import Database
from hearth.engine.resources.store import StoredResource, row_id


def _encode(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


_UNSET = object()


class _Pending:
    """What a deferring resource set and has not written yet."""

    def __init__(self) -> None:
        self.data: dict[str, tuple[str | None, bool]] = {}
        self.resource_id: Any = _UNSET

    def items(self) -> list[api_batch.DataItem]:
        return [(key, value, redact) for key, (value, redact) in self.data.items()]


class DbResourceStore:
    """Store resource data, metadata and physical ids through :mod:`hearth.db.api_resources`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._pending: dict[str, _Pending] = {}  # resource uuid -> writes held back

    # --- deferral ------------------------------------------------------------
    def defer(self, resource: StoredResource) -> None:
        """Hold back ``resource``'s physical id and data writes until its next write."""
        if resource.db_id is not None:  # no row yet: nothing to defer
            self._pending.setdefault(resource.uuid, _Pending())

    def take_pending(self, resource: StoredResource) -> list[api_batch.DataItem]:
        """Return and forget the held-back data items (the caller writes them and the id)."""
        pending = self._pending.pop(resource.uuid, None)
        return pending.items() if pending is not None else []

    def flush(self, resource: StoredResource) -> None:
        """Write what ``resource`` holds back, in one transaction, and stop deferring."""
        pending = self._pending.pop(resource.uuid, None)
        if pending is None or (not pending.data and pending.resource_id is _UNSET):
            return
        physical_id = (resource.resource_id if pending.resource_id is _UNSET
                       else pending.resource_id)
        try:
            api_batch.resource_writes(self.db, row_id(resource), physical_id, pending.items())
        except exception.EntityNotFound:  # its row was deleted behind the engine's back
            raise exception.EntityNotFound(entity="Resource", name=resource.name) from None

    def _held(self, resource: StoredResource) -> _Pending | None:
        return self._pending.get(resource.uuid)

    # --- the ResourceStore -----------------------------------------------------
    def load_data(self, resource: StoredResource) -> dict[str, Any]:
        """Return the resource's data items (held-back ones included)."""
        if resource.db_id is None:
            return {}
        data = dict(api_resources.resource_data_get_all(self.db, resource.db_id))
        held = self._held(resource)
        if held is not None:
            data.update((key, value) for key, (value, _redact) in held.data.items())
        return data

    def save_data(self, resource: StoredResource, key: str, value: Any, redact: bool) -> None:
        """Store one item (strings as they are, anything else as JSON)."""
        held = self._held(resource)
        if held is not None:
            held.data[key] = (_encode(value), redact)
            return
        api_resources.resource_data_set(self.db, row_id(resource), key, _encode(value), redact)

    def delete_data(self, resource: StoredResource, key: str) -> None:
        """Remove one item."""
        self.flush(resource)
        api_resources.resource_data_delete(self.db, row_id(resource), key)

    def save_metadata(self, resource: StoredResource, metadata: Any) -> None:
        """Replace the metadata."""
        self.flush(resource)
        api_resources.resource_update(self.db, row_id(resource), metadata=metadata)

    def set_type(self, resource: StoredResource, type_name: str) -> None:
        """Store the type name (what the resource lists as its type from now on)."""
        api_resources.resource_update(self.db, row_id(resource), type=type_name)

    def load_metadata(self, resource: StoredResource) -> Any:
        """Return the metadata as stored now ({} for a resource without a row)."""
        if resource.db_id is None:
            return {}
        return api_resources.resource_metadata_get(self.db, resource.db_id) or {}

    def merge_metadata(self, resource: StoredResource, merge: Any) -> Any:
        """Write ``merge(stored metadata)`` atomically; return it (signals use this)."""
        self.flush(resource)
        return api_resources.resource_metadata_merge(self.db, row_id(resource), merge)

    def set_resource_id(self, resource: StoredResource, resource_id: str | None) -> None:
        """Store the physical id (written with the next state change if no row exists yet)."""
        if resource.db_id is None:
            return
        held = self._held(resource)
        if held is not None:
            held.resource_id = resource_id
            return
        api_resources.resource_update(self.db, resource.db_id,
                                      physical_resource_id=resource_id)
