"""JobService: the one authority for jobs and pillar reads (Salt's side of Hearth).

Every path that runs an execution function or reads an agent's pillar goes
through :class:`~hearth.jobservice.service.JobService`: ``stackctl run``
(local, or ``--url`` through hearth-api's ``/jobs``), ``stackctl call``, the
``/jobs`` routes, ``Hearth::Exec::Call`` (on agents and on the engine's own
host), ``Hearth::Pillar::Data``, the ``hearth_stack`` ext_pillar and the
cloud drivers' bootstrap wait.  It knows who asks (:mod:`.callers`), decides
what they may do (:mod:`.publisher_acl`, and the engine-host grant), resolves
targets once on what the master knows of its agents (:mod:`.agents`),
batches, and records the job.

Public names: :class:`JobService`, :class:`CallerJobs`, :class:`JobRequest`,
:class:`JobSettings`, :class:`LocalUser`, :class:`ApiProject` and :data:`Caller`.
"""

from __future__ import annotations

from hearth.jobservice.caller_jobs import CallerJobs
from hearth.jobservice.callers import ApiProject, Caller, LocalUser
from hearth.jobservice.request import JobRequest
from hearth.jobservice.service import JobService
from hearth.jobservice.settings import JobSettings

__all__ = ["ApiProject", "Caller", "CallerJobs", "JobRequest", "JobService", "JobSettings",
           "LocalUser"]
