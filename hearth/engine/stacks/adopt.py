"""A stack's ADOPT: a new stack taking over existing physical resources.

Each resource is adopted (:func:`hearth.engine.resources.keeping.adopt`)
with its entry of the abandon data, in dependency order.  As Heat, a failed
adopt rolls back unless rollback is disabled: every resource is forgotten
(deleted with the Retain policy, as an abandon), so nothing physical is lost.
A nested stack is adopted the same way by its parent resource
(``StackResource.handle_adopt``), its entry being the nested stack's data.

Only what runs stacks imports this module (the engine service's stack
layer, the nested stacks' run-time half), so it imports the scheduler and
the stack actions at its top: validation never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.engine.resources import actions as resource_actions
from hearth.engine.resources import keeping
from hearth.engine.scheduler import Direction, WalkResult
from hearth.engine.stacks import actions as stack_actions
from hearth.engine.states import ADOPT, ROLLBACK

if TYPE_CHECKING:
    from hearth.engine.stacks.stack import Stack


def run_adopt(stack: Stack, entries: Mapping[str, Any]) -> bool:
    """Run the stack's ADOPT with ``entries`` (name -> entry); return whether it completed."""
    def walk() -> WalkResult:
        stack.store_new_resources()
        return stack_actions.walk_resources(
            stack, stack.requires(), Direction.FORWARD,
            lambda name: keeping.adopt(stack.resources[name], entries.get(name)))

    def failed(result: WalkResult) -> None:
        if stack_actions.wants_rollback(stack, result):
            stack_actions.frame(stack, ROLLBACK, lambda: stack_actions.walk_resources(
                stack, stack.requires(), Direction.REVERSE,
                lambda name: resource_actions.delete(stack.resources[name], "Retain")),
                lambda: stack_actions.AFTER_COMPLETE[ROLLBACK](stack))

    return stack_actions.frame(stack, ADOPT, walk, failed=failed)
