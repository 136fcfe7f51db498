"""Jobs and agents: hearth-api as a client of hearth-master.

``POST /v1/{project}/jobs`` runs an execution function on the agents a
target selects, if the project's ``publisher_acl`` allows it (else 403 with
the reason), and answers the job once it is done (Salt's meaning of
``timeout``: how long to wait) or, with ``"async": true``, 202 with the job
id at once.  ``GET .../jobs`` and ``GET .../jobs/{jid}`` read the master's
job cache; a project sees the jobs it published.  ``GET .../agents`` lists
the accepted agents with their grains and when they were last seen.

Every master request runs on a worker thread with a client of its own
(:mod:`hearth.master.client_calls`), so the API's green threads keep serving.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

from hearth.agent.batch import batch_rounds, batch_size
from hearth.agent.targeting import AgentFacts, select
from hearth.api.routing import ApiRequest, Reply
from hearth.common import exception
from hearth.common.config import CONF
from hearth.common.green import run_blocking
from hearth.master import client_calls
from hearth.master.publisher_acl import PublisherAcl
from hearth.master.settings import MasterSettings

JOB_LIST_QUERY_HELP = "Most jobs returned, newest first."


def _client() -> Any:
    """Return a client of the configured master; 400 when this API has none."""
    try:
        return client_calls.default_client()
    except exception.KeyFileError as error:
        raise exception.NotSupported(
            feature=f"Jobs and agents on an API without a hearth-master ({error})") from None


def _on_master(operation: Callable[[Any], Any]) -> Any:
    """Run ``operation(client)`` on a worker thread with a fresh master client."""
    return run_blocking(client_calls.with_client, _client, operation)


def publisher_acl() -> PublisherAcl:
    """Return the configured ACL (re-read when the file changes); 403 when none is set."""
    path = CONF.api.publisher_acl_file
    if not path:
        raise exception.Forbidden(
            "publisher_acl: this API publishes no job until [api] publisher_acl_file names "
            "the functions each project may run.")
    try:
        modified = os.stat(path).st_mtime
    except OSError as error:
        raise exception.InvalidPublisherAcl(source=path, where="file",
                                            reason=error.strerror) from None
    return _read_acl(path, modified)


@functools.lru_cache(maxsize=4)
def _read_acl(path: str, modified: float) -> PublisherAcl:
    return PublisherAcl.from_file(path)


def create(request: ApiRequest) -> Any:
    """POST /jobs: check the ACL, publish, and wait for the returns (or not, with async)."""
    body = request.body_object()
    acl = publisher_acl()
    project = request.ctx.project_id
    nodegroups = MasterSettings.from_conf(CONF).nodegroups
    target, target_type = body["target"], body.get("target_type") or "glob"
    function = body["function"]
    if body.get("batch") is not None:
        batch_size(body["batch"], 1)  # a bad spec is refused before anything is published
    kwargs = dict(body.get("kwargs") or {})
    if body.get("pillar"):
        kwargs["pillar"] = body["pillar"]  # Salt's per-call override, as stackctl run sends it

    def publish(client: Any) -> Any:
        agents = [AgentFacts(agent["id"], agent.get("grains") or {})
                  for agent in client.list_agents()]
        targeted = select(target, target_type, agents, nodegroups)
        if not targeted:
            raise exception.NoAgentsMatched(target=target, target_type=target_type)
        acl.check(project, function, targeted, agents, nodegroups)
        published = client.publish(target, function, body.get("args") or [], kwargs,
                                   target_type=target_type, timeout=body.get("timeout"),
                                   batch=body.get("batch"), user=project)
        if body.get("async"):
            return published
        return client.wait(published.jid, _wait_time(client, body, len(published.targeted)))

    result = _on_master(publish)
    if body.get("async"):
        return Reply(status=202, body={"jid": result.jid, "targeted": result.targeted})
    return {"job": result.to_dict()}


def _wait_time(client: Any, body: dict[str, Any], targeted: int) -> float:
    """Return how long to wait: the timeout, once per batch (and once more), as stackctl."""
    timeout = body.get("timeout")
    timeout = client.settings.timeout if timeout is None else float(timeout)
    if body.get("batch") is None:
        return timeout
    return timeout * (batch_rounds(body["batch"], targeted) + 1)


def index(request: ApiRequest) -> dict[str, Any]:
    """GET /jobs: the project's jobs in the master's job cache, newest first."""
    limit = request.query.get("limit")
    project = request.ctx.project_id
    jobs = _on_master(lambda client: client.list_jobs(limit=None))
    mine = [job for job in jobs if job.get("user") == project]
    return {"jobs": mine[:limit] if limit else mine}


def show(request: ApiRequest) -> dict[str, Any]:
    """GET /jobs/{jid}: one job of the project, with each agent's return and the missing."""
    jid = request.path["jid"]
    project = request.ctx.project_id

    def find(client: Any) -> Any:
        owner = next((job.get("user") for job in client.list_jobs(limit=None)
                      if job.get("jid") == jid), None)
        if owner != project:
            raise exception.JobNotFound(jid)
        return client.show_job(jid)

    return {"job": _on_master(find).to_dict()}


def agents(request: ApiRequest) -> dict[str, Any]:
    """GET /agents: the accepted agents, their grains and when they were last seen."""
    return {"agents": _on_master(lambda client: client.list_agents())}
