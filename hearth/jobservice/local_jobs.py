"""The job cache of the engine's host, as the JobService keeps and reads the local user's jobs.

The cache is rows of the process's database (:mod:`hearth.db.job_cache`, over
SQLAlchemy).  The JobService loads this module once, the first time it keeps
or reads a local job (:attr:`JobService.local_jobs
<hearth.jobservice.service.JobService.local_jobs>`): a process that holds a
JobService and never touches the cache (stackctl talking to its local engine)
never loads the database layer.
"""

from __future__ import annotations

from typing import Any

from hearth.db import job_cache
from hearth.db.session import get_database
from hearth.jobs import JobReturn
from hearth.master.jobs import snapshot_from_cache


class LocalJobCache:
    """The job cache of this process's database (``get_database()`` at each call)."""

    def record(self, job: JobReturn, user: str | None) -> None:
        """Keep a finished local job, as ``user``'s (None: nobody's, a plug-in's call)."""
        job_cache.job_store(get_database(), job, user=user)

    def jobs(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Return the cached jobs, newest first (at most ``limit``)."""
        return job_cache.job_list(get_database(), limit=limit)

    def job(self, jid: str) -> dict[str, Any]:
        """Return job ``jid`` with each agent's return and, for a published job, the missing.

        :raises JobNotFound: no such job in the cache (or expired).
        """
        job = job_cache.job_get(get_database(), jid)
        if job.get("targeted") is not None:
            job["missing"] = snapshot_from_cache(job)["missing"]
            job.pop("return", None)  # each agent's is under returns
        return job
