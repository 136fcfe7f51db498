"""Hot-path writes that belong together, each in ONE transaction.

A resource's state change, the event that records it and the data items
its plug-in set since the last write are written by
:func:`resource_state_record` in a single write (of the group-commit queue,
:mod:`hearth.db.write_queue`) with
Core statements compiled once and run on a DBAPI cursor (no ORM session,
no per-execution SQLAlchemy work): one commit instead of three or four,
and a crash can never keep one without the others.  :func:`resource_writes`
stores the physical id and data items alone, for a plug-in that waits
before its next state change.
With SQLite's WAL and ``synchronous=NORMAL`` a committed transaction
survives a process crash.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, exists, func, or_, select

from hearth.common import config, exception
from hearth.db import api_events, models, timeutils
from hearth.db.session import Database

config.register_opts()  # once here, not on every hot-path call

_STACKS = models.Stack.__table__
_RESOURCES = models.Resource.__table__
_EVENTS = models.Event.__table__
_DATA = models.ResourceData.__table__
_LOCKS = models.StackLock.__table__
_STATE_COLUMNS = ("action", "status", "status_reason", "physical_resource_id")
_EVENT_COLUMNS = ("stack_id", "resource_name", "physical_resource_id", "resource_type",
                  "resource_action", "resource_status", "resource_status_reason",
                  "resource_properties", "uuid", "created_at")
_NEW_RESOURCE_COLUMNS = (*_STATE_COLUMNS, "name", "uuid", "stack_id", "type", "metadata",
                         "requires", "properties_data", "created_at")


def _by_id(table: Any, **values: Any) -> Any:
    """Return ``UPDATE table SET values WHERE id = :row_id``."""
    return table.update().where(table.c.id == bindparam("row_id")).values(values)


class _Prepared:
    """A Core statement compiled once per dialect, then run on a DBAPI cursor.

    The hot path skips SQLAlchemy's per-execution work (cache lookup,
    execution context, result objects) but keeps its SQL and its type
    conversions: every parameter goes through its column type's bind
    processor (JSON, DateTime, Boolean), exactly as a Core execution would.
    ``columns`` names the columns of an INSERT; every one must be given.
    """

    def __init__(self, statement: Any, columns: Iterable[str] | None = None) -> None:
        self.statement = statement
        self.columns = list(columns) if columns is not None else None
        self._compiled: dict[str, tuple[str, list[str], dict[str, Any], bool]] = {}

    def _for(self, dialect: Any) -> tuple[str, list[str], dict[str, Any], bool]:
        found = self._compiled.get(dialect.name)
        if found is None:
            compiled = self.statement.compile(dialect=dialect, column_keys=self.columns)
            names = list(compiled.positiontup if dialect.positional else compiled.binds)
            processors = {name: processor for name, bind in compiled.binds.items()
                          if (processor := bind.type.dialect_impl(dialect)
                              .bind_processor(dialect)) is not None}
            found = (compiled.string, names, processors, dialect.positional)
            self._compiled[dialect.name] = found
        return found

    def _bound(self, dialect: Any, params: Mapping[str, Any]) -> tuple[str, Any]:
        sql, names, processors, positional = self._for(dialect)
        values = {name: processors[name](params[name]) if name in processors else params[name]
                  for name in names}
        return sql, [values[name] for name in names] if positional else values

    def run(self, cursor: Any, dialect: Any, params: Mapping[str, Any]) -> Any:
        """Execute with ``params`` (by bind name); return the cursor."""
        cursor.execute(*self._bound(dialect, params))
        return cursor

    def run_many(self, cursor: Any, dialect: Any, rows: Iterable[Mapping[str, Any]]) -> None:
        """Execute once per item of ``rows`` (one DBAPI ``executemany``)."""
        bound = [self._bound(dialect, params) for params in rows]
        if bound:
            cursor.executemany(bound[0][0], [values for _sql, values in bound])


_INSERT_RESOURCE = _Prepared(_RESOURCES.insert().returning(_RESOURCES.c.id),
                             _NEW_RESOURCE_COLUMNS)
_INSERT_INIT_RESOURCE = _Prepared(_RESOURCES.insert(), _NEW_RESOURCE_COLUMNS)
_SELECT_IDS = _Prepared(select(_RESOURCES.c.id, _RESOURCES.c.uuid)
                        .where(_RESOURCES.c.stack_id == bindparam("owner")))
_SET_PHYSICAL_ID = _Prepared(_by_id(_RESOURCES, updated_at=bindparam("updated_at"),
                                    physical_resource_id=bindparam("physical_resource_id")))
_INSERT_EVENT = _Prepared(_EVENTS.insert(), _EVENT_COLUMNS)
_UPDATE_STACK_STATE = _Prepared(
    _STACKS.update().where(_STACKS.c.id == bindparam("row_id"), _STACKS.c.deleted_at.is_(None))
    .values(action=bindparam("action"), status=bindparam("status"),
            status_reason=bindparam("status_reason"), updated_at=bindparam("updated_at")))
# Fencing: an engine's write of a state, only while it still holds the lock it acts under
# (another engine may have taken it for dead and taken the action over).
_LOCK_HELD = exists().where(_LOCKS.c.stack_id == bindparam("lock_id"),
                            _LOCKS.c.engine_id == bindparam("engine_id"))


def _resource_state_update(properties: bool, fenced: bool) -> _Prepared:
    """Return the statement storing a resource's state columns.

    With ``properties``, ``properties_data`` too (the properties the
    resource's action stored, Heat's properties_data); ``fenced``, only
    while the lock is held.
    """
    values = {name: bindparam(name) for name in _STATE_COLUMNS}
    if properties:
        values["properties_data"] = bindparam("properties_data")
    statement = _by_id(_RESOURCES, updated_at=bindparam("updated_at"), **values)
    return _Prepared(statement.where(_LOCK_HELD) if fenced else statement)


# (with properties_data, fenced): the statement storing a resource's state
_UPDATE_RESOURCE = {(properties, fenced): _resource_state_update(properties, fenced)
                    for properties in (False, True) for fenced in (False, True)}
_UPDATE_STACK_STATE_FENCED = _Prepared(
    _STACKS.update().where(_STACKS.c.id == bindparam("row_id"), _STACKS.c.deleted_at.is_(None),
                           _LOCK_HELD)
    .values(action=bindparam("action"), status=bindparam("status"),
            status_reason=bindparam("status_reason"), updated_at=bindparam("updated_at")))
_LOCK_HOLDER = _Prepared(select(_LOCKS.c.engine_id)
                         .where(_LOCKS.c.stack_id == bindparam("lock_id")))
_UPDATE_DATA = _Prepared(_DATA.update().where(_DATA.c.resource_id == bindparam("owner"),
                                              _DATA.c.key == bindparam("item"))
                         .values(value=bindparam("value"), redact=bindparam("redact")))
_INSERT_DATA = _Prepared(_DATA.insert(), ("resource_id", "key", "value", "redact"))
#: one data item of a resource
_DELETE_ITEM = _Prepared(_DATA.delete().where(_DATA.c.resource_id == bindparam("owner"),
                                              _DATA.c.key == bindparam("item")))
_COUNT_EVENTS = _Prepared(select(func.count(_EVENTS.c.id))
                          .where(_EVENTS.c.stack_id == bindparam("stack_id")))
_ACTION_STARTED = (select(_LOCKS.c.acquired_at)
                   .where(_LOCKS.c.stack_id == bindparam("stack_id")).scalar_subquery())
# The oldest events of a stack, none recorded since its lock was taken (api_events' rules).
_DELETE_OLDEST_EVENTS = _Prepared(_EVENTS.delete().where(_EVENTS.c.id.in_(
    select(_EVENTS.c.id)
    .where(_EVENTS.c.stack_id == bindparam("stack_id"),
           or_(_ACTION_STARTED.is_(None), _EVENTS.c.created_at < _ACTION_STARTED))
    .order_by(_EVENTS.c.id).limit(bindparam("excess")).offset(bindparam("skip"))
    .scalar_subquery())))

@dataclass(frozen=True)
class Fence:
    """The lock an engine acts under: its state writes hold only while it still holds it."""

    lock_id: str  # the stack whose lock the action holds (its top-level stack's, for a nested one)
    engine_id: str

    def params(self) -> dict[str, str]:
        """Return the bound parameters of the fenced statements."""
        return {"lock_id": self.lock_id, "engine_id": self.engine_id}

    def check_lost(self, cursor: Any, dialect: Any) -> None:
        """Raise EngineFenced if the lock is no longer this engine's (a write changed nothing)."""
        _LOCK_HOLDER.run(cursor, dialect, {"lock_id": self.lock_id})
        found = cursor.fetchone()
        holder = found[0] if found else None
        if holder != self.engine_id:
            raise exception.EngineFenced(engine_id=self.engine_id, stack_id=self.lock_id,
                                         holder=holder or "none")


#: One data item: (key, value as stored, redact).
DataItem = tuple[str, str | None, bool]
# event ids need uniqueness, not secrecy: a seeded PRNG avoids one urandom call per event
_RANDOM = random.Random()


def event_uuid() -> str:
    """Return a new random (version 4) event uuid."""
    return str(uuid.UUID(int=_RANDOM.getrandbits(128), version=4))


def _write_data(cursor: Any, dialect: Any, resource_id: int,
                data: Iterable[DataItem]) -> None:
    """Insert or replace data items of one resource."""
    for key, value, redact in data:
        params = {"owner": resource_id, "item": key, "value": value, "redact": redact}
        if not _UPDATE_DATA.run(cursor, dialect, params).rowcount:
            _INSERT_DATA.run(cursor, dialect, {"resource_id": resource_id, "key": key,
                                               "value": value, "redact": redact})


def resource_writes(db: Database, resource_id: int, physical_id: str | None,
                    data: Iterable[DataItem] = ()) -> None:
    """Store a resource's physical id and data items, committed before returning (EntityNotFound).

    The write goes through the group-commit queue (:mod:`hearth.db.write_queue`).
    """
    items = list(data)

    def write(cursor: Any, dialect: Any) -> None:
        changed = _SET_PHYSICAL_ID.run(cursor, dialect, {
            "row_id": resource_id, "physical_resource_id": physical_id,
            "updated_at": timeutils.utcnow()}).rowcount
        if not changed:
            raise exception.EntityNotFound(entity="Resource", name=resource_id)
        _write_data(cursor, dialect, resource_id, items)

    db.writes.submit(write, wait=True)


def _new_event(event_values: Mapping[str, Any]) -> dict[str, Any]:
    """Return the column values of a new event (uuid and time added)."""
    return {"physical_resource_id": None, "resource_properties": None, **event_values,
            "uuid": event_uuid(), "created_at": timeutils.utcnow()}


def _reserve_event(db: Database, stack_id: str, max_events: int | None,
                   purge_batch_size: int | None) -> None:
    """Count one more event of the stack, purging old ones at the limit (api_events)."""
    conf = config.CONF
    limit = conf.max_events_per_stack if max_events is None else max_events
    batch = conf.event_purge_batch_size if purge_batch_size is None else purge_batch_size
    if limit:
        api_events.EVENT_COUNTS.reserve(db, stack_id, limit, batch,
                                        queue_purge=_purge_queue(db, stack_id))


def _purge_queue(db: Database, stack_id: str) -> api_events.QueuePurge:
    """Return what queues a purge of the stack's oldest events in the write queue.

    Queued before the event that triggered it and committed with its
    neighbours, the purge costs the action no wait for a commit of its own.
    """
    def queue(limit: int, batch: int, done: Callable[[int], None]) -> None:
        def write(cursor: Any, dialect: Any) -> int:
            count = _COUNT_EVENTS.run(cursor, dialect, {"stack_id": stack_id}).fetchone()[0]
            if count < limit:
                return count
            excess = max(batch, count - limit + 1)
            deleted = _DELETE_OLDEST_EVENTS.run(cursor, dialect, {
                "stack_id": stack_id, "excess": excess, "skip": 0}).rowcount
            return count - deleted
        db.writes.submit(write, wait=False, owner=stack_id, on_commit=done)
    return queue


def _after_commit(on_commit: Callable[[str], None] | None, event_uuid: str
                  ) -> Callable[[Any], None] | None:
    """Return the queue's after-commit callback that hands ``on_commit`` the event uuid."""
    return None if on_commit is None else lambda _result: on_commit(event_uuid)


def _fenced(fence: Fence | None) -> dict[str, str]:
    return {} if fence is None else fence.params()


def stack_state_record(db: Database, stack_id: str, action: str, status: str, reason: str,
                       event_values: Mapping[str, Any],
                       on_commit: Callable[[str], None] | None = None,
                       fence: Fence | None = None) -> Any:
    """Store a live stack's state and its event in one committed write; return its time.

    StackNotFound when the stack is gone; with ``fence``, EngineFenced when
    the engine no longer holds the lock it acts under (nothing is written).
    ``on_commit(event uuid)`` runs after the commit.
    """
    _reserve_event(db, stack_id, None, None)
    event = _new_event(event_values)
    row = {"row_id": stack_id, "action": action, "status": status, "status_reason": reason,
           "updated_at": event["created_at"]}

    def write(cursor: Any, dialect: Any) -> None:
        statement = _UPDATE_STACK_STATE if fence is None else _UPDATE_STACK_STATE_FENCED
        if not statement.run(cursor, dialect, {**row, **_fenced(fence)}).rowcount:
            if fence is not None:
                fence.check_lost(cursor, dialect)
            raise exception.StackNotFound(stack_id)
        _INSERT_EVENT.run(cursor, dialect, event)

    db.writes.submit(write, wait=True, owner=stack_id,
                     on_commit=_after_commit(on_commit, event["uuid"]))
    return event["created_at"]


def resources_store_init(db: Database, stack_id: str,
                         resources: Iterable[tuple[str, str, str]]) -> dict[str, int]:
    """Store new resources ``(name, uuid, type)`` as INIT_COMPLETE; return ``{uuid: row id}``.

    One committed write for all of them, as Heat stores a stack's resources
    before acting, so that the ones never acted on are listed too.  No event
    is written (Heat writes none for INIT).
    """
    now = timeutils.utcnow()
    rows = [{"name": name, "uuid": uuid_, "stack_id": stack_id, "type": type_name,
             "action": "INIT", "status": "COMPLETE", "status_reason": "",
             "physical_resource_id": None, "metadata": {}, "requires": [],
             "properties_data": None, "created_at": now}
            for name, uuid_, type_name in resources]
    if not rows:
        return {}
    wanted = {row["uuid"] for row in rows}

    def write(cursor: Any, dialect: Any) -> dict[str, int]:
        _INSERT_INIT_RESOURCE.run_many(cursor, dialect, rows)
        _SELECT_IDS.run(cursor, dialect, {"owner": stack_id})
        return {uuid_: row_id for row_id, uuid_ in cursor.fetchall() if uuid_ in wanted}

    return db.writes.submit(write, wait=True, owner=stack_id)


def resource_state_record(db: Database, resource_id: int | None,
                          resource_values: Mapping[str, Any], event_values: Mapping[str, Any],
                          max_events: int | None = None,
                          purge_batch_size: int | None = None,
                          data: Iterable[DataItem] = (), *, wait: bool = True,
                          on_commit: Callable[[str], None] | None = None,
                          clear_item: str | None = None,
                          fence: Fence | None = None) -> tuple[int | None, str]:
    """Store a resource's state, its event and ``data`` together; return (resource id, event uuid).

    ``resource_id`` None inserts the resource (``resource_values`` then
    holds ``name``, ``uuid``, ``stack_id`` and ``type`` too), otherwise the
    state columns (action, status, status_reason, physical_resource_id) are
    updated (EntityNotFound when it is gone), and ``properties_data`` when
    ``resource_values`` has it (the properties stored by the action).  ``data`` items are inserted
    or replaced.  The event is recorded as
    :func:`hearth.db.api_events.event_create` does, purging the stack's
    oldest events past ``max_events_per_stack``.

    The three go in one transaction of the group-commit queue
    (:mod:`hearth.db.write_queue`).  With ``wait`` (always for an insert)
    this returns once they are committed; without, it returns at once and
    the write is committed with the next batch (its errors are kept for the
    stack: ``db.writes.take_failures(stack_id)``).  ``on_commit(event
    uuid)`` runs after the commit either way.  ``clear_item`` names a data
    item removed first (the progress of a previous action, as a new one starts).  With
    ``fence``, an update is written only while the engine still holds the
    lock it acts under (EngineFenced, nothing written, otherwise).
    """
    _reserve_event(db, event_values["stack_id"], max_events, purge_batch_size)
    event = _new_event(event_values)
    new_uuid, now = event["uuid"], event["created_at"]
    items = list(data)
    update = _UPDATE_RESOURCE[False, fence is not None]
    if resource_id is None:
        row = {"metadata": {}, "requires": [], "properties_data": None, **resource_values,
               "created_at": now}
    else:
        row = {**{name: resource_values[name] for name in _STATE_COLUMNS},
               "row_id": resource_id, "updated_at": now}
        if "properties_data" in resource_values:
            update = _UPDATE_RESOURCE[True, fence is not None]
            row["properties_data"] = resource_values["properties_data"]

    def write(cursor: Any, dialect: Any) -> int:
        if resource_id is None:
            written = _INSERT_RESOURCE.run(cursor, dialect, row).fetchone()[0]
        else:
            written = resource_id
            if not update.run(cursor, dialect, {**row, **_fenced(fence)}).rowcount:
                if fence is not None:
                    fence.check_lost(cursor, dialect)
                raise exception.EntityNotFound(entity="Resource",
                                               name=event_values["resource_name"])
            if clear_item is not None:
                _DELETE_ITEM.run(cursor, dialect, {"owner": written, "item": clear_item})
        _write_data(cursor, dialect, written, items)
        _INSERT_EVENT.run(cursor, dialect, event)
        return written

    wait = wait or resource_id is None
    result = db.writes.submit(write, wait=wait, owner=event_values["stack_id"],
                              on_commit=_after_commit(on_commit, new_uuid))
    return (result if wait else resource_id), new_uuid
