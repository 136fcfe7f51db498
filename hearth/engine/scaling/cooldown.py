"""Whether a scaling group may scale now: Heat's cooldown, kept in the group's metadata.

The group's metadata holds two keys, as in Heat (a Heat client waiting for
a scaling to end reads ``scaling_in_progress`` from the resource's
metadata): ``scaling_in_progress`` (True from the check to the end of the
resize) and ``cooldown_end``, ``{"<UTC ISO time>": "<reason>"}``, the
moment before which no new scaling starts.  Metadata is stored with the
resource, so the cooldown survives a restart of the engine.

:func:`check_scaling_allowed` refuses with
:class:`~hearth.common.exception.NoActionRequired` (a signal that is
ignored, not an error) and otherwise marks the scaling as started;
:func:`finished_scaling` records its end.  Time comes from the ``now``
argument (a UTC datetime), so tests need no clock of their own.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from hearth.common import exception

LOG = logging.getLogger(__name__)

SCALING_IN_PROGRESS = "scaling_in_progress"
COOLDOWN_END = "cooldown_end"


class MetadataHolder(Protocol):
    """What the cooldown needs of a group: its name and metadata."""

    name: str

    def metadata_get(self) -> Any:
        """Return the metadata."""

    def metadata_set(self, metadata: Any) -> None:
        """Replace and store the metadata."""


def utc_now() -> datetime:
    """Return the current UTC time without a zone (the form Heat's time stamps take)."""
    return datetime.now(UTC).replace(tzinfo=None)


def sanitize(cooldown: float | None) -> float:
    """Return the cooldown in seconds: none is 0, a negative one is 0."""
    return 0 if cooldown is None else max(0, cooldown)


def _metadata(group: MetadataHolder) -> dict[str, Any]:
    metadata = group.metadata_get()
    return dict(metadata) if isinstance(metadata, dict) else {}


def cooldown_end(metadata: dict[str, Any]) -> str | None:
    """Return the stored end of the cooldown (an ISO time stamp), None if there is none."""
    stored = metadata.get(COOLDOWN_END)
    if isinstance(stored, dict) and stored:
        return str(next(iter(stored)))
    return None


def check_scaling_allowed(group: MetadataHolder, cooldown: float | None,
                          now: datetime | None = None) -> None:
    """Mark a scaling of ``group`` as started, or raise NoActionRequired saying why not.

    Refused while another scaling runs ("due to scaling activity") and
    before the stored cooldown end ("due to cooldown, cooldown <seconds>").
    """
    metadata = _metadata(group)
    if metadata.get(SCALING_IN_PROGRESS):
        LOG.info("Can not perform scaling action: resource %s is already in scaling.",
                 group.name)
        raise exception.NoActionRequired(res_name=group.name, reason="due to scaling activity")
    end = cooldown_end(metadata)
    if end is not None and (now or utc_now()).isoformat() < end:
        seconds = sanitize(cooldown)
        LOG.info("Can not perform scaling action: resource %s is in cooldown (%s).",
                 group.name, seconds)
        raise exception.NoActionRequired(res_name=group.name,
                                         reason=f"due to cooldown, cooldown {seconds}")
    metadata[SCALING_IN_PROGRESS] = True
    group.metadata_set(metadata)


def finished_scaling(group: MetadataHolder, cooldown: float | None, reason: str,
                     size_changed: bool = True, now: datetime | None = None) -> None:
    """Record the end of a scaling: a new cooldown end when the size changed.

    A later end already stored is kept (a short cooldown never shortens a
    longer one); ``reason`` says what scaled ("change_in_capacity : 1").
    """
    metadata = _metadata(group)
    if size_changed:
        end = ((now or utc_now()) + timedelta(seconds=sanitize(cooldown))).isoformat()
        stored = cooldown_end(metadata)
        if stored is not None and stored > end:
            end = stored
        metadata[COOLDOWN_END] = {end: reason}
    metadata[SCALING_IN_PROGRESS] = False
    group.metadata_set(metadata)


def reset_scaling(group: MetadataHolder) -> None:
    """Clear a ``scaling_in_progress`` left by an engine that stopped in the middle."""
    metadata = _metadata(group)
    if metadata.get(SCALING_IN_PROGRESS):
        metadata[SCALING_IN_PROGRESS] = False
        group.metadata_set(metadata)
