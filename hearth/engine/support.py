"""Support status of resource types, properties and attributes.

A type or property is SUPPORTED by default.  DEPRECATED ones still work but
warn at validation; HIDDEN ones are refused for new stacks yet keep working
for existing ones; UNSUPPORTED ones are listed but not promised to work.
``previous_status`` chains the history (e.g. HIDDEN since 9.0.0, before
that DEPRECATED since 7.0.0), which the docs show.
"""

from __future__ import annotations

from typing import Any

SUPPORT_STATUSES = (UNKNOWN, SUPPORTED, DEPRECATED, UNSUPPORTED, HIDDEN) = (
    "UNKNOWN", "SUPPORTED", "DEPRECATED", "UNSUPPORTED", "HIDDEN")


def is_valid_status(status: str) -> bool:
    """Return whether ``status`` is one of the known support statuses."""
    return status in SUPPORT_STATUSES


class SupportStatus:
    """The support status of a type, property or attribute, with its history.

    ``version`` is the Hearth/Heat version since which ``status`` holds and
    ``message`` tells the user what to do instead.  An unknown ``status``
    becomes UNKNOWN with a message saying so (as Heat does), so a typo in a
    plug-in never stops the engine.
    """

    __slots__ = ("status", "version", "message", "previous_status", "substitute_class")

    def __init__(self, status: str = SUPPORTED, version: str | None = None,
                 message: str | None = None,
                 previous_status: SupportStatus | None = None,
                 substitute_class: type | None = None) -> None:
        if previous_status is not None and not isinstance(previous_status, SupportStatus):
            raise ValueError("previous_status must be SupportStatus instead of "
                             f"{type(previous_status)}")
        self.status = status
        self.version = version
        self.message = message
        self.previous_status = previous_status
        self.substitute_class = substitute_class
        if not is_valid_status(status):
            self.status = UNKNOWN
            self.message = f"Specified status is invalid, defaulting to {UNKNOWN}"
            self.version = None
            self.previous_status = None

    def to_dict(self) -> dict[str, Any]:
        """Return Heat's JSON shape (previous statuses nested)."""
        return {
            "status": self.status,
            "message": self.message,
            "version": self.version,
            "previous_status": (self.previous_status.to_dict()
                                if self.previous_status is not None else None),
        }

    def history(self) -> list[SupportStatus]:
        """Return this status followed by every previous one, newest first."""
        chain: list[SupportStatus] = []
        current: SupportStatus | None = self
        while current is not None:
            chain.append(current)
            current = current.previous_status
        return chain

    def is_substituted(self, substitute_class: type) -> bool:
        """Return whether ``substitute_class`` replaces the type with this status."""
        return self.substitute_class is not None and substitute_class is self.substitute_class

    def __repr__(self) -> str:
        return f"SupportStatus({self.status!r}, version={self.version!r})"
