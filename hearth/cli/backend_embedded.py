"""The services in this stackctl process: ``--in-process``, and the jobs' by default.

:class:`EmbeddedTransport` carries a backend's calls to the EngineService,
the Catalog and the JobService of this process
(:mod:`hearth.cli.backend` loads this module only when a command needs one
of them: a stack command on the local engine loads no engine and no
oslo.config; eventlet and ZeroMQ are loaded when the engine or the master
is used, so that ``--in-process template-validate`` loads neither).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hearth.api.operation import CATALOG, JOBS, Operation
from hearth.common import config
from hearth.common.context import RequestContext
from hearth.jobservice.service import JobService

if TYPE_CHECKING:
    from hearth.engine.service.catalog import Catalog
    from hearth.engine.service.engine import EngineService

#: Seconds between two event polls while following an action in embedded mode (the
#: action's end wakes the follower at once: :meth:`EmbeddedTransport.sleep`).  Each poll
#: reads the database on the engine's own thread, so polls are not made too often.
EMBEDDED_POLL_INTERVAL = 0.25


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
            # lazy: the engine (SQLAlchemy) for its operations, not the catalog's (validate)
            from hearth.engine.service.engine import EngineService

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
        """Return the engine service's catalog when there is one, else a Catalog (no database)."""
        if self._service is not None:
            return self._service.catalog
        if self._catalog is None:
            # the template layer and the plug-ins, for the catalog's operations (validate, types)
            # lazy: YAML, jsonschema, networkx: not for a stack command (--in-process stack-list)
            from hearth.engine.service.catalog import Catalog
            self._catalog = Catalog()
        return self._catalog

    def call(self, operation: Operation[..., Any], arguments: dict[str, Any]) -> Any:
        """Call the service method of ``operation`` with the caller this process is."""
        if operation.part == JOBS:
            return operation.invoke(self.jobs, self.jobs.host_owner, arguments)
        target = self._catalog_service() if operation.part == CATALOG else self.service
        return operation.invoke(target, self.context, arguments)

    def sleep(self, seconds: float) -> None:
        """Wait while the engine's green threads keep working; an action that ends wakes it.

        With no engine service in this process there is no green thread to
        let run (a job's wait): a plain sleep.
        """
        if self._service is not None:
            self._service.pause(seconds)
        else:
            time.sleep(seconds)

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


def local_jobs(args: argparse.Namespace) -> JobService:
    """Return the JobService of this user's master (``--config-file``): every right."""
    # lazy: ZeroMQ only for the jobs (a stack command run here talks to no master)
    from hearth.master.client import clients_from_args
    return JobService.for_local_user(
        client_factory=clients_from_args(getattr(args, "config_file", None)))


def in_process(args: argparse.Namespace) -> EmbeddedTransport:
    """Return the services in this process, the configuration of ``--config-file`` loaded."""
    config.load(config_files=getattr(args, "config_file", None))
    return EmbeddedTransport(jobs=lambda: local_jobs(args))


def jobs_transport(args: argparse.Namespace) -> EmbeddedTransport:
    """Return the transport of the job operations: this user's master (``--config-file``)."""
    return EmbeddedTransport(jobs=lambda: local_jobs(args))
