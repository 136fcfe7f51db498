"""Sequence whole-stack actions: create, delete, suspend, resume, check, snapshot.

Every action is one entry of :data:`ACTION_PLANS` (walk direction, the
per-resource task, whether errors are aggregated) run by the one walker
(:class:`hearth.engine.scheduler.GraphWalker`) inside :func:`run_action`, which
frames it with the stack's IN_PROGRESS and COMPLETE/FAILED states and
Heat's status reasons.  A failed create rolls back (deletes what was made)
unless the stack disables rollback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.common.config import CONF
from hearth.db import api_resources, api_stacks
from hearth.engine.resources import actions as resource_actions
from hearth.engine.resources import continuation
from hearth.engine.scheduler import Direction, GraphWalker, N, Task, WalkResult
from hearth.engine.stacks import leftovers, snapshots
from hearth.engine.states import (
    CHECK,
    COMPLETE,
    CREATE,
    DELETE,
    FAILED,
    IN_PROGRESS,
    RESUME,
    ROLLBACK,
    SNAPSHOT,
    SUSPEND,
)

if TYPE_CHECKING:
    from hearth.engine.resource import Resource
    from hearth.engine.stacks.stack import Stack

#: How a failed action decides on rollback: interruption type -> rule(stack, error).
ROLLBACK_WANTED: dict[type, Callable[[Stack, BaseException], bool]] = {
    # cancel_update rolls back, cancel_without_rollback does not
    exception.ForcedCancel: lambda stack, error: (isinstance(error, exception.ForcedCancel)
                                                  and error.with_rollback),
}

#: The (requires, resources) maps of a walk: a node is a resource's name, or
#: ``(name, row id)`` for an original a stopped update left (:mod:`.leftovers`).
WalkNodes = tuple[Mapping[Any, Iterable[Any]], Mapping[Any, "Resource"]]


def stack_nodes(stack: Stack) -> WalkNodes:
    """Return (requires, resources) of a walk over the stack's resources."""
    return stack.requires(), stack.resources


def nodes_with_leftovers(stack: Stack) -> WalkNodes:
    """Return (requires, resources) of the stack's resources and what a stopped update left."""
    return leftovers.deletion_graph(stack)


@dataclass(frozen=True)
class ActionPlan:
    """How one stack action walks its resources.

    ``nodes(stack)`` gives the walk's (requires, resources) maps;
    ``resource_action`` is the action ``task`` records on each resource.
    """

    direction: Direction
    task: Callable[[Resource], Task]
    resource_action: str
    aggregate_errors: bool = False
    nodes: Callable[[Stack], WalkNodes] = stack_nodes


ACTION_PLANS: dict[str, ActionPlan] = {
    CREATE: ActionPlan(Direction.FORWARD, lambda resource: resource.create(), CREATE),
    # a delete deletes the originals a stopped update left too
    DELETE: ActionPlan(Direction.REVERSE, lambda resource: resource.delete(), DELETE,
                       nodes=nodes_with_leftovers),
    # rolling back a create deletes what it made, dependents first
    ROLLBACK: ActionPlan(Direction.REVERSE, lambda resource: resource.delete(), DELETE),
    SUSPEND: ActionPlan(Direction.REVERSE, lambda resource: resource.suspend(), SUSPEND),
    RESUME: ActionPlan(Direction.FORWARD, lambda resource: resource.resume(), RESUME),
    CHECK: ActionPlan(Direction.FORWARD, lambda resource: resource.check(), CHECK,
                      aggregate_errors=True),
    SNAPSHOT: ActionPlan(Direction.FORWARD, lambda resource: resource.snapshot(), SNAPSHOT),
}


def plan_task(stack: Stack, plan: ActionPlan) -> Callable[[Resource], Task]:
    """Return the per-resource task of a walk of ``plan`` on ``stack``.

    In a walk this engine took over from a dead one (``stack.continuing_since``
    set; this walk takes it), each task first reads the resource's stored
    state (:func:`hearth.engine.resources.continuation.continued`).
    """
    since, stack.continuing_since = stack.continuing_since, None
    if since is None:
        return plan.task
    return lambda resource: continuation.continued(
        resource, plan.resource_action, lambda: plan.task(resource), since)


def action_timeout(stack: Stack) -> float:
    """Return the action timeout in seconds: ``timeout_mins`` else ``stack_action_timeout``."""
    minutes = stack.row.timeout_mins
    return minutes * 60.0 if minutes else float(CONF.stack_action_timeout)


def walker_options(stack: Stack) -> dict[str, Any]:
    """Return the walker options from the configuration and the stack's seams."""
    limits = {key: int(value) for key, value in (CONF.max_concurrent_per_type or {}).items()}
    return {"clock": stack.clock, "sleep": stack.sleep, "timeout": action_timeout(stack),
            "max_concurrent": CONF.max_concurrent_resources,
            "per_group_limits": limits, "error_wait_time": CONF.error_wait_time,
            "group_of": lambda name: stack.resources[name].type_name}


def walk_resources(stack: Stack, requires: Mapping[N, Iterable[N]], direction: Direction,
                   task: Callable[[N], Task], **options: Any) -> WalkResult:
    """Walk ``requires`` with ``task`` per node; the walker is kept on the stack for cancel.

    ``options`` (``aggregate_errors``, ``group_of``...) override the walker's
    options from the configuration.
    """
    walker: GraphWalker[N] = GraphWalker(requires, task, direction,
                                         **{**walker_options(stack), **options})
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
    if action == CHECK:  # every failure, each under its resource's name (as Heat)
        return f"Resource {action} failed: " + "; ".join(
            f"{name}: Resource {action} failed: {failure}"
            for name, failure in result.errors.items())
    return f"Resource {action} failed: {error}"


def start_state(stack: Stack, action: str) -> None:
    """Set the stack ``<ACTION>_IN_PROGRESS`` ("Stack <ACTION> started") unless it is."""
    if (stack.action, stack.status) != (action, IN_PROGRESS):
        stack.state_set(action, IN_PROGRESS, f"Stack {action} started")


def frame(stack: Stack, action: str, walk: Callable[[], WalkResult],
          completed: Callable[[], Any] | None = None,
          failed: Callable[[WalkResult], Any] | None = None) -> bool:
    """Run one framed stack action; return whether it completed.

    The one frame of create, update and every other action: the stack goes
    ``<ACTION>_IN_PROGRESS``, ``walk()`` runs (its set-up included), then
    the stack goes COMPLETE or FAILED with Heat's reason, and ``completed()``
    or ``failed(result)`` does what follows (soft-delete, rollback, cleanup).
    A walk a new update preempted ends without either: the stack stays
    IN_PROGRESS for the update that follows.
    """
    start_state(stack, action)
    result = walk()
    if getattr(result.interrupted, "preempted", False):
        return False  # the update that preempted it records the stack's state from now on
    if result.ok:
        stack.state_set(action, COMPLETE,
                        _noted(stack, action, f"Stack {action} completed successfully"))
        if completed is not None:
            completed()
        return True
    stack.state_set(action, FAILED, _noted(stack, action, failure_reason(action, result)))
    if failed is not None:
        failed(result)
    return False


#: What follows a completed action, per action.
AFTER_COMPLETE: dict[str, Callable[[Stack], Any]] = {
    DELETE: lambda stack: api_stacks.stack_delete(stack.db, stack.id),
    # a rolled-back create keeps no resources (as Heat)
    ROLLBACK: lambda stack: api_resources.resource_delete_all_by_stack(stack.db, stack.id),
}


def _delete_snapshots(stack: Stack) -> None:
    snapshots.delete_all(stack)


#: What an action does before its walk, per action.
BEFORE_WALK: dict[str, Callable[[Stack], Any]] = {
    # a stack's resources are listed from the start of its create
    CREATE: lambda stack: stack.store_new_resources(),
    # as Heat: deleting a stack deletes its snapshots first (what each resource made too)
    DELETE: _delete_snapshots,
}


def run_action(stack: Stack, action: str) -> bool:
    """Run a stack action to its end; return whether it completed.

    A failed CREATE is rolled back unless ``disable_rollback``; a completed
    DELETE soft-deletes the stack record.
    """
    plan = ACTION_PLANS[action]

    def walk() -> WalkResult:
        before = BEFORE_WALK.get(action)
        if before is not None:
            before(stack)
        requires, nodes = plan.nodes(stack)
        task = plan_task(stack, plan)
        return walk_resources(stack, requires, plan.direction,
                              lambda node: task(nodes[node]),
                              aggregate_errors=plan.aggregate_errors,
                              group_of=lambda node: nodes[node].type_name)

    def failed(result: WalkResult) -> None:
        if action == CREATE and wants_rollback(stack, result):
            run_action(stack, ROLLBACK)

    after = AFTER_COMPLETE.get(action)
    return frame(stack, action, walk, None if after is None else lambda: after(stack), failed)


def _noted(stack: Stack, action: str, reason: str) -> str:
    """Add Heat's note to a CHECK reason when some resource cannot be checked."""
    if action == CHECK and not all(resource_actions.supports_check(resource)
                                     for resource in stack.resources.values()):
        return f"{reason}. 'CHECK' not fully supported (see resources)"
    return reason


def wants_rollback(stack: Stack, result: WalkResult) -> bool:
    """Return whether a failed action rolls back (cancel decides, else ``disable_rollback``)."""
    interrupted = result.interrupted
    rule = ROLLBACK_WANTED.get(type(interrupted))
    if rule is not None and interrupted is not None:
        return rule(stack, interrupted)
    if isinstance(interrupted, (KeyboardInterrupt, SystemExit, GeneratorExit)):
        return False
    return not stack.row.disable_rollback
