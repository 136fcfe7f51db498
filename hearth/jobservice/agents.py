"""What the master knows of its agents, and the one place targets are resolved.

The master lists every accepted agent with two sets of grains: ``grains``,
what the agent reported about itself in its hello (anyone holding an
accepted key can claim anything there), and ``recorded_grains``, what was
recorded master-side (by the cloud profile that created the machine, or at
key acceptance: ``stackctl key-accept --grain``).  So there are two views of
an agent:

* :meth:`AgentRecord.job_facts`, for *which agents a job goes to*: the
  reported grains with the recorded ones over them (Salt targets jobs on
  reported grains; a recorded grain is the operator's word and wins);
* :meth:`AgentRecord.trusted_facts`, for *who may do what*: publisher_acl
  rule targets match on the agent id, nodegroups and the recorded grains
  only (the reported ones too only where ``[master] trust_agent_grains``
  says so).

:func:`resolve` turns a target into the sorted ids it selects; the master
then sends the job to exactly those agents and targets nothing itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.agent.targeting import AgentFacts, select
from hearth.common import exception

#: Target types and compound prefixes that look at an agent's pillar.
PILLAR_TYPES = frozenset({"pillar", "pillar_pcre"})
PILLAR_PREFIXES = ("I@", "J@")


@dataclass(frozen=True)
class AgentRecord:
    """One accepted agent as the master lists it."""

    id: str
    grains: Mapping[str, Any] = field(default_factory=dict)
    recorded_grains: Mapping[str, Any] = field(default_factory=dict)
    pillar: Mapping[str, Any] = field(default_factory=dict)
    connected: bool = False
    last_seen: str | None = None

    @classmethod
    def from_listing(cls, data: Mapping[str, Any]) -> AgentRecord:
        """Build a record from one entry of the master's ``agents`` answer."""
        return cls(id=str(data["id"]), grains=dict(data.get("grains") or {}),
                   recorded_grains=dict(data.get("recorded_grains") or {}),
                   pillar=dict(data.get("pillar") or {}),
                   connected=bool(data.get("connected")), last_seen=data.get("last_seen"))

    def job_facts(self) -> AgentFacts:
        """Return the facts job targets match: reported grains, recorded ones over them."""
        return AgentFacts(self.id, {**self.grains, **self.recorded_grains, "id": self.id},
                          self.pillar)

    def trusted_facts(self, trust_agent_grains: bool = False) -> AgentFacts:
        """Return the facts authorization matches: the master's own, unless told otherwise."""
        reported = dict(self.grains) if trust_agent_grains else {}
        return AgentFacts(self.id, {**reported, **self.recorded_grains, "id": self.id},
                          self.pillar)


#: Target types that match on agent ids only.
ID_TYPES = frozenset({"glob", "list", "pcre"})


def needs_grains(targets: Iterable[tuple[Any, str]]) -> bool:
    """Return whether any ``(target, target_type)`` may look at more than agents' ids.

    A job to ``*`` needs the ids only: the master then lists no grains (for
    thousands of agents, most of what it would send).
    """
    return any(target_type not in ID_TYPES for _, target_type in targets)


def needs_pillar(targets: Iterable[tuple[Any, str]],
                 nodegroups: Mapping[str, Any] | None = None) -> bool:
    """Return whether any ``(target, target_type)`` may look at agents' pillar.

    Cheap and conservative: the master lists pillar data only when asked,
    and a target whose nodegroups mention ``I@``/``J@`` counts.
    """
    texts = []
    for target, target_type in targets:
        if target_type in PILLAR_TYPES:
            return True
        texts.append(" ".join(map(str, target)) if isinstance(target, list | tuple)
                     else str(target))
        if target_type == "nodegroup" or "N@" in texts[-1]:
            texts.extend(str(definition) for definition in (nodegroups or {}).values())
    return any(prefix in text for text in texts for prefix in PILLAR_PREFIXES)


def resolve(target: Any, target_type: str, agents: Iterable[AgentRecord],
            nodegroups: Mapping[str, Any] | None = None) -> list[str]:
    """Return the sorted ids ``target`` selects among ``agents``; raise when none.

    :raises InvalidTarget: the expression cannot select anything.
    :raises NoAgentsMatched: it selects no accepted agent.
    """
    targeted = select(target, target_type, [agent.job_facts() for agent in agents],
                      nodegroups)
    if not targeted:
        raise exception.NoAgentsMatched(target=target, target_type=target_type)
    return targeted
