"""What wakes a live stream: the engine's event bus, so streams wait instead of polling.

A stream reads what changed through the API (the same authorization as any
read) and then waits on a :class:`Wake` until the bus says something
happened, or its timeout passes (another engine sharing the database
publishes on its own bus; the timeout catches that up).  A bus event is
only a wake-up: nothing of it reaches the browser.

* :class:`BusWake`: this process's bus (the console inside ``hearth-api``,
  whose engine runs on its green threads);
* :class:`ZmqWake`: another process's bus over ZeroMQ (``stackctl console``
  beside the local engine, :func:`hearth.bus.bridge.listen`'s socket);
* :class:`TimerWake`: nothing to listen to, only the timeout.
"""

from __future__ import annotations

from typing import Any, Protocol

import zmq

from hearth import bus
from hearth.bus.bridge import wait_readable
from hearth.common.green import green_sleep

#: Seconds to gather a burst of events before reading them once.
SETTLE = 0.05


class Wake(Protocol):
    """Something a stream waits on."""

    def wait(self, timeout: float) -> bool:
        """Return True when woken by an event, False after ``timeout`` seconds."""

    def close(self) -> None:
        """Stop listening."""


def _sleep(seconds: float) -> None:
    green_sleep(seconds)


class BusWake:
    """Wake on events of this process's bus whose tags start with ``prefix``."""

    def __init__(self, prefix: str) -> None:
        self._subscription = bus.subscribe(prefix)

    def wait(self, timeout: float) -> bool:
        """Wait for an event; let a burst settle, then drop what it buffered."""
        if self._subscription.get(timeout) is None:
            return False
        _sleep(SETTLE)
        self._subscription.drain()
        return True

    def close(self) -> None:
        """Unsubscribe."""
        self._subscription.close()


class ZmqWake:
    """Wake on events another process publishes on the ZeroMQ socket ``path``."""

    def __init__(self, path: str, prefix: str) -> None:
        self._socket: Any = zmq.Context.instance().socket(zmq.SUB)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.setsockopt(zmq.SUBSCRIBE, prefix.encode())
        self._socket.connect(f"ipc://{path}")

    def wait(self, timeout: float) -> bool:
        """Wait for a message; let a burst settle, then read every one waiting."""
        if not wait_readable(self._socket, timeout):
            return False
        _sleep(SETTLE)
        while self._socket.getsockopt(zmq.EVENTS) & zmq.POLLIN:
            self._socket.recv_multipart(zmq.NOBLOCK)
        return True

    def close(self) -> None:
        """Close the socket."""
        self._socket.close()


class TimerWake:
    """Nothing to listen to: every wait lasts its timeout."""

    def wait(self, timeout: float) -> bool:
        """Sleep ``timeout`` seconds."""
        _sleep(timeout)
        return False

    def close(self) -> None:
        """Nothing to close."""
