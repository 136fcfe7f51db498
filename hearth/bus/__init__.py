"""The event bus: tagged dict events, published without ever blocking.

Tags are ``/``-separated (``hearth/job/<jid>/new``, ``hearth/stack/<id>/...``);
payloads are dicts to which :meth:`Bus.publish` adds ``_stamp``, the
ISO-8601 UTC time.  A subscriber matches tags by prefix, or by glob when its
pattern has a wildcard (``*``, ``?``, ``[``).  Each subscriber has a bounded
buffer (``[bus] buffer_size``): when it is full the oldest event is dropped
and counted, and the subscriber's next read returns a
``hearth/bus/dropped`` event saying how many it missed, so nothing is lost
silently.  Other processes subscribe over ZeroMQ: :meth:`Bus.serve_zmq`
publishes every event on an IPC socket (``[bus] publish_socket``) and
:func:`hearth.bus.bridge.listen` reads them (:mod:`hearth.bus.bridge`, the
only part of the bus that loads ZeroMQ).

The module-level :func:`publish` is cheap and safe before anything is set
up: with no subscriber it only checks an empty tuple.
"""

from __future__ import annotations

import collections
import datetime
import fnmatch
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hearth.common.configured import configured
from hearth.common.paths import hearth_home

if TYPE_CHECKING:
    from hearth.bus.bridge import ZmqPublisher

LOG = logging.getLogger(__name__)

GAP_TAG = "hearth/bus/dropped"
WILDCARDS = "*?["
DEFAULT_BUFFER_SIZE = 10000


@dataclass(frozen=True)
class Event:
    """One event: its tag and its payload (with ``_stamp``)."""

    tag: str
    data: dict[str, Any]


def stamp() -> str:
    """Return the current UTC time in ISO-8601 with offset, as events carry it."""
    return datetime.datetime.now(datetime.UTC).isoformat()


def literal_prefix(pattern: str) -> str:
    """Return the part of ``pattern`` before its first wildcard."""
    cut = min((pattern.index(ch) for ch in WILDCARDS if ch in pattern), default=len(pattern))
    return pattern[:cut]


def tag_matches(pattern: str, tag: str) -> bool:
    """Return whether ``tag`` matches ``pattern``: a glob if it has wildcards, else a prefix."""
    if any(ch in pattern for ch in WILDCARDS):
        return fnmatch.fnmatchcase(tag, pattern)
    return tag.startswith(pattern)


class Subscription:
    """Events whose tags match one pattern, buffered for one reader.

    Iterate over it, or call :meth:`get`.  ``dropped`` counts every event
    the full buffer pushed out.
    """

    def __init__(self, pattern: str, buffer_size: int, bus: Bus | None = None) -> None:
        self.pattern = pattern
        self.buffer_size = buffer_size
        self.dropped = 0
        self._gap = 0
        self._closed = False
        self._bus = bus
        self._events: collections.deque[Event] = collections.deque()
        self._ready = threading.Condition()

    def offer(self, event: Event) -> None:
        """Buffer ``event`` if it matches; never blocks, counts what a full buffer drops."""
        if not tag_matches(self.pattern, event.tag):
            return
        with self._ready:
            if len(self._events) >= self.buffer_size:
                self._events.popleft()
                self.dropped += 1
                if not self._gap:
                    LOG.warning("bus subscriber %r is not keeping up: dropping its oldest "
                                "events", self.pattern)
                self._gap += 1
            self._events.append(event)
            self._ready.notify()

    def get(self, timeout: float | None = None) -> Event | None:
        """Return the next event, or None after ``timeout`` seconds or once closed.

        After drops, the next call returns a ``hearth/bus/dropped`` event
        with the number of events missed.
        """
        with self._ready:
            if not self._ready.wait_for(lambda: self._events or self._gap or self._closed,
                                        timeout):
                return None
            if self._gap:
                return self._take_gap()
            return self._events.popleft() if self._events else None

    def drain(self) -> list[Event]:
        """Return every buffered event without waiting (a gap event first after drops)."""
        with self._ready:
            events = [self._take_gap()] if self._gap else []
            events.extend(self._events)
            self._events.clear()
            return events

    def _take_gap(self) -> Event:
        """Return the event that reports the drops since the last read (lock held)."""
        missed, self._gap = self._gap, 0
        return Event(GAP_TAG, {"dropped": missed, "pattern": self.pattern, "_stamp": stamp()})

    def __iter__(self) -> Iterator[Event]:
        while (event := self.get()) is not None:
            yield event

    def close(self) -> None:
        """Stop receiving events; a blocked :meth:`get` returns None."""
        if self._bus is not None:
            self._bus.unsubscribe(self)
        with self._ready:
            self._closed = True
            self._ready.notify_all()


class Bus:
    """A publish/subscribe hub for one process.

    ``buffer_size`` bounds each subscriber's buffer (default: ``[bus]
    buffer_size``).
    """

    def __init__(self, buffer_size: int | None = None) -> None:
        self._buffer_size = buffer_size
        self._subscriptions: tuple[Subscription, ...] = ()
        self._lock = threading.Lock()
        self.publisher: ZmqPublisher | None = None

    def publish(self, tag: str, data: dict[str, Any]) -> None:
        """Publish ``data`` under ``tag`` to every matching subscriber; never blocks."""
        if not isinstance(data, dict):
            raise TypeError(f"event data must be a dict, not {type(data).__name__} "
                            f"(tag {tag!r})")
        subscriptions = self._subscriptions
        if not subscriptions:
            return
        event = Event(tag, {**data, "_stamp": stamp()})
        for subscription in subscriptions:
            subscription.offer(event)

    def subscribe(self, pattern: str = "") -> Subscription:
        """Return a new subscription to tags matching ``pattern`` (prefix or glob)."""
        subscription = Subscription(pattern, self._buffer_size or configured_buffer_size(), self)
        with self._lock:
            self._subscriptions = (*self._subscriptions, subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        """Remove ``subscription``; it receives nothing more."""
        with self._lock:
            self._subscriptions = tuple(s for s in self._subscriptions if s is not subscription)

    def serve_zmq(self, path: str | None = None) -> ZmqPublisher:
        """Start publishing every event on the ZeroMQ IPC socket ``path`` (idempotent)."""
        if self.publisher is None:
            # lazy: ZeroMQ (50 ms) only in a process whose bus other processes listen to
            from hearth.bus.bridge import ZmqPublisher

            self.publisher = ZmqPublisher(self, path or configured_socket_path())
        return self.publisher

    def close(self) -> None:
        """Stop the ZeroMQ publisher and close every subscription."""
        if self.publisher is not None:
            self.publisher.close()
            self.publisher = None
        for subscription in self._subscriptions:
            subscription.close()


def configured_buffer_size() -> int:
    """Return ``[bus] buffer_size`` (the default when configuration is not loaded)."""
    return int(configured().bus.buffer_size)


def configured_socket_path() -> str:
    """Return the path of ``[bus] publish_socket``."""
    conf = configured()
    conf.set_default("state_path", hearth_home())
    return str(conf.bus.publish_socket)


_DEFAULT = Bus()


def default_bus() -> Bus:
    """Return the process's bus."""
    return _DEFAULT


def publish(tag: str, data: dict[str, Any]) -> None:
    """Publish on the process's bus (see :meth:`Bus.publish`)."""
    _DEFAULT.publish(tag, data)


def subscribe(pattern: str = "") -> Subscription:
    """Subscribe to the process's bus (see :meth:`Bus.subscribe`)."""
    return _DEFAULT.subscribe(pattern)


def serve_zmq(path: str | None = None) -> ZmqPublisher:
    """Publish the process's bus on ZeroMQ (see :meth:`Bus.serve_zmq`)."""
    return _DEFAULT.serve_zmq(path)
