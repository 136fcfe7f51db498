"""How many agents one batch runs at once (Salt's ``--batch`` sizes).

``N`` is that many agents; ``P%`` is that share of the targeted agents,
rounded down, but never below one.  As in Salt 3008, the size is at least
1 (``0`` and negative numbers mean one at a time, an empty target too) and
a percentage above 100 is allowed (the batch then holds every agent).
"""

from __future__ import annotations

import math

from hearth.common import exception


def batch_size(spec: str | int, total: int) -> int:
    """Return the batch size for ``spec`` (``N`` or ``P%``) over ``total`` targeted agents.

    :raises InvalidBatchSize: ``spec`` is neither an integer nor a percentage.
    """
    if isinstance(spec, bool):
        raise exception.InvalidBatchSize(spec)
    try:
        if isinstance(spec, str) and "%" in spec:
            share = float(spec.strip("%")) / 100.0 * max(total, 0)
            return max(1, math.ceil(share)) if share < 1 else int(share)
        return max(1, int(spec))
    except (TypeError, ValueError):
        raise exception.InvalidBatchSize(spec) from None


def batch_rounds(spec: str | int, total: int) -> int:
    """Return how many batches ``total`` targeted agents take with batch ``spec``."""
    return math.ceil(max(total, 0) / batch_size(spec, total))
