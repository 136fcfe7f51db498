"""Jobs a stopped master left unfinished, continued by the master that took them over.

:class:`~hearth.master.peers.MasterPeers` claims them in the shared
database and hands over their records with the returns stored so far;
:func:`job_from_record` rebuilds each one as this master's own, so that it
goes on as the dead master would have: the agents that owe a return get
the job (a batch job keeps its batch size), agents not connected yet (on
their way from the dead master) are waited for a moment as after a
restart, and an agent that got the job already runs it once (it remembers
the jobs it started, Salt's jid queue) and sends its return here.  Returns
that reached this master for a job it did not know yet (from an agent
that failed over before the job was taken over) are counted in
(:meth:`~hearth.master.jobs.JobTable.orphans`).  Agents the dead master
found not connected stay so.
"""

from __future__ import annotations

import collections
import datetime
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hearth.master.jobs import JobState

if TYPE_CHECKING:
    from hearth.master.server import Master

LOG = logging.getLogger(__name__)


def _utc(moment: datetime.datetime | None) -> datetime.datetime:
    """Return a database time (naive UTC) as an aware one (now when missing)."""
    if moment is None:
        return datetime.datetime.now(datetime.UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


def job_from_record(record: Mapping[str, Any], late: Mapping[str, dict[str, Any]],
                    default_timeout: float) -> JobState:
    """Return the job of ``record`` (:func:`hearth.db.api_masters.jobs_load`) to continue.

    ``late`` are returns this master received for the job before it took
    it over.
    """
    targeted = list(record["targeted"])
    returns = {agent_id: ret for agent_id, ret in {**record["returns"], **late}.items()
               if agent_id in targeted}
    not_connected = set(record["not_connected"]) - returns.keys()
    waiting = collections.deque(agent_id for agent_id in targeted
                                if agent_id not in returns and agent_id not in not_connected)
    return JobState(jid=record["jid"], fun=record["fun"], args=list(record["args"]),
                    kwargs=dict(record["kwargs"]), target=record["target"],
                    target_type=record["target_type"], targeted=targeted,
                    user=record["user"], batch=record["batch"],
                    timeout=float(record["timeout"] or default_timeout),
                    started_at=_utc(record["started_at"]), returns=returns,
                    not_connected=not_connected, waiting=waiting)


def adopt(master: Master, peer: Mapping[str, Any], records: list[dict[str, Any]]) -> None:
    """Continue on ``master`` (its I/O thread) the jobs of ``peer``, a master that stopped."""
    master.adopted_at = time.monotonic()
    for record in records:
        if master.jobs.get(record["jid"]) is not None:
            continue
        job = job_from_record(record, master.jobs.orphans(record["jid"]),
                              master.settings.timeout)
        master.jobs.add(job)
        LOG.info("job %s (%s) of the master at %s continues here: %d of %d agents returned",
                 job.jid, job.fun, peer["address"], len(job.returns), len(job.targeted))
        master.dispatch(job)
        master.finish_if_done(job)
