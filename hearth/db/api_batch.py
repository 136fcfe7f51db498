"""Hot-path writes that belong together, each in ONE transaction.

A resource's state change and the event that records it are written by
:func:`resource_state_record` in a single write transaction with
pre-built Core statements (no ORM unit of work, compiled once): half the
commits of writing them apart, and a crash can never keep one without the
other.  With SQLite's WAL and ``synchronous=NORMAL`` a committed
transaction survives a process crash.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam

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
# event ids need uniqueness, not secrecy: a seeded PRNG avoids one urandom call per event
_RANDOM = random.Random()


def event_uuid() -> str:
    """Return a new random (version 4) event uuid."""
    return str(uuid.UUID(int=_RANDOM.getrandbits(128), version=4))


def resource_state_record(db: Database, resource_id: int | None,
                          resource_values: Mapping[str, Any], event_values: Mapping[str, Any],
                          max_events: int | None = None,
                          purge_batch_size: int | None = None) -> tuple[int, str]:
    """Store a resource's state and its event together; return (resource id, event uuid).

    ``resource_id`` None inserts the resource (``resource_values`` then
    holds ``name``, ``uuid``, ``stack_id`` and ``type`` too), otherwise the
    state columns (action, status, status_reason, physical_resource_id) are
    updated (EntityNotFound when it is gone).  The event is recorded as
    :func:`hearth.db.api_events.event_create` does, purging the stack's
    oldest events past ``max_events_per_stack``.
    """
    conf = config.CONF
    limit = conf.max_events_per_stack if max_events is None else max_events
    batch = conf.event_purge_batch_size if purge_batch_size is None else purge_batch_size
    now = timeutils.utcnow()
    new_uuid = event_uuid()
    with db.session_scope(write=True) as session:
        connection = session.connection()
        if resource_id is None:
            resource_id = connection.execute(_INSERT_RESOURCE, dict(
                resource_values, created_at=now)).scalar_one()
        else:
            changed = connection.execute(_UPDATE_RESOURCE, {
                **{name: resource_values[name] for name in _STATE_COLUMNS},
                "resource_id": resource_id, "updated_at": now}).rowcount
            if not changed:
                raise exception.EntityNotFound(entity="Resource", name=resource_id)
        if limit:
            api_events._purge_oldest(session, event_values["stack_id"], limit, batch)
        connection.execute(_INSERT_EVENT, dict(event_values, uuid=new_uuid, created_at=now))
    return resource_id, new_uuid
