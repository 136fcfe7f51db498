"""What targeting may look at for one agent."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class AgentFacts:
    """One agent as targeting sees it: its id, grains and compiled pillar."""

    id: str
    grains: Mapping[str, Any] = field(default_factory=dict)
    pillar: Mapping[str, Any] = field(default_factory=dict)


#: A compiled target: answers whether it selects one agent.
Predicate = Callable[[AgentFacts], bool]
