"""Batches of a rolling update of a group (Heat's ``heat/scaling/rolling_update``).

A rolling update gives a group's members a new definition a batch at a
time, keeping at least ``min_in_service`` members in service: each batch
says how large the group is after it (it may grow above the target for a
while, to keep members in service, and shrinks back at the end) and how
many members receive the new definition in it (created or updated).  Used
by ``OS::Heat::AutoScalingGroup`` (``rolling_updates``) and open to
``OS::Heat::ResourceGroup`` (``rolling_update``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple


class Batch(NamedTuple):
    """One step of a rolling update."""

    #: the group's size once the batch is done
    capacity: int
    #: how many members get the new definition in this batch
    num_new: int


def needs_update(target: int, current: int, up_to_date: int) -> bool:
    """Return whether another batch is needed (the size or some definitions still differ)."""
    return not (up_to_date >= current == target)


def next_batch(target: int, current: int, up_to_date: int, batch_size: int,
               min_in_service: int) -> Batch:
    """Return the next batch given the group's ``current`` size and members ``up_to_date``."""
    if up_to_date > current:
        raise ValueError(f"{up_to_date} members up to date in a group of {current}")
    in_service = min(min_in_service, target, current)
    num_new = min(batch_size, max(target - up_to_date, 0))
    capacity = num_new + max(min(current, target - num_new), in_service)
    return Batch(capacity, num_new)


def batches(target: int, current: int, batch_size: int, min_in_service: int,
            temporary_count: bool = True) -> Iterator[Batch]:
    """Yield every batch taking a group of ``current`` members to ``target`` new ones.

    The groups count what a batch brought up to date as Heat's do: the
    scaling groups every member given the new definition; a resource group
    (``temporary_count=False``) not the members made above both the current
    and the target size, which are temporary, so it has more batches.
    """
    up_to_date = 0
    while needs_update(target, current, up_to_date):
        batch = next_batch(target, current, up_to_date, batch_size, min_in_service)
        yield batch
        temporary = 0 if temporary_count else max(batch.capacity - max(current, target), 0)
        current, up_to_date = batch.capacity, up_to_date + batch.num_new - temporary


def check_pauses_fit(batch_count: int, pause_time: float, timeout_secs: float) -> float:
    """Return the time left for the updates once the pauses between batches are taken.

    Raises ValueError (Heat's message) when the pauses alone reach the
    stack's timeout.
    """
    total_pause = pause_time * max(batch_count - 1, 0)
    if total_pause >= timeout_secs:
        raise ValueError("The current update policy will result in stack update timeout.")
    return timeout_secs - total_pause
