"""An in-process stand-in for hearth-master's client, for plug-in unit tests only.

It publishes to the agents the JobService resolved (as the real master
does) and answers each job after a number of status polls, with what each
agent's ``answer`` function returns.  Functional tests use the real master
and agents (tests/fixtures/agents.py).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hearth.common import exception
from hearth.master.job_status import JobStatus, PublishResult


@dataclass
class FakeAgent:
    """An agent: its facts, whether it is connected, and how it answers a call."""

    id: str
    grains: dict[str, Any] = field(default_factory=dict)
    connected: bool = True
    recorded_grains: dict[str, Any] = field(default_factory=dict)
    answer: Callable[[str, list, dict], tuple[Any, int]] = lambda fun, args, kwargs: (True, 0)


class FakeMaster:
    """Jobs and agents in memory; ``client()`` is the ``client_factory`` seam."""

    def __init__(self, agents: list[FakeAgent], polls_until_done: int = 2) -> None:
        self.agents = {agent.id: agent for agent in agents}
        self.polls_until_done = polls_until_done
        self.published: list[dict[str, Any]] = []
        self.jobs: dict[str, dict[str, Any]] = {}
        self.unreachable = False
        self.opened = self.closed = 0
        self.waits: list[float | None] = []
        self.pillars: dict[str, dict[str, Any]] = {}
        self._jids = (f"2026112309{n:010d}" for n in itertools.count(1))
        self._lock = threading.Lock()

    def client(self) -> FakeClient:
        with self._lock:
            self.opened += 1
        return FakeClient(self)


class FakeClient:
    """The part of MasterClient that the JobService uses."""

    def __init__(self, master: FakeMaster) -> None:
        self.master = master
        self.timeout = 10.0

    def close(self) -> None:
        with self.master._lock:
            self.master.closed += 1

    def _reachable(self) -> None:
        if self.master.unreachable:
            raise exception.MasterUnreachable(address="fake", timeout=1, hint="down")

    def publish(self, target, fun, args=(), kwargs=None, *, targeted, target_type="glob",
                timeout=None, batch=None, user=None, watch=False) -> PublishResult:
        self._reachable()
        master = self.master
        targeted = sorted(a for a in targeted if a in master.agents)
        if not targeted:
            raise exception.NoAgentsMatched(target=target, target_type=target_type)
        jid = next(master._jids)
        master.published.append({"jid": jid, "target": target, "target_type": target_type,
                                 "fun": fun, "args": list(args), "kwargs": dict(kwargs or {}),
                                 "timeout": timeout, "batch": batch, "user": user})
        master.jobs[jid] = {"fun": fun, "args": list(args), "kwargs": dict(kwargs or {}),
                            "targeted": targeted, "polls": 0, "user": user}
        return PublishResult(jid, targeted)

    def job_status(self, jid: str) -> JobStatus:
        self._reachable()
        job = self.master.jobs[jid]
        job["polls"] += 1
        done = job["polls"] >= self.master.polls_until_done
        returns, missing = {}, {}
        for agent_id in job["targeted"]:
            agent = self.master.agents[agent_id]
            if not agent.connected:
                if done:
                    missing[agent_id] = "Not connected"
                continue
            ret, retcode = agent.answer(job["fun"], job["args"], job["kwargs"])
            returns[agent_id] = {"return": ret, "retcode": retcode, "success": retcode == 0}
        return JobStatus(jid=jid, fun=job["fun"], args=job["args"], kwargs=job["kwargs"],
                         targeted=list(job["targeted"]), returns=returns if done else {},
                         missing=missing, done=done, user=job["user"])

    def list_agents(self, pillar: bool = False, grains: bool = True) -> list[dict[str, Any]]:
        self._reachable()
        return [{"id": a.id, "connected": a.connected, "last_seen": None,
                 **({"grains": a.grains, "recorded_grains": a.recorded_grains} if grains
                    else {})}
                for a in self.master.agents.values()]

    def follow(self, status: JobStatus, timeout: float | None) -> JobStatus:
        """Poll until done (the real client collects pushed returns); record the wait."""
        self.master.waits.append(timeout)
        while True:
            fresh = self.job_status(status.jid)
            if fresh.done:
                return fresh

    def list_jobs(self, limit: int | None = None) -> list[dict[str, Any]]:
        self._reachable()
        return [{"jid": jid, "function": job["fun"], "user": job["user"]}
                for jid, job in sorted(self.master.jobs.items(), reverse=True)]

    def agent_pillar(self, agent_id: str) -> dict[str, Any]:
        self._reachable()
        return dict(self.master.pillars.get(agent_id, {}))

    def record_grains(self, agent_id: str, grains: dict[str, Any]) -> dict[str, Any]:
        agent = self.master.agents[agent_id]
        agent.recorded_grains = {**agent.recorded_grains, **grains}
        return agent.recorded_grains
