"""The masters an agent may serve, and which one it tries next (Salt's failover).

``[agent] master`` names one master or, with ``master_type = failover``,
several, each ``HOST``, ``HOST:PORT`` or ``HOST:PORT:AUTH_PORT`` (an IPv6
address in brackets: ``[::1]:4510``); ports not given are ``master_port``
and ``master_auth_port``.  With failover the agent serves the first master
that accepts it, in the list's order (shuffled once with ``random_master``;
with ``master_failback`` only the masters after the first), moves to the
next when its master stays unreachable ``master_alive_interval`` seconds,
and, with ``master_failback``, goes back to the first once it answers
again.  A master whose key does not match the pinned one is dropped from
the rotation for good.

Nothing here does I/O: the real agent (:mod:`hearth.agent.connection`)
and the fleet simulator drive a :class:`MasterRotation` alike.
"""

from __future__ import annotations

import ipaddress
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hearth.common import exception

STR, FAILOVER = "str", "failover"
MASTER_TYPES = (STR, FAILOVER)


@dataclass(frozen=True)
class MasterAddress:
    """One master as an agent reaches it: host, job port and auth port."""

    host: str
    port: int
    auth_port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def _port(text: str, item: str, option: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 0 < port < 65536:
        raise exception.BadRequest(
            message=f"{option}: {item!r}: {text!r} is not a port (1-65535)")
    return port


def parse_master(item: str, port: int, auth_port: int,
                 option: str = "[agent] master") -> MasterAddress:
    """Read one ``[agent] master`` item: ``HOST``, ``HOST:PORT`` or ``HOST:PORT:AUTH_PORT``.

    An IPv6 address is bracketed when ports follow (``[::1]:4510``); a bare
    IPv6 address (``fe80::1``) is a host alone, as Salt reads it.  ``option``
    names the setting in errors (clients read ``[master] masters`` alike).
    """
    text = item.strip()
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise exception.BadRequest(
                message=f"{option}: {item!r} is not [IPV6]:PORT (an unclosed bracket)")
        ports = rest[1:].split(":") if rest else []
    elif _is_ipv6(text):
        host, ports = text, []
    else:
        host, *ports = text.split(":")
    if not host or len(ports) > 2:
        raise exception.BadRequest(
            message=f"{option}: {item!r} is not HOST, HOST:PORT or HOST:PORT:AUTH_PORT")
    return MasterAddress(host, _port(ports[0], item, option) if ports else port,
                         _port(ports[1], item, option) if len(ports) > 1 else auth_port)


def _is_ipv6(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).version == 6
    except ValueError:
        return False


def parse_masters(items: Iterable[str], port: int, auth_port: int,
                  master_type: str) -> tuple[MasterAddress, ...]:
    """Read ``[agent] master`` (a list); check it against ``master_type``."""
    masters = tuple(parse_master(item, port, auth_port) for item in items if item.strip())
    if not masters:
        raise exception.BadRequest(message="[agent] master names no master")
    if master_type not in MASTER_TYPES:
        raise exception.BadRequest(
            message=f"[agent] master_type: {master_type!r} is not one of "
                    f"{', '.join(MASTER_TYPES)}")
    if len(masters) > 1 and master_type != FAILOVER:
        raise exception.BadRequest(
            message=f"[agent] master names {len(masters)} masters but master_type is "
                    f"{master_type!r}: set master_type = failover (an agent serves one "
                    "master at a time; Salt's hot multi-master, several at once, is not "
                    "supported)")
    if len(set(masters)) != len(masters):
        raise exception.BadRequest(message="[agent] master names the same master twice")
    return masters


class MasterRotation:
    """The order in which an agent tries its masters, and where it is now.

    ``order`` is the configured list, shuffled once when ``shuffle`` (the
    first master stays first when ``failback``, since failing back means
    going back to it).  :meth:`advance` moves to the next master (after the
    last, the first again: masters that were down may be back);
    :meth:`refuse` drops one for good.
    """

    def __init__(self, masters: Sequence[MasterAddress], failback: bool = False,
                 shuffle: bool = False, rng: random.Random | None = None) -> None:
        order = list(masters)
        if shuffle and len(order) > 1:
            rng = rng or random.Random()
            head, tail = (order[:1], order[1:]) if failback else ([], order)
            rng.shuffle(tail)
            order = head + tail
        self.order = order
        self.failback = failback and len(order) > 1
        self._index = 0

    @property
    def current(self) -> MasterAddress:
        """Return the master to serve (or try) now."""
        return self.order[self._index]

    @property
    def primary(self) -> MasterAddress:
        """Return the first master, the one failback returns to."""
        return self.order[0]

    @property
    def failover(self) -> bool:
        """Return whether there is another master to move to."""
        return len(self.order) > 1

    @property
    def on_primary(self) -> bool:
        """Return whether the agent is at the first master."""
        return self._index == 0

    def advance(self) -> MasterAddress:
        """Move to the next master in the order; return it."""
        self._index = (self._index + 1) % len(self.order)
        return self.current

    def fail_back(self) -> MasterAddress:
        """Move to the first master; return it."""
        self._index = 0
        return self.current

    def refuse(self, master: MasterAddress, reason: Exception) -> MasterAddress:
        """Drop ``master`` for good (its key is not the pinned one); return the next one.

        Re-raise ``reason`` when no master is left.
        """
        if master not in self.order:
            return self.current
        position = self.order.index(master)
        del self.order[position]
        if not self.order:
            raise reason
        if position < self._index:
            self._index -= 1
        if self._index >= len(self.order):
            self._index = 0
        if position == 0 or len(self.order) < 2:
            self.failback = False  # the master to go back to is gone
        return self.current
