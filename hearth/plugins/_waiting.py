"""Waiting without blocking: deadlines read from the stack's injected clock.

A waiting plug-in returns a :class:`Wait` from ``handle_<action>`` and its
``check_<action>_complete`` returns ``wait.done(stack)``: False until the
clock passes the deadline, so the scheduler keeps polling and nothing sleeps.
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
