"""Execution functions on the engine's own host.

One job runner per process (one loader of execution modules, as Salt's
``salt-call --local``) serves every local call: ``stackctl call``,
``Hearth::Exec::Call`` without a target and anything else the JobService
runs here.  Whoever may run here is the JobService's decision, not this
module's; the job cache that records the calls is :mod:`hearth.jobservice.local_jobs`.
"""

from __future__ import annotations

import functools
import os
import socket
from typing import Any

from hearth.jobs import JobRunner, ProcTable
from hearth.loader import execution_loader, opts_from_conf


@functools.lru_cache(maxsize=1)
def process_runner() -> JobRunner:
    """Return this process's job runner over the configured execution modules."""
    return runner_for(opts_from_conf())


def runner_for(opts: dict[str, Any]) -> JobRunner:
    """Return a job runner over the execution modules ``opts`` configures."""
    return JobRunner(execution_loader(opts), opts.get("id") or socket.gethostname(),
                     proc=ProcTable(os.path.join(opts["cachedir"], "proc")))

