"""Blocking plug-in work on a real OS thread, polled from the engine's green threads.

A plug-in starts a :class:`BlockingCall` in ``handle_<action>`` and returns
it as the cookie; ``check_<action>_complete`` calls :meth:`BlockingCall.poll`,
which answers None while the work runs (raising once ``timeout`` seconds
have passed on the stack's clock) and its result, or its error, once done.
The scheduler never waits on the thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hearth.common import exception
from hearth.engine import scheduler
from hearth.engine.resource import now

#: What poll() answers while the work runs.
RUNNING = object()


class BlockingCall:
    """One blocking call ``fn(*args)`` running on a worker thread."""

    def __init__(self, what: str, started: float, timeout: float | None) -> None:
        self.what = what
        self.started = started
        self.timeout = timeout
        self.finished = scheduler.Event()
        #: whatever the plug-in keeps with the call (its event queue...).
        self.context: Any = None

    @classmethod
    def start(cls, stack: Any, what: str, timeout: float | None,
              fn: Callable[..., Any], *args: Any) -> BlockingCall:
        """Start ``fn(*args)`` on a worker thread; ``what`` names it in a timeout error."""
        call = cls(what, now(stack), timeout)
        scheduler.spawn(call._run, fn, args)
        return call

    def _run(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        try:
            value = scheduler.run_blocking(fn, *args)
        except Exception as error:  # noqa: BLE001 - handed to the polling green thread
            self.finished.send((None, error))
        else:
            self.finished.send((value, None))

    def done(self) -> bool:
        """Return whether the call ended."""
        return self.finished.ready()

    def poll(self, stack: Any) -> Any:
        """Return :data:`RUNNING` while the call runs, else its result; raise its error."""
        if not self.finished.ready():
            if self.timeout is not None and now(stack) - self.started >= self.timeout:
                raise exception.CommandExecutionError(
                    f"{self.what} did not finish within {self.timeout:g} seconds")
            return RUNNING
        value, error = self.finished.wait()
        if error is not None:
            raise error
        return value
