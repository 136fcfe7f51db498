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
* :class:`EmbeddedTransport`: the services in this process (``--in-process``):
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
from typing import Any, Protocol

from hearth.api.operation import CATALOG, JOBS, Operation
from hearth.api.operations import Operations
from hearth.cli import local_engine
from hearth.cli.backend_http import HttpTransport
from hearth.common.context import RequestContext
from hearth.engine.service.catalog import Catalog
from hearth.engine.service.engine import EngineService
from hearth.jobservice import JobService

#: Seconds between two event polls while following an action in embedded mode (the
#: action's end wakes the follower at once: :meth:`EmbeddedTransport.sleep`).  Each poll
#: reads the database on the engine's own thread, so polls are not made too often.
EMBEDDED_POLL_INTERVAL = 0.25


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


class EmbeddedTransport:
    """Call the services in this process, as the local admin (jobs: as this user).

    ``service`` is the EngineService (made on the first engine call: a
    command that only reads the catalog needs no database); ``jobs`` makes
    the JobService of the job operations (on the first job call: a stack
    command loads no ZeroMQ).
    """

    poll_interval = EMBEDDED_POLL_INTERVAL

    def __init__(self, service: EngineService | None = None, project_id: str = "admin",
                 jobs: Callable[[], JobService] | None = None) -> None:
        self._service = service
        self._catalog: Catalog | None = None
        self._jobs_factory = jobs
        self._jobs: JobService | None = None
        self.context = RequestContext.local(project_id)

    @property
    def service(self) -> EngineService:
        """Return the in-process engine service (made on first use)."""
        if self._service is None:
            self._service = EngineService(jobs=JobService.for_local_user())
        return self._service

    @property
    def jobs(self) -> JobService:
        """Return the JobService of this user (made on first use)."""
        if self._jobs is None:
            if self._jobs_factory is not None:
                self._jobs = self._jobs_factory()
            elif self._service is not None:
                self._jobs = self._service.jobs
            else:
                self._jobs = JobService.for_local_user()
        return self._jobs

    def _catalog_service(self) -> Catalog:
        """Return the engine service when there is one, else a Catalog (no database)."""
        if self._service is not None:
            return self._service
        if self._catalog is None:
            self._catalog = Catalog()
        return self._catalog

    def call(self, operation: Operation[..., Any], arguments: dict[str, Any]) -> Any:
        """Call the service method of ``operation`` with the caller this process is."""
        if operation.part == JOBS:
            return operation.invoke(self.jobs, self.jobs.host_owner, arguments)
        target = self._catalog_service() if operation.part == CATALOG else self.service
        return operation.invoke(target, self.context, arguments)

    def sleep(self, seconds: float) -> None:
        """Wait while the engine's green threads keep working; an action that ends wakes it."""
        if self._service is not None:
            self._service.pause(seconds)
        else:
            from hearth.common.green import green_sleep  # eventlet: only when it runs here
            green_sleep(seconds)

    def settle(self, stack_identity: str) -> None:
        """Wait until this process's engine has finished the stack's action.

        The stack's final state is stored (and followed) before the action's
        thread releases the stack's lock; a process that exited in between
        would leave the lock to a registered engine that no longer runs.
        """
        if self._service is not None:
            self._service.runtime.wait(stack_identity.rpartition("/")[2])

    def close(self) -> None:
        """Stop the in-process engine: cancel what runs, release locks."""
        if self._service is not None:
            self._service.stop()


def backend_url(args: argparse.Namespace) -> str | None:
    """Return the API URL chosen by ``--url`` or ``$HEARTH_URL`` (None: no API server)."""
    return getattr(args, "url", None) or os.environ.get("HEARTH_URL") or None


def local_jobs(args: argparse.Namespace) -> JobService:
    """Return the JobService of this user's master (``--config-file``): every right."""
    from hearth.master.client import clients_from_args  # ZeroMQ: only for the jobs

    return JobService.for_local_user(
        client_factory=clients_from_args(getattr(args, "config_file", None)))


def _in_process(args: argparse.Namespace) -> EmbeddedTransport:
    """Return the services in this process, the configuration of ``--config-file`` loaded."""
    from hearth.common import config  # oslo.config: only when the engine runs here
    config.load(config_files=getattr(args, "config_file", None))
    return EmbeddedTransport(jobs=lambda: local_jobs(args))


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
        return Backend(Lazy(lambda: _in_process(args)))
    jobs = Lazy(lambda: EmbeddedTransport(jobs=lambda: local_jobs(args)))
    return Backend(Lazy(lambda: local_engine.local_transport(args)), parts={JOBS: jobs})

