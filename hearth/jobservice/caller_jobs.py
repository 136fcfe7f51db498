"""The JobService as one caller sees it: what a stack's resources hold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hearth.jobs import JobReturn
    from hearth.jobservice.callers import Caller
    from hearth.jobservice.request import JobRequest
    from hearth.jobservice.service import JobService
    from hearth.master.job_status import JobStatus, PublishResult


class CallerJobs:
    """The JobService as one caller sees it: a stack's resources get the owner's.

    Every method is the service's method of the same name with the caller
    already given, so a plug-in cannot choose whose rights it uses.
    """

    def __init__(self, service: JobService, caller: Caller) -> None:
        self.service = service
        self.caller = caller

    def publish(self, request: JobRequest) -> PublishResult:
        """Publish ``request`` (see :meth:`JobService.publish`)."""
        return self.service.publish(self.caller, request)

    def run(self, request: JobRequest) -> JobStatus:
        """Publish ``request`` and wait for it (see :meth:`JobService.run`)."""
        return self.service.run(self.caller, request)

    def job_status(self, jid: str) -> JobStatus:
        """Return job ``jid``'s snapshot (see :meth:`JobService.job_status`)."""
        return self.service.job_status(self.caller, jid)

    def list_agents(self) -> list[dict[str, Any]]:
        """Return the accepted agents (see :meth:`JobService.list_agents`)."""
        return self.service.list_agents(self.caller)

    def check_engine_host(self, function: str) -> None:
        """Check a local call before it starts (see :meth:`JobService.check_engine_host`)."""
        self.service.check_engine_host(self.caller, function)

    def run_on_engine_host(self, function: str, args: Sequence[Any] = (),
                           kwargs: Mapping[str, Any] | None = None,
                           target: str | None = None, record: bool = True) -> JobReturn:
        """Run a local call (see :meth:`JobService.run_on_engine_host`)."""
        return self.service.run_on_engine_host(self.caller, function, args, kwargs, target,
                                               record)

    def record_local_job(self, job: JobReturn) -> None:
        """Record a finished local call (see :meth:`JobService.record_local_job`)."""
        self.service.record_local_job(self.caller, job)

    def agent_pillar(self, agent_id: str, pillarenv: str | None = None,
                     grains: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Return an agent's pillar (see :meth:`PillarService.agent_pillar`)."""
        return self.service.pillar.agent_pillar(self.caller, agent_id, pillarenv, grains)

    def record_grains(self, agent_id: str, grains: Mapping[str, Any]) -> dict[str, Any]:
        """Record grains master-side (see :meth:`JobService.record_grains`)."""
        return self.service.record_grains(self.caller, agent_id, grains)

    def recordable_grains(self, configured: Mapping[str, Any],
                          given: Mapping[str, Any]) -> dict[str, Any]:
        """Return a new machine's recorded grains (see :meth:`JobService.recordable_grains`)."""
        return self.service.recordable_grains(self.caller, configured, given)
