"""Where a resource keeps what outlives one call: its data, metadata and id.

A resource never talks to the database.  It reaches a :class:`ResourceStore`
as ``self.stack.store``; the engine provides a DB-backed one, tests use
:class:`InMemoryResourceStore`.  Stores key everything by the resource's
``uuid``, so a replacement (a new Resource object of the same name) starts
empty.
"""

from __future__ import annotations

import copy
from typing import Any, Protocol, runtime_checkable

from hearth.common import exception


class StoredResource(Protocol):
    """What a store reads of a resource (:class:`hearth.engine.resource.Resource` has it)."""

    @property
    def name(self) -> str:
        """Return the resource's name in its template (errors name it)."""

    @property
    def uuid(self) -> str:
        """Return the resource's uuid (a replacement has a new one)."""

    @property
    def db_id(self) -> int | None:
        """Return the id of the resource's row (None until the stack first stores it)."""

    @property
    def resource_id(self) -> str | None:
        """Return the physical resource id."""


def row_id(resource: StoredResource) -> int:
    """Return the id of ``resource``'s row; EntityNotFound when the stack has not stored it."""
    if resource.db_id is None:
        raise exception.EntityNotFound(entity="Resource", name=resource.uuid)
    return resource.db_id


@runtime_checkable
class ResourceStore(Protocol):
    """The persistence a resource needs."""

    def load_data(self, resource: StoredResource) -> dict[str, Any]:
        """Return the resource's data as a plain ``{key: value}`` dict."""

    def save_data(self, resource: StoredResource, key: str, value: Any, redact: bool) -> None:
        """Store one data item; ``redact`` hides its value from listings and events."""

    def delete_data(self, resource: StoredResource, key: str) -> None:
        """Remove one data item (no error if it does not exist)."""

    def save_metadata(self, resource: StoredResource, metadata: Any) -> None:
        """Store the resource's metadata (replacing it)."""

    def set_resource_id(self, resource: StoredResource, resource_id: str | None) -> None:
        """Store the physical resource id."""

    def set_type(self, resource: StoredResource, type_name: str) -> None:
        """Store the resource's type name (an in-place update to an alias of its type)."""

    def load_metadata(self, resource: StoredResource) -> Any:
        """Return the stored metadata (``{}`` if none)."""

    def merge_metadata(self, resource: StoredResource, merge: Any) -> Any:
        """Store and return ``merge(stored metadata)`` (one read-modify-write)."""

    def defer(self, resource: StoredResource) -> None:
        """Hold back the resource's id and data writes until its next state write.

        The engine calls it before a plug-in's handle runs, so what the
        handle stores rides with the state change that follows.
        """

    def flush(self, resource: StoredResource) -> None:
        """Write what is held back for the resource now, and stop holding back.

        The engine calls it before it waits on a plug-in (a completion check),
        so nothing the handle stored is lost if the engine dies meanwhile.
        """


class InMemoryResourceStore:
    """A :class:`ResourceStore` in dicts, for tests and dry runs."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, Any]] = {}
        self.redacted: dict[str, set[str]] = {}
        self.metadata: dict[str, Any] = {}
        self.resource_ids: dict[str, str | None] = {}
        self.types: dict[str, str] = {}

    def load_data(self, resource: StoredResource) -> dict[str, Any]:
        """Return a copy of the resource's data."""
        return dict(self.data.get(resource.uuid, {}))

    def save_data(self, resource: StoredResource, key: str, value: Any, redact: bool) -> None:
        """Store one item and remember whether it is redacted."""
        self.data.setdefault(resource.uuid, {})[key] = value
        redacted = self.redacted.setdefault(resource.uuid, set())
        if redact:
            redacted.add(key)
        else:
            redacted.discard(key)

    def delete_data(self, resource: StoredResource, key: str) -> None:
        """Remove one item if present."""
        self.data.get(resource.uuid, {}).pop(key, None)
        self.redacted.get(resource.uuid, set()).discard(key)

    def save_metadata(self, resource: StoredResource, metadata: Any) -> None:
        """Store the metadata."""
        self.metadata[resource.uuid] = metadata

    def load_metadata(self, resource: StoredResource) -> Any:
        """Return the stored metadata ({} if none)."""
        return self.metadata.get(resource.uuid) or {}

    def merge_metadata(self, resource: StoredResource, merge: Any) -> Any:
        """Store and return ``merge(stored metadata)``."""
        merged = merge(copy.deepcopy(self.load_metadata(resource)))
        self.metadata[resource.uuid] = merged
        return merged

    def set_resource_id(self, resource: StoredResource, resource_id: str | None) -> None:
        """Store the physical id."""
        self.resource_ids[resource.uuid] = resource_id

    def set_type(self, resource: StoredResource, type_name: str) -> None:
        """Store the type name."""
        self.types[resource.uuid] = type_name

    def defer(self, resource: StoredResource) -> None:
        """Hold nothing back: every write is at once."""

    def flush(self, resource: StoredResource) -> None:
        """Nothing is held back: nothing to write."""
