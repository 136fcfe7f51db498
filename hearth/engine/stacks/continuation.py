"""Finish a stack action a dead engine left IN_PROGRESS, or fail it as Heat does.

An engine that takes a dead engine's stack over
(:mod:`hearth.engine.service.recovery`, holding the stack's lock) calls
:func:`continue_action`: the same action runs again on the stack rebuilt
from the database, each resource's task reading its stored state first
(:mod:`hearth.engine.resources.continuation`: COMPLETE stays, IN_PROGRESS
is continued through the plug-in, a failure of this action stands), and
ends as it would have in the dead engine (COMPLETE, FAILED, rollback).  A
nested stack's parent resource continues its child the same way.

The stack's state keeps its time (the action's start, by which a failure
of this action is told from an older one); an event says who continues.
An UPDATE continues too (:mod:`hearth.engine.update.continuation`); an
update's rollback, a snapshot, a restore and an adopt do not: those are
failed by :func:`fail_left`, with Heat's reason, as the ``fail``
setting of ``engine_takeover`` does for every action.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hearth.db import api_events, api_locks, api_resources, api_snapshots, api_stacks
from hearth.db.session import Database
from hearth.engine.states import (
    CHECK,
    CREATE,
    DELETE,
    FAILED,
    IN_PROGRESS,
    RESUME,
    ROLLBACK,
    SUSPEND,
    UPDATE,
)

if TYPE_CHECKING:
    from hearth.engine.stacks.stack import Stack

LOG = logging.getLogger(__name__)

STACK_RESOURCE_TYPE = "OS::Heat::Stack"


def _run(action: str) -> Callable[[Stack], bool]:
    def run(stack: Stack) -> bool:
        from hearth.engine.stacks import actions as stack_actions
        return stack_actions.run_action(stack, action)
    return run


#: stack action -> how an engine that took it over finishes it.
CONTINUED_ACTIONS: dict[str, Callable[[Stack], bool]] = {
    CREATE: _run(CREATE),
    DELETE: _run(DELETE),
    SUSPEND: _run(SUSPEND),
    RESUME: _run(RESUME),
    CHECK: _run(CHECK),
}


def _continue_update(stack: Stack) -> bool:
    from hearth.engine.update.continuation import continue_update
    since, stack.continuing_since = stack.continuing_since, None
    return continue_update(stack, since)


def continuer(stack: Stack) -> Callable[[Stack], bool] | None:
    """Return what finishes the stack's action in another engine, or None if nothing can."""
    if stack.action == UPDATE and stack.row.prev_raw_template_id is not None:
        return _continue_update
    if stack.action == ROLLBACK:
        # a create's rollback (no earlier template) deletes what the create made
        return _run(ROLLBACK) if stack.row.prev_raw_template_id is None else None
    return CONTINUED_ACTIONS.get(stack.action)


def went_down_reason(action: str) -> str:
    """Return Heat's reason for an action whose engine went down."""
    return f"Engine went down during stack {action}"


def continued_note(action: str, engine_id: str) -> str:
    """Return the reason of the event that says an engine continues the action."""
    return f"{went_down_reason(action)}: continued by engine {engine_id}"


def continue_action(stack: Stack, engine_id: str) -> bool:
    """Finish the stack's IN_PROGRESS action in this engine; return whether it completed.

    The caller holds the stack's lock (or its root's).  An action nothing
    can continue fails with Heat's reason (:func:`fail_left`).
    """
    action, row = stack.action, stack.row
    finish = continuer(stack)
    if finish is None:
        fail_left(stack.db, row, went_down_reason(action), engine_id)
        row.status, row.status_reason = FAILED, went_down_reason(action)
        return False
    stack.continued_by = engine_id  # (its nested stacks' notes name it too)
    note = continued_note(action, engine_id)
    api_stacks.stack_update_if(stack.db, stack.id, {"action": action, "status": IN_PROGRESS},
                               status_reason=note, updated_at=row.updated_at)
    _stack_event(stack.db, row, action, IN_PROGRESS, note)
    LOG.warning("stack %s (%s): %s", stack.name, stack.id, note)
    stack.continuing_since = row.updated_at
    return finish(stack)


def _stack_event(db: Database, row: Any, action: str, status: str, reason: str) -> None:
    api_events.event_create(db, {
        "stack_id": row.id, "resource_name": row.name, "physical_resource_id": row.id,
        "resource_type": STACK_RESOURCE_TYPE, "resource_action": action,
        "resource_status": status, "resource_status_reason": reason})


def fail_left(db: Database, row: Any, reason: str, engine_id: str | None = None) -> bool:
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
    _stack_event(db, row, row.action, FAILED, reason)
    holder = api_locks.lock_get_engine_id(db, row.id)
    if holder is not None and holder != engine_id:
        api_locks.lock_release(db, row.id, holder)
    LOG.warning("stack %s (%s): %s", row.name, row.id, reason)
    return True
