"""What a client of hearth-master learns of a job: the publish's answer and the job's status.

Plain records, apart from the ZeroMQ client that fills them
(:mod:`hearth.master.client`), so that the JobService and its callers hold
and build them without loading that client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class PublishResult:
    """A published job: its id and the agents it targeted."""

    jid: str
    targeted: list[str]


@dataclass
class JobStatus:
    """A job as the master knows it: who was targeted, who returned, who is missing."""

    jid: str
    fun: str
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    target: Any = None
    target_type: str = "glob"
    targeted: list[str] = field(default_factory=list)
    returns: dict[str, dict[str, Any]] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    done: bool = False
    user: str | None = None

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> JobStatus:
        """Build a status from the master's snapshot of a job."""
        return cls(jid=data["jid"], fun=data["fun"], args=list(data.get("args") or []),
                   kwargs=dict(data.get("kwargs") or {}), target=data.get("target"),
                   target_type=data.get("target_type") or "glob",
                   targeted=list(data.get("targeted") or []),
                   returns=dict(data.get("returns") or {}),
                   missing=dict(data.get("missing") or {}), done=bool(data.get("done")),
                   user=data.get("user"))

    @property
    def success(self) -> bool:
        """Return whether every targeted agent returned and succeeded."""
        return not self.missing and all(r.get("success") for r in self.returns.values())

    def to_dict(self) -> dict[str, Any]:
        """Return the status as plain data."""
        return asdict(self)
