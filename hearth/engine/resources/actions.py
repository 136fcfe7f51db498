"""Per-resource action tasks: create, update, delete, suspend, resume, check, snapshot.

Each public function returns a generator task for the scheduler
(:mod:`hearth.engine.scheduler`).  A task records ``<ACTION>_IN_PROGRESS``,
calls the plug-in's ``handle_<action>`` once, polls
``check_<action>_complete`` (yielding between polls) and records
``COMPLETE`` or ``FAILED``.  Every state change goes through
:func:`set_state`, which checks it against :data:`TRANSITIONS` and hands it
to ``resource.stack.record_resource_state`` (persisted, written as an event,
published on the bus).

What a task needs from a resource (``hearth.engine.resource.Resource``):
``name``, ``type_name``, ``action``, ``status``, ``status_reason``,
``resource_id``, ``t`` (its ResourceDefinition), ``properties``, ``validate()``,
``stack`` (``clock``, ``env``, ``store``, ``record_resource_state``), the
plug-in's ``handle_*``/``check_*_complete`` methods, and for updates
``make_properties``, ``_needs_update`` and ``update_diffs``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.engine import states
from hearth.engine.resources import continuation, keeping, signals, stored_properties
from hearth.engine.resources.stack_view import recorder
from hearth.engine.template import function

if TYPE_CHECKING:  # the scheduler (eventlet) is imported where an engine runs
    from hearth.engine.resources.resource_view import ResourceView
    from hearth.engine.scheduler import Task
    from hearth.engine.template.environment import ResourceRegistry

#: The state words (:mod:`hearth.engine.states`), under the names tasks use.
ACTIONS = (INIT, CREATE, DELETE, UPDATE, ROLLBACK, SUSPEND, RESUME, ADOPT, SNAPSHOT,
           CHECK) = states.ACTIONS
STATUSES = (IN_PROGRESS, FAILED, COMPLETE) = states.STATUSES
State = states.State

_SETTLED = frozenset((a, s) for a in ACTIONS for s in (COMPLETE, FAILED))
_LIVE = frozenset(state for state in _SETTLED
                  if state[0] not in (INIT, DELETE) and state != (CREATE, FAILED))

#: Where each action may start from (the resource's state before IN_PROGRESS).
ACTION_STARTS: dict[str, frozenset[State]] = {
    # a new resource, or a failed create being retried
    CREATE: frozenset({(INIT, COMPLETE), (CREATE, FAILED)}),
    # an existing physical resource taken over (external_id)
    ADOPT: frozenset({(INIT, COMPLETE)}),
    # delete works from anywhere, even a state an engine crash left IN_PROGRESS
    DELETE: frozenset((a, s) for a in ACTIONS for s in STATUSES),
    # update in place needs a resource that exists
    UPDATE: _LIVE,
    SUSPEND: _LIVE - {(SUSPEND, COMPLETE)},
    RESUME: frozenset({(SUSPEND, COMPLETE), (SUSPEND, FAILED), (RESUME, FAILED)}),
    # check may follow anything that exists, including a failed check
    CHECK: _LIVE | {(CREATE, FAILED)},
    # as Heat: a snapshot also runs on what failed to be created
    SNAPSHOT: _LIVE | {(CREATE, FAILED)},
}

#: Every allowed (old state, new state) pair; :func:`check_transition` is the one checker.
TRANSITIONS: frozenset[tuple[State, State]] = frozenset(
    {(start, (action, IN_PROGRESS)) for action, starts in ACTION_STARTS.items()
     for start in starts}
    # an action ends in COMPLETE or FAILED
    | {((action, IN_PROGRESS), (action, end)) for action in ACTIONS for end in (COMPLETE, FAILED)}
    # mark-unhealthy (and its undo) from any settled state
    | {(state, (CHECK, FAILED)) for state in _SETTLED}
    # a resource that cannot be checked is marked checked at once (as Heat)
    | {(state, (CHECK, COMPLETE)) for state in _SETTLED - {(INIT, COMPLETE)}}
    | {((CHECK, FAILED), (CHECK, COMPLETE))}
    # the engine that held the stack died: recovery fails what it left running
    | {((action, IN_PROGRESS), (action, FAILED)) for action in ACTIONS}
)

#: action → (handler, completion check) method names the engine looks up on a resource.
HANDLER_NAMES: dict[str, tuple[str, str]] = {
    action: (f"handle_{action.lower()}", f"check_{action.lower()}_complete")
    for action in (states.CREATE, states.UPDATE, states.DELETE, states.SUSPEND, states.RESUME,
                   states.SNAPSHOT, states.CHECK, states.ADOPT)
}

#: Reason written with every state change that has nothing more specific to say.
STATE_CHANGED = "state changed"


class InvalidResourceTransition(exception.HearthException):
    """A resource was asked to move between two states that do not connect."""

    msg_fmt = "Resource %(resource)s cannot go from %(old)s to %(new)s."


def check_transition(resource_name: str, old: State, new: State) -> None:
    """Raise InvalidResourceTransition unless ``old`` -> ``new`` is in :data:`TRANSITIONS`."""
    if old != new and (old, new) not in TRANSITIONS:
        raise InvalidResourceTransition(resource=resource_name, old="_".join(old),
                                        new="_".join(new))


def set_state(resource: ResourceView, action: str, status: str,
              reason: str = STATE_CHANGED) -> None:
    """Move ``resource`` to ``action``/``status``, persist it and record the event.

    An action that starts (IN_PROGRESS from another state; not an action
    another engine continues) forgets the progress its plug-in stored for
    the one before (:meth:`hearth.engine.resource.Resource.progress_set`).
    """
    old = (resource.action, resource.status)
    check_transition(resource.name, old, (action, status))
    resource.action, resource.status, resource.status_reason = action, status, reason
    recorder(resource).record_resource_state(
        resource, starting=status == IN_PROGRESS and old != (action, status))


# --- the plug-in calls -----------------------------------------------------

def plugin_steps(resource: ResourceView, action: str, *args: Any, check_action: str | None = None,
                 start: Callable[..., Any] | None = None) -> Task:
    """Call ``handle_<action>(*args)`` then poll ``check_<action>_complete`` until True.

    A missing handle is a no-op; a missing check means done after the handle.
    A number returned by the check (instead of True/False) is a poll-delay request.
    ``check_action`` names another action's check (``snapshot_delete`` polls
    ``check_delete_complete``, as Heat).  ``start`` replaces the handle (the
    plug-in's ``handle_<action>_continue`` when an engine takes over the
    action: :mod:`hearth.engine.resources.continuation`).  When the walk is
    cancelled or times out while the check is pending,
    ``handle_<action>_cancel(cookie)`` (if the plug-in has one) stops the work.
    """
    name = action.lower()
    handle = start if start is not None else getattr(resource, f"handle_{name}", None)
    check = getattr(resource, f"check_{(check_action or action).lower()}_complete", None)
    store = resource.stack.store
    if handle is not None:
        # what the handle stores rides with the next state change...
        store.defer(resource)
        cookie = handle(*args)
    else:
        cookie = None
    if check is None:
        return
    store.flush(resource)  # ...or is written before any waiting
    yield from poll(check, cookie, getattr(resource, f"handle_{name}_cancel", None))


def poll(check: Callable[[Any], Any], cookie: Any,
         cancel: Callable[[Any], Any] | None = None) -> Task:
    """Yield until ``check(cookie)`` is True (a number is a poll-delay request).

    When the walk is cancelled or times out meanwhile, ``cancel(cookie)``
    (when given) stops the work.
    """
    while True:
        done = check(cookie)
        if done is True or (done and not isinstance(done, (int, float))):
            return
        try:
            yield done if isinstance(done, (int, float)) and not isinstance(done, bool) else None
        except (exception.ForcedCancel, exception.StackTimeout) as stop:
            if cancel is not None and not getattr(stop, "handed_over", False):
                cancel(cookie)  # (handed over, the work goes on in another engine)
            raise


def recorded(resource: ResourceView, action: str, steps: Iterable[Any],
             reason: str = STATE_CHANGED) -> Task:
    """Run ``steps`` framed by IN_PROGRESS and COMPLETE/FAILED, as Heat's action recorder.

    ``reason`` is the IN_PROGRESS state's.  A plug-in error becomes
    :class:`ResourceFailure` (reason "Type: resources.name: msg").
    Cancellation and timeouts are recorded as FAILED and propagate unchanged.
    """
    set_state(resource, action, IN_PROGRESS, reason)
    try:
        yield from steps
    except exception.ForcedCancel as cancel:
        if not cancel.handed_over:  # (handed over, another engine continues it)
            set_state(resource, action, FAILED, f"{action.capitalize()} cancelled")
        raise
    except exception.StackTimeout:
        set_state(resource, action, FAILED, f"{action.capitalize()} timed out")
        raise
    except Exception as error:  # noqa: BLE001 - any plug-in error fails the resource
        failure = exception.ResourceFailure(error, resource, action)
        set_state(resource, action, FAILED, str(failure))
        raise failure from error
    set_state(resource, action, COMPLETE)


# --- hooks -----------------------------------------------------------------

def hook_key(hook: str) -> str:
    """Return the resource-data key that marks ``hook`` as pending."""
    return f"hook:{hook}"


def registry_values(resource: ResourceView,
                    method: Callable[[ResourceRegistry], Callable[[str], Iterable[str]]]
                    ) -> list[str]:
    """Return ``method(the environment's registry)(resource.name)`` (hooks, restrictions)."""
    env = resource.stack.env
    return list(method(env.registry)(resource.name)) if env is not None else []


def has_hook(resource: ResourceView, hook: str) -> bool:
    """Return whether the environment sets breakpoint ``hook`` on this resource."""
    return hook in registry_values(resource, lambda registry: registry.hooks_for)


def paused_at_hook(resource: ResourceView, action: str, hook: str) -> Task:
    """Wait, recording why, until a signal ``{"unset_hook": hook}`` clears the hook."""
    if not has_hook(resource, hook):
        return
    store = resource.stack.store
    resource.status_reason = f"{action} paused until Hook {hook} is cleared"
    # recording first stores the resource's row, which its data needs
    recorder(resource).record_resource_state(resource)
    store.save_data(resource, hook_key(hook), "set", False)
    while hook_key(hook) in store.load_data(resource):
        yield
    # the signal that cleared it recorded "Hook <hook> is cleared"


def clear_hook(resource: ResourceView, hook: str) -> None:
    """Clear ``hook`` if the resource is paused at it (the ``unset_hook`` signal)."""
    store = resource.stack.store
    if hook_key(hook) in store.load_data(resource):
        store.delete_data(resource, hook_key(hook))


# --- actions ---------------------------------------------------------------

def continued_start(resource: ResourceView, action: str) -> tuple[Callable[..., Any] | None, str]:
    """Return (what starts ``action``, its IN_PROGRESS reason) for the resource.

    The handle (None) and the ordinary reason, unless the resource is one
    a dead engine left ``<action>_IN_PROGRESS`` in a walk this engine took
    over (``resource.continuing``): then the plug-in's way to continue it
    (:func:`hearth.engine.resources.continuation.continuation`).
    """
    if not (resource.continuing
            and (resource.action, resource.status) == (action, IN_PROGRESS)):
        return None, STATE_CHANGED
    resource.continuing = False
    return continuation.continuation(resource, action), continuation.CONTINUED


def resolved_field(definition: Any, key: str) -> Any:
    """Return a resource definition's field (``deletion_policy``...) resolved."""
    return function.resolve(getattr(definition, key, None))


def create(resource: ResourceView) -> Task:
    """Create the resource (or adopt it and check it when it names an ``external_id``)."""
    external_id = resolved_field(resource.t, "external_id")
    if external_id:
        # as Heat: ADOPT the named physical resource, then CHECK it
        yield from keeping.adopt(resource, {"resource_id": str(external_id)})
        yield from check(resource)
        return
    start, reason = continued_start(resource, CREATE)
    if start is None:
        yield from paused_at_hook(resource, CREATE, "pre-create")
    keep_properties(resource)  # as Heat: stored as the create starts
    yield from recorded(resource, CREATE, _validated(
        resource, plugin_steps(resource, CREATE, start=start)), reason)
    yield from paused_at_hook(resource, CREATE, "post-create")


def _validated(resource: ResourceView, steps: Iterable[Any]) -> Task:
    """Validate the resource's properties, then run ``steps``.

    As Heat: inside the recorded action, so a property a ``get_attr`` made
    invalid fails the resource (CREATE_IN_PROGRESS, then CREATE_FAILED).
    """
    resource.validate()
    yield from steps


def _snapshot_steps(resource: ResourceView, state: State) -> Task:
    return keeping.snapshot_delete_steps(resource, state)


#: deletion_policy -> what deleting does with the physical resource (given the
#: resource and its state before the delete started).
DELETION_STEPS: dict[str, Callable[[Any, State], Iterable[Any]]] = {
    "Delete": lambda resource, state: plugin_steps(resource, DELETE),
    "Retain": lambda resource, state: (),
    "Snapshot": _snapshot_steps,
}


def deletion_policy(resource: ResourceView) -> str:
    """Return the resource's deletion policy (Delete, Retain or Snapshot)."""
    policy = resolved_field(resource.t, "deletion_policy") or "Delete"
    return str(policy).capitalize()  # 2016-10-14 also allows "delete", "retain", "snapshot"


def delete(resource: ResourceView, policy: str | None = None) -> Task:
    """Delete the resource according to its deletion policy (no-op if never created)."""
    if (resource.action, resource.status) in ((INIT, COMPLETE), (DELETE, COMPLETE)):
        return
    yield from paused_at_hook(resource, DELETE, "pre-delete")
    steps = DELETION_STEPS[policy or deletion_policy(resource)](
        resource, (resource.action, resource.status))
    yield from recorded(resource, DELETE, steps)


def restricted(resource: ResourceView, action: str) -> bool:
    """Return whether the environment's restricted_actions forbid ``action`` (update/replace)."""
    return action in registry_values(resource, lambda registry: registry.restricted_actions)


def check_restricted(resource: ResourceView, action: str) -> None:
    """Raise ResourceActionRestricted, after Heat's UPDATE_FAILED event, if ``action`` is."""
    if restricted(resource, action):
        error = exception.ResourceActionRestricted(action=action)
        signals.add_event(resource, UPDATE, FAILED, str(error))  # the resource keeps its state
        raise error


def update(resource: ResourceView, after: Any, before: Any = None,
           prev_resource: Any = None) -> Task:
    """Update the resource in place to definition ``after``, or raise UpdateReplace.

    Raises :class:`UpdateReplace` when the resource must be replaced: before
    recording anything when its state or type asks for it, after recording
    UPDATE_IN_PROGRESS and UPDATE_COMPLETE "The Resource <name> requires
    replacement." when a changed property is not update_allowed (as Heat);
    raises before recording anything when a changed property is immutable
    (:class:`NotSupported`) or when restricted_actions forbid it
    (:class:`ResourceActionRestricted`); returns at once when nothing changed.
    """
    if keeping.external_unchanged(resource, after):
        return
    # as Heat: every resource an update reaches may pause first, changed or not
    yield from paused_at_hook(resource, UPDATE, "pre-update")
    after_props = resource.make_properties(after)
    before = resource.frozen_definition() if before is None else before
    try:
        if not resource.same_type(getattr(after, "type", resource.type_name)):
            raise exception.UpdateReplace(resource.name)
        if not resource._needs_update(after, before, after_props,
                                      resource.make_properties(before), prev_resource):
            return
        try:
            tmpl_diff, prop_diff = resource.update_diffs(after, before)
        except exception.UpdateReplace as replace:
            if not restricted(resource, "replace"):
                # as Heat: a change the plug-in cannot take in place is an update
                # that ends by asking for the replacement
                set_state(resource, UPDATE, IN_PROGRESS)
                set_state(resource, UPDATE, COMPLETE, str(replace))
            raise
    except exception.UpdateReplace:
        check_restricted(resource, "replace")
        raise
    check_restricted(resource, "update")
    after_props.validate()
    start, reason = continued_start(resource, UPDATE)
    steps = plugin_steps(resource, UPDATE, after, tmpl_diff, prop_diff, start=start)
    yield from recorded(resource, UPDATE, _taking(resource, after, after_props, steps), reason)
    yield from paused_at_hook(resource, UPDATE, "post-update")


def _taking(resource: ResourceView, after: Any, after_props: Any, steps: Iterable[Any]) -> Task:
    """Run an update's ``steps``, then take definition ``after`` and keep its properties.

    As Heat: the properties an update stores are resolved once the plug-in
    is done, and written with the UPDATE_COMPLETE state.
    """
    yield from steps
    resource.t, resource.properties = after, after_props
    keep_properties(resource)


def keep_properties(resource: ResourceView) -> None:
    """Keep the resource's resolved properties (:func:`stored_properties.keep`)."""
    stored_properties.keep(resource)


def prepare_for_replace(resource: ResourceView, after: Any = None) -> Task:
    """Let a resource about to be replaced make room for its replacement (Heat's hook).

    ``prepare_for_replace()`` is Heat's synchronous hook; Hearth passes the
    replacement's definition ``after`` to a hook that takes an argument.  A
    plug-in whose preparation takes time returns a cookie and defines
    ``check_prepare_for_replace_complete(cookie)``, polled as any check.  A
    failure fails the update of the resource, which stays in place.
    """
    hook = resource.prepare_for_replace
    check = getattr(resource, "check_prepare_for_replace_complete", None)
    try:
        cookie = hook(after) if inspect.signature(hook).parameters else hook()
        if check is not None:
            resource.stack.store.flush(resource)
            yield from poll(check, cookie)
    except (exception.ForcedCancel, exception.StackTimeout):
        raise
    except Exception as error:  # noqa: BLE001 - any plug-in error fails the update
        failure = exception.ResourceFailure(error, resource, UPDATE)
        set_state(resource, UPDATE, FAILED, str(failure))
        raise failure from error


def simple_action(resource: ResourceView, action: str) -> Task:
    """Suspend, resume, check or snapshot the resource (one function, the action a parameter).

    Resources that never got created (INIT) or are gone are skipped.
    """
    if resource.action in (INIT, DELETE):
        return
    yield from recorded(resource, action, plugin_steps(resource, action))


def supports_check(resource: ResourceView) -> bool:
    """Return whether the plug-in can check its physical resource (has ``handle_check``)."""
    return hasattr(resource, "handle_check")


def check(resource: ResourceView) -> Task:
    """Check the resource, as Heat does.

    A plug-in without ``handle_check`` is marked CHECK_COMPLETE "CHECK not
    supported for <type>" without running anything (a resource never created
    is left alone); one with it fails when the resource was never created.
    """
    created = (resource.action, resource.status) != (INIT, COMPLETE)
    if not supports_check(resource):
        if created:
            set_state(resource, CHECK, COMPLETE, f"CHECK not supported for {resource.type_name}")
        return
    if not created:
        set_state(resource, CHECK, FAILED,
                  f"Can not check {resource.name}, resource not created yet.")
        raise exception.ResourceFailure(Exception(f"Resource {resource.name} not created yet."),
                                        resource, CHECK)
    yield from recorded(resource, CHECK, plugin_steps(resource, CHECK))


def signal(resource: ResourceView, details: Any) -> None:
    """Deliver a signal (:func:`hearth.engine.resources.signals.deliver`)."""
    signals.deliver(resource, details)


#: action -> the task function that runs it (``Resource.create()`` etc. come here).
ACTION_TASKS: dict[str, Callable[..., Task]] = {
    CREATE: create,
    UPDATE: update,
    DELETE: delete,
    SUSPEND: lambda resource: simple_action(resource, SUSPEND),
    RESUME: lambda resource: simple_action(resource, RESUME),
    CHECK: check,
    SNAPSHOT: lambda resource: simple_action(resource, SNAPSHOT),
}


def run(resource: ResourceView, action: str, *args: Any) -> Task:
    """Return the task that runs ``action`` on ``resource`` (the Resource entry points)."""
    return ACTION_TASKS[action](resource, *args)
