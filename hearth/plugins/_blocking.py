"""Blocking plug-in work on a real OS thread, polled from the engine's green threads.

A plug-in starts a :class:`BlockingCall` in ``handle_<action>`` and returns
it as the cookie; ``check_<action>_complete`` calls :meth:`BlockingCall.poll`,
which answers :data:`RUNNING` while the work runs (raising once ``timeout``
seconds have passed on the stack's clock) and its result, or its error,
once done.  The work runs on its own OS thread, which the stack starts
(:meth:`StackView.start_thread <hearth.engine.resources.stack_view.StackView.start_thread>`),
and reports through plain attributes, so neither side ever blocks the other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hearth.common import exception
from hearth.engine.resource import now
from hearth.engine.resources.stack_view import StackView

#: What poll() answers while the work runs.
RUNNING = object()


class BlockingCall:
    """One blocking call ``fn(*args)`` running on a worker thread."""

    def __init__(self, what: str, started: float, timeout: float | None) -> None:
        self.what = what
        self.started = started
        self.timeout = timeout
        self._outcome: tuple[Any, BaseException | None] | None = None
        #: whatever the plug-in keeps with the call (its event queue...).
        self.context: Any = None

    @classmethod
    def start(cls, stack: StackView, what: str, timeout: float | None,
              fn: Callable[..., Any], *args: Any) -> BlockingCall:
        """Start ``fn(*args)`` on a worker thread; ``what`` names it in a timeout error."""
        call = cls(what, now(stack), timeout)
        stack.start_thread(call._run, fn, args)
        return call

    def _run(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        try:
            value = fn(*args)
        except Exception as error:  # noqa: BLE001 - handed to the polling green thread
            self._outcome = (None, error)
        else:
            self._outcome = (value, None)

    def done(self) -> bool:
        """Return whether the call ended."""
        return self._outcome is not None

    def poll(self, stack: StackView) -> Any:
        """Return :data:`RUNNING` while the call runs, else its result; raise its error."""
        outcome = self._outcome
        if outcome is None:
            if self.timeout is not None and now(stack) - self.started >= self.timeout:
                raise exception.CommandExecutionError(
                    f"{self.what} did not finish within {self.timeout:g} seconds")
            return RUNNING
        value, error = outcome
        if error is not None:
            raise error
        return value
