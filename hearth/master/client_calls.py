"""One master request sequence on one short-lived client, for callers with many threads.

A :class:`~hearth.master.client.MasterClient` holds a socket and is not
thread-safe, so callers that hop between worker threads (the engine's
plug-ins, hearth-api's handlers) open one per sequence of requests with
:func:`with_client`, on the worker thread that makes them, and close it
right after: nothing stays open when a caller stops waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def default_client() -> Any:
    """Return a client of the master named by this process's configuration."""
    from hearth.master.client import MasterClient

    return MasterClient()


def with_client(client_factory: Callable[[], Any], operation: Callable[[Any], Any]) -> Any:
    """Run ``operation(client)`` with a fresh client from ``client_factory``, then close it."""
    client = client_factory()
    try:
        return operation(client)
    finally:
        client.close()
