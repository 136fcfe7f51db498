"""The green-thread seam: the only eventlet primitives the rest of Hearth uses.

Everything that runs concurrently inside an engine (resource tasks, the
heartbeat, the database write queue) goes through these few names, so the
green-thread runtime could be swapped without touching callers.  The
scheduler (:mod:`hearth.engine.scheduler`) re-exports them for plug-ins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import eventlet
import eventlet.event
import eventlet.patcher
import eventlet.queue
import eventlet.semaphore
import eventlet.tpool


def run_blocking(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run blocking plug-in code in a real OS thread; return its result.

    Plug-in authors call this from ``handle_<action>`` or
    ``check_<action>_complete`` around anything that blocks (a C library,
    a subprocess wait, a synchronous HTTP client), so the engine's green
    threads keep running meanwhile.  Exceptions propagate to the caller.
    """
    return eventlet.tpool.execute(fn, *args, **kwargs)


def start_os_thread(fn: Callable[..., Any], *args: Any) -> None:
    """Run ``fn(*args)`` on a new real OS thread (even when threading is monkey-patched).

    For blocking work polled from green threads: unlike :func:`run_blocking`
    (eventlet's tpool), it never runs ``fn`` in the calling thread, which
    tpool does whenever some thread holds the import lock at that moment,
    stalling every green thread until ``fn`` returns.  ``fn`` must not touch
    green primitives; it reports through plain attributes the caller polls.
    """
    threading = eventlet.patcher.original("threading")
    threading.Thread(target=fn, args=args, daemon=True, name="hearth-blocking").start()


def spawn(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Start ``fn`` on a new green thread; return a handle with ``wait()`` and ``kill()``.

    The new thread first runs after every green thread that is already
    runnable has had its turn.
    """
    return eventlet.spawn(fn, *args, **kwargs)


def spawn_after(seconds: float, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Start ``fn`` on a new green thread ``seconds`` from now; return its handle."""
    return eventlet.spawn_after(seconds, fn, *args, **kwargs)


def green_sleep(seconds: float) -> None:
    """Let other green threads run for ``seconds`` (the default ``sleep``)."""
    eventlet.sleep(seconds)


class Queue(eventlet.queue.LightQueue):
    """An unbounded green queue: ``put`` never waits, ``get`` waits for an item."""


class Event:
    """A one-shot green event: ``send`` once, ``wait`` (with a timeout) any time."""

    def __init__(self) -> None:
        self._event = eventlet.event.Event()

    def send(self, value: Any = None) -> None:
        """Wake every waiter with ``value`` (later sends are ignored)."""
        if not self._event.ready():
            self._event.send(value)

    def send_exception(self, error: BaseException) -> None:
        """Wake every waiter by raising ``error`` in it (ignored once sent)."""
        if not self._event.ready():
            self._event.send_exception(error)

    def ready(self) -> bool:
        """Return whether the event was sent."""
        return self._event.ready()

    def wait(self, timeout: float | None = None) -> Any:
        """Return the sent value, or None when ``timeout`` seconds pass first."""
        with eventlet.Timeout(timeout, False):
            return self._event.wait()
        return None


class Lock:
    """A green mutual-exclusion lock (a context manager)."""

    def __init__(self) -> None:
        self._semaphore = eventlet.semaphore.Semaphore(1)

    def locked(self) -> bool:
        """Return whether some green thread holds the lock."""
        return self._semaphore.locked()

    def __enter__(self) -> Lock:
        self._semaphore.acquire()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._semaphore.release()
