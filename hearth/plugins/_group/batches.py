"""The batches of a resource group's rolling update and batched create.

``update_policy: {rolling_update: {min_in_service, max_batch_size,
pause_time}}`` changes the members' definition a batch at a time;
``batch_create: {max_batch_size, pause_time}`` creates the members a batch
at a time (a rolling update from no members, none kept in service).  Each
batch is one update of the nested stack to the group's size after it
(:class:`~hearth.engine.scaling.rolling_update.Batch`), with a pause
between batches.  The pauses together must stay under the stack's
timeout; each batch's nested update gets the time they leave.

The group counts members as Heat's ``ResourceGroup`` does
(:func:`hearth.engine.scaling.rolling_update.batches` with
``temporary_count=False``): members created above both the current and the
target size are temporary and do not count as up to date, so the batches
(and their number, which the pauses multiply) are Heat's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from hearth.engine.scaling.rolling_update import Batch, batches, check_pauses_fit


@dataclass(frozen=True)
class BatchPlan:
    """The batches of one action, the pause between two and each batch's timeout."""

    batches: tuple[Batch, ...]
    pause_time: float
    #: the timeout of each batch's nested update (minutes, rounded up)
    timeout_mins: int

    def pauses_after(self, index: int) -> bool:
        """Return whether a pause follows batch ``index``."""
        return self.pause_time > 0 and index < len(self.batches) - 1


def plan(target: int, current: int, batch_size: int, min_in_service: int, pause_time: float,
         timeout_secs: float) -> BatchPlan:
    """Return the plan of a batched action; ValueError when the pauses reach the timeout."""
    found = tuple(batches(target, current, batch_size, min_in_service, temporary_count=False))
    left = check_pauses_fit(len(found), pause_time, timeout_secs)
    return BatchPlan(found, pause_time, math.ceil(left / 60))


@dataclass
class BatchRun:
    """A batched action under way: the batch running, or the pause after it."""

    plan: BatchPlan
    #: the batch started last (-1 before the first)
    index: int = -1
    #: the nested action the running batch waits for (None between batches)
    action: str | None = None
    #: the pause after the last batch, while it lasts (a :class:`hearth.plugins._waiting.Wait`)
    pause: Any = None

    def next_batch(self) -> Batch | None:
        """Return the next batch to start (None when all are done)."""
        self.index += 1
        return self.plan.batches[self.index] if self.index < len(self.plan.batches) else None
