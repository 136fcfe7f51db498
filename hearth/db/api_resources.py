"""Resources of a stack and their private key/value data."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from hearth.common import exception
from hearth.db import models, redaction, rows
from hearth.db.session import Database

# Filter key of resource listings -> column.
RESOURCE_FILTERS = {
    "name": models.Resource.name,
    "type": models.Resource.type,
    "action": models.Resource.action,
    "status": models.Resource.status,
    "id": models.Resource.uuid,
    "physical_resource_id": models.Resource.physical_resource_id,
}


def _values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Accept ``metadata`` for the ``metadata_`` attribute (``metadata`` is reserved)."""
    result = dict(values)
    if "metadata" in result:
        result["metadata_"] = result.pop("metadata")
    return result


def resource_create(db: Database, values: Mapping[str, Any]) -> models.Resource:
    """Store a new resource; ``values`` are column values (``metadata`` allowed)."""
    row = models.Resource()
    row.set_columns(_values(values))
    with db.session_scope(write=True) as session:
        session.add(row)
    return row


def resource_get(db: Database, resource_id: int) -> models.Resource:
    """Return a resource by its integer id (EntityNotFound)."""
    with db.session_scope() as session:
        row = rows.get_or_raise(session, models.Resource, resource_id, "Resource")
    return row


def resource_get_by_name(db: Database, stack_id: str, name: str) -> models.Resource:
    """Return the newest resource of that name in a stack (EntityNotFound)."""
    query = (select(models.Resource)
             .where(models.Resource.stack_id == stack_id, models.Resource.name == name)
             .order_by(models.Resource.id.desc()))
    with db.session_scope() as session:
        return rows.first_or_raise(session, query, "Resource", name)


def resource_get_by_physical_id(db: Database, stack_id: str,
                                physical_resource_id: str) -> models.Resource:
    """Return the resource of a stack with that physical id (EntityNotFound)."""
    query = select(models.Resource).where(
        models.Resource.stack_id == stack_id,
        models.Resource.physical_resource_id == physical_resource_id)
    with db.session_scope() as session:
        return rows.first_or_raise(session, query, "Resource", physical_resource_id)


def _filtered(query: Any, filters: Mapping[str, Any] | None) -> Any:
    for key, value in (filters or {}).items():
        if key not in RESOURCE_FILTERS:
            raise exception.InvalidFilter(key, sorted(RESOURCE_FILTERS))
        values = value if isinstance(value, (list, tuple, set)) else [value]
        query = query.where(RESOURCE_FILTERS[key].in_(list(values)))
    return query


def resource_get_all_by_stack(db: Database, stack_id: str,
                              filters: Mapping[str, Any] | None = None) -> list[models.Resource]:
    """Return a stack's resources in creation order, filtered by :data:`RESOURCE_FILTERS`."""
    query = _filtered(select(models.Resource).where(models.Resource.stack_id == stack_id),
                      filters)
    with db.session_scope() as session:
        return list(session.scalars(query.order_by(models.Resource.id)))


def resource_count_by_stack(db: Database, stack_id: str) -> int:
    """Return how many resource rows a stack has (its leftovers included)."""
    query = select(func.count(models.Resource.id)).where(models.Resource.stack_id == stack_id)
    with db.session_scope() as session:
        return int(session.scalar(query))


def resource_get_all_by_stacks(db: Database, stack_ids: Sequence[str],
                               filters: Mapping[str, Any] | None = None
                               ) -> dict[str, list[models.Resource]]:
    """Return ``{stack id: its resources in creation order}`` of several stacks, one query.

    Filtered as :func:`resource_get_all_by_stack`; a stack without (matching)
    resources maps to ``[]``.
    """
    found: dict[str, list[models.Resource]] = {stack_id: [] for stack_id in stack_ids}
    if not found:
        return found
    query = _filtered(select(models.Resource).where(
        models.Resource.stack_id.in_(list(found))), filters)
    with db.session_scope() as session:
        for row in session.scalars(query.order_by(models.Resource.id)):
            found[row.stack_id].append(row)
    return found


def resource_update(db: Database, resource_id: int, **values: Any) -> models.Resource:
    """Change column values of a resource (state, physical id, properties_data, metadata...)."""
    with db.session_scope(write=True) as session:
        row = rows.get_or_raise(session, models.Resource, resource_id, "Resource")
        row.set_columns(_values(values))
    return row


def resource_metadata_get(db: Database, resource_id: int) -> Any:
    """Return a resource's stored metadata (read now, not cached)."""
    with db.session_scope() as session:
        row = rows.get_or_raise(session, models.Resource, resource_id, "Resource")
        return row.metadata_


def resource_metadata_merge(db: Database, resource_id: int,
                            merge: Callable[[Any], Any]) -> Any:
    """Replace a resource's metadata by ``merge(current)`` in one write transaction.

    The row is read and written under the write lock (``FOR UPDATE`` where the
    database has it), so two signals merged at once both count.  Returns what
    was written.
    """
    with db.session_scope(write=True) as session:
        row = session.get(models.Resource, resource_id, with_for_update=True)
        if row is None:
            raise exception.EntityNotFound(entity="Resource", name=str(resource_id))
        merged = merge(copy.deepcopy(row.metadata_ or {}))
        row.metadata_ = merged
    return merged


def resource_delete_all_by_stack(db: Database, stack_id: str) -> None:
    """Delete every resource of a stack and their data (a rolled-back create leaves none)."""
    with db.session_scope(write=True) as session:
        delete_stack_resources(session, stack_id)


def delete_stack_resources(session: Session, stack_id: str) -> None:
    """Delete a stack's resources and their data inside ``session``'s transaction."""
    resource_ids = select(models.Resource.id).where(models.Resource.stack_id == stack_id)
    session.execute(delete(models.ResourceData)
                    .where(models.ResourceData.resource_id.in_(resource_ids)))
    session.execute(delete(models.Resource).where(models.Resource.stack_id == stack_id))


def resource_delete(db: Database, resource_id: int) -> None:
    """Delete a resource and its data (no error if it is already gone)."""
    with db.session_scope(write=True) as session:
        session.execute(delete(models.ResourceData)
                        .where(models.ResourceData.resource_id == resource_id))
        session.execute(delete(models.Resource).where(models.Resource.id == resource_id))


# --- resource data ---------------------------------------------------------------

def _data_row(session, resource_id: int, key: str) -> models.ResourceData | None:
    return session.scalars(select(models.ResourceData).where(
        models.ResourceData.resource_id == resource_id,
        models.ResourceData.key == key)).first()


def resource_data_set(db: Database, resource_id: int, key: str, value: str | None,
                      redact: bool = False) -> None:
    """Store (or replace) one data item of a resource; ``redact`` hides it from listings."""
    with db.session_scope(write=True) as session:
        row = _data_row(session, resource_id, key)
        if row is None:
            session.add(models.ResourceData(resource_id=resource_id, key=key, value=value,
                                            redact=redact))
        else:
            row.value, row.redact = value, redact


def resource_data_get(db: Database, resource_id: int, key: str) -> str | None:
    """Return one data item for the owning resource, redacted or not (EntityNotFound)."""
    with db.session_scope() as session:
        row = _data_row(session, resource_id, key)
    if row is None:
        raise exception.EntityNotFound(entity="Resource data", name=key)
    return row.value


def resource_data_get_all(db: Database, resource_id: int) -> dict[str, str | None]:
    """Return every data item for the owning resource, redacted values included."""
    query = select(models.ResourceData).where(models.ResourceData.resource_id == resource_id)
    with db.session_scope() as session:
        return {row.key: row.value for row in session.scalars(query)}


def resource_data_list(db: Database, resource_id: int) -> dict[str, str | None]:
    """Return a resource's data for display: redacted values are masked."""
    query = select(models.ResourceData).where(models.ResourceData.resource_id == resource_id)
    with db.session_scope() as session:
        return redaction.public_data(session.scalars(query.order_by(models.ResourceData.key)))


def resource_data_delete(db: Database, resource_id: int, key: str) -> None:
    """Delete one data item (EntityNotFound if it does not exist)."""
    with db.session_scope(write=True) as session:
        deleted = session.execute(delete(models.ResourceData).where(
            models.ResourceData.resource_id == resource_id,
            models.ResourceData.key == key)).rowcount
    if not deleted:
        raise exception.EntityNotFound(entity="Resource data", name=key)
