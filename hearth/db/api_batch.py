"""Hot-path writes that belong together, each in ONE transaction.

A resource's state change, the event that records it and the data items
its plug-in set since the last write are written by
:func:`resource_state_record` in a single write transaction with
pre-built Core statements on a plain connection (no ORM session or unit of
work): one commit instead of three or four, and a crash can never keep one
without the others.  :func:`resource_writes` stores the physical id and
data items alone, for a plug-in that waits before its next state change.
With SQLite's WAL and ``synchronous=NORMAL`` a committed transaction
survives a process crash.
"""

from __future__ import annotations

import contextlib
import random
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from sqlalchemy import Connection, bindparam

from hearth.common import config, exception
from hearth.db import api_events, models, timeutils
from hearth.db.session import Database

config.register_opts()  # once here, not on every hot-path call

_RESOURCES = models.Resource.__table__
_EVENTS = models.Event.__table__
_INSERT_EVENT = _EVENTS.insert()
_STATE_COLUMNS = ("action", "status", "status_reason", "physical_resource_id")
_UPDATE_COLUMNS = (*_STATE_COLUMNS, "updated_at")
_UPDATE_RESOURCE = (_RESOURCES.update().where(_RESOURCES.c.id == bindparam("resource_id"))
                    .values({name: bindparam(name) for name in _UPDATE_COLUMNS}))
_INSERT_RESOURCE = _RESOURCES.insert().returning(_RESOURCES.c.id)
_SET_PHYSICAL_ID = (_RESOURCES.update().where(_RESOURCES.c.id == bindparam("resource_id"))
                    .values(physical_resource_id=bindparam("physical_resource_id"),
                            updated_at=bindparam("updated_at")))
_DATA = models.ResourceData.__table__
_UPDATE_DATA = (_DATA.update().where(_DATA.c.resource_id == bindparam("owner"),
                                     _DATA.c.key == bindparam("item"))
                .values(value=bindparam("value"), redact=bindparam("redact")))
_INSERT_DATA = _DATA.insert()

#: One data item: (key, value as stored, redact).
DataItem = tuple[str, str | None, bool]
# event ids need uniqueness, not secrecy: a seeded PRNG avoids one urandom call per event
_RANDOM = random.Random()


def event_uuid() -> str:
    """Return a new random (version 4) event uuid."""
    return str(uuid.UUID(int=_RANDOM.getrandbits(128), version=4))


@contextlib.contextmanager
def write_transaction(db: Database) -> Iterator[Connection]:
    """Yield a Core connection in a write transaction (SQLite: ``BEGIN IMMEDIATE``)."""
    with db.engine.connect() as connection:
        if db.dialect == "sqlite":
            connection.execution_options(hearth_sqlite_begin="IMMEDIATE")
        with connection.begin():
            yield connection


def _write_data(connection: Connection, resource_id: int, data: Iterable[DataItem]) -> None:
    """Insert or replace data items of one resource."""
    for key, value, redact in data:
        params = {"owner": resource_id, "item": key, "value": value, "redact": redact}
        if not connection.execute(_UPDATE_DATA, params).rowcount:
            connection.execute(_INSERT_DATA, {"resource_id": resource_id, "key": key,
                                              "value": value, "redact": redact})


def resource_writes(db: Database, resource_id: int, physical_id: str | None,
                    data: Iterable[DataItem] = ()) -> None:
    """Store a resource's physical id and data items in one transaction (EntityNotFound)."""
    with write_transaction(db) as connection:
        changed = connection.execute(_SET_PHYSICAL_ID, {
            "resource_id": resource_id, "physical_resource_id": physical_id,
            "updated_at": timeutils.utcnow()}).rowcount
        if not changed:
            raise exception.EntityNotFound(entity="Resource", name=resource_id)
        _write_data(connection, resource_id, data)


def resource_state_record(db: Database, resource_id: int | None,
                          resource_values: Mapping[str, Any], event_values: Mapping[str, Any],
                          max_events: int | None = None,
                          purge_batch_size: int | None = None,
                          data: Iterable[DataItem] = ()) -> tuple[int, str]:
    """Store a resource's state, its event and ``data`` together; return (resource id, event uuid).

    ``resource_id`` None inserts the resource (``resource_values`` then
    holds ``name``, ``uuid``, ``stack_id`` and ``type`` too), otherwise the
    state columns (action, status, status_reason, physical_resource_id) are
    updated (EntityNotFound when it is gone).  ``data`` items are inserted
    or replaced.  The event is recorded as
    :func:`hearth.db.api_events.event_create` does, purging the stack's
    oldest events past ``max_events_per_stack``.
    """
    conf = config.CONF
    limit = conf.max_events_per_stack if max_events is None else max_events
    batch = conf.event_purge_batch_size if purge_batch_size is None else purge_batch_size
    now = timeutils.utcnow()
    new_uuid = event_uuid()
    with write_transaction(db) as connection:
        if resource_id is None:
            resource_id = connection.execute(_INSERT_RESOURCE, dict(
                resource_values, created_at=now)).scalar_one()
        else:
            changed = connection.execute(_UPDATE_RESOURCE, {
                **{name: resource_values[name] for name in _STATE_COLUMNS},
                "resource_id": resource_id, "updated_at": now}).rowcount
            if not changed:
                raise exception.EntityNotFound(entity="Resource", name=resource_id)
        _write_data(connection, resource_id, data)
        if limit:
            api_events.EVENT_COUNTS.before_insert(connection, db.url, event_values["stack_id"],
                                                  limit, batch)
        connection.execute(_INSERT_EVENT, dict(event_values, uuid=new_uuid, created_at=now))
    return resource_id, new_uuid
