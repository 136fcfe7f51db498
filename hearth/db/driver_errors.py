"""Database driver errors that are the caller's fault, as Hearth's own exceptions.

PostgreSQL's text cannot hold U+0000: psycopg2 raises a ValueError, psycopg
a DataError, before anything is written.  The API refuses such texts where
it can name them; anything that still reaches the database with one (a
text the engine builds from a user's value) is reported as
:class:`~hearth.common.exception.TextWithNul` (a 400), not as the driver's
error.
"""

from __future__ import annotations

from hearth.common import exception

#: What PostgreSQL's drivers say of a text holding U+0000.
NUL_REFUSED = "NUL (0x00)"


def translated(error: BaseException) -> BaseException | None:
    """Return the Hearth exception ``error`` stands for, or None (it is not one)."""
    if isinstance(error, Exception) and NUL_REFUSED in str(error):
        return exception.TextWithNul("text to store")
    return None
