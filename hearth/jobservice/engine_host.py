"""Execution functions on the engine's own host, and their record in the job cache.

One job runner per process (one loader of execution modules, as Salt's
``salt-call --local``) serves every local call: ``stackctl call``,
``Hearth::Exec::Call`` without a target and anything else the JobService
runs here.  Whoever may run here is the JobService's decision, not this
module's.
"""

from __future__ import annotations

import functools
import os
import socket
from typing import Any

from hearth.jobs import JobReturn, JobRunner, ProcTable
from hearth.loader import execution_loader, opts_from_conf


@functools.lru_cache(maxsize=1)
def process_runner() -> JobRunner:
    """Return this process's job runner over the configured execution modules."""
    return runner_for(opts_from_conf())


def runner_for(opts: dict[str, Any]) -> JobRunner:
    """Return a job runner over the execution modules ``opts`` configures."""
    return JobRunner(execution_loader(opts), opts.get("id") or socket.gethostname(),
                     proc=ProcTable(os.path.join(opts["cachedir"], "proc")))


def record_job(job: JobReturn, user: str | None) -> None:
    """Record a finished local job in this host's job cache, as ``user``'s."""
    # lazy: SQLAlchemy only for the engine host's job cache (stackctl imports JobService)
    from hearth.db import job_cache

    # lazy: SQLAlchemy only for the engine host's job cache (stackctl imports JobService)
    from hearth.db.session import get_database

    job_cache.job_store(get_database(), job, user=user)
