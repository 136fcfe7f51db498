"""Run a stack update, and its rollback to the previous template.

One walk (:func:`hearth.engine.stacks.actions.walk_resources`'s walker) over
the map of :func:`hearth.engine.update.plan.update_graph`: each ``update``
node brings one resource to its new definition (in place through
``handle_update`` when the resource allows it, else by replacement), each
``cleanup`` node deletes what is left behind (removed resources, and the
originals of replaced ones).

Replacement is create-before-delete: the replacement gets a new row
(``replaces`` = the original's id, the original's ``replaced_by`` = the new
id) and is created under the real name; the original is deleted by its
cleanup node, after every dependant has been updated to point at the
replacement.  A rollback that finds an original still alive swaps it back
instead of building it again.

:func:`run_update` frames the walk with the stack's UPDATE (or ROLLBACK)
states (:func:`hearth.engine.stacks.actions.frame`), switches the stored
template (``prev_raw_template_id`` keeps the one to roll back to) and, when
the update fails and rollback is wanted
(:func:`hearth.engine.stacks.actions.wants_rollback`), runs the update back
to the previous template as the ROLLBACK action.  What a walk that is not
rolled back leaves behind is kept (:mod:`hearth.engine.stacks.leftovers`):
the stack's template becomes the merged one describing the resources left,
originals not yet deleted stay for the next update (which loads them, and
swaps one back in place of a failed replacement) or the stack's delete.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.db import api_resources, api_stacks
from hearth.engine.resources.actions import check_restricted, prepare_for_replace
from hearth.engine.resources.store import row_id
from hearth.engine.scheduler import Direction, Task, WalkResult
from hearth.engine.stacks import actions as stack_actions
from hearth.engine.stacks import leftovers
from hearth.engine.stacks.loader import load_stack
from hearth.engine.stacks.stack import exists
from hearth.engine.states import COMPLETE, DELETE, FAILED, IN_PROGRESS, INIT, ROLLBACK, SUSPEND
from hearth.engine.states import CREATE as CREATE_ACTION
from hearth.engine.states import UPDATE as UPDATE_ACTION
from hearth.engine.update import plan as update_plan
from hearth.engine.update.plan import CLEANUP, UPDATE, Node

if TYPE_CHECKING:
    from hearth.engine.resource import Resource
    from hearth.engine.stacks.stack import Stack
    from hearth.engine.template.resource_definition import ResourceDefinition

LOG = logging.getLogger(__name__)


class StackUpdate:
    """Bring the live resources ``current`` to the template of ``target``.

    ``current`` maps names to live resources (they are moved into
    ``target.resources`` and updated there); ``doomed`` holds, per name,
    resources that must be deleted (carried over from an earlier walk);
    ``originals`` those of them that a rollback may swap back.
    """

    def __init__(self, target: Stack, current: Mapping[str, Resource],
                 doomed: Mapping[str, list[Resource]] | None = None,
                 originals: Mapping[str, Resource] | None = None) -> None:
        self.target = target
        self.current = dict(current)
        self.doomed: dict[str, list[Resource]] = {k: list(v) for k, v in (doomed or {}).items()}
        self.originals: dict[str, Resource] = dict(originals or {})
        self.deleted: set[str] = set()
        self.gone: set[int] = set()  # the row ids the cleanup nodes deleted
        for name, original in list(self.originals.items()):
            self._restore(name, original)
        for name, definition in target.definitions.items():
            resource = self.current.get(name)
            if exists(resource):
                resource.stack = target
                target.resources[name] = resource
            else:
                target.resources[name] = target.make_resource(name, definition)

    # --- setting up -----------------------------------------------------------
    def _restore(self, name: str, original: Resource) -> None:
        """Put an original back in place of its replacement (rollback), or doom it."""
        del self.originals[name]
        if original.status == FAILED:
            self.doomed.setdefault(name, []).append(original)
            return
        self.doomed[name] = [r for r in self.doomed.get(name, []) if r is not original]
        db = self.target.db
        api_resources.resource_update(db, row_id(original), replaced_by=None, definition=None)
        replacement = self.current.get(name)
        if exists(replacement):
            api_resources.resource_update(db, row_id(replacement), replaced_by=original.db_id)
            self.doomed.setdefault(name, []).append(replacement)
        self.current[name] = original

    def graph(self) -> dict[Node, set[Node]]:
        """Return the walk's dependency map."""
        live = {name: r for name, r in self.current.items() if exists(r)}
        return update_plan.update_graph(live, self.target.definitions, self.doomed,
                                        self.target.requires())

    def new_class(self, name: str, after: Any) -> type:
        """Return the class the new environment gives definition ``after`` of ``name``."""
        target = self.target
        return target.registry.get_class(after.type, target.env, name, allow_hidden=True,
                                         files=target.files)

    # --- the node tasks -------------------------------------------------------
    def task(self, node: Node) -> Task:
        """Return the task of one walk node."""
        kind, name = node
        return self.update_one(name) if kind == UPDATE else self.cleanup_one(name)

    def update_one(self, name: str) -> Task:
        """Update ``name`` in place, or replace it (create the new one first)."""
        after = self.target.definitions[name]
        resource = self.target.resources[name]
        if getattr(resource, "continuing", False) and resource.action == CREATE_ACTION:
            yield from resource.create()  # a create (or replacement) a dead engine began
            return
        if (exists(resource) and resource.same_type(after.type)
                and resource.same_implementation(self.new_class(name, after))):
            try:
                yield from resource.update(after)
                return
            except exception.UpdateReplace:
                pass
        if exists(resource):
            check_restricted(resource, "replace")  # a type change replaces too (as Heat)
            yield from prepare_for_replace(resource, after)
            resource = self._replacement(name, resource, after)
        yield from resource.create()

    def _replacement(self, name: str, original: Resource, after: ResourceDefinition
                     ) -> Resource:
        """Return the stored INIT replacement of ``original``; doom the original."""
        replacement = self.target.make_resource(name, after)
        row = api_resources.resource_create(self.target.db, {
            "name": name, "uuid": replacement.uuid, "stack_id": self.target.id,
            "type": replacement.type_name, "action": INIT, "status": COMPLETE,
            "status_reason": "", "replaces": original.db_id})
        replacement.db_id = row.id
        api_resources.resource_update(self.target.db, row_id(original), replaced_by=row.id)
        self.target.resources[name] = replacement
        self.originals[name] = original
        self.doomed.setdefault(name, []).append(original)
        return replacement

    def cleanup_one(self, name: str) -> Task:
        """Delete the resources doomed under ``name`` (removed or replaced), rows included."""
        resource = self.current.get(name)
        if name not in self.target.definitions and exists(resource):
            self.doomed.setdefault(name, []).append(resource)
            self.deleted.add(name)
        while self.doomed.get(name):
            victim = self.doomed[name][0]
            yield from victim.delete()
            if victim.db_id is not None:  # (a resource never stored has no row to delete)
                api_resources.resource_delete(self.target.db, victim.db_id)
                self.gone.add(victim.db_id)
            self.doomed[name].pop(0)
            if self.originals.get(name) is victim:
                del self.originals[name]
        self.doomed.pop(name, None)

    # --- after a walk -------------------------------------------------------------
    def live(self) -> dict[str, Resource]:
        """Return the live resources after the walk: what a rollback starts from."""
        result = {name: r for name, r in self.current.items()
                  if name not in self.target.definitions and name not in self.deleted
                  and exists(r)}
        result.update(self.target.resources)
        return result

    def unfinished(self) -> set[str]:
        """Return the names whose cleanup a stopped walk did not do (removed or doomed)."""
        removed = {name for name, r in self.current.items()
                   if name not in self.target.definitions and name not in self.deleted
                   and exists(r)}
        return removed | {name for name, items in self.doomed.items() if items}

    def leftovers(self) -> dict[str, list[Resource]]:
        """Return the resources still doomed (the walk stopped before deleting them)."""
        return {name: list(items) for name, items in self.doomed.items() if items}

    def survivors(self) -> dict[str, Resource]:
        """Return ``{name: resource}`` left in the stack after the walk, each with its definition.

        The new template's resources that exist (updated, replaced, created,
        or not reached), then the removed ones the walk did not delete.
        """
        result = {name: r for name, r in self.target.resources.items() if exists(r)}
        for name, resource in self.current.items():
            if (name not in self.target.definitions and exists(resource)
                    and resource.db_id not in self.gone):
                result[name] = resource
        return result

    def originals_left(self) -> dict[str, list[Resource]]:
        """Return the doomed resources the walk did not delete, those left in the stack aside."""
        kept = {id(resource) for resource in self.survivors().values()}
        result = {name: [r for r in items if id(r) not in kept]
                  for name, items in self.doomed.items()}
        return {name: items for name, items in result.items() if items}


def walk_update(stack: Stack, updater: StackUpdate, graph: Mapping[Node, set[Node]] | None = None
                ) -> WalkResult:
    """Walk ``updater``'s graph with the one walker; the walker is kept on ``stack`` for cancel."""
    graph = updater.graph() if graph is None else graph
    groups = {node: _type_of(updater, node) for node in graph}  # fixed for the whole walk
    return stack_actions.walk_resources(stack, graph, Direction.FORWARD, updater.task,
                                        group_of=groups.__getitem__)


def _type_of(updater: StackUpdate, node: Node) -> str:
    resource = updater.target.resources.get(node[1]) or updater.current.get(node[1])
    return resource.type_name if resource is not None else ""


def cleanup_leftovers(stack: Stack, updater: StackUpdate) -> None:
    """Delete what a stopped walk left doomed (dependants first).

    What :func:`keep_leftovers` falls back on when the merged template
    cannot be stored.
    """
    names = updater.unfinished()
    if not names:
        return
    graph = {node: needs for node, needs in updater.graph().items()
             if node[0] == CLEANUP and node[1] in names}
    graph = {node: {need for need in needs if need in graph} for node, needs in graph.items()}
    walk_update(stack, updater, graph)


def keep_leftovers(stack: Stack, updater: StackUpdate, old_template_id: int,
                   new_template_id: int) -> None:
    """Keep what a stopped walk left (no rollback follows): store the merged template.

    If the merged template cannot be stored, the stack keeps the new
    template and what the walk left doomed or removed is deleted.
    """
    try:
        survivors = updater.survivors()
        updated = {name for name, resource in survivors.items()
                   if resource.t is updater.target.definitions.get(name)}
        leftovers.keep(stack, survivors, updated, updater.originals_left(),
                              old_template_id, new_template_id)
    except exception.HearthException as error:
        LOG.warning("stack %s: the stopped update's resources cannot be kept (%s); "
                    "deleting what it left", stack.name, error)
        cleanup_leftovers(stack, updater)


def load_target(stack: Stack, raw_template_id: int) -> Stack:
    """Return a Stack of ``stack``'s record with template ``raw_template_id``."""
    return load_stack(stack.db, stack.row, stack.registry, raw_template_id=raw_template_id,
                      clock=stack.clock, sleep=stack.sleep, jobs=stack.job_service)


def run_update(stack: Stack, raw_template_id: int, action: str = UPDATE_ACTION,
               current: Mapping[str, Resource] | None = None,
               doomed: Mapping[str, list[Resource]] | None = None,
               originals: Mapping[str, Resource] | None = None,
               values: Mapping[str, Any] | None = None, target: Stack | None = None,
               previous: int | None = None) -> bool:
    """Update ``stack`` to template ``raw_template_id``; return whether it completed.

    ``stack`` is the runtime's stack (its record, recorder and cancel handle);
    ``target`` the Stack of the new template when the caller built it already
    (else it is loaded); ``values`` are stack columns the update request
    changes (tags, timeout...).  UPDATE stores the new template (the old one
    as ``prev_raw_template_id``; so does RESTORE, a snapshot's); a failed
    UPDATE rolls back when
    :func:`~hearth.engine.stacks.actions.wants_rollback` says so.
    ``previous`` is the template before the update (default: the stack's
    now; an update another engine continues gives the one it had).
    """
    previous = stack.row.raw_template_id if previous is None else previous
    updaters: list[StackUpdate] = []

    def rolls_back(result: WalkResult) -> bool:
        # as Heat: only an UPDATE rolls back (not a ROLLBACK, nor a RESTORE)
        return action == UPDATE_ACTION and stack_actions.wants_rollback(stack, result)

    def walk() -> WalkResult:
        left, swapped = doomed, originals
        if current is None:  # a new update starts from what an earlier one left
            left, swapped = leftovers.resume(stack)
        changes = {**(values or {}), "raw_template_id": raw_template_id}
        if action != ROLLBACK:
            changes["prev_raw_template_id"] = previous
        stack.row = api_stacks.stack_update(stack.db, stack.id, **changes)
        new = load_target(stack, raw_template_id) if target is None else target
        new.row = stack.row
        updater = StackUpdate(new, stack.resources if current is None else current,
                              left, swapped)
        updaters.append(updater)
        result = walk_update(stack, updater)
        stack.resources = updater.target.resources
        if not result.ok and not rolls_back(result):
            # stored before the stack shows FAILED: the next request sees it
            keep_leftovers(stack, updater, previous, raw_template_id)
        return result

    def failed(result: WalkResult) -> None:
        if rolls_back(result):
            updater = updaters[0]
            run_update(stack, previous, ROLLBACK, updater.live(), updater.leftovers(),
                       updater.originals)

    return stack_actions.frame(stack, action, walk, failed=failed)


# --- checks (the service's synchronous part) ------------------------------------------

#: stack state -> the refusal of an update in that state (Heat's texts).
REFUSALS: dict[tuple[str | None, str | None], Callable[[Any], Exception]] = {
    (SUSPEND, None): lambda row: exception.NotSupported(
        feature="Updating a stack when it is suspended"),
    (DELETE, None): lambda row: exception.NotSupported(
        feature="Updating a stack when it is deleting"),
    (None, IN_PROGRESS): lambda row: exception.ActionInProgress(
        stack_name=row.name, action=row.action),
}


def check_updatable(row: Any) -> None:
    """Raise the refusal of :data:`REFUSALS` matching the stack's state, if any."""
    for (action, status), refusal in REFUSALS.items():
        if action in (None, row.action) and status in (None, row.status):
            raise refusal(row)


def check_parameters(current: Stack, target: Stack) -> None:
    """Raise ImmutableParameterModified when an immutable parameter's value changes."""
    changed = current.params.immutable_modified(target.params)
    if changed:
        raise exception.ImmutableParameterModified(*changed)
