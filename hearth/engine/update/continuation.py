"""Finish an update a dead engine left IN_PROGRESS, from the stored states.

The stack's record already names the new template (``raw_template_id``)
and the one before (``prev_raw_template_id``).  What each resource is now
is told by when its state was stored: a resource whose state was stored
since the update began was reached by it (its new definition describes
it; one left ``UPDATE_IN_PROGRESS`` is taken with its old definition, so
that its in-place update is continued through the plug-in's
``handle_update_continue`` with the same differences); one not reached
keeps its old definition.  The update then runs again from those
resources to the new template (:func:`hearth.engine.update.run.run_update`):
what it reached compares equal and is left alone, resources left
IN_PROGRESS are continued (``resource.continuing``), the rest runs.  The
originals the dead walk replaced, and the resources it removed but had not
deleted, are deleted by the walk's cleanup.  A resource that failed in the
update makes it fail as it would have (and roll back unless disabled).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.engine.resources.continuation import failed_in_this_action
from hearth.engine.scheduler import WalkResult
from hearth.engine.stacks import actions as stack_actions
from hearth.engine.stacks import leftovers
from hearth.engine.stacks.stack import exists
from hearth.engine.states import CREATE, DELETE, FAILED, IN_PROGRESS, ROLLBACK, UPDATE
from hearth.engine.update import run as update_run

if TYPE_CHECKING:
    from hearth.engine.resource import Resource
    from hearth.engine.stacks.stack import Stack


def reached(resource: Resource, since: datetime | None) -> bool:
    """Return whether the update had reached the resource (its state stored since it began)."""
    stored_at = resource.stored_at
    return since is not None and stored_at is not None and stored_at >= since


def resources_now(stack: Stack, before: Stack, since: datetime | None) -> dict[str, Any]:
    """Return ``{name: resource}`` of what the stack holds, each with the definition describing it.

    ``stack`` is built with the new template, ``before`` with the old one;
    both carry the stored states.
    """
    current: dict[str, Any] = {}
    for name, old in before.resources.items():
        new = stack.resources.get(name)
        if new is not None and exists(new) and reached(new, since) \
                and (new.action, new.status) != (UPDATE, IN_PROGRESS):
            current[name] = new
        elif exists(old):
            current[name] = old
    for name, new in stack.resources.items():
        if name not in current and exists(new):
            current[name] = new  # made by this update
    for resource in current.values():
        if resource.status == IN_PROGRESS:
            resource.continuing = True  # its plug-in continues what the dead engine began
    return current


def continue_update(stack: Stack, since: datetime | None) -> bool:
    """Finish the stack's UPDATE a dead engine began; return whether it completed."""
    previous = stack.row.prev_raw_template_id
    if previous is None:
        raise exception.ActionNotContinuable("the template before the update is not known",
                                             UPDATE)
    before = update_run.load_target(stack, previous)
    current = resources_now(stack, before, since)
    in_current = {resource.db_id for resource in current.values()}
    doomed = {}  # the originals it replaced, what it removed and had not deleted yet
    for name, items in leftovers.load(stack).items():
        left = [resource for resource in items if resource.db_id not in in_current]
        if left:
            doomed[name] = left
    failures = [r for r in current.values()
                if r.status == FAILED and r.action in (CREATE, UPDATE, DELETE)
                and failed_in_this_action(r, since)]
    if failures:
        return _failed(stack, failures[0], previous, current, doomed)
    return update_run.run_update(stack, stack.row.raw_template_id, current=current,
                                 doomed=doomed, originals={}, previous=previous)


def _failed(stack: Stack, failure: Any, previous: int, current: dict[str, Any],
            doomed: dict[str, list[Any]]) -> bool:
    """End the update as the dead engine would have: FAILED, then its rollback if wanted."""
    result = WalkResult(errors={failure.name: exception.ResourceFailedBefore(
        reason=failure.status_reason)})
    stack.state_set(UPDATE, FAILED, stack_actions.failure_reason(UPDATE, result))
    if stack_actions.wants_rollback(stack, result):
        update_run.run_update(stack, previous, ROLLBACK, current, doomed, {})
    return False
