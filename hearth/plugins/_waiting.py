"""Waiting without blocking: deadlines read from the stack's injected clock.

A waiting plug-in returns a :class:`Wait` from ``handle_<action>`` and its
``check_<action>_complete`` returns ``wait.poll(stack)``: True once the
clock passes the deadline, else the seconds left (at most
``poll_interval_max``), which the scheduler takes
as the delay before its next poll (so a waiter wakes once, at its deadline,
instead of overshooting it by a poll back-off), and nothing blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hearth.engine.resource import now


@dataclass(frozen=True)
class Wait:
    """A wait of ``seconds`` (negative: forever) that began at ``started``."""

    started: float
    seconds: float

    @classmethod
    def start(cls, stack: Any, seconds: float) -> Wait:
        """Begin waiting ``seconds`` on ``stack``'s clock."""
        return cls(now(stack), float(seconds))

    def done(self, stack: Any) -> bool:
        """Return whether the wait is over (never, for a negative wait)."""
        if self.seconds < 0:
            return False
        return now(stack) - self.started >= self.seconds

    def poll(self, stack: Any) -> bool | float:
        """Return True when the wait is over, else the seconds until the next poll.

        That is the seconds left, at most ``poll_interval_max`` (so that a
        cancel or timeout is still noticed as soon as between two ordinary
        polls); False for a wait that never ends.
        """
        if self.seconds < 0:
            return False
        left = self.seconds - (now(stack) - self.started)
        from hearth.engine.scheduler import poll_limits  # eventlet: only where engines run
        return True if left <= 0 else min(left, poll_limits()[1])
