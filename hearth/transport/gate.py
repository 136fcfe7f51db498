"""The gate every received message passes before a handler sees it: decode, check, count.

A daemon declares what it accepts on each socket as :class:`Channel`
records (a JSON Schema per message type, chosen by a type field such as
``cmd``); :meth:`Gate.admit` decodes a frame (:func:`~hearth.transport.wire.decode`
bounds its depth), checks it against its type's schema and returns it, or
drops it.  Each drop and each handler failure is counted by channel and
kind (:meth:`Gate.stats`) and logged with the peer's name: at warning
level the first time for that peer, at debug level afterwards, so a peer
that sends garbage in a loop cannot flood the log.
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any

import jsonschema_rs

from hearth.common.exception import MessageRefused
from hearth.transport import wire

#: How many peers' first refusal the gate remembers (older ones may warn again).
REMEMBERED_PEERS = 1024
#: Longest reason kept in a log line (a schema error can quote a huge value).
REASON_LENGTH = 300


class Channel:
    """What a daemon accepts on one socket: each message type's schema, by a type field.

    ``type_field`` None means the channel carries one message type, the
    only key of ``schemas``.
    """

    def __init__(self, name: str, schemas: Mapping[str, dict[str, Any]],
                 type_field: str | None = "cmd", description: str = "") -> None:
        if type_field is None and len(schemas) != 1:
            raise ValueError(f"channel {name}: without a type field it carries one type")
        self.name = name
        self.type_field = type_field
        self.description = description or name
        self.schemas = dict(schemas)
        # jsonschema-rs: a message is checked in microseconds, on the daemon's one I/O thread
        self._validators = {message_type: jsonschema_rs.Draft202012Validator(schema)
                            for message_type, schema in self.schemas.items()}

    @property
    def types(self) -> list[str]:
        """Return the message types of this channel, sorted."""
        return sorted(self.schemas)

    def check(self, message: dict[str, Any]) -> str:
        """Return the type of ``message``; raise MessageRefused when it does not fit it."""
        if self.type_field is None:
            message_type = next(iter(self._validators))
        else:
            message_type = message.get(self.type_field)
            if not isinstance(message_type, str) or message_type not in self._validators:
                raise MessageRefused("unknown-type", f"{self.type_field} {message_type!r} is "
                                     f"none of {', '.join(self.types)}")
        validator = self._validators[message_type]
        if not validator.is_valid(message):
            error = next(iter(validator.iter_errors(message)))
            where = "/".join(str(part) for part in error.instance_path) or "(message)"
            raise MessageRefused("invalid", f"{message_type}: {where}: {error.message}")
        return message_type

    def is_valid(self, message_type: str, message: Any) -> bool:
        """Return whether ``message`` fits the schema of ``message_type``."""
        return self._validators[message_type].is_valid(message)


class Gate:
    """Decode, check and count the messages a daemon receives (see the module docstring)."""

    def __init__(self, channels: Iterable[Channel], log: logging.Logger,
                 max_depth: int = wire.MAX_DEPTH) -> None:
        self.channels = {channel.name: channel for channel in channels}
        self._log = log
        self._max_depth = max_depth
        self._lock = threading.Lock()
        self._received: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter)
        self._dropped: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter)
        self._failed: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter)
        self._warned: collections.OrderedDict[str, None] = collections.OrderedDict()

    def admit(self, channel_name: str, frame: bytes, peer: str
              ) -> tuple[str, dict[str, Any]] | None:
        """Return ``(type, message)`` of a fit ``frame`` from ``peer``; None when dropped."""
        try:
            return self.check(channel_name, frame, peer)
        except MessageRefused:
            return None

    def check(self, channel_name: str, frame: bytes, peer: str) -> tuple[str, dict[str, Any]]:
        """Return ``(type, message)`` of a fit ``frame``; count, log and raise MessageRefused.

        The refusal's ``decoded`` is the message when it was JSON (None otherwise),
        so that a caller can still answer a request it refuses.
        """
        channel = self.channels[channel_name]
        message = None
        try:
            message = wire.decode(frame, self._max_depth)
            message_type = channel.check(message)
        except MessageRefused as error:
            error.decoded = message
            self.refuse(channel_name, peer, error)
            raise
        with self._lock:
            self._received[channel_name][message_type] += 1
        return message_type, message

    def refuse(self, channel_name: str, peer: str, error: MessageRefused) -> None:
        """Count and log a message from ``peer`` dropped for ``error``."""
        with self._lock:
            self._dropped[channel_name][error.kind] += 1
            first = self._first_time(peer)
        reason = _shorten(str(error))
        description = self.channels[channel_name].description
        if first:
            self._log.warning("dropped a message from %s on %s: %s (further bad messages from "
                              "this peer are logged at debug level)", peer, description, reason)
        else:
            self._log.debug("dropped a message from %s on %s: %s", peer, description, reason)

    def failed(self, channel_name: str, message_type: str, peer: str) -> None:
        """Count and log a handler's failure on a message from ``peer`` (call in ``except``)."""
        with self._lock:
            self._failed[channel_name][message_type] += 1
            first = self._first_time(f"failed:{peer}")
        description = self.channels[channel_name].description
        self._log.log(logging.ERROR if first else logging.DEBUG,
                      "handling %s from %s on %s failed; the message is dropped",
                      message_type, peer, description, exc_info=True)

    def _first_time(self, peer: str) -> bool:
        """Return whether ``peer`` is new to the log (hold the lock)."""
        if peer in self._warned:
            self._warned.move_to_end(peer)
            return False
        self._warned[peer] = None
        if len(self._warned) > REMEMBERED_PEERS:
            self._warned.popitem(last=False)
        return True

    def stats(self) -> dict[str, dict[str, dict[str, int]]]:
        """Return the counters: ``{received|dropped|failed: {channel: {type or kind: n}}}``."""
        with self._lock:
            return {name: {channel: dict(sorted(counter.items()))
                           for channel, counter in sorted(table.items())}
                    for name, table in (("received", self._received),
                                        ("dropped", self._dropped),
                                        ("failed", self._failed))}


def _shorten(text: str) -> str:
    return text if len(text) <= REASON_LENGTH else f"{text[:REASON_LENGTH]}..."
