"""Select agents by a target expression (stand-in: glob, list and pcre only).

The full set of target types (grain, pillar, compound, nodegroup) replaces
this module; the interface stays :func:`select` and :class:`AgentFacts`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hearth.common import exception


@dataclass(frozen=True)
class AgentFacts:
    """What targeting may look at for one agent."""

    id: str
    grains: Mapping[str, Any] = field(default_factory=dict)
    pillar: Mapping[str, Any] = field(default_factory=dict)


def select(target: Any, target_type: str, agents: Iterable[AgentFacts],
           nodegroups: Mapping[str, Any] | None = None) -> list[str]:
    """Return the sorted ids of the ``agents`` that ``target`` selects."""
    agents = list(agents)
    if target_type == "glob":
        return sorted(a.id for a in agents if fnmatch.fnmatchcase(a.id, str(target)))
    if target_type == "list":
        wanted = set(target if isinstance(target, list) else str(target).split(","))
        return sorted(a.id for a in agents if a.id in wanted)
    if target_type == "pcre":
        pattern = re.compile(str(target))
        return sorted(a.id for a in agents if pattern.match(a.id))
    raise exception.BadRequest(message=f"Unknown target type {target_type!r}")
