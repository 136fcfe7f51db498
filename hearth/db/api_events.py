"""Events: record (purging the oldest past the per-stack limit), list, show.

Two rules make following a stack's events safe while they are purged:

* the purge only ever deletes a stack's *oldest* events (a prefix by id),
  and never one recorded since the stack's lock was taken, so the events
  of the action in progress (its rollback included) all stay until the
  next action starts: a follower of the action can lose no line it has
  not printed yet;
* a marker that names no event (purged, or never there) is therefore
  older than every event left: an ascending page after it starts at the
  oldest event, as Heat answers an unknown event marker, and a descending
  page after it is empty (Heat would start again from the newest).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import delete, func, select

from hearth.common import config, exception
from hearth.db import models, pagination, rows
from hearth.db.session import Database

# API sort key -> column expression; the id is always the final tie-break.
EVENT_SORT_KEYS = {
    "event_time": models.Event.created_at,
    "created_at": models.Event.created_at,
    "resource_type": func.coalesce(models.Event.resource_type, ""),
}
EVENT_DEFAULT_SORT = ("event_time",)

# Filter key -> column (a value or a list of values, any of).
EVENT_FILTERS = {
    "resource_name": models.Event.resource_name,
    "resource_status": models.Event.resource_status,
    "resource_action": models.Event.resource_action,
    "resource_type": models.Event.resource_type,
    "physical_resource_id": models.Event.physical_resource_id,
}


def _purge_limits(max_events: int | None, batch_size: int | None) -> tuple[int, int]:
    config.register_opts()
    return (config.CONF.max_events_per_stack if max_events is None else max_events,
            config.CONF.event_purge_batch_size if batch_size is None else batch_size)


def event_create(db: Database, values: Mapping[str, Any], max_events: int | None = None,
                 purge_batch_size: int | None = None) -> models.Event:
    """Record an event; purge the stack's oldest events past ``max_events_per_stack``.

    When the stack already holds ``max_events`` events, the oldest
    ``event_purge_batch_size`` (at least enough to make room) are deleted
    first.  ``max_events`` 0 keeps every event.  The arguments default to
    the configuration options.
    """
    limit, batch = _purge_limits(max_events, purge_batch_size)
    row = models.Event()
    row.set_columns(values)
    if limit:
        EVENT_COUNTS.reserve(db, row.stack_id, limit, batch)
    with db.session_scope(write=True) as session:
        session.add(row)
    return row


class EventCounts:
    """A running count of each stack's events in this process, for the purge check.

    Counting a stack's events on every insert costs O(events); instead the
    count is read once per stack and then incremented.  It can only run
    ahead of the truth (a rolled-back insert, events purged or deleted
    elsewhere), and reaching the next check triggers a real count before
    anything is deleted, so the limit is enforced exactly as before.
    Inserts by another process are only seen at the next real count.
    The next check is at the limit, or, when the events of the action in
    progress keep the stack at or past it (they are never purged),
    ``batch`` events later.
    """

    def __init__(self) -> None:
        #: (database url, stack id) -> [events counted, count of the next purge check,
        #: the limit that check was computed for]
        self._counts: dict[tuple[str, str], list[int]] = {}

    def reserve(self, db: Database, stack_id: str, limit: int, batch: int,
                queue_purge: QueuePurge | None = None) -> None:
        """Count one more event of ``stack_id``; first purge, if it would pass ``limit``.

        The count runs in its own short transaction the first time a stack
        is seen.  The purge, when the count reaches the next check, runs in
        its own transaction, or, given ``queue_purge``, is queued in the
        group-commit queue ahead of the event being reserved (nobody waits
        for it): ``queue_purge(limit, batch, done)`` queues it and
        ``done(remaining)`` corrects the count once it is committed.
        """
        key = (db.url, stack_id)
        entry = self._counts.get(key)
        if entry is None:
            with db.session_scope() as session:
                entry = [_count(session, stack_id), limit, limit]
        elif entry[2] != limit:  # another limit: its next check starts from that limit
            entry = [entry[0], limit, limit]
        self._counts[key] = entry
        if entry[0] >= entry[1]:
            if queue_purge is None:
                with db.session_scope(write=True) as session:
                    count = _purge_oldest(session, stack_id, limit, batch)
                entry[:] = [count, limit if count < limit else count + max(batch, 1), limit]
            else:
                entry[1] = entry[0] + max(batch, 1)  # until the purge tells what is left
                queue_purge(limit, batch, self._corrector(entry, limit, batch))
        entry[0] += 1

    @staticmethod
    def _corrector(entry: list[int], limit: int, batch: int) -> Callable[[int], None]:
        """Return what sets ``entry`` from the events a queued purge left."""
        counted_then = entry[0]

        def done(remaining: int) -> None:
            entry[0] = remaining + (entry[0] - counted_then)
            # room was made: check again at the limit; none could be (the action's own
            # events): check again a batch later
            entry[1] = limit if remaining < limit else entry[0] + max(batch, 1)
        return done


#: ``queue_purge(limit, batch, done)``: queue a purge, ``done(remaining)`` after its commit.
QueuePurge = Callable[[int, int, Callable[[int], None]], None]


EVENT_COUNTS = EventCounts()


def _count(connection: Any, stack_id: str) -> int:
    return int(connection.scalar(select(func.count(models.Event.id))
                                 .where(models.Event.stack_id == stack_id)))


def _purge_oldest(connection: Any, stack_id: str, limit: int, batch: int) -> int:
    """Delete the oldest events when the stack holds ``limit``; return how many remain.

    Events recorded since the stack's lock was taken (the action in
    progress) are kept, however many there are.
    """
    count = _count(connection, stack_id)
    if count < limit:
        return count
    excess = max(batch, count - limit + 1)
    purgeable = select(models.Event.id).where(models.Event.stack_id == stack_id)
    action_started = connection.scalar(select(models.StackLock.acquired_at)
                                       .where(models.StackLock.stack_id == stack_id))
    if action_started is not None:
        purgeable = purgeable.where(models.Event.created_at < action_started)
    oldest = purgeable.order_by(models.Event.id).limit(excess).scalar_subquery()
    deleted = connection.execute(delete(models.Event).where(models.Event.id.in_(oldest)))
    return count - deleted.rowcount


def event_get(db: Database, stack_id: str, event_uuid: str) -> models.Event:
    """Return the event of a stack by its uuid (EntityNotFound)."""
    query = select(models.Event).where(models.Event.stack_id == stack_id,
                                       models.Event.uuid == event_uuid)
    with db.session_scope() as session:
        return rows.first_or_raise(session, query, "Event", event_uuid)


def event_list(db: Database, stack_ids: str | Sequence[str],
               filters: Mapping[str, Any] | None = None, limit: int | None = None,
               marker: str | None = None, sort_keys: Sequence[str] | None = None,
               sort_dir: str | None = None) -> list[models.Event]:
    """Return the events of one stack (or several, for nested depth), filtered and paged.

    Default order: oldest first (``event_time`` ascending, id tie-break).
    ``marker`` is the uuid of the last event of the previous page; one that
    names no event is older than every event left (see the module's rules).
    """
    ids = [stack_ids] if isinstance(stack_ids, str) else list(stack_ids)
    direction = pagination.check_sort_dir(sort_dir, "asc")
    expressions = pagination.sort_expressions(sort_keys, EVENT_SORT_KEYS, EVENT_DEFAULT_SORT)
    query = select(models.Event).where(models.Event.stack_id.in_(ids))
    for key, value in (filters or {}).items():
        if key not in EVENT_FILTERS:
            raise exception.InvalidFilter(key, sorted(EVENT_FILTERS))
        values = value if isinstance(value, (list, tuple, set)) else [value]
        query = query.where(EVENT_FILTERS[key].in_(list(values)))
    with db.session_scope() as session:
        return pagination.fetch_page(session, query, expressions, models.Event.id, direction,
                                     limit, marker, models.Event.uuid, "Event marker",
                                     unknown_marker="oldest")


def event_count_by_stack(db: Database, stack_id: str) -> int:
    """Return how many events a stack has."""
    query = select(func.count(models.Event.id)).where(models.Event.stack_id == stack_id)
    with db.session_scope() as session:
        return int(session.scalar(query))
