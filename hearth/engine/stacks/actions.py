"""Sequence whole-stack actions: create, delete, suspend, resume, check, snapshot.

Every action is one entry of :data:`ACTION_PLANS` (walk direction, the
per-resource task, whether errors are aggregated) run by the one walker
(:class:`hearth.engine.scheduler.GraphWalker`) inside :func:`run_action`, which
frames it with the stack's IN_PROGRESS and COMPLETE/FAILED states and
Heat's status reasons.  A failed create rolls back (deletes what was made)
unless the stack disables rollback.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hearth.common import exception
from hearth.db import api_resources, api_stacks
from hearth.engine.resources import actions as resource_actions
from hearth.engine.scheduler import Direction, GraphWalker, Task, WalkResult

IN_PROGRESS, COMPLETE, FAILED = "IN_PROGRESS", "COMPLETE", "FAILED"


@dataclass(frozen=True)
class ActionPlan:
    """How one stack action walks its resources."""

    direction: Direction
    task: Callable[[Any], Task]
    aggregate_errors: bool = False


ACTION_PLANS: dict[str, ActionPlan] = {
    "CREATE": ActionPlan(Direction.FORWARD, lambda resource: resource.create()),
    "DELETE": ActionPlan(Direction.REVERSE, lambda resource: resource.delete()),
    # rolling back a create deletes what it made, dependents first
    "ROLLBACK": ActionPlan(Direction.REVERSE, lambda resource: resource.delete()),
    "SUSPEND": ActionPlan(Direction.REVERSE, lambda resource: resource.suspend()),
    "RESUME": ActionPlan(Direction.FORWARD, lambda resource: resource.resume()),
    "CHECK": ActionPlan(Direction.FORWARD, lambda resource: resource.check(),
                        aggregate_errors=True),
    "SNAPSHOT": ActionPlan(Direction.FORWARD, lambda resource: resource.snapshot()),
}


def action_timeout(stack: Any) -> float:
    """Return the action timeout in seconds: ``timeout_mins`` else ``stack_action_timeout``."""
    from hearth.common.config import CONF
    minutes = stack.row.timeout_mins
    return minutes * 60.0 if minutes else float(CONF.stack_action_timeout)


def walker_options(stack: Any) -> dict[str, Any]:
    """Return the walker options from the configuration and the stack's seams."""
    from hearth.common.config import CONF
    limits = {key: int(value) for key, value in (CONF.max_concurrent_per_type or {}).items()}
    return {"clock": stack.clock, "sleep": stack.sleep, "timeout": action_timeout(stack),
            "max_concurrent": CONF.max_concurrent_resources,
            "per_group_limits": limits, "error_wait_time": CONF.error_wait_time,
            "group_of": lambda name: stack.resources[name].type_name}


def walk_resources(stack: Any, requires: Mapping[Any, set[Any]], direction: Direction,
                   task: Callable[[Any], Task], **options: Any) -> WalkResult:
    """Walk ``requires`` with ``task`` per node; the walker is kept on the stack for cancel.

    ``options`` (``aggregate_errors``, ``group_of``...) override the walker's
    options from the configuration.
    """
    walker = GraphWalker(requires, task, direction, **{**walker_options(stack), **options})
    stack.walker = walker
    try:
        return walker.run()
    finally:
        stack.walker = None


def failure_reason(action: str, result: WalkResult) -> str:
    """Return Heat's stack status reason for a walk that did not complete."""
    error = result.first_error()
    if isinstance(error, exception.StackTimeout):
        return f"{action.capitalize()} timed out"
    if isinstance(error, exception.ForcedCancel) or result.interrupted is not None:
        return f"Stack {action} cancelled"
    if action == "CHECK":  # every failure, each under its resource's name (as Heat)
        return f"Resource {action} failed: " + "; ".join(
            f"{name}: Resource {action} failed: {failure}"
            for name, failure in result.errors.items())
    return f"Resource {action} failed: {error}"


def run_action(stack: Any, action: str) -> bool:
    """Run a stack action to its end; return whether it completed.

    A failed CREATE is rolled back unless ``disable_rollback``; a completed
    DELETE soft-deletes the stack record.
    """
    plan = ACTION_PLANS[action]
    if (stack.action, stack.status) != (action, IN_PROGRESS):
        stack.state_set(action, IN_PROGRESS, f"Stack {action} started")
    if action == "CREATE":
        stack.store_new_resources()
    result = walk_resources(stack, stack.requires(), plan.direction,
                            lambda name: plan.task(stack.resources[name]),
                            aggregate_errors=plan.aggregate_errors)
    if result.ok:
        stack.state_set(action, COMPLETE,
                        _noted(stack, action, f"Stack {action} completed successfully"))
        if action == "DELETE":
            api_stacks.stack_delete(stack.db, stack.id)
        elif action == "ROLLBACK":  # a rolled-back create keeps no resources (as Heat)
            api_resources.resource_delete_all_by_stack(stack.db, stack.id)
        return True
    stack.state_set(action, FAILED, _noted(stack, action, failure_reason(action, result)))
    if action == "CREATE" and wants_rollback(stack, result):
        run_action(stack, "ROLLBACK")
    return False


def _noted(stack: Any, action: str, reason: str) -> str:
    """Add Heat's note to a CHECK reason when some resource cannot be checked."""
    if action == "CHECK" and not all(resource_actions.supports_check(resource)
                                     for resource in stack.resources.values()):
        return f"{reason}. 'CHECK' not fully supported (see resources)"
    return reason


def wants_rollback(stack: Any, result: WalkResult) -> bool:
    """Return whether a failed action rolls back (rollback on, not cancelled without it)."""
    interrupted = result.interrupted
    if isinstance(interrupted, exception.ForcedCancel):
        return interrupted.with_rollback and not stack.row.disable_rollback
    return not stack.row.disable_rollback
