"""The database's clock: timezone-naive UTC, as every timestamp column stores it."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """Return the current UTC time without tzinfo (sub-second precision kept)."""
    return datetime.now(UTC).replace(tzinfo=None)


def format_time(value: datetime | None) -> str | None:
    """Return a stored time as Heat's API prints it (``YYYY-MM-DDTHH:MM:SSZ``), None when unset."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else None
