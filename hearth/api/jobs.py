"""Jobs and agents over REST: the routes of the engine's JobService.

``POST /v1/{project}/jobs`` runs an execution function on the agents a
target selects, if the project's ``publisher_acl`` allows it (else 403
naming the function, the target and the reason), and answers the job once
it is done (Salt's meaning of ``timeout``: how long to wait) or, with
``"async": true``, 202 with the job id at once.  ``GET .../jobs`` and
``GET .../jobs/{jid}`` show the project's own jobs (another project's job
is 404).  ``GET .../agents`` lists the accepted agents the project's
publisher_acl lets it target (every agent for the admin role) with their
grains and when they were last seen.

Every decision is :class:`~hearth.jobservice.JobService`'s; the caller is
the token's project (on stackctl's local engine, its user).  The service
blocks, so each call runs on a worker thread and the API's green threads
keep serving.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hearth.api.routing import ApiRequest, Reply
from hearth.common import exception
from hearth.common.green import run_blocking
from hearth.jobservice import Caller, JobRequest, JobService

JOB_LIST_QUERY_HELP = "Most jobs returned, newest first."


def _serve(request: ApiRequest, operation: Callable[[JobService, Caller], Any]) -> Any:
    """Run ``operation(service, caller)`` on a worker thread for the request's caller."""
    service: JobService = request.service.jobs
    caller = service.caller_for(request.ctx.project_id)
    try:
        return run_blocking(operation, service, caller)
    except exception.KeyFileError as error:
        raise exception.NotSupported(
            feature=f"Jobs and agents on an API without a hearth-master ({error})") from None


def job_request(body: dict[str, Any]) -> JobRequest:
    """Return the JobRequest of a ``POST /jobs`` body (already checked by its schema)."""
    return JobRequest(function=body["function"], args=list(body.get("args") or []),
                      kwargs=dict(body.get("kwargs") or {}), target=body["target"],
                      target_type=body.get("target_type") or "glob",
                      timeout=body.get("timeout"), batch=body.get("batch"),
                      pillar=body.get("pillar") or None)


def create(request: ApiRequest) -> Any:
    """POST /jobs: publish through the JobService and wait for the returns (or not, async)."""
    body = request.body_object()
    job = job_request(body)
    if body.get("async"):
        published = _serve(request, lambda service, caller: service.publish(caller, job))
        return Reply(status=202, body={"jid": published.jid, "targeted": published.targeted})
    status = _serve(request, lambda service, caller: service.run(caller, job))
    return {"job": status.to_dict()}


def index(request: ApiRequest) -> dict[str, Any]:
    """GET /jobs: the project's jobs, newest first."""
    limit = request.query.get("limit")
    return {"jobs": _serve(request, lambda service, caller: service.list_jobs(caller, limit))}


def show(request: ApiRequest) -> dict[str, Any]:
    """GET /jobs/{jid}: one job of the project, with each agent's return and the missing."""
    jid = request.path["jid"]
    return {"job": _serve(request, lambda service, caller: service.show_job(caller, jid))}


def agents(request: ApiRequest) -> dict[str, Any]:
    """GET /agents: the agents the project may target, their grains, when last seen."""
    admin = request.ctx.is_admin
    listing = _serve(request, lambda service, caller: service.list_agents(caller, admin))
    return {"agents": [{key: agent[key] for key in ("id", "grains", "connected", "last_seen")}
                       for agent in listing]}
