"""The database's clock: timezone-naive UTC, as every timestamp column stores it."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    """Return the current UTC time without tzinfo (sub-second precision kept)."""
    return datetime.now(UTC).replace(tzinfo=None)
