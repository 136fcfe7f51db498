"""JobService: who may run what where, and who may read which pillar; one path for each.

Every caller names itself (:mod:`hearth.jobservice.callers`) and asks for
one of four things:

* **a job on agents** (:meth:`JobService.publish`, :meth:`JobService.run`):
  the target is resolved here, once, on the master's listing of its
  accepted agents (:mod:`hearth.jobservice.agents`); an API project's
  publisher_acl is checked against exactly the agents resolved; the master
  gets the resolved list (it targets nothing itself), batches and records
  the job under the caller's name, and :meth:`JobService.run` waits for it
  (once per batch, and once more, as ``salt --batch`` does);
* **a job on the engine's own host** (:meth:`JobService.run_on_engine_host`):
  the local user's right; an API project's only where ``[api]
  engine_host_projects`` grants it; recorded in this host's job cache;
* **an agent's pillar** (:attr:`JobService.pillar`, a
  :class:`~hearth.jobservice.pillar.PillarService`): compiled by the master,
  or here when no master is configured; needs the right to run
  ``pillar.items`` on that agent (a compile here, the engine-host right);
* **the master's agent keys** (:attr:`JobService.keys`, a
  :class:`~hearth.jobservice.keys.KeyService`): salt-key's listing, accept,
  reject, delete and fingerprints; the local user's, a project's only where
  its publisher_acl grants the wheel function (``'@wheel'``);
* **the jobs it ran** (:meth:`JobService.list_jobs`, :meth:`JobService.show_job`,
  :meth:`JobService.job_status`): a project sees its own jobs only; any
  other job is "not found", never "forbidden".

Refusals are :class:`~hearth.common.exception.JobRefused` (HTTP 403, a
resource's failure reason) naming the caller, the function, the target
and the reason.  The service is blocking and thread-safe: each request
sequence opens a master client of its own on the calling thread (callers
on green threads run it on a worker thread).  Configuration is read when
first needed, so building a service costs nothing.
"""

from __future__ import annotations

import fnmatch
import functools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hearth.agent.batch import batch_rounds, batch_size
from hearth.common import exception
from hearth.jobservice import agents as agent_facts
from hearth.jobservice.caller_jobs import CallerJobs
from hearth.jobservice.callers import ApiProject, Caller, LocalUser
from hearth.jobservice.keys import KeyService
from hearth.jobservice.pillar import PillarService
from hearth.jobservice.publisher_acl import read_acl_file
from hearth.jobservice.request import JobRequest
from hearth.jobservice.settings import JobSettings, master_client, master_configured
from hearth.master.job_status import JobStatus, PublishResult

if TYPE_CHECKING:
    from hearth.jobs import JobReturn, JobRunner
    from hearth.jobservice.engine_host import EngineHost
    from hearth.jobservice.local_jobs import LocalJobCache
    from hearth.jobservice.publisher_acl import PublisherAcl
    from hearth.master.settings import MasterSettings

#: The one function the service publishes on its own authority: is a new agent there?
PING_FUNCTION = "test.ping"


class JobService:
    """The one authority for jobs and pillar reads (see the module docstring).

    ``host_owner`` is the local user when this service runs their engine
    (stackctl's local engine, ``--in-process``, stackctl itself); None in
    hearth-api, where every caller is a project.  The keyword arguments are
    seams: ``settings`` (default: read from the configuration on first
    use), ``client_factory`` (a client of the master), ``runner_factory``
    (the job runner of the engine's host), ``record_job`` (the job cache of
    local jobs) and ``has_master`` (whether a master is configured here).
    """

    def __init__(self, host_owner: LocalUser | None = None, *,
                 settings: JobSettings | None = None,
                 client_factory: Callable[[], Any] | None = None,
                 runner_factory: Callable[[], JobRunner] | None = None,
                 record_job: Callable[[JobReturn, str | None], None] | None = None,
                 has_master: Callable[[], bool] | None = None) -> None:
        self.host_owner = host_owner
        self._settings = settings
        self._client_factory = client_factory or master_client
        self._runner_factory = runner_factory
        self._record_job = record_job
        if has_master is None:
            has_master = (lambda: True) if client_factory is not None else master_configured
        self._master_configured = has_master

    def has_master(self) -> bool:
        """Return whether a hearth-master is configured for this service."""
        return self._master_configured()

    @functools.cached_property
    def pillar(self) -> PillarService:
        """Return the pillar reads of this service (same callers, master and rights)."""
        return PillarService(self)

    @functools.cached_property
    def keys(self) -> KeyService:
        """Return the agent-key operations of this service (same callers, master, rights)."""
        return KeyService(self)

    @functools.cached_property
    def local_jobs(self) -> LocalJobCache:
        """Return this host's job cache (the local user's jobs), loaded at its first use."""
        # lazy: SQLAlchemy (150 ms) only where local jobs are kept or read (stackctl: never)
        from hearth.jobservice.local_jobs import LocalJobCache

        return LocalJobCache()

    @functools.cached_property
    def engine_host(self) -> EngineHost:
        """Return the engine's own host: its job runner and pillar configuration (loaded once)."""
        # lazy: the modules' loader and the pillar compiler (50 ms), only for work done here
        from hearth.jobservice.engine_host import EngineHost

        return EngineHost(self._runner_factory)

    @classmethod
    def for_local_user(cls, **seams: Any) -> JobService:
        """Return the service of an engine the user running this process owns."""
        return cls(LocalUser.current(), **seams)

    @classmethod
    def for_master(cls, master: MasterSettings, host_owner: LocalUser | None = None,
                   **seams: Any) -> JobService:
        """Return a service whose master is ``master`` (not the configured one)."""
        seams.setdefault("settings", JobSettings(nodegroups=dict(master.nodegroups),
                                                 timeout=master.timeout))
        return cls(host_owner, client_factory=functools.partial(master_client, master),
                   **seams)

    # --- identities ---------------------------------------------------------

    @property
    def settings(self) -> JobSettings:
        """Return the settings (read from the configuration on first use)."""
        if self._settings is None:
            self._settings = JobSettings.from_conf()
        return self._settings

    @property
    def local_user(self) -> LocalUser:
        """Return the local user this service acts for (stackctl's calls; hearth-api has none)."""
        if self.host_owner is None:
            raise exception.NotSupported(feature="a local user's call through hearth-api's jobs")
        return self.host_owner

    def caller_for(self, project_id: str) -> Caller:
        """Return who a stack of ``project_id`` acts as: its project, or this engine's owner."""
        return self.host_owner if self.host_owner is not None else ApiProject(project_id)

    def acting_as(self, caller: Caller) -> CallerJobs:
        """Return this service bound to ``caller`` (what a stack's resources get)."""
        return CallerJobs(self, caller)

    # --- jobs on agents -------------------------------------------------------

    def publish(self, caller: Caller, request: JobRequest) -> PublishResult:
        """Resolve the target, check the caller's rights, publish; return the jid at once.

        :raises NoAgentsMatched: the target selects no accepted agent.
        :raises JobRefused: the caller may not run the function on them.
        """
        with self.master_client() as client:
            return self._publish(client, caller, request, watch=False)

    def run(self, caller: Caller, request: JobRequest) -> JobStatus:
        """Publish and wait for the returns: ``timeout`` per batch round, plus one."""
        with self.master_client() as client:
            published = self._publish(client, caller, request, watch=True)
            wait = self._timeout(request)
            if request.batch is not None:
                wait *= batch_rounds(request.batch, len(published.targeted)) + 1
            status = JobStatus(jid=published.jid, fun=request.function,
                               args=list(request.args), kwargs=request.call_kwargs(),
                               target=request.target, target_type=request.target_type,
                               targeted=list(published.targeted), user=caller.recorded_as)
            return client.follow(status, wait)

    def job_status(self, caller: Caller, jid: str) -> JobStatus:
        """Return the master's snapshot of the caller's job ``jid`` (never waits).

        :raises JobNotFound: no such job, or another project's.
        """
        with self.master_client() as client:
            return self._own(caller, client.job_status(jid))

    def list_jobs(self, caller: Caller, limit: int | None = None) -> list[dict[str, Any]]:
        """Return the caller's jobs, newest first.

        The local user's are this host's job cache (local calls and, when the
        master shares the database, published jobs); a project's are those
        it published through the master.
        """
        if isinstance(caller, LocalUser):
            return self.local_jobs.jobs(limit)
        with self.master_client() as client:
            jobs = client.list_jobs(limit=None)
        mine = [job for job in jobs if job.get("user") == caller.recorded_as]
        return mine[:limit] if limit else mine

    def show_job(self, caller: Caller, jid: str) -> dict[str, Any]:
        """Return one of the caller's jobs with each agent's return and the missing ones."""
        if not isinstance(caller, LocalUser):
            return self.job_status(caller, jid).to_dict()
        return self.local_jobs.job(jid)

    def list_agents(self, caller: Caller, admin: bool = False) -> list[dict[str, Any]]:
        """Return the accepted agents the caller may know of (id, grains, connected, last seen).

        The local user, and an API caller holding the admin role (``admin``:
        it reads across projects, as Heat's ``global_tenant``), see every
        agent; a project sees the agents its publisher_acl lets it target
        with some function, matched on the master's facts as a publish is
        (none without rules, or without a publisher_acl).
        """
        if isinstance(caller, ApiProject) and not admin:
            return self._targetable_agents(caller)
        with self.master_client() as client:
            return client.list_agents()

    # --- the engine's own host -----------------------------------------------

    def check_engine_host(self, caller: Caller, function: str) -> None:
        """Return if ``caller`` may run ``function`` here and it exists; else raise.

        :raises JobRefused: an API project without the engine-host grant.
        :raises FunctionNotFound, ModuleNotAvailable: no such function here.
        """
        self.authorize_engine_host(caller, f"run {function} on the engine's own host",
                                    function)
        self._runner().loader.function(function)

    def run_on_engine_host(self, caller: Caller, function: str,
                           args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None,
                           target: str | None = None, record: bool = True) -> JobReturn:
        """Run ``function`` here as a job (blocking); return it.

        ``record``: keep it in this host's job cache as the caller's (``stackctl
        call`` records only when asked, as Salt's ``cache_jobs``).  An engine
        runs the call on an OS thread and records it afterwards on its green
        thread (:meth:`record_local_job`): the engine's database sessions
        belong to its green threads.
        """
        self.authorize_engine_host(caller, f"run {function} on the engine's own host",
                                    function)
        job = self._runner().run(function, list(args), dict(kwargs or {}), target=target)
        if record:
            self.record_local_job(caller, job)
        return job

    def record_local_job(self, caller: Caller, job: JobReturn) -> None:
        """Record a finished local job in this host's job cache, as the caller's."""
        (self._record_job or self.local_jobs.record)(job, caller.recorded_as)

    # --- agents: master-held facts, bootstrap ------------------------------------

    def record_grains(self, caller: Caller, agent_id: str,
                      grains: Mapping[str, Any]) -> dict[str, Any]:
        """Record grains of ``agent_id`` master-side (what pillar and ACLs trust); return all.

        Only the local user may: recorded grains decide which pillar an
        agent gets.
        """
        if not isinstance(caller, LocalUser):
            raise exception.JobRefused(str(caller), f"record grains of agent {agent_id}",
                                       "recorded grains decide which pillar an agent gets; "
                                       "only the master's operator may set them.",
                                       target=agent_id)
        with self.master_client() as client:
            return client.record_grains(agent_id, dict(grains))

    def recordable_grains(self, caller: Caller, configured: Mapping[str, Any],
                          given: Mapping[str, Any]) -> dict[str, Any]:
        """Return which grains of a machine ``caller`` creates are recorded master-side.

        ``configured`` come from the operator's cloud profile and provider,
        ``given`` from the caller (a stack's properties).  The local user's
        count; a project's do not (the agent still gets them as its own
        grains), or a stack could give its machine the role whose secrets
        it wants.
        """
        if isinstance(caller, LocalUser):
            return {**configured, **given}
        return dict(configured)

    def agent_answers(self, agent_id: str, timeout: float = 2.0) -> bool:
        """Return whether agent ``agent_id`` answers test.ping through the master now.

        The one job the service publishes on its own authority (it names
        one agent and only asks whether it is there); a master that does not
        answer, or an agent not connected yet, is a False.
        """
        try:
            with self.master_client(timeout=timeout) as client:
                connected = {agent["id"] for agent in client.list_agents(grains=False)
                             if agent.get("connected")}
                if agent_id not in connected:
                    return False  # a job would wait for it (a master just started holds jobs)
                published = client.publish([agent_id], PING_FUNCTION, target_type="list",
                                           timeout=timeout, targeted=[agent_id], watch=True)
                status = client.follow(JobStatus(jid=published.jid, fun=PING_FUNCTION,
                                                 targeted=[agent_id]), timeout)
        except exception.HearthException:
            return False
        return (status.returns.get(agent_id) or {}).get("return") is True

    def wait_for_agent(self, agent_id: str, timeout: float, interval: float = 0.2,
                       alive: Callable[[], bool] | None = None,
                       clock: Callable[[], float] = time.monotonic,
                       sleep: Callable[[float], None] = time.sleep) -> None:
        """Wait until agent ``agent_id`` answers test.ping through the master (cloud bootstrap).

        ``alive`` (optional) says whether the machine is still worth waiting
        for; a False ends the wait at once.

        :raises AgentNotAnswering: it did not answer within ``timeout`` seconds.
        """
        deadline = clock() + timeout
        while True:
            if alive is not None and not alive():
                raise exception.AgentNotAnswering(agent_id, timeout, "its machine stopped")
            if self.agent_answers(agent_id, timeout=min(3.0, max(timeout, 0.1))):
                return
            if clock() >= deadline:
                raise exception.AgentNotAnswering(agent_id, timeout)
            sleep(interval)

    # --- inside -------------------------------------------------------------------------

    @contextmanager
    def master_client(self, timeout: float | None = None) -> Iterator[Any]:
        """Yield a fresh master client for one request sequence on this thread; close it.

        ``timeout`` bounds each request's wait for the master's answer.
        """
        client = self._client_factory()
        if timeout is not None:
            client.timeout = timeout
        try:
            yield client
        finally:
            client.close()

    def _timeout(self, request: JobRequest) -> float:
        return self.settings.timeout if request.timeout is None else float(request.timeout)

    def _publish(self, client: Any, caller: Caller, request: JobRequest,
                 watch: bool) -> PublishResult:
        """Resolve, authorize and publish ``request`` on ``client`` (the one path)."""
        if request.batch is not None:
            batch_size(request.batch, 1)  # a bad size is refused before anything is sent
        acl = None
        if isinstance(caller, ApiProject):
            acl = self.acl_for(caller, f"run {request.function} on {request.where()}",
                            request.function, request.where())
        agents = self.agent_records(client, [(request.target, request.target_type)], acl)
        targeted = agent_facts.resolve(request.target, request.target_type, agents,
                                       self.settings.nodegroups)
        if acl is not None:
            acl.check(caller.project_id, request.function, targeted, self.trusted(agents),
                      self.settings.nodegroups, request.where())
        return client.publish(request.target, request.function, request.args,
                              request.call_kwargs(), target_type=request.target_type,
                              timeout=self._timeout(request), batch=request.batch,
                              user=caller.recorded_as, watch=watch, targeted=targeted)

    def agent_records(self, client: Any, targets: list[tuple[Any, str]],
                      acl: PublisherAcl | None) -> list[agent_facts.AgentRecord]:
        """Return the master's accepted agents (with pillar data when a target needs it)."""
        if acl is not None:
            targets = [*targets, *((rule.target, "compound") for rules in acl.rules.values()
                                   for rule in rules)]
        pillar = agent_facts.needs_pillar(targets, self.settings.nodegroups)
        return [agent_facts.AgentRecord.from_listing(entry)
                for entry in client.list_agents(pillar=pillar,
                                                grains=agent_facts.needs_grains(targets))]

    def _targetable_agents(self, caller: ApiProject) -> list[dict[str, Any]]:
        """Return the master's listing of the agents ``caller``'s publisher_acl lets it target."""
        path = self.settings.acl_file
        acl = read_acl_file(path) if path else None
        rules = acl.rules_for(caller.project_id) if acl is not None else []
        if not rules:
            return []
        targets = [(rule.target, "compound") for rule in rules]
        with self.master_client() as client:
            listing = client.list_agents(
                pillar=agent_facts.needs_pillar(targets, self.settings.nodegroups))
        agents = [agent_facts.AgentRecord.from_listing(entry) for entry in listing]
        visible = set(acl.targetable(caller.project_id, self.trusted(agents),
                                     self.settings.nodegroups))
        return [{key: value for key, value in entry.items() if key != "pillar"}
                for entry in listing if entry["id"] in visible]

    def trusted(self, agents: list[agent_facts.AgentRecord]) -> list[Any]:
        """Return the facts authorization matches of ``agents`` (see ``trust_agent_grains``)."""
        trust = self.settings.trust_agent_grains
        return [agent.trusted_facts(trust) for agent in agents]

    def acl_for(self, caller: ApiProject, action: str, function: str,
               where: str) -> PublisherAcl:
        """Return the configured publisher_acl; refuse everything when there is none."""
        path = self.settings.acl_file
        if not path:
            raise exception.JobRefused(
                str(caller), action, "this API publishes no job until [api] "
                "publisher_acl_file names the functions each project may run.",
                function=function, target=where)
        return read_acl_file(path)

    def _own(self, caller: Caller, status: JobStatus) -> JobStatus:
        """Return ``status`` if it is the caller's job; else it does not exist for them."""
        if isinstance(caller, ApiProject) and status.user != caller.recorded_as:
            raise exception.JobNotFound(status.jid)
        return status

    def authorize_engine_host(self, caller: Caller, action: str, function: str) -> None:
        """Return if ``caller`` may ``action`` on the engine's own host; else raise JobRefused."""
        if isinstance(caller, LocalUser):
            return
        if any(fnmatch.fnmatchcase(caller.project_id, glob)
               for glob in self.settings.engine_host_projects):
            return
        raise exception.JobRefused(
            str(caller), action, "running modules on the engine's own host is the local "
            "user's right; [api] engine_host_projects does not grant it to this project.",
            function=function, target="the engine's own host")

    def _runner(self) -> JobRunner:
        # a runner given (stackctl call's) needs no engine host: its pillar compiler and
        # Jinja would load for nothing
        if self._runner_factory is not None:
            return self._runner_factory()
        return self.engine_host.runner()

