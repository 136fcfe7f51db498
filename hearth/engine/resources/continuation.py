"""Continue a resource's action that a dead engine left in progress, through its plug-in.

When an engine takes over a stack action
(:mod:`hearth.engine.update.takeover`), each resource's task first reads
the resource's stored state (:func:`continued`):

- ``<ACTION>_COMPLETE``: done before the engine died; nothing runs again
  (a ``post-<action>`` hook still set is waited for);
- ``<ACTION>_FAILED`` stored since the stack's action began: the walk had
  failed there, and the failure stands, with its stored reason;
- ``<ACTION>_IN_PROGRESS``: the plug-in continues it (:func:`continuation`),
  then ``check_<action>_complete`` is polled as usual;
- anything else: the action had not reached the resource; it runs as usual.

The plug-in's side of the contract (docs/plugin-guide.rst) is
``handle_<action>_continue(*args)``: called instead of ``handle_<action>``
in the engine that took over, it finds from what is stored (the
``resource_id``, the resource's data) what the dead engine's handle did,
does what is left (at most, the handle again, when nothing outside was
made), and returns the cookie ``check_<action>_complete`` polls; it raises
:class:`~hearth.common.exception.ActionNotContinuable` when it cannot tell.
A type without it continues an action whose handle it does not have
(nothing was started), a DELETE or a CHECK (:data:`REPEATABLE`: the
handle runs again), and any action of a type whose handles change nothing
outside Hearth's database (``acts_outside = False``); any other action
fails with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.engine.resources import actions
from hearth.engine.states import CHECK, COMPLETE, CREATE, DELETE, FAILED, IN_PROGRESS, UPDATE

if TYPE_CHECKING:
    from hearth.engine.resources.resource_view import ResourceView
    from hearth.engine.scheduler import Task

#: The reason of the IN_PROGRESS state (and event) a continued resource records.
CONTINUED = "Engine went down during the action: continued by another engine"

#: the actions with a ``post-<action>`` hook (:func:`actions.paused_at_hook`)
HOOKED = (CREATE, UPDATE)

#: the actions whose handle may run again in any type: a delete must already accept a
#: physical resource that is gone (Heat's rule), a check only reads
REPEATABLE = (DELETE, CHECK)


def continue_method_name(action: str) -> str:
    """Return the name of the plug-in method that continues ``action``."""
    return f"handle_{action.lower()}_continue"


def continuation(resource: ResourceView, action: str) -> Callable[..., Any]:
    """Return what starts ``action`` again in the engine that took it over.

    The plug-in's ``handle_<action>_continue``; else the handle itself when
    running it again is safe (the type has no handle for it, or changes
    nothing outside Hearth's database); else a callable that raises
    :class:`~hearth.common.exception.ActionNotContinuable`.
    """
    method: Callable[..., Any] | None = getattr(resource, continue_method_name(action), None)
    if callable(method):
        return method
    handle: Callable[..., Any] | None = getattr(resource, f"handle_{action.lower()}", None)
    if handle is None:
        return lambda *args: None
    if action in REPEATABLE or not resource.acts_outside:
        return handle

    def refuse(*args: Any) -> None:
        raise exception.ActionNotContinuable(
            f"{resource.type_name} cannot continue a {action} another engine began "
            f"(it has no {continue_method_name(action)})", action)
    return refuse


def continuable_actions(cls: type) -> list[str]:
    """Return the actions a dead engine may leave in progress that ``cls`` continues."""
    result = []
    for action in actions.HANDLER_NAMES:
        name = action.lower()
        if (callable(getattr(cls, continue_method_name(action), None))
                or getattr(cls, f"handle_{name}", None) is None
                or action in REPEATABLE or not getattr(cls, "acts_outside", True)):
            result.append(action)
    return result


def failed_in_this_action(resource: ResourceView, since: datetime | None) -> bool:
    """Return whether the resource's FAILED state was stored since the stack's action began."""
    stored_at: datetime | None = resource.stored_at
    return since is None or (stored_at is not None and stored_at >= since)


def continued(resource: ResourceView, action: str, fresh: Callable[[], Task],
              since: datetime | None, *args: Any) -> Task:
    """Return the task of ``action`` on ``resource`` in a walk an engine took over.

    ``fresh()`` is the ordinary task (the action had not reached the
    resource); ``since`` when the stack's action began; ``args`` the
    handle's (an update's definition and diffs).
    """
    if resource.action == action and resource.status == COMPLETE:
        if action in HOOKED:
            yield from _still_paused(resource, f"post-{action.lower()}")
        return
    if resource.action == action and resource.status == FAILED \
            and failed_in_this_action(resource, since):
        raise exception.ResourceFailedBefore(reason=resource.status_reason)
    if resource.action == action and resource.status == IN_PROGRESS:
        yield from actions.recorded(resource, action, _continued_steps(resource, action, args),
                                    CONTINUED)
        return
    yield from fresh()


def _no_steps() -> Task:
    """Return a task that ends at once (a retained resource's delete has nothing to do)."""
    return
    yield  # pragma: no cover - makes this a generator


def _continued_steps(resource: ResourceView, action: str, args: tuple[Any, ...]) -> Task:
    if action == DELETE:
        policy = actions.deletion_policy(resource)
        if policy == "Retain":
            return _no_steps()
        if policy == "Snapshot":
            def refuse() -> Task:
                raise exception.ActionNotContinuable(
                    "a delete that snapshots first cannot be continued", action)
                yield  # pragma: no cover - a generator that raises at its first step
            return refuse()
    return actions.plugin_steps(resource, action, *args, start=continuation(resource, action))


def _still_paused(resource: ResourceView, hook: str) -> Task:
    """Wait while ``hook`` is still set on the resource (the dead engine paused there)."""
    store = resource.stack.store
    while actions.hook_key(hook) in store.load_data(resource):
        yield
