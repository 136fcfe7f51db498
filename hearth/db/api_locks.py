"""Stack locks (one engine acts on a stack at a time) and recovery from dead engines.

A lock is a ``stack_lock`` row; taking it is an INSERT, which the primary
key makes atomic across processes and databases.  A lock whose holder
stopped beating is stolen with a conditional UPDATE, so when two engines
try to steal the same lock exactly one succeeds.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import and_, delete, exists, select, update
from sqlalchemy.exc import IntegrityError

from hearth.db import models
from hearth.db.api_engines import engine_is_alive
from hearth.db.session import Database
from hearth.db.timeutils import utcnow

_ACQUIRE_ATTEMPTS = 3


def lock_get_engine_id(db: Database, stack_id: str) -> str | None:
    """Return the engine holding the stack's lock, or None."""
    query = select(models.StackLock.engine_id).where(models.StackLock.stack_id == stack_id)
    with db.session_scope() as session:
        return session.scalar(query)


def locks_of(db: Database, engine_id: str) -> set[str]:
    """Return the ids of the stacks whose lock ``engine_id`` holds."""
    query = select(models.StackLock.stack_id).where(models.StackLock.engine_id == engine_id)
    with db.session_scope() as session:
        return set(session.scalars(query))


def lock_acquire(db: Database, stack_id: str, engine_id: str) -> str | None:
    """Take the stack's lock for ``engine_id``; return None, or the engine holding it.

    The holder may be ``engine_id`` itself (it already acts on the stack).
    """
    for _ in range(_ACQUIRE_ATTEMPTS):
        try:
            with db.session_scope(write=True) as session:
                session.add(models.StackLock(stack_id=stack_id, engine_id=engine_id))
            return None
        except IntegrityError:
            holder = lock_get_engine_id(db, stack_id)
            if holder is not None:
                return holder
            # released between our insert and our look: try again
    return lock_get_engine_id(db, stack_id)


def lock_steal(db: Database, stack_id: str, old_engine_id: str, new_engine_id: str) -> bool:
    """Move the lock from ``old_engine_id`` to ``new_engine_id`` if the old one still holds it."""
    with db.session_scope(write=True) as session:
        return bool(session.execute(
            update(models.StackLock)
            .where(models.StackLock.stack_id == stack_id,
                   models.StackLock.engine_id == old_engine_id)
            .values(engine_id=new_engine_id, acquired_at=utcnow())).rowcount)


def lock_release(db: Database, stack_id: str, engine_id: str) -> bool:
    """Release the lock if ``engine_id`` holds it; return whether it did."""
    with db.session_scope(write=True) as session:
        return bool(session.execute(
            delete(models.StackLock).where(models.StackLock.stack_id == stack_id,
                                           models.StackLock.engine_id == engine_id)).rowcount)


def lock_take(db: Database, stack_id: str, engine_id: str, timeout: float,
              now: datetime | None = None) -> str | None:
    """Acquire the lock, stealing it from a dead holder; return None or the live holder.

    A holder is dead when its heartbeat is older than ``timeout`` seconds
    (``engine_life_check_timeout``) or it is not registered, so an engine
    must :func:`~hearth.db.api_engines.engine_register` before taking locks.
    A live holder's lock is never stolen.
    """
    for _ in range(_ACQUIRE_ATTEMPTS):
        holder = lock_acquire(db, stack_id, engine_id)
        if holder is None or holder == engine_id:
            return holder
        if engine_is_alive(db, holder, timeout, now):
            return holder
        if lock_steal(db, stack_id, holder, engine_id):
            return None
        # someone else stole or released it meanwhile: look again
    return lock_get_engine_id(db, stack_id)


def _live_holders(timeout: float, now: datetime):
    """Return the clause 'the lock's engine is registered and beat after the cutoff'."""
    cutoff = now - timedelta(seconds=timeout)
    return exists().where(models.Engine.engine_id == models.StackLock.engine_id,
                          models.Engine.deleted_at.is_(None),
                          models.Engine.heartbeat_at >= cutoff)


def stacks_in_progress_of_dead_engines(db: Database, timeout: float,
                                       now: datetime | None = None) -> list[models.Stack]:
    """Return live stacks left IN_PROGRESS by an engine that is gone.

    A stack counts when its lock holder has not beaten for ``timeout``
    seconds, or when neither it nor any stack above it (nested stacks act
    under their root's lock) holds a lock of a live engine.
    """
    now = now or utcnow()
    live_lock = exists().where(models.StackLock.stack_id == models.Stack.id,
                               _live_holders(timeout, now))
    with db.session_scope() as session:
        candidates = list(session.scalars(
            select(models.Stack)
            .where(models.Stack.status == "IN_PROGRESS", models.Stack.deleted_at.is_(None),
                   ~live_lock)
            .order_by(models.Stack.created_at, models.Stack.id)))
        if not any(stack.owner_id is not None for stack in candidates):
            return candidates  # (the periodic check's usual answer: no tree to read)
        live_locked = set(session.scalars(
            select(models.StackLock.stack_id).where(_live_holders(timeout, now))))
        owners = dict(session.execute(
            select(models.Stack.id, models.Stack.owner_id)
            .where(and_(models.Stack.owner_id.is_not(None), models.Stack.deleted_at.is_(None)))
        ).all())
    return [stack for stack in candidates
            if not _ancestor_locked(stack.owner_id, owners, live_locked)]


def _ancestor_locked(owner_id: str | None, owners: dict[str, str], live_locked: set[str]) -> bool:
    seen: set[str] = set()
    while owner_id is not None and owner_id not in seen:
        if owner_id in live_locked:
            return True
        seen.add(owner_id)
        owner_id = owners.get(owner_id)
    return False
