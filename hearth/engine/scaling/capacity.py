"""The size a scaling adjustment asks for, as Heat's scaling policies compute it.

Three adjustment types: ``change_in_capacity`` adds the adjustment,
``exact_capacity`` sets it, ``percent_change_in_capacity`` adds that
percentage of the current size, rounded away from zero below one member
and towards zero above, then raised to ``min_adjustment_step`` when that is
larger.  The result always lies within ``[minimum, maximum]``.  The
CloudFormation names (``ChangeInCapacity``...) are accepted as synonyms.
"""

from __future__ import annotations

import math

ADJUSTMENT_TYPES = (EXACT_CAPACITY, CHANGE_IN_CAPACITY, PERCENT_CHANGE_IN_CAPACITY) = (
    "exact_capacity", "change_in_capacity", "percent_change_in_capacity")

CFN_ADJUSTMENT_TYPES = (CFN_EXACT_CAPACITY, CFN_CHANGE_IN_CAPACITY,
                        CFN_PERCENT_CHANGE_IN_CAPACITY) = (
    "ExactCapacity", "ChangeInCapacity", "PercentChangeInCapacity")

#: every accepted name -> its HOT name
CANONICAL_TYPES: dict[str, str] = {
    **{name: name for name in ADJUSTMENT_TYPES},
    **dict(zip(CFN_ADJUSTMENT_TYPES, ADJUSTMENT_TYPES, strict=True)),
}


def percent_delta(current: int, percent: float) -> int:
    """Return ``percent`` of ``current`` as a whole number of members.

    A change smaller than one member rounds away from zero (so any non-zero
    percentage moves the group); a larger one rounds towards zero.
    """
    delta = current * percent / 100.0
    if math.fabs(delta) < 1.0:
        return int(math.ceil(delta) if delta > 0.0 else math.floor(delta))
    return int(math.floor(delta) if delta > 0.0 else math.ceil(delta))


def at_least_step(adjustment: int, min_adjustment_step: int | None) -> int:
    """Return ``adjustment`` raised (keeping its sign) to ``min_adjustment_step``."""
    if min_adjustment_step and min_adjustment_step > abs(adjustment):
        return min_adjustment_step if adjustment > 0 else -min_adjustment_step
    return adjustment


def new_capacity(current: int, adjustment: float, adjustment_type: str,
                 min_adjustment_step: int | None, minimum: int, maximum: int) -> int:
    """Return the group size after applying ``adjustment``, kept within the bounds.

    Raises ValueError for an unknown ``adjustment_type`` (the plug-ins'
    schemas only let the known ones through).
    """
    kind = CANONICAL_TYPES.get(adjustment_type)
    if kind == CHANGE_IN_CAPACITY:
        size = current + adjustment
    elif kind == EXACT_CAPACITY:
        size = adjustment
    elif kind == PERCENT_CHANGE_IN_CAPACITY:
        size = current + at_least_step(percent_delta(current, adjustment), min_adjustment_step)
    else:
        raise ValueError(f"Unknown adjustment type {adjustment_type!r}; expected one of "
                         f"{', '.join(ADJUSTMENT_TYPES)}")
    if size > maximum:
        return maximum
    if size < minimum:
        return minimum
    return int(size)
