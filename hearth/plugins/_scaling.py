"""The scaling mark and cooldown of a group resource (Heat's CooldownMixin, on the metadata).

A group marks itself ``scaling_in_progress`` (atomically, in its metadata
row) before any resize, by a signal, a stack update or a delete, and
clears the mark at the end, recording the cooldown when the size changed
(:mod:`hearth.engine.scaling.cooldown`).  The mark is the mutex between a
signal's resize and the stack's own actions on the nested stack.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from hearth.common import exception
from hearth.engine.scaling import cooldown
from hearth.engine.states import IN_PROGRESS

#: Seconds past a resize's timeout after which its "scaling_in_progress" mark
#: is taken as left by an engine that stopped.
LEASE_MARGIN = 60.0
#: The same while the nested stack is not acting: a resize marks the group
#: only a moment before its nested update starts and after it ends.
IDLE_LEASE = 60.0
#: Seconds between two looks of an action waiting for a signal's resize to end.
SCALING_POLL = 1.0


class CooldownMixin:
    """Scaling mark and cooldown of a StackResource group (``self`` is the group)."""

    # provided by the group (a StackResource): name, stack, nested(), child_stacks(),
    # _nested, _metadata
    name: str
    stack: Any
    _metadata: Any
    _nested: Any

    def _timeout_secs(self) -> float:
        """Return the resize's timeout in seconds (the stack's action timeout)."""
        if getattr(self.stack, "row", None) is None:
            return 3600.0
        return float(self.child_stacks().action_timeout())  # type: ignore[attr-defined]

    def _merge_metadata(self, merge: Callable[[Any], Any]) -> None:
        """Apply ``merge`` to the stored metadata in one read-modify-write of the row."""
        self._metadata = self.stack.store.merge_metadata(self, merge)

    def _lease(self) -> float:
        """Return how long a scaling mark holds: the resize's timeout, or a minute when idle.

        A mark is only ever set a moment before the nested stack acts, so
        one on a nested stack that is not acting for that long was left by
        an engine that stopped.
        """
        self._nested = None  # the nested stack's state now
        nested = self.nested()  # type: ignore[attr-defined]
        if nested is not None and nested.status == IN_PROGRESS:
            return self._timeout_secs() + LEASE_MARGIN
        return IDLE_LEASE

    def _check_scaling_allowed(self, cooldown_secs: float | None) -> None:
        """Mark the scaling, or raise NoActionRequired (scaling already, or in cooldown)."""
        lease = self._lease()
        self._merge_metadata(lambda stored: cooldown.check_scaling_allowed(
            stored, self.name, cooldown_secs, lease=lease))

    def _begin_scaling(self) -> Iterator[float]:
        """Mark the scaling, waiting (polled) while a signal's resize runs."""
        while True:
            lease = self._lease()
            try:
                self._merge_metadata(lambda stored, lease=lease: cooldown.begin_scaling(
                    stored, self.name, lease=lease))
                return
            except exception.NoActionRequired:
                yield SCALING_POLL

    def _finished_scaling(self, cooldown_secs: float | None, reason: str,
                          size_changed: bool = True) -> None:
        """Clear the mark; when the size changed, start the cooldown (``reason`` says why)."""
        self._merge_metadata(lambda stored: cooldown.finished_scaling(
            stored, cooldown_secs, reason, size_changed))
