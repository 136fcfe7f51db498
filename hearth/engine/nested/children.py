"""Build, store, load and run the nested (child) stack of a parent resource.

A child stack is an ordinary stack of the same tables: its record names its
parent (``owner_id``, ``parent_resource_name``, ``nested_depth``), it is in
the parent's project, never rolls back on its own (the parent does) and is
acted on under the parent's lock, on a green thread of its own
(:class:`ChildRun`) that the parent resource polls.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from hearth.common import exception
from hearth.engine.nested import limits
from hearth.engine.nested.environment import child_environment
from hearth.engine.resources.validation import DefinitionChecker
from hearth.engine.stacks.prepare import PreparedStack, StackIdentity, prepare
from hearth.engine.states import FAILED, IN_PROGRESS
from hearth.engine.template import function
from hearth.engine.template.template import Template
from hearth.engine.template.versions import get_version

# The database and green-thread modules are imported where a child stack is
# stored or run: plug-ins import this module, and template-validate loads every
# plug-in without needing either (SQLAlchemy and eventlet, about half a second).

if TYPE_CHECKING:
    from hearth.engine.nested.stack_resource import StackResource
    from hearth.engine.resources.stack_view import StackView
    from hearth.engine.stacks.stack import Stack

LOG = logging.getLogger(__name__)

#: How long a cancelled child walk may take to stop before the parent goes on.
CANCEL_WAIT = 60.0


def is_live(stack: StackView) -> TypeGuard[Stack]:
    """Return whether ``stack`` is a stored, running Stack (not a validation view)."""
    return getattr(stack, "row", None) is not None and getattr(stack, "db", None) is not None


def live_parent(resource: StackResource) -> Stack:
    """Return the running Stack ``resource`` is in: where its nested stack is stored and acts."""
    parent = resource.stack
    if not is_live(parent):
        raise exception.NotSupported(feature=f"acting on the nested stack of {resource.name} "
                                             "outside a stored stack")
    return parent


def depth_of(stack: StackView) -> int:
    """Return the nesting depth of a stack or a validation view (top-level: 0)."""
    row = getattr(stack, "row", None)
    depth = getattr(row, "nested_depth", None) if row is not None else None
    if depth is None:
        depth = getattr(stack, "nested_depth", 0)
    return int(depth or 0)


def _checker(resource: StackResource, env: Any, files: Mapping[str, str], depth: int,
             name: str) -> Any:
    return DefinitionChecker(resource.stack.registry, env, files, nested_depth=depth,
                             stack_name=name)


def _environment(resource: StackResource, params: Mapping[str, Any] | None) -> Any:
    return child_environment(resource.stack.env, params, resource.name,
                             resource.child_removed_type())


def validate_child(resource: StackResource, template: Any,
                   params: Mapping[str, Any] | None) -> None:
    """Validate the child template as the parent is validated (values may still be unknown)."""
    depth = limits.child_depth(depth_of(resource.stack))
    known = {key: value for key, value in (params or {}).items() if value is not None}
    files = resource.child_files()
    env = _environment(resource, known)
    name = f"{resource.stack.name}-{resource.name}"
    child = Template(template, files=files, env=env, filename=resource.child_template_name())
    checker = _checker(resource, env, files, depth, name)
    child.validate(validation_context(child, resource, checker), checker)


def validation_context(child: Template, resource: StackResource, checker: Any,
                       user_params: Mapping[str, Any] | None = None) -> Any:
    """Return the context ``resource``'s child template (a Template) is validated in.

    As the parent is validated: parameter values may still be unknown, and
    ``resource_facade`` reads the parent resource, as at run time (its
    metadata and policies; a value known only later reads as unknown).
    """
    params = child.parameters(user_params, validate_value=False)
    return child.context(params, resource_class=child.class_lookup(checker),
                         facade=functools.partial(facade_value, resource))


def facade_value(resource: StackResource, key: str) -> Any:
    """Return what ``resource_facade: key`` gives inside ``resource``'s nested stack.

    The parent resource's ``metadata``, ``deletion_policy`` (Delete when
    unset) or ``update_policy`` (a map), resolved, as Heat gives them.
    """
    value = function.resolve(getattr(resource.t, key, None))
    if key == "deletion_policy":
        return value or "Delete"
    return value if value is not None else {}


def attach_facade(context: Any, resource: StackResource) -> None:
    """Make ``resource_facade`` in the child's context read the parent ``resource``."""
    context.attach_facade(functools.partial(facade_value, resource))


def hiding_inherited_secrets(template: Any, params: Mapping[str, Any] | None,
                             secrets: list[str]) -> Any:
    """Return ``template`` with every parameter given a parent's secret declared hidden.

    A value hidden in the parent (a hidden parameter, a secret a resource
    keeps) stays hidden in the nested stack's parameters and events, even
    when the nested template does not declare that parameter hidden.
    """
    given = {name for name, value in (params or {}).items()
             if value not in (None, "") and str(value) in secrets}
    if not given:
        return template
    try:
        version = get_version(template)
    except exception.InvalidTemplateVersion:
        return template  # refused where the child is built
    section, hidden_key = version.spell("parameters"), version.spell("hidden")
    declared = template.get(section)
    if not isinstance(declared, Mapping):
        return template
    hidden = {name: ({**definition, hidden_key: True}
                     if name in given and isinstance(definition, Mapping) else definition)
              for name, definition in declared.items()}
    return {**template, section: hidden}


def prepare_child(resource: StackResource, template: Any, params: Mapping[str, Any] | None,
                  identity: StackIdentity,
                  kept_files: Mapping[str, str] | None = None) -> PreparedStack:
    """Validate the child in full (as a stack create) and return its pieces.

    ``kept_files``: the files the child had, for the names the parent's files
    no longer hold (an update keeps reading its members' provider templates).
    """
    depth = limits.child_depth(depth_of(resource.stack))
    files = {**(kept_files or {}), **resource.child_files()}
    env = _environment(resource, params)
    if is_live(resource.stack):
        template = hiding_inherited_secrets(template, params, resource.stack.secrets())
    return prepare(template, files, env, identity,
                   _checker(resource, env, files, depth, identity.name),
                   facade=functools.partial(facade_value, resource))


def create_child(resource: StackResource, template: Any, params: Mapping[str, Any] | None,
                 timeout_mins: int | None) -> Stack:
    """Validate and store the child stack of ``resource``; return it (not yet acting)."""
    # lazy: sqlalchemy: template-validate loads the plug-ins without it
    from hearth.db import api_stacks

    # lazy: sqlalchemy: template-validate loads the plug-ins without it
    from hearth.db.models import new_uuid
    parent = live_parent(resource)
    identity = StackIdentity(resource.physical_resource_name() or resource.name, new_uuid(),
                             parent.row.project_id)
    prepared = prepare_child(resource, template, params, identity)
    limits.check_tree_size(parent.db, parent.id, len(prepared.definitions),
                           top_level=parent.row.owner_id is None)
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


def update_target(resource: StackResource, child: Stack, template: Any,
                  params: Mapping[str, Any] | None) -> tuple[int, Stack]:
    """Validate and store the child's new template; return (its raw template id, target).

    A provider template the child's members were made from stays readable
    when the parent's files no longer hold it (a group's rolling update to a
    new provider path keeps the members of the old one for a few batches):
    Heat reads such a member's template back from its nested stack.
    """
    # lazy: sqlalchemy: template-validate loads the plug-ins without it
    from hearth.db import api_stacks
    parent = live_parent(resource)
    prepared = prepare_child(resource, template, params, StackIdentity.of(child.row),
                             kept_files=child.files)
    limits.check_tree_size(parent.db, parent.id, len(prepared.definitions),
                           removing=len(child.resources),
                           top_level=parent.row.owner_id is None)
    data, files, env = prepared.stored()
    raw = api_stacks.raw_template_create(parent.db, data, files, env)
    target = prepared.build(parent.db, child.row, parent.registry, clock=parent.clock,
                            sleep=parent.sleep, jobs=parent.job_service)
    return raw.id, target


def check_tree_idle(db: Any, row: Any) -> None:
    """Refuse a direct action on nested stack ``row`` while its top-level stack acts.

    Nested stacks act under the top-level stack's lock; a user's own action
    on one of them waits until the tree is idle (ActionInProgress).
    """
    # lazy: sqlalchemy: template-validate loads the plug-ins without it
    from hearth.db import api_nested, api_stacks
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
    # lazy: sqlalchemy: template-validate loads the plug-ins without it
    from hearth.db import api_stacks
    for row in api_stacks.stack_get_all_by_owner(parent.db, parent.id):
        if row.parent_resource_name == resource_name:
            return row.id
    return None


def load_child(parent: Stack, stack_id: str, resource: StackResource | None = None
               ) -> Stack | None:
    """Return the live child stack ``stack_id`` with its stored states (None when gone).

    ``resource`` is the parent resource its ``resource_facade`` reads.
    """
    # lazy: sqlalchemy: template-validate loads the plug-ins without it
    from hearth.db import api_stacks

    # lazy: eventlet, sqlalchemy: template-validate loads the plug-ins without it
    from hearth.engine.stacks.loader import load_stack
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
        # lazy: eventlet: template-validate loads the plug-ins without it
        from hearth.engine import scheduler

        # lazy: eventlet, sqlalchemy: template-validate loads the plug-ins without it
        from hearth.engine.stacks.actions import start_state
        self.child = child
        self.action = action
        self.done = False
        start_state(child, action)  # the child is IN_PROGRESS before the parent polls
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
        # lazy: eventlet: template-validate loads the plug-ins without it
        from hearth.engine import scheduler
        deadline_steps = int(CANCEL_WAIT / 0.01)
        for _ in range(deadline_steps):  # the walk may not have begun yet
            if self.done or self.child.walker is not None:
                break
            scheduler.green_sleep(0.01)
        walker = self.child.walker
        if walker is not None:
            walker.cancel(exception.ForcedCancel(with_rollback=False))
        self.wait(CANCEL_WAIT)
