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
failed by :func:`hearth.engine.stacks.engine_down.fail_left`, with Heat's reason, as the ``fail``
setting of ``engine_takeover`` does for every action.  (This module sits in
the update package, above the stack actions, because it continues updates.)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from hearth.db import api_stacks
from hearth.engine.stacks import actions as stack_actions
from hearth.engine.stacks.engine_down import fail_left, stack_event, went_down_reason
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
from hearth.engine.update.continuation import continue_update

if TYPE_CHECKING:
    from hearth.engine.stacks.stack import Stack

LOG = logging.getLogger(__name__)


def _run(action: str) -> Callable[[Stack], bool]:
    def run(stack: Stack) -> bool:
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
    stack_event(stack.db, row, action, IN_PROGRESS, note)
    LOG.warning("stack %s (%s): %s", stack.name, stack.id, note)
    stack.continuing_since = row.updated_at
    return finish(stack)
