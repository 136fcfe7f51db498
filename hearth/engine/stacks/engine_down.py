"""What a dead engine left IN_PROGRESS: Heat's reason, and failing it.

An engine that finds a stack whose engine went down either continues its
action (:mod:`hearth.engine.update.takeover`) or fails it here
(:func:`fail_left`), with Heat's reason (:func:`went_down_reason`), as the
``fail`` setting of ``engine_takeover`` does for every action.
"""

from __future__ import annotations

import logging

from hearth.db import api_events, api_locks, api_resources, api_snapshots, api_stacks, models
from hearth.db.session import Database
from hearth.engine.states import FAILED, IN_PROGRESS, STACK_RESOURCE_TYPE

LOG = logging.getLogger(__name__)


def went_down_reason(action: str) -> str:
    """Return Heat's reason for an action whose engine went down."""
    return f"Engine went down during stack {action}"


def stack_event(db: Database, row: models.Stack, action: str, status: str, reason: str) -> None:
    """Record the stack's own event (its ``OS::Heat::Stack`` row) of ``action``/``status``."""
    api_events.event_create(db, {
        "stack_id": row.id, "resource_name": row.name, "physical_resource_id": row.id,
        "resource_type": STACK_RESOURCE_TYPE, "resource_action": action,
        "resource_status": status, "resource_status_reason": reason})


def fail_left(db: Database, row: models.Stack, reason: str, engine_id: str | None = None) -> bool:
    """Fail a stack a dead engine left IN_PROGRESS, unless another process did; return whether.

    The stack goes ``<ACTION>_FAILED`` with one conditional UPDATE (so when
    several engines race, exactly one fails it and writes the event), then
    its resources left IN_PROGRESS fail (the next action may replace them),
    a snapshot being taken fails, and the dead engine's lock is released
    (not the lock of ``engine_id``, the caller's own engine).
    """
    if not api_stacks.stack_update_if(db, row.id, {"action": row.action, "status": IN_PROGRESS},
                                      status=FAILED, status_reason=reason):
        return False
    for left in api_resources.resource_get_all_by_stack(db, row.id, {"status": IN_PROGRESS}):
        api_resources.resource_update(db, left.id, status=FAILED, status_reason=reason)
    api_snapshots.snapshot_fail_unfinished(db, row.id, reason)
    stack_event(db, row, row.action, FAILED, reason)
    holder = api_locks.lock_get_engine_id(db, row.id)
    if holder is not None and holder != engine_id:
        api_locks.lock_release(db, row.id, holder)
    LOG.warning("stack %s (%s): %s", row.name, row.id, reason)
    return True
