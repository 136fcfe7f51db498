"""How stackctl reaches the services: one backend, the table's operations as its methods.

:class:`Backend` is the operations table (:class:`hearth.api.operations.Operations`)
bound to transports: ``backend.show_stack(identity)`` is the operation
``show_stack`` called, typed as ``EngineService.show_stack`` is (without
the request context), and answers what that method returns, whichever
transport carries it.  A :class:`Transport` carries a call:

* :class:`hearth.cli.backend_http.HttpTransport`: a hearth-api server
  (``--url`` or ``$HEARTH_URL``); the request and the answer are the table's;
* :class:`hearth.cli.backend_local.LocalTransport`: the same on this user's
  local engine (:mod:`hearth.cli.local_engine`), the default;
* :class:`hearth.cli.backend_embedded.EmbeddedTransport`: the services in
  this process (``--in-process``):
  the engine on the configured database, the catalog without one, the jobs
  through this user's hearth-master.

:func:`get_backend` is the one place that chooses: ``--url`` sends every
operation to that server; ``--in-process`` runs every one here; otherwise
the engine's and the catalog's go to the local engine and the jobs' to the
user's master directly (as ``salt`` does), each transport made on first use.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any, Protocol

from hearth.api.operation import JOBS, Operation
from hearth.api.operations import Operations
from hearth.cli import local_engine
from hearth.cli.backend_http import HttpTransport


class Transport(Protocol):
    """What carries a backend's calls to a service (in this process, or over HTTP)."""

    @property
    def poll_interval(self) -> float:
        """Return the seconds between two polls of a followed action."""

    def call(self, operation: Operation[..., Any], arguments: dict[str, Any]) -> Any:
        """Return what the service method of ``operation`` returns for ``arguments``."""

    def sleep(self, seconds: float) -> None:
        """Wait between two polls (less when the engine says an action ended)."""

    def settle(self, stack_identity: str) -> None:
        """Return once an action this process started on the stack has ended here."""

    def close(self) -> None:
        """Release what the transport holds (a connection, an in-process engine)."""


class Lazy:
    """A transport made on first use (a command that needs no engine starts none)."""

    def __init__(self, make: Callable[[], Transport]) -> None:
        self._make = make
        self._made: Transport | None = None

    @property
    def transport(self) -> Transport:
        """Return the transport, made now if it was not yet."""
        if self._made is None:
            self._made = self._make()
        return self._made

    @property
    def poll_interval(self) -> float:
        """Return the transport's poll interval."""
        return self.transport.poll_interval

    def call(self, operation: Operation[..., Any], arguments: dict[str, Any]) -> Any:
        """Call through the transport."""
        return self.transport.call(operation, arguments)

    def sleep(self, seconds: float) -> None:
        """Sleep as the transport does."""
        self.transport.sleep(seconds)

    def settle(self, stack_identity: str) -> None:
        """Settle as the transport does (nothing when it was never made)."""
        if self._made is not None:
            self._made.settle(stack_identity)

    def close(self) -> None:
        """Close the transport if it was made."""
        if self._made is not None:
            self._made.close()


class Backend(Operations):
    """The table's operations as methods, each call carried by the transport of its service.

    ``transport`` carries every call; ``parts`` may give another transport
    for a part of the services (:data:`~hearth.api.operation.ENGINE`,
    :data:`~hearth.api.operation.CATALOG`, :data:`~hearth.api.operation.JOBS`).
    """

    def __init__(self, transport: Transport, parts: dict[str, Transport] | None = None) -> None:
        self.transport = transport
        self.parts = dict(parts or {})

    def call(self, operation: Operation[..., Any], arguments: dict[str, Any]) -> Any:
        """Return the result of ``operation``, carried by its service's transport."""
        return self.parts.get(operation.part, self.transport).call(operation, arguments)

    @property
    def poll_interval(self) -> float:
        """Return the seconds between two polls of a followed action."""
        return self.transport.poll_interval

    def sleep(self, seconds: float) -> None:
        """Wait between two polls (an in-process or local engine wakes it at an action's end)."""
        self.transport.sleep(seconds)

    def settle(self, stack_identity: str) -> None:
        """Return once an action this process's engine runs on the stack has ended."""
        self.transport.settle(stack_identity)

    def wait(self, stack_identity: str, timeout: float | None = None) -> dict[str, Any]:
        """Poll the stack until its action ends (or ``timeout`` seconds pass); return it."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            stack = self.show_stack(stack_identity, resolve_outputs=False)
            if not stack["stack_status"].endswith("_IN_PROGRESS"):
                return stack
            if deadline is not None and time.monotonic() > deadline:
                return stack
            self.sleep(self.poll_interval)

    def close(self) -> None:
        """Close every transport."""
        for transport in {id(t): t for t in (self.transport, *self.parts.values())}.values():
            transport.close()


def backend_url(args: argparse.Namespace) -> str | None:
    """Return the API URL chosen by ``--url`` or ``$HEARTH_URL`` (None: no API server)."""
    return getattr(args, "url", None) or os.environ.get("HEARTH_URL") or None


def get_backend(args: argparse.Namespace) -> Backend:
    """Return the backend of the parsed command line (the one place that chooses).

    ``--url`` (or ``$HEARTH_URL``): that API server, for every operation.
    ``--in-process``: the services in this process (the configuration is
    loaded here).  Otherwise the local engine of this setting
    (:mod:`hearth.cli.local_engine`, started if need be) for the engine's
    and the catalog's operations, and this user's master for the jobs'.
    """
    url = backend_url(args)
    if url:
        token = getattr(args, "token", None) or os.environ.get("HEARTH_TOKEN")
        return Backend(Lazy(lambda: HttpTransport(url, token=token)))
    if local_engine.in_process_requested(args):
        return Backend(Lazy(lambda: embedded().in_process(args)))
    jobs = Lazy(lambda: embedded().jobs_transport(args))
    return Backend(Lazy(lambda: local_engine.local_transport(args)), parts={JOBS: jobs})


def embedded() -> ModuleType:
    """Return :mod:`hearth.cli.backend_embedded`: the services in this process."""
    # lazy: the engine, oslo.config, eventlet and ZeroMQ load only for --in-process or a job
    from hearth.cli import backend_embedded
    return backend_embedded

