"""Waiting without blocking: deadlines read from the stack's injected clock.

A waiting plug-in returns a :class:`Wait` from ``handle_<action>`` and its
``check_<action>_complete`` returns ``wait.poll(stack)``: True once the
clock passes the deadline, else the seconds left (at most
``poll_interval_max``), which the scheduler takes
as the delay before its next poll (so a waiter wakes once, at its deadline,
instead of overshooting it by a poll back-off), and nothing blocks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from hearth.common.config import poll_limits
from hearth.engine.resource import Resource, now
from hearth.engine.resources.stack_view import StackView


@dataclass(frozen=True)
class Wait:
    """A wait of ``seconds`` (negative: forever) that began at ``started``."""

    started: float
    seconds: float

    @classmethod
    def start(cls, stack: StackView, seconds: float) -> Wait:
        """Begin waiting ``seconds`` on ``stack``'s clock."""
        return cls(now(stack), float(seconds))

    def done(self, stack: StackView) -> bool:
        """Return whether the wait is over (never, for a negative wait)."""
        if self.seconds < 0:
            return False
        return now(stack) - self.started >= self.seconds

    def poll(self, stack: StackView) -> bool | float:
        """Return True when the wait is over, else the seconds until the next poll.

        That is the seconds left, at most ``poll_interval_max`` (so that a
        cancel or timeout is still noticed as soon as between two ordinary
        polls); False for a wait that never ends.
        """
        if self.seconds < 0:
            return False
        left = self.seconds - (now(stack) - self.started)
        return True if left <= 0 else min(left, poll_limits()[1])


def stored_wait(resource: Resource, seconds: float) -> Wait:
    """Begin waiting ``seconds`` and store when the wait ends as the action's progress.

    The end is a wall-clock time (:meth:`hearth.engine.resource.Resource.progress_set`),
    so that an engine taking the action over (:func:`rest_of_stored_wait`)
    waits only what is left.
    """
    resource.progress_set({"ends": None if seconds < 0 else time.time() + seconds})
    return Wait.start(resource.stack, seconds)


def rest_of_stored_wait(resource: Resource) -> Wait | None:
    """Return the wait :func:`stored_wait` stored in this action, from now (None: none stored).

    None means the dead engine's handle never finished (what it set was
    not stored either): the handle runs again.
    """
    progress = resource.progress()
    if progress is None:
        return None
    ends = progress["ends"]
    return Wait.start(resource.stack, -1 if ends is None else max(0.0, ends - time.time()))
