"""What a caller asks to run on agents: one :class:`JobRequest`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class JobRequest:
    """A function and its arguments, the target that selects agents, and how to run it.

    ``timeout`` is Salt's: how long to wait for returns (None: the master's
    ``[master] timeout``); ``batch`` runs on ``N`` (or ``P%``) agents at a
    time; ``pillar`` is Salt's per-call override, given to the function as
    its ``pillar`` keyword.
    """

    function: str
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    target: Any = "*"
    target_type: str = "glob"
    timeout: float | None = None
    batch: str | int | None = None
    pillar: dict[str, Any] | None = None

    def call_kwargs(self) -> dict[str, Any]:
        """Return the keyword arguments the function gets (the pillar override included)."""
        kwargs = dict(self.kwargs)
        if self.pillar:
            kwargs["pillar"] = dict(self.pillar)
        return kwargs

    def where(self) -> str:
        """Return the target as refusals and logs name it: ``'web*' (glob)``."""
        target = ",".join(map(str, self.target)) if isinstance(self.target, list | tuple) \
            else self.target
        return f"{target!r} ({self.target_type})"
