"""The agents the master knows: who is connected, over which route, their grains.

Each agent has two sets of grains: ``grains``, what it reported in its
hello, and ``recorded_grains``, what the master holds true about it
(:mod:`hearth.master.recorded_grains`); :meth:`AgentState.trusted_grains`
is what access decisions (pillar targets) may look at.

An agent counts as connected from its first message after authentication
until it has been silent ``timeout`` seconds (agents ping every second or
so, reporting the jobs they are running).  :meth:`AgentRegistry.expire`
turns silence into presence changes.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class AgentState:
    """One agent as the master sees it."""

    id: str
    grains: dict[str, Any] = field(default_factory=dict)
    recorded_grains: dict[str, Any] = field(default_factory=dict)
    pillar: dict[str, Any] = field(default_factory=dict)
    route: bytes | None = None
    connected: bool = False
    last_seen: float = 0.0
    last_seen_at: datetime.datetime | None = None
    running: frozenset[str] = frozenset()
    #: messages from the master this agent dropped or failed on, as its pings report
    dropped: int = 0

    def to_dict(self, pillar: bool = False, grains: bool = True) -> dict[str, Any]:
        """Return the agent as clients list it (with its last compiled pillar on request).

        ``grains`` False leaves the grains out (a job to thousands of agents by
        their ids needs only the ids).
        """
        listed = {"id": self.id, "connected": self.connected,
                  "last_seen": self.last_seen_at.isoformat() if self.last_seen_at else None}
        if grains:
            listed.update(grains=self.grains, recorded_grains=self.recorded_grains)
        if pillar:
            listed["pillar"] = self.pillar
        return listed

    def trusted_grains(self, trust_agent_grains: bool) -> dict[str, Any]:
        """Return the grains access decisions see: recorded ones (and reported, if trusted).

        The agent's id is always among them.
        """
        reported = self.grains if trust_agent_grains else {}
        return {**reported, **self.recorded_grains, "id": self.id}


class AgentRegistry:
    """Connected and known agents, keyed by id (not thread-safe: the master's I/O thread)."""

    def __init__(self, timeout: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.timeout = timeout
        self._clock = clock
        self._agents: dict[str, AgentState] = {}

    def get(self, agent_id: str) -> AgentState:
        """Return the state of ``agent_id`` (created empty when unknown)."""
        state = self._agents.get(agent_id)
        if state is None:
            state = self._agents[agent_id] = AgentState(agent_id)
        return state

    def remember(self, agent_id: str, grains: dict[str, Any],
                 last_seen_at: datetime.datetime | None) -> None:
        """Know an agent from an earlier run (not connected)."""
        state = self.get(agent_id)
        state.grains = grains or {}
        state.last_seen_at = last_seen_at

    def seen(self, agent_id: str, route: bytes) -> bool:
        """Record a message from ``agent_id`` over ``route``; return whether it just connected."""
        state = self.get(agent_id)
        state.route = route
        state.last_seen = self._clock()
        state.last_seen_at = datetime.datetime.now(datetime.UTC)
        newly = not state.connected
        state.connected = True
        return newly

    def route(self, agent_id: str) -> bytes | None:
        """Return the route to a connected agent, or None."""
        state = self._agents.get(agent_id)
        return state.route if state is not None and state.connected else None

    def is_connected(self, agent_id: str) -> bool:
        """Return whether ``agent_id`` is connected."""
        state = self._agents.get(agent_id)
        return bool(state and state.connected)

    def is_running(self, agent_id: str, jid: str) -> bool:
        """Return whether a connected agent reported ``jid`` among its running jobs."""
        state = self._agents.get(agent_id)
        return bool(state and state.connected and jid in state.running)

    def disconnect(self, agent_id: str) -> bool:
        """Mark ``agent_id`` as not connected; return whether it was."""
        state = self._agents.get(agent_id)
        if state is None or not state.connected:
            return False
        state.connected = False
        state.route = None
        state.running = frozenset()
        return True

    def forget(self, agent_id: str) -> None:
        """Drop everything about ``agent_id`` (its key was deleted or rejected)."""
        self._agents.pop(agent_id, None)

    def expire(self, as_of: float | None = None) -> list[str]:
        """Mark agents silent for ``timeout`` seconds as disconnected; return their ids.

        ``as_of`` (a time of the registry's clock, default now) is when the
        master had last read every message waiting for it.
        """
        limit = (self._clock() if as_of is None else as_of) - self.timeout
        lost = [state.id for state in self._agents.values()
                if state.connected and state.last_seen < limit]
        for agent_id in lost:
            self.disconnect(agent_id)
        return lost

    def dropping(self) -> dict[str, int]:
        """Return ``{agent id: n}`` of the agents that dropped n messages from the master."""
        return {state.id: state.dropped for state in sorted(self._agents.values(),
                                                            key=lambda state: state.id)
                if state.dropped}

    def connected_count(self) -> int:
        """Return how many agents are connected."""
        return sum(state.connected for state in self._agents.values())

    def connected_ids(self) -> list[str]:
        """Return the ids of the connected agents, sorted."""
        return sorted(state.id for state in self._agents.values() if state.connected)

    def listing(self, agent_ids: Iterable[str], pillar: bool = False,
                grains: bool = True) -> list[dict[str, Any]]:
        """Return the listing of each agent in ``agent_ids`` (accepted ones), by id."""
        return [self.get(agent_id).to_dict(pillar, grains) for agent_id in sorted(agent_ids)]
