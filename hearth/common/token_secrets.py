"""Token secrets: made fresh and random, kept only as their sha256 digests.

The API's tokens (:mod:`hearth.db.tokens`) and the wait condition handles'
signal tokens (:mod:`hearth.engine.resources.handle_tokens`) are both made
and hashed here, so that a plug-in makes its token without the database.
"""

from __future__ import annotations

import hashlib
import secrets

#: Random bytes in a token (its text is their URL-safe base64).
TOKEN_BYTES = 32


def new_secret() -> str:
    """Return a fresh random token (URL-safe base64 of :data:`TOKEN_BYTES` bytes).

    Never one that starts with ``-``: a token is given on command lines
    (``stackctl --token TOKEN``, ``curl -H``), where it would read as an
    option (one in 64 did).
    """
    while True:
        secret = secrets.token_urlsafe(TOKEN_BYTES)
        if not secret.startswith("-"):
            return secret


def hash_token(secret: str) -> str:
    """Return the sha256 hex digest under which a token is stored."""
    return hashlib.sha256(secret.encode()).hexdigest()
