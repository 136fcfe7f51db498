"""The job cache: store job returns, list and show them, purge expired ones.

Every job is kept ``[jobs] keep_jobs_hours`` from the moment it is stored
(``expires_at``); ``0`` keeps none.  Expired jobs are purged whenever a job
is stored, and are never listed or shown.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from sqlalchemy import delete, or_, select

from hearth.common import config, exception
from hearth.db import models
from hearth.db.api_agents import job_returns
from hearth.db.session import Database
from hearth.db.timeutils import utcnow

Clock = Callable[[], datetime.datetime]

#: Columns of the job cache as listings show them, in order.
JOB_FIELDS = ("jid", "function", "args", "kwargs", "target", "retcode", "success", "return",
              "started_at", "finished_at", "expires_at")


def _naive(moment: datetime.datetime | None) -> datetime.datetime | None:
    if moment is None or moment.tzinfo is None:
        return moment
    return moment.astimezone(datetime.UTC).replace(tzinfo=None)


def keep_hours() -> int:
    """Return ``[jobs] keep_jobs_hours``."""
    config.register_opts()
    return config.CONF.jobs.keep_jobs_hours


def job_to_dict(job: models.Job) -> dict[str, Any]:
    """Return a cached job as a plain dict (times in ISO-8601).

    A job published by hearth-master also has ``target_type``,
    ``targeted``, ``not_connected`` and ``user`` (None for local calls).
    """
    data = {"jid": job.jid, "function": job.function, "args": job.args, "kwargs": job.kwargs,
            "target": job.target, "retcode": job.retcode, "success": job.success,
            "return": job.return_, "started_at": job.started_at,
            "finished_at": job.finished_at, "expires_at": job.expires_at,
            "target_type": job.target_type, "targeted": job.targeted,
            "not_connected": job.not_connected, "user": job.user}
    for key in ("started_at", "finished_at", "expires_at"):
        data[key] = data[key].isoformat() if data[key] else None
    return data


def _alive(now: datetime.datetime) -> Any:
    return or_(models.Job.expires_at.is_(None), models.Job.expires_at > now)


def job_store(db: Database, job: Any, keep_jobs_hours: int | None = None,
              clock: Clock = utcnow, user: str | None = None) -> None:
    """Store a :class:`hearth.jobs.JobReturn` as ``user``'s; purge expired jobs first.

    With a retention of 0 hours nothing is stored.  ``user`` is the project
    whose job it is (None: the local user's).
    """
    hours = keep_hours() if keep_jobs_hours is None else keep_jobs_hours
    now = clock()
    job_purge_expired(db, clock)
    if hours <= 0:
        return
    with db.session_scope(write=True) as session:
        session.merge(models.Job(
            jid=job.jid, function=job.fun, args=list(job.fun_args), kwargs=dict(job.kwargs),
            target=job.id, retcode=job.retcode, return_=job.ret, success=job.success,
            started_at=_naive(job.started_at), finished_at=_naive(job.finished_at),
            expires_at=now + datetime.timedelta(hours=hours), user=user))


def job_purge_expired(db: Database, clock: Clock = utcnow) -> int:
    """Delete the jobs whose retention ended; return how many."""
    with db.session_scope(write=True) as session:
        result = session.execute(delete(models.Job).where(models.Job.expires_at <= clock()))
        return result.rowcount or 0


def job_list(db: Database, limit: int | None = None, clock: Clock = utcnow
             ) -> list[dict[str, Any]]:
    """Return the cached jobs, newest first (a published job with its agents' outcome)."""
    query = select(models.Job).where(_alive(clock())).order_by(models.Job.jid.desc())
    if limit:
        query = query.limit(limit)
    with db.session_scope() as session:
        jobs = list(session.scalars(query))
        published = [job.jid for job in jobs if job.targeted is not None]
        returns: dict[str, list[models.JobReturn]] = {jid: [] for jid in published}
        if published:
            for row in session.scalars(select(models.JobReturn)
                                       .where(models.JobReturn.jid.in_(published))):
                returns[row.jid].append(row)
        return [_with_outcome(job_to_dict(job), returns.get(job.jid)) for job in jobs]


def published_outcome(targeted: list[str], not_connected: list[str],
                      returns: list[models.JobReturn]) -> dict[str, Any]:
    """Return the retcode, success and finished_at of a job the master published.

    As ``stackctl run`` judges it: an agent's non-zero retcode (1 for a
    return that is not a success) fails the job, and the job's retcode is
    the highest; an agent the job could not reach fails it with 1.  Until
    every reachable agent returned, a job no agent failed yet is unknown
    (None): still running, or some never answer.
    """
    answered = {row.agent_id for row in returns}
    waiting = set(targeted) - answered - set(not_connected)
    failed = [row.retcode or (0 if row.success else 1) for row in returns]
    failed = [code for code in failed if code] + [1 for _ in not_connected]
    if waiting and not failed:
        return {"retcode": None, "success": None, "finished_at": None}
    finished = max((row.received_at for row in returns), default=None) if not waiting else None
    return {"retcode": max(failed, default=0), "success": not failed,
            "finished_at": finished.isoformat() if finished else None}


def _with_outcome(data: dict[str, Any], returns: list[models.JobReturn] | None
                  ) -> dict[str, Any]:
    """Return a published job's dict with its outcome (a local call's as it is)."""
    if returns is None:
        return data
    data.update(published_outcome(data["targeted"] or [], data["not_connected"] or [], returns))
    return data


def job_get(db: Database, jid: str, clock: Clock = utcnow) -> dict[str, Any]:
    """Return one cached job; raise :class:`~hearth.common.exception.JobNotFound`."""
    with db.session_scope() as session:
        job = session.scalars(select(models.Job).where(
            models.Job.jid == jid, _alive(clock()))).first()
        if job is None:
            raise exception.JobNotFound(jid)
        data = job_to_dict(job)
        if job.targeted is not None:

            data["returns"] = job_returns(session, jid)
            rows = list(session.scalars(select(models.JobReturn)
                                        .where(models.JobReturn.jid == jid)))
            _with_outcome(data, rows)
        return data
