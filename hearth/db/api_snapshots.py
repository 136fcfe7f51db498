"""Snapshots of a stack."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, func, select, update

from hearth.common import exception
from hearth.db import models, rows
from hearth.db.session import Database


def snapshot_create(db: Database, values: Mapping[str, Any]) -> models.Snapshot:
    """Store a snapshot (``stack_id``, ``name``, ``data``, ``status``...)."""
    row = models.Snapshot()
    row.set_columns(values)
    with db.session_scope(write=True) as session:
        session.add(row)
    return row


def snapshot_get(db: Database, snapshot_id: str, stack_id: str | None = None) -> models.Snapshot:
    """Return a snapshot (of ``stack_id`` when given; EntityNotFound otherwise)."""
    query = select(models.Snapshot).where(models.Snapshot.id == snapshot_id)
    if stack_id is not None:
        query = query.where(models.Snapshot.stack_id == stack_id)
    with db.session_scope() as session:
        return rows.first_or_raise(session, query, "Snapshot", snapshot_id)


def snapshot_update(db: Database, snapshot_id: str, **values: Any) -> models.Snapshot:
    """Change a snapshot's columns (status, status_reason, data)."""
    with db.session_scope(write=True) as session:
        row = rows.get_or_raise(session, models.Snapshot, snapshot_id, "Snapshot")
        row.set_columns(values)
    return row


def snapshot_list(db: Database, stack_id: str) -> list[models.Snapshot]:
    """Return a stack's snapshots, oldest first."""
    query = (select(models.Snapshot).where(models.Snapshot.stack_id == stack_id)
             .order_by(models.Snapshot.created_at, models.Snapshot.id))
    with db.session_scope() as session:
        return list(session.scalars(query))


def snapshot_count(db: Database, stack_id: str) -> int:
    """Return how many snapshots a stack has (for ``max_snapshots_per_stack``)."""
    query = select(func.count(models.Snapshot.id)).where(models.Snapshot.stack_id == stack_id)
    with db.session_scope() as session:
        return int(session.scalar(query))


def snapshot_delete(db: Database, snapshot_id: str) -> None:
    """Delete a snapshot (EntityNotFound if it does not exist)."""
    with db.session_scope(write=True) as session:
        deleted = session.execute(
            delete(models.Snapshot).where(models.Snapshot.id == snapshot_id)).rowcount
    if not deleted:
        raise exception.EntityNotFound(entity="Snapshot", name=snapshot_id)


def snapshot_fail_unfinished(db: Database, stack_id: str, reason: str) -> int:
    """Set FAILED (with ``reason``) every snapshot of a stack still IN_PROGRESS; return how many.

    For the recovery of a stack whose engine died while taking a snapshot.
    """
    query = (update(models.Snapshot)
             .where(models.Snapshot.stack_id == stack_id,
                    models.Snapshot.status == "IN_PROGRESS")
             .values(status="FAILED", status_reason=reason))
    with db.session_scope(write=True) as session:
        return session.execute(query).rowcount
