"""Whether a scaling group may scale now: Heat's cooldown, kept in the group's metadata.

The group's metadata holds two keys, as in Heat (a Heat client waiting for
a scaling to end reads ``scaling_in_progress`` from the resource's
metadata): ``scaling_in_progress`` (True from the check to the end of the
resize) and ``cooldown_end``, ``{"<UTC ISO time>": "<reason>"}``, the
moment before which no new scaling starts.  Metadata is stored with the
resource, so the cooldown survives a restart of the engine; a third key,
``scaling_started``, lets a mark left by an engine that stopped in the
middle of a resize expire (Heat clears it when its engine restarts).

:func:`check_scaling_allowed` refuses with
:class:`~hearth.common.exception.NoActionRequired` (a signal that is
ignored, not an error) and otherwise marks the scaling as started;
:func:`finished_scaling` records its end.  Each takes the stored metadata
and returns the metadata to store, so the group can apply it in one
read-modify-write of its row.  Time comes from the ``now`` argument (a
UTC datetime), so tests need no clock of their own.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from hearth.common import exception

LOG = logging.getLogger(__name__)

SCALING_IN_PROGRESS = "scaling_in_progress"
COOLDOWN_END = "cooldown_end"
#: When the scaling in progress started (Hearth's own key): a mark older than
#: the resize's timeout was left by an engine that stopped, and is ignored.
SCALING_STARTED = "scaling_started"


def utc_now() -> datetime:
    """Return the current UTC time without a zone (the form Heat's time stamps take)."""
    return datetime.now(UTC).replace(tzinfo=None)


def sanitize(cooldown: float | None) -> float:
    """Return the cooldown in seconds: none is 0, a negative one is 0."""
    return 0 if cooldown is None else max(0, cooldown)


def cooldown_end(metadata: dict[str, Any]) -> str | None:
    """Return the stored end of the cooldown (an ISO time stamp), None if there is none."""
    stored = metadata.get(COOLDOWN_END)
    if isinstance(stored, dict) and stored:
        return str(next(iter(stored)))
    return None


def _scaling_now(metadata: dict[str, Any], now: datetime, lease: float | None) -> bool:
    """Return whether a scaling runs: marked, and not longer ago than ``lease`` seconds."""
    if not metadata.get(SCALING_IN_PROGRESS):
        return False
    started = metadata.get(SCALING_STARTED)
    if lease is None or not isinstance(started, str):
        return True
    return (now - timedelta(seconds=lease)).isoformat() < started


def begin_scaling(metadata: Any, group_name: str, now: datetime | None = None,
                  lease: float | None = None) -> dict[str, Any]:
    """Return ``metadata`` marked as scaling, or raise NoActionRequired while one runs.

    The mark is the group's mutex between signals and stack updates; a mark
    set more than ``lease`` seconds ago (the resize's timeout) is taken as
    ended: its engine stopped before recording the end.
    """
    marked: dict[str, Any] = dict(metadata) if isinstance(metadata, dict) else {}
    now = now or utc_now()
    if _scaling_now(marked, now, lease):
        LOG.info("Can not perform scaling action: resource %s is already in scaling.",
                 group_name)
        raise exception.NoActionRequired(res_name=group_name, reason="due to scaling activity")
    marked[SCALING_IN_PROGRESS] = True
    marked[SCALING_STARTED] = now.isoformat()
    return marked


def check_scaling_allowed(metadata: Any, group_name: str, cooldown: float | None,
                          now: datetime | None = None, lease: float | None = None
                          ) -> dict[str, Any]:
    """Return ``metadata`` marked as scaling, or raise NoActionRequired saying why not.

    Refused while another scaling runs ("due to scaling activity", see
    :func:`begin_scaling`) and before the stored cooldown end ("due to
    cooldown, cooldown <seconds>").
    """
    now = now or utc_now()
    marked = begin_scaling(metadata, group_name, now, lease)
    end = cooldown_end(marked)
    if end is not None and now.isoformat() < end:
        seconds = sanitize(cooldown)
        LOG.info("Can not perform scaling action: resource %s is in cooldown (%s).",
                 group_name, seconds)
        raise exception.NoActionRequired(res_name=group_name,
                                         reason=f"due to cooldown, cooldown {seconds}")
    return marked


def finished_scaling(metadata: Any, cooldown: float | None, reason: str,
                     size_changed: bool = True, now: datetime | None = None) -> dict[str, Any]:
    """Return ``metadata`` recording the end of a scaling (a new cooldown end if resized).

    A later end already stored is kept (a short cooldown never shortens a
    longer one); ``reason`` says what scaled ("change_in_capacity : 1").
    """
    ended: dict[str, Any] = dict(metadata) if isinstance(metadata, dict) else {}
    if size_changed:
        end = ((now or utc_now()) + timedelta(seconds=sanitize(cooldown))).isoformat()
        stored = cooldown_end(ended)
        if stored is not None and stored > end:
            end = stored
        ended[COOLDOWN_END] = {end: reason}
    ended[SCALING_IN_PROGRESS] = False
    ended.pop(SCALING_STARTED, None)
    return ended


def reset_scaling(metadata: Any) -> dict[str, Any]:
    """Return ``metadata`` without a ``scaling_in_progress`` a stopped engine left set."""
    reset: dict[str, Any] = dict(metadata) if isinstance(metadata, dict) else {}
    if reset.get(SCALING_IN_PROGRESS):
        reset[SCALING_IN_PROGRESS] = False
    reset.pop(SCALING_STARTED, None)
    return reset
