"""Engines (Heat's services): registration, heartbeats, liveness."""

from __future__ import annotations

import socket
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update

from hearth.common import exception
from hearth.db import models, rows
from hearth.db.session import Database
from hearth.db.timeutils import utcnow


def engine_register(db: Database, engine_id: str, host: str, pid: int, binary: str,
                    hostname: str | None = None, topic: str = "engine",
                    report_interval: float = 0.5, now: datetime | None = None) -> models.Engine:
    """Record a starting engine (again, if the id was registered before); return it."""
    now = now or utcnow()
    values = {"host": host, "hostname": hostname or socket.gethostname(), "pid": pid,
              "binary": binary, "topic": topic, "report_interval": report_interval,
              "heartbeat_at": now, "deleted_at": None}
    with db.session_scope(write=True) as session:
        row = session.get(models.Engine, engine_id)
        if row is None:
            row = models.Engine(engine_id=engine_id, created_at=now)
            session.add(row)
        row.set_columns(values)
    return row


def engine_heartbeat(db: Database, engine_id: str, now: datetime | None = None) -> None:
    """Record that an engine is alive (EntityNotFound if it is not registered)."""
    with db.session_scope(write=True) as session:
        found = session.execute(
            update(models.Engine)
            .where(models.Engine.engine_id == engine_id, models.Engine.deleted_at.is_(None))
            .values(heartbeat_at=now or utcnow())).rowcount
    if not found:
        raise exception.EntityNotFound(entity="Engine", name=engine_id)


def engine_get(db: Database, engine_id: str) -> models.Engine:
    """Return a registered engine, deregistered ones included (EntityNotFound)."""
    with db.session_scope() as session:
        row = rows.get_or_raise(session, models.Engine, engine_id, "Engine")
    return row


def engine_list(db: Database, show_deleted: bool = False) -> list[models.Engine]:
    """Return the registered engines, oldest first."""
    query = select(models.Engine)
    if not show_deleted:
        query = query.where(models.Engine.deleted_at.is_(None))
    with db.session_scope() as session:
        return list(session.scalars(query.order_by(models.Engine.created_at,
                                                   models.Engine.engine_id)))


def engine_status(engine: models.Engine, timeout: float, now: datetime | None = None) -> str:
    """Return ``"up"`` if the heartbeat is younger than ``timeout`` seconds, else ``"down"``."""
    if engine.deleted_at is not None:
        return "down"
    cutoff = (now or utcnow()) - timedelta(seconds=timeout)
    return "up" if engine.heartbeat_at >= cutoff else "down"


def engine_is_alive(db: Database, engine_id: str, timeout: float,
                    now: datetime | None = None) -> bool:
    """Return whether the engine is registered and beat within ``timeout`` seconds."""
    with db.session_scope() as session:
        row = session.get(models.Engine, engine_id)
    return row is not None and engine_status(row, timeout, now) == "up"


def engine_deregister(db: Database, engine_id: str, now: datetime | None = None) -> None:
    """Mark an engine stopped and release every stack lock it holds."""
    now = now or utcnow()
    with db.session_scope(write=True) as session:
        session.execute(update(models.Engine).where(models.Engine.engine_id == engine_id)
                        .values(deleted_at=now, updated_at=now))
        session.execute(delete(models.StackLock).where(models.StackLock.engine_id == engine_id))
