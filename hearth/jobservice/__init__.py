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

Each part is imported from its own module (the package itself loads nothing, so that
``stackctl``, which reads a job request's shape with the operations table, does not load
the service, its settings, keys and targeting): :class:`~.service.JobService`,
:class:`~.caller_jobs.CallerJobs`, :class:`~.request.JobRequest`,
:class:`~.settings.JobSettings`, :class:`~.callers.LocalUser`, :class:`~.callers.ApiProject`
and :data:`~.callers.Caller`.
"""
