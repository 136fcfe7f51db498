"""Delivering a signal to a resource, as Heat's ``Resource.signal()``.

``{"unset_hook": name}`` clears a pending breakpoint (checked first: a
hook type Heat does not know, or one the environment does not set on the
resource, is refused) and records "Hook <name> is cleared".  Any other
signal is refused while the resource is suspended or deleted (an event
"Cannot signal resource during <ACTION>" and NotSupported), refused for a
type without ``handle_signal`` (ResourceActionNotSupported), else handed
to ``handle_signal(details)``; a ``SIGNAL`` event with the resource's
current status records it: "Signal: <what the handler returned>", or a
text made from the details when it returned nothing.  An error of the
handler becomes :class:`~hearth.common.exception.ResourceFailure`.

Events written here do not change the resource's state.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from hearth.common import exception
from hearth.common.text import holds_nul
from hearth.engine import states
from hearth.engine.resources import actions
from hearth.engine.resources.stack_view import recorder

if TYPE_CHECKING:
    from hearth.engine.resources.resource_view import ResourceView

LOG = logging.getLogger(__name__)

#: The event action of a delivered signal.
SIGNAL = "SIGNAL"
#: Actions during which a resource takes no signals (Heat's no_signal_actions).
NO_SIGNAL_ACTIONS = (states.SUSPEND, states.DELETE)
#: The hook types a signal may clear (Heat's valid hook types).
HOOK_TYPES = ("pre-create", "pre-update", "pre-delete", "post-create", "post-update",
              "post-delete")


#: A handler ignored the signal: nothing is recorded (Heat's NoActionRequired).
NoActionRequired = exception.NoActionRequired


def add_event(resource: ResourceView, action: str, status: str, reason: str) -> None:
    """Record an event of ``resource`` without changing its state."""
    stack = recorder(resource)
    if getattr(stack, "db", None) is None:  # a stack without a database (unit tests)
        return
    stack.record_event(resource, action, status, reason)


def describe(resource: ResourceView) -> str:
    """Return how Heat names a resource in messages: ``Class "name" Stack "stack" [id]``."""
    stack = resource.stack
    return (f'{type(resource).__name__} "{resource.name}" Stack "{stack.name}" '
            f"[{stack.id}]")


def check_hook(resource: ResourceView, details: Any) -> None:
    """Refuse an ``unset_hook`` naming an unknown hook type or one not set on the resource."""
    hook = details["unset_hook"]
    if hook not in HOOK_TYPES:
        raise exception.InvalidBreakPointHook(
            message=f'Invalid hook type "{hook}" for {describe(resource)}')
    if not actions.has_hook(resource, hook):
        raise exception.InvalidBreakPointHook(
            message=f'The "{hook}" hook is not defined on {describe(resource)}')


def check_action(resource: ResourceView) -> None:
    """Refuse (and record why) a signal to a suspended or deleted resource."""
    if resource.action in NO_SIGNAL_ACTIONS:
        add_event(resource, resource.action, resource.status,
                  f"Cannot signal resource during {resource.action}")
        raise exception.NotSupported(feature=f"Signal resource during {resource.action}")


def details_text(details: Any) -> str:
    """Return the event reason of a signal whose handler returned nothing (as Heat)."""
    if details is None:
        return "No signal details provided"
    if isinstance(details, str):
        return details
    if isinstance(details, dict) and all(k in details for k in ("previous", "current",
                                                                "reason")):
        return ("alarm state changed from "
                f"{details['previous']} to {details['current']} ({details['reason']})")
    return "Unknown"


def deliver(resource: ResourceView, details: Any = None) -> None:
    """Deliver a signal (or clear a hook) as described in the module docstring."""
    if holds_nul(details):  # its texts are stored (events, resource data)
        raise exception.TextWithNul(f"signal data for resource {resource.name}")
    if isinstance(details, dict) and "unset_hook" in details:
        check_hook(resource, details)
        actions.clear_hook(resource, details["unset_hook"])
        LOG.info("Clearing %s hook on %s", details["unset_hook"], resource.name)
        add_event(resource, resource.action, resource.status,
                  f"Hook {details['unset_hook']} is cleared")
        return
    check_action(resource)
    handler = getattr(resource, "handle_signal", None)
    if not callable(handler):
        raise exception.ResourceActionNotSupported(action="signal")
    try:
        result = handler(details)
    except NoActionRequired:
        return
    except Exception as error:  # noqa: BLE001 - any handler error fails the signal
        LOG.info("signal %s: %s", resource.name, error)
        raise exception.ResourceFailure(error, resource) from error
    reason = f"Signal: {result}" if result else details_text(details)
    add_event(resource, SIGNAL, resource.status, reason)
