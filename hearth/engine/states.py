"""The state words of stacks and resources: actions and statuses, defined once.

A state is an ``(action, status)`` pair, written ``<ACTION>_<STATUS>``
(``CREATE_COMPLETE``) as Heat does.  Everything in the engine that names a
state imports its words from here.
"""

from __future__ import annotations

ACTIONS = (INIT, CREATE, DELETE, UPDATE, ROLLBACK, SUSPEND, RESUME, ADOPT, SNAPSHOT, CHECK) = (
    "INIT", "CREATE", "DELETE", "UPDATE", "ROLLBACK", "SUSPEND", "RESUME", "ADOPT",
    "SNAPSHOT", "CHECK")
STATUSES = (IN_PROGRESS, FAILED, COMPLETE) = ("IN_PROGRESS", "FAILED", "COMPLETE")

#: A stack's own action (never a resource's): going back to a snapshot.
RESTORE = "RESTORE"
#: Every action a stack may take (Heat's stack actions: the resource ones and RESTORE).
STACK_ACTIONS = (*ACTIONS, RESTORE)

#: The resource type a stack's own events carry (a stack is an OS::Heat::Stack to Heat).
STACK_RESOURCE_TYPE = "OS::Heat::Stack"

#: An ``(action, status)`` pair.
State = tuple[str, str]


def state_name(action: str, status: str) -> str:
    """Return the state as Heat writes it: ``<ACTION>_<STATUS>``."""
    return f"{action}_{status}"
