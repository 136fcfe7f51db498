"""The run-time half of nested stacks: a child stack stored, loaded and acted on.

:class:`ChildStacks` is what a :class:`~hearth.engine.nested.stack_resource.StackResource`
does with its nested stack while its stack acts: it stores the child
(:meth:`ChildStacks.create`, :meth:`ChildStacks.update_target`), loads it
back (:meth:`ChildStacks.load`) and runs each of its actions on a green
thread of its own (:class:`ChildRun`, which the parent resource polls).

This module is the nested stacks' one seam to the database and to the green
threads: the plug-in base class reaches it only when a nested stack acts
(:meth:`StackResource.child_stacks
<hearth.engine.nested.stack_resource.StackResource.child_stacks>`), so
``template-validate``, which loads every plug-in, never loads SQLAlchemy
nor eventlet.  What validation needs of a child (its template checked as the
parent's, its pieces prepared) is :mod:`hearth.engine.nested.children`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.db import api_nested, api_stacks
from hearth.db.models import new_uuid
from hearth.db.session import Database
from hearth.engine import scheduler
from hearth.engine.nested import limits
from hearth.engine.nested.children import (
    attach_facade,
    depth_of,
    live_parent,
    prepare_child,
)
from hearth.engine.stacks import actions as stack_actions
from hearth.engine.stacks import adopt
from hearth.engine.stacks.loader import load_stack
from hearth.engine.stacks.prepare import StackIdentity
from hearth.engine.stacks.stack import Stack
from hearth.engine.states import ADOPT, FAILED, IN_PROGRESS, UPDATE
from hearth.engine.update import run as update_run
from hearth.engine.update import takeover

if TYPE_CHECKING:
    from hearth.engine.nested.stack_resource import StackResource

LOG = logging.getLogger(__name__)

#: How long a cancelled child walk may take to stop before the parent goes on.
CANCEL_WAIT = 60.0


def check_tree_size(parent: Stack, adding: int, removing: int = 0) -> None:
    """Refuse ``adding`` resources (replacing ``removing``) in the tree of ``parent``."""
    db = parent.db

    def in_tree() -> int:
        root = (parent.id if parent.row.owner_id is None
                else api_nested.stack_root_id(db, parent.id))
        return api_nested.tree_resource_count(db, root)
    limits.check_tree_size(in_tree, adding, removing)


def check_tree_idle(db: Database, row: Any) -> None:
    """Refuse a direct action on nested stack ``row`` while its top-level stack acts.

    Nested stacks act under the top-level stack's lock; a user's own action
    on one of them waits until the tree is idle (ActionInProgress).
    """
    root_id = api_nested.stack_root_id(db, row.id)
    if root_id == row.id:
        return
    root = api_stacks.stack_get(db, root_id, show_deleted=True)
    if root.status == IN_PROGRESS:
        raise exception.ActionInProgress(stack_name=root.name, action=root.action)


def find_child_id(parent: Stack, resource_name: str) -> str | None:
    """Return the id of the live child stack ``resource_name`` of ``parent`` stored, if any.

    Finds a child whose id the parent resource never got to store (a crash
    between the two writes).
    """
    for row in api_stacks.stack_get_all_by_owner(parent.db, parent.id):
        if row.parent_resource_name == resource_name:
            return row.id
    return None


def load_child(parent: Stack, stack_id: str, resource: StackResource | None = None
               ) -> Stack | None:
    """Return the live child stack ``stack_id`` with its stored states (None when gone).

    ``resource`` is the parent resource its ``resource_facade`` reads.
    """
    try:
        row = api_stacks.stack_get(parent.db, stack_id)
    except exception.StackNotFound:
        return None
    child = load_stack(parent.db, row, parent.registry, clock=parent.clock, sleep=parent.sleep,
                       jobs=parent.job_service)
    child.fence = parent.fence  # it acts under the parent's lock
    if resource is not None:
        attach_facade(child.context, resource)
    return child


class ChildRun:
    """One action of a child stack, running on its own green thread.

    The parent resource polls :attr:`done`; a cancelled or timed-out parent
    calls :meth:`cancel`, which stops the child's walk and waits for it.
    """

    def __init__(self, child: Stack, action: str, work: Callable[[], Any]) -> None:
        self.child = child
        self.action = action
        self.done = False
        stack_actions.start_state(child, action)  # IN_PROGRESS before the parent polls
        self._finished = scheduler.Event()
        self.thread = scheduler.spawn(self._run, work)

    def _run(self, work: Callable[[], Any]) -> None:
        try:
            work()
        except Exception:  # noqa: BLE001 - logged; the child's state tells the parent
            LOG.exception("nested stack %s: action failed unexpectedly", self.child.name)
            self.child.state_set(self.action, FAILED, "Internal error: see the engine log")
        finally:
            self.done = True
            self._finished.send(True)

    def wait(self, timeout: float | None = None) -> None:
        """Wait (green) until the child's action has ended."""
        if not self.done:
            self._finished.wait(timeout)

    def cancel(self) -> None:
        """Stop the child's walk (no rollback: the parent decides) and wait for its end."""
        deadline_steps = int(CANCEL_WAIT / 0.01)
        for _ in range(deadline_steps):  # the walk may not have begun yet
            if self.done or self.child.walker is not None:
                break
            scheduler.green_sleep(0.01)
        walker = self.child.walker
        if walker is not None:
            walker.cancel(exception.ForcedCancel(with_rollback=False))
        self.wait(CANCEL_WAIT)


class ChildStacks:
    """The nested stack of one parent resource at run time: stored, loaded, acted on."""

    def __init__(self, resource: StackResource) -> None:
        self.resource = resource

    @property
    def parent(self) -> Stack:
        """Return the running stack the parent resource is in."""
        return live_parent(self.resource)

    def load(self) -> Stack | None:
        """Return the nested stack with its stored states (None before it exists)."""
        parent = self.parent
        stack_id = self.resource.resource_id or find_child_id(parent, self.resource.name)
        return load_child(parent, stack_id, self.resource) if stack_id is not None else None

    def create(self, template: Any, params: Mapping[str, Any] | None,
               timeout_mins: int | None) -> Stack:
        """Validate and store the nested stack; return it (not yet acting)."""
        resource, parent = self.resource, self.parent
        identity = StackIdentity(resource.physical_resource_name() or resource.name, new_uuid(),
                                 parent.row.project_id)
        prepared = prepare_child(resource, template, params, identity)
        check_tree_size(parent, len(prepared.definitions))
        data, files, env = prepared.stored()
        raw = api_stacks.raw_template_create(parent.db, data, files, env)
        row = api_stacks.stack_create(parent.db, {
            "id": identity.id, "name": identity.name, "raw_template_id": raw.id,
            "project_id": parent.row.project_id, "username": parent.row.username,
            "owner_id": parent.id, "parent_resource_name": resource.name,
            "nested_depth": depth_of(parent) + 1,
            "timeout_mins": timeout_mins or parent.row.timeout_mins,
            "disable_rollback": True, "tags": []})
        child = prepared.build(parent.db, row, parent.registry, clock=parent.clock,
                               sleep=parent.sleep, jobs=parent.job_service)
        child.fence = parent.fence  # it acts under the parent's lock
        return child

    def update_target(self, child: Stack, template: Any,
                      params: Mapping[str, Any] | None) -> tuple[int, Stack]:
        """Validate and store the child's new template; return (its raw template id, target).

        A provider template the child's members were made from stays readable
        when the parent's files no longer hold it (a group's rolling update to
        a new provider path keeps the members of the old one for a few
        batches): Heat reads such a member's template back from its nested stack.
        """
        resource, parent = self.resource, self.parent
        prepared = prepare_child(resource, template, params, StackIdentity.of(child.row),
                                 kept_files=child.files)
        check_tree_size(parent, len(prepared.definitions), removing=len(child.resources))
        data, files, env = prepared.stored()
        raw = api_stacks.raw_template_create(parent.db, data, files, env)
        target = prepared.build(parent.db, child.row, parent.registry, clock=parent.clock,
                                sleep=parent.sleep, jobs=parent.job_service)
        return raw.id, target

    # --- the child's actions, each on its own green thread ---------------------------
    def run(self, child: Stack, action: str) -> ChildRun:
        """Start the stack action ``action`` (CREATE, DELETE, SUSPEND...) of ``child``."""
        return ChildRun(child, action, lambda: stack_actions.run_action(child, action))

    def run_update(self, child: Stack, raw_id: int, target: Stack,
                   timeout_mins: int | None) -> ChildRun:
        """Start ``child``'s UPDATE to ``target`` (stored as raw template ``raw_id``)."""
        values = {"timeout_mins": timeout_mins} if timeout_mins else None
        return ChildRun(child, UPDATE, lambda: update_run.run_update(
            child, raw_id, values=values, target=target))

    def run_adopt(self, child: Stack, entries: Mapping[str, Any]) -> ChildRun:
        """Start ``child``'s ADOPT of its members' abandon data ``entries``."""
        return ChildRun(child, ADOPT, lambda: adopt.run_adopt(child, entries))

    def continue_action(self, child: Stack, action: str) -> ChildRun:
        """Continue ``child``'s ``action`` a dead engine left, from its stored states."""
        engine_id = self.parent.continued_by or "?"
        return ChildRun(child, action, lambda: takeover.continue_action(child, engine_id))

    def action_timeout(self) -> float:
        """Return the parent stack's action timeout in seconds."""
        return stack_actions.action_timeout(self.parent)

    def run_to_end(self, task: scheduler.Task) -> None:
        """Run ``task`` to its end on this green thread, within the stack's action timeout."""
        parent = self.parent
        runner = scheduler.TaskRunner(task, clock=parent.clock, sleep=parent.sleep)
        runner.cancel_at(parent.clock() + self.action_timeout(), exception.StackTimeout())
        runner.run()

