"""Messages on the wire, and the outbox through which any thread reaches a socket.

A message is one JSON object per ZeroMQ frame; its ``cmd`` key names what
it is.  ZeroMQ sockets belong to one thread: other threads put messages in
an :class:`Outbox`, which wakes the owning thread's poller through a pipe.
"""

from __future__ import annotations

import json
import os
import queue
from typing import Any


def encode(message: dict[str, Any]) -> bytes:
    """Return the wire form of ``message``."""
    return json.dumps(message, default=str, separators=(",", ":")).encode()


def decode(frame: bytes) -> dict[str, Any]:
    """Return the message in ``frame``; raise ValueError when it is not a JSON object."""
    message = json.loads(frame)
    if not isinstance(message, dict):
        raise ValueError("a message must be a JSON object")
    return message


class Outbox:
    """A thread-safe queue whose arrivals wake a ``zmq.Poller`` (register :attr:`fileno`)."""

    def __init__(self) -> None:
        self._items: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)
        os.set_blocking(self._write_fd, False)

    @property
    def fileno(self) -> int:
        """Return the file descriptor that becomes readable when items arrive."""
        return self._read_fd

    def put(self, item: Any) -> None:
        """Queue ``item`` and wake the owner."""
        self._items.put(item)
        try:
            os.write(self._write_fd, b"\0")
        except BlockingIOError:
            pass  # the pipe is full: the owner is awake anyway

    def drain(self) -> list[Any]:
        """Return every queued item (call from the owner when woken)."""
        try:
            while os.read(self._read_fd, 4096):
                pass
        except BlockingIOError:
            pass
        items = []
        while True:
            try:
                items.append(self._items.get_nowait())
            except queue.Empty:
                return items

    def close(self) -> None:
        """Close the wake-up pipe."""
        os.close(self._read_fd)
        os.close(self._write_fd)
