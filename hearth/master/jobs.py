"""Jobs in flight on the master: who was targeted, who got the job, who returned.

A job is sent to every targeted, connected agent at once, or with a batch
size to that many at a time: each return (or an agent that stays silent for
the job's timeout without reporting the job as running) frees a slot for
the next agent.  Agents not connected when their turn comes never get the
job and are reported ``Not connected``.

The job's timeout is Salt's: an agent silent past it, and not reporting the
job among its running ones, is given up (``No response``), batch or not, so
every job ends even while a hung agent still counts as connected; agents
still running it are waited for again.
"""

from __future__ import annotations

import collections
import datetime
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

NO_RESPONSE = "No response"
NOT_CONNECTED = "Not connected"

#: Seconds a finished job stays in memory for late watchers (then the job cache answers).
KEEP_DONE_SECONDS = 120.0
#: Seconds an unfinished job (some agent never answered) stays in memory.
KEEP_UNFINISHED_SECONDS = 3600.0
#: Seconds, and jobs at most, for which returns to unknown jobs are kept (:meth:`JobTable.orphan`).
KEEP_ORPHANS_SECONDS = 120.0
MAX_ORPHAN_JOBS = 10000


@dataclass
class JobState:
    """One published job and what came back."""

    jid: str
    fun: str
    args: list[Any]
    kwargs: dict[str, Any]
    target: Any
    target_type: str
    targeted: list[str]
    user: str | None = None
    batch: int | None = None
    timeout: float = 5.0
    started_at: datetime.datetime = field(
        default_factory=lambda: datetime.datetime.now(datetime.UTC))
    returns: dict[str, dict[str, Any]] = field(default_factory=dict)
    not_connected: set[str] = field(default_factory=set)
    held: set[str] = field(default_factory=set)
    waiting: collections.deque[str] = field(default_factory=collections.deque)
    in_flight: dict[str, float] = field(default_factory=dict)
    timed_out: set[str] = field(default_factory=set)
    watchers: set[bytes] = field(default_factory=set)
    finished: float | None = None
    #: when the job was done, in UTC (recorded in the job cache)
    finished_at_utc: datetime.datetime | None = None
    created: float = 0.0
    _targeted: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._targeted = frozenset(self.targeted)

    def is_targeted(self, agent_id: str) -> bool:
        """Return whether the job targeted ``agent_id`` (asked for every return)."""
        return agent_id in self._targeted

    @property
    def done(self) -> bool:
        """Return whether every targeted agent returned, was not connected or timed out.

        Asked after every return: the counts rule out most calls before the
        sets are compared (thousands of returns would otherwise cost their square).
        """
        if self.waiting or (len(self.returns) + len(self.not_connected) + len(self.timed_out)
                            < len(self.targeted)):
            return False
        settled = self.returns.keys() | self.not_connected | self.timed_out
        return settled.issuperset(self._targeted)

    def missing(self) -> dict[str, str]:
        """Return ``{agent_id: reason}`` for every targeted agent that has not returned.

        ``Not connected``: the agent was not connected when its turn came and
        never got the job; ``No response``: it got the job and stayed silent.
        """
        return {agent_id: NOT_CONNECTED if agent_id in self.not_connected else NO_RESPONSE
                for agent_id in self.targeted if agent_id not in self.returns}

    def snapshot(self, is_connected: Callable[[str], bool],
                 is_running: Callable[[str, str], bool]) -> dict[str, Any]:
        """Return the job as clients see it (the fields of ``JobStatus``), plus ``running``."""
        missing = self.missing()
        return {"jid": self.jid, "fun": self.fun, "args": self.args, "kwargs": self.kwargs,
                "target": self.target, "target_type": self.target_type,
                "targeted": self.targeted, "returns": self.returns, "missing": missing,
                "done": self.done, "user": self.user, "held": True,
                "running": sorted(a for a in missing if is_running(a, self.jid))}

    def record(self) -> dict[str, Any]:
        """Return the job cache's record of this job (``finished_at`` once it is done).

        The batch size and timeout are kept so that another master can go
        on with the job should this one stop (:mod:`hearth.master.takeover`).
        """
        return {"jid": self.jid, "fun": self.fun, "args": self.args, "kwargs": self.kwargs,
                "target": self.target, "target_type": self.target_type,
                "targeted": self.targeted, "not_connected": sorted(self.not_connected),
                "user": self.user, "started_at": self.started_at, "batch": self.batch,
                "timeout": self.timeout, "finished_at": self.finished_at_utc}


def snapshot_from_cache(data: dict[str, Any]) -> dict[str, Any]:
    """Return a client snapshot of a job read back from the job cache.

    ``held`` is False: no master answering from its memory, so a job not
    done yet is another master's, or a dead master's not taken over yet.
    A job is done once its master recorded it finished (agents it gave up
    included) or every targeted agent settled.
    """
    targeted = list(data.get("targeted") or [])
    returns = data.get("returns") or {}
    not_connected = set(data.get("not_connected") or [])
    missing = {agent_id: NOT_CONNECTED if agent_id in not_connected else NO_RESPONSE
               for agent_id in targeted if agent_id not in returns}
    done = bool(data.get("finished_at")) or not (set(targeted) - returns.keys() - not_connected)
    return {"jid": data["jid"], "fun": data["function"], "args": data["args"],
            "kwargs": data["kwargs"], "target": data["target"],
            "target_type": data.get("target_type") or "glob", "targeted": targeted,
            "returns": returns, "missing": missing, "user": data.get("user"),
            "done": done, "held": False, "running": []}


class JobTable:
    """The master's jobs in memory (the I/O thread's; not thread-safe)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._jobs: dict[str, JobState] = {}
        self._orphans: collections.OrderedDict[
            str, tuple[float, dict[str, dict[str, Any]]]] = collections.OrderedDict()

    def add(self, job: JobState) -> None:
        """Start tracking ``job``."""
        job.created = self._clock()
        self._jobs[job.jid] = job

    def get(self, jid: str) -> JobState | None:
        """Return the job ``jid`` if it is still in memory."""
        return self._jobs.get(jid)

    def forget(self, jid: str) -> None:
        """Stop tracking job ``jid`` (another master holds it now)."""
        self._jobs.pop(jid, None)

    def active(self) -> list[JobState]:
        """Return the jobs not yet done."""
        return [job for job in self._jobs.values() if job.finished is None]

    def next_agents(self, job: JobState, is_connected: Callable[[str], bool],
                    hold: Callable[[str], bool] = lambda agent_id: False) -> list[str]:
        """Take the agents that may get ``job`` now (batch slots free); mark them in flight.

        Agents not connected when their turn comes are recorded as such, or
        held for their reconnection when ``hold`` says so (a master that has
        just started waits a moment for its agents to come back).
        """
        chosen = []
        limit = job.batch or len(job.targeted)
        while job.waiting and len(job.in_flight) < limit:
            agent_id = job.waiting.popleft()
            if agent_id in job.returns:  # returned while it waited (a master's takeover)
                continue
            if not is_connected(agent_id):
                (job.held if hold(agent_id) else job.not_connected).add(agent_id)
                continue
            job.in_flight[agent_id] = self._clock()
            chosen.append(agent_id)
        return chosen

    def returned(self, job: JobState, agent_id: str, ret: dict[str, Any]) -> bool:
        """Record an agent's return; return False for a duplicate or an untargeted agent."""
        if agent_id in job.returns or not job.is_targeted(agent_id):
            return False
        job.returns[agent_id] = ret
        job.in_flight.pop(agent_id, None)
        return True

    def time_out(self, is_running: Callable[[str, str], bool]) -> list[JobState]:
        """Give up agents silent past the job's timeout (not running it); return those jobs.

        Their batch slots free for the next agents, and a job whose every
        agent returned or was given up is done.
        """
        now = self._clock()
        changed = []
        for job in self.active():
            late = [agent_id for agent_id, sent in job.in_flight.items()
                    if now - sent > job.timeout and not is_running(agent_id, job.jid)]
            for agent_id in late:
                del job.in_flight[agent_id]
                job.timed_out.add(agent_id)
            if late:
                changed.append(job)
        return changed

    def release(self, agent_id: str) -> list[JobState]:
        """Return the jobs held for ``agent_id`` (now connected), marking it in flight.

        A batch job whose slots are all taken puts the agent first in line
        instead: it gets the job when a slot frees.
        """
        released = []
        for job in self.active():
            if agent_id in job.held:
                job.held.discard(agent_id)
                if agent_id in job.returns:
                    continue
                if job.batch and len(job.in_flight) >= job.batch:
                    job.waiting.appendleft(agent_id)
                    continue
                job.in_flight[agent_id] = self._clock()
                released.append(job)
        return released

    def give_up_held(self, still_awaited: Callable[[str], bool] = lambda agent_id: False
                     ) -> list[JobState]:
        """Count held agents as not connected, unless still awaited; return the jobs changed."""
        changed = []
        for job in self.active():
            given_up = {agent_id for agent_id in job.held if not still_awaited(agent_id)}
            if given_up:
                job.not_connected |= given_up
                job.held -= given_up
                changed.append(job)
        return changed

    def finish(self, job: JobState) -> None:
        """Mark ``job`` finished (it stays in memory a while for late watchers)."""
        job.finished = self._clock()
        job.finished_at_utc = datetime.datetime.now(datetime.UTC)

    def orphan(self, jid: str, agent_id: str, ret: dict[str, Any]) -> None:
        """Keep a while a return for a job this master does not know (yet).

        An agent that failed over from a master that died sends the returns
        it kept to this master, maybe before this master takes the dead
        one's jobs over (:meth:`orphans`).
        """
        now = self._clock()
        while self._orphans:
            oldest = next(iter(self._orphans.values()))
            if now - oldest[0] <= KEEP_ORPHANS_SECONDS and len(self._orphans) < MAX_ORPHAN_JOBS:
                break
            self._orphans.popitem(last=False)
        self._orphans.setdefault(jid, (now, {}))[1][agent_id] = ret

    def orphans(self, jid: str) -> dict[str, dict[str, Any]]:
        """Return (and forget) the returns kept for ``jid`` by :meth:`orphan`."""
        return self._orphans.pop(jid, (0.0, {}))[1]

    def forget_old(self) -> None:
        """Forget finished jobs after a while, and jobs some agent never answered."""
        now = self._clock()
        for job in list(self._jobs.values()):
            age = now - job.created if job.finished is None else now - job.finished
            if age > (KEEP_UNFINISHED_SECONDS if job.finished is None else KEEP_DONE_SECONDS):
                del self._jobs[job.jid]
