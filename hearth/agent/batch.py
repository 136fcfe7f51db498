"""How many agents one batch runs at once (stand-in)."""

from __future__ import annotations

import math

from hearth.common import exception


def batch_size(spec: str | int, total: int) -> int:
    """Return the batch size for ``spec`` (``N`` or ``P%``) over ``total`` agents (≥ 1)."""
    text = str(spec).strip()
    try:
        if text.endswith("%"):
            return max(1, math.ceil(total * float(text[:-1]) / 100))
        return max(1, int(text))
    except ValueError:
        raise exception.BadRequest(message=f"Invalid batch size {spec!r}: use N or P%") from None
