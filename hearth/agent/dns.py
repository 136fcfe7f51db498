"""Resolve a master's host name before the agent knocks, as Salt's ``retry_dns`` does.

ZeroMQ resolves names itself and retries forever in silence, so a master
name that does not resolve (a typo, DNS not up yet at boot) would look
like a master that never answers.  The agent resolves the name first and
says so.  A lookup can hang for as long as the resolver's timeouts, so it
runs on a thread of its own and the agent's loop waits for it while still
heeding a stop.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable


class Lookup:
    """One host name lookup on its own thread: :meth:`done`, then :attr:`error`."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.error = ""
        self._finished = threading.Event()
        threading.Thread(target=self._run, args=(port,), name=f"dns-{host}",
                         daemon=True).start()

    def _run(self, port: int) -> None:
        try:
            socket.getaddrinfo(self.host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as error:  # socket.gaierror is an OSError
            self.error = str(error) or type(error).__name__
        finally:
            self._finished.set()

    def done(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the answer; return whether it is in."""
        return self._finished.wait(seconds)


def is_address(host: str) -> bool:
    """Return whether ``host`` is an IP address (nothing to resolve)."""
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def resolve_error(host: str, port: int, wait: Callable[[Lookup], bool]) -> str | None:
    """Return why ``host`` does not resolve ('' when it does; None when the wait was cut short).

    ``wait(lookup)`` waits for the lookup and returns False when the caller
    must stop waiting (the agent is stopping).
    """
    if is_address(host):
        return ""
    lookup = Lookup(host, port)
    if not wait(lookup):
        return None
    return lookup.error
