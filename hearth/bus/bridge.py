"""The bus between processes: a process's events published over ZeroMQ, and read elsewhere.

:meth:`hearth.bus.Bus.serve_zmq` starts a :class:`ZmqPublisher`, which
forwards every event of the process's bus on an IPC socket (``[bus]
publish_socket``); :func:`listen` reads them in another process (``stackctl
event-listen``, the console).  On the wire an event is two frames: its tag,
then its JSON payload.  ZeroMQ is imported here and nowhere else in the bus,
so a process that only publishes in-process (stackctl, a plug-in) never loads
it; this module is loaded when a bridge is made.
"""

from __future__ import annotations

import json
import os
import select
import threading
import time
from collections.abc import Iterator
from typing import Any

import zmq

from hearth.bus import (
    GAP_TAG,
    Bus,
    Event,
    Subscription,
    configured_socket_path,
    literal_prefix,
    tag_matches,
)


def encode(event: Event) -> list[bytes]:
    """Return the wire frames of ``event``: the tag, then the JSON payload."""
    return [event.tag.encode(), json.dumps(event.data, default=str).encode()]


def decode(frames: list[bytes]) -> Event:
    """Return the event carried by wire ``frames``."""
    return Event(frames[0].decode(), json.loads(frames[1]))


def wait_readable(zmq_socket: Any, timeout: float | None, *fds: int) -> bool:
    """Wait until ``zmq_socket`` has a message or one of ``fds`` is readable; say which.

    Return True when the socket has a message (False: a file descriptor or
    the timeout).  It waits with ``select`` on the socket's notification
    descriptor, so under eventlet's monkey-patching (hearth-api) it is a
    green wait, and a plain one elsewhere; pyzmq's own poller would block
    every green thread.  The descriptor only says that the socket's state
    may have changed, so its events are read right before each wait.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        if zmq_socket.getsockopt(zmq.EVENTS) & zmq.POLLIN:
            return True
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return False
        readable, _, _ = select.select([zmq_socket.getsockopt(zmq.FD), *fds], [], [], left)
        if any(fd in readable for fd in fds):
            return False


class ZmqPublisher:
    """Forward a bus's events to a ZeroMQ XPUB socket, from its own thread.

    An XPUB socket hears its subscribers come and go, so the forwarder
    reads the bus only while some process listens: an engine nobody
    listens to pays nothing per event.  While listened to, it wakes every
    ``FORWARD_INTERVAL`` seconds and sends what the bus buffered since, a
    batch at a time instead of one thread wake-up per event.  It reads an
    ordinary subscription, so a slow network side drops (and reports) like
    any other subscriber instead of blocking publishers.  Its socket calls
    never block (XPUB sends do not, receives come after
    :func:`wait_readable`), so the same thread serves a plain process and a
    monkey-patched one (hearth-api under eventlet), where it is a green thread.
    """

    FORWARD_INTERVAL = 0.01

    def __init__(self, bus: Bus, path: str) -> None:
        self.path = path
        self._bus = bus
        self._socket = zmq.Context.instance().socket(zmq.XPUB)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.bind(f"ipc://{path}")
        # closing wakes the forwarder through this pipe
        self._wake_read, self._wake_write = os.pipe()
        self._topics: set[bytes] = set()
        self._subscription: Subscription | None = None
        self._thread = threading.Thread(target=self._forward, name="bus-zmq", daemon=True)
        self._thread.start()

    def _forward(self) -> None:
        try:
            while True:
                if self._subscription is not None:
                    for event in self._subscription.drain():
                        self._socket.send_multipart(encode(event))
                timeout = None if self._subscription is None else self.FORWARD_INTERVAL
                if wait_readable(self._socket, timeout, self._wake_read):
                    self._read_subscriptions()
                elif select.select([self._wake_read], [], [], 0)[0]:
                    return
        finally:
            if self._subscription is not None:
                self._subscription.close()
            self._socket.close()
            os.close(self._wake_read)

    def _read_subscriptions(self) -> None:
        """Track the listeners' topics; read the bus only while there is one."""
        while self._socket.getsockopt(zmq.EVENTS) & zmq.POLLIN:
            message = self._socket.recv(zmq.NOBLOCK)
            if message[:1] == b"\x01":
                self._topics.add(message[1:])
            elif message[:1] == b"\x00":
                self._topics.discard(message[1:])
        if self._topics and self._subscription is None:
            self._subscription = self._bus.subscribe("")
        elif not self._topics and self._subscription is not None:
            self._subscription.close()
            self._subscription = None

    def close(self) -> None:
        """Stop forwarding and close the socket."""
        os.write(self._wake_write, b"x")
        self._thread.join(timeout=2)
        os.close(self._wake_write)


def listen(path: str | None = None, pattern: str = "",
           timeout: float | None = None) -> Iterator[Event]:
    """Yield the events a running engine publishes on ``path`` that match ``pattern``.

    Stops after ``timeout`` seconds without a matching event (never when None).
    """
    socket = zmq.Context.instance().socket(zmq.SUB)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.SUBSCRIBE, literal_prefix(pattern).encode())
    socket.connect(f"ipc://{path or configured_socket_path()}")
    try:
        while wait_readable(socket, timeout):
            event = decode(socket.recv_multipart(zmq.NOBLOCK))
            if tag_matches(pattern, event.tag) or event.tag == GAP_TAG:
                yield event
    finally:
        socket.close()
