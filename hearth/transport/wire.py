"""Messages on the wire, and the outbox through which any thread reaches a socket.

A message is one JSON object per ZeroMQ frame; its ``cmd`` key names what
it is.  :func:`decode` refuses a frame that is not a JSON object or that
nests deeper than :data:`MAX_DEPTH` (a thousand ``[`` would otherwise end
the reading thread with RecursionError, here or in whatever walks the
message next).  The frame's size is bounded before it is read at all, by
ZeroMQ: each socket that receives from another process sets ``MAXMSGSIZE``
(libzmq checks the size a frame announces before allocating it, and
disconnects the peer that sent it).

ZeroMQ sockets belong to one thread: other threads put messages in an
:class:`Outbox`, which wakes the owning thread's poller through a pipe.
"""

from __future__ import annotations

import json
import os
import queue
from typing import Any

from hearth.common.document_bounds import depth
from hearth.common.exception import MessageRefused

__all__ = ["MAX_DEPTH", "Outbox", "decode", "depth", "encode"]

#: Deepest nesting of arrays and objects a message may have (the message itself is 1).
MAX_DEPTH = 64


def encode(message: dict[str, Any]) -> bytes:
    """Return the wire form of ``message``."""
    return json.dumps(message, default=str, separators=(",", ":")).encode()


def decode(frame: bytes, max_depth: int | None = MAX_DEPTH) -> dict[str, Any]:
    """Return the message in ``frame``; raise MessageRefused when it is not a fit one.

    A fit message is a JSON object nested at most ``max_depth`` deep (None:
    as deep as JSON can be read, for a peer that is trusted and relays what
    others sent, such as the master to its clients).
    """
    try:
        message = json.loads(frame)
    except RecursionError:
        raise MessageRefused("too-deep", "the message nests deeper than JSON can be "
                                         "read") from None
    except ValueError as error:  # UnicodeDecodeError is a ValueError too
        raise MessageRefused("not-json", f"the message is not JSON ({error})") from None
    if not isinstance(message, dict):
        raise MessageRefused("not-object", "the message is not a JSON object")
    if max_depth is not None and depth(message, max_depth) > max_depth:
        raise MessageRefused("too-deep", f"the message nests deeper than {max_depth} levels")
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
