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
              clock: Clock = utcnow) -> None:
    """Store a :class:`hearth.jobs.JobReturn`; purge expired jobs first.

    With a retention of 0 hours nothing is stored.
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
            expires_at=now + datetime.timedelta(hours=hours)))


def job_purge_expired(db: Database, clock: Clock = utcnow) -> int:
    """Delete the jobs whose retention ended; return how many."""
    with db.session_scope(write=True) as session:
        result = session.execute(delete(models.Job).where(models.Job.expires_at <= clock()))
        return result.rowcount or 0


def job_list(db: Database, limit: int | None = None, clock: Clock = utcnow
             ) -> list[dict[str, Any]]:
    """Return the cached jobs, newest first."""
    query = select(models.Job).where(_alive(clock())).order_by(models.Job.jid.desc())
    if limit:
        query = query.limit(limit)
    with db.session_scope() as session:
        return [job_to_dict(job) for job in session.scalars(query)]


def job_get(db: Database, jid: str, clock: Clock = utcnow) -> dict[str, Any]:
    """Return one cached job; raise :class:`~hearth.common.exception.JobNotFound`."""
    with db.session_scope() as session:
        job = session.scalars(select(models.Job).where(
            models.Job.jid == jid, _alive(clock()))).first()
        if job is None:
            raise exception.JobNotFound(jid)
        data = job_to_dict(job)
        if job.targeted is not None:
            from hearth.db.api_agents import job_returns

            data["returns"] = job_returns(session, jid)
        return data
