"""Signal tokens: a secret that lets a machine signal one resource, and nothing else.

A wait condition handle (``signal_transport: TOKEN_SIGNAL``) makes a token
when it is created: the secret is kept in the handle's redacted data (only
its ``token`` and ``curl_cli`` attributes show it) and its sha256 digest
beside it.  The API accepts the secret as ``X-Auth-Token`` on exactly one
request, ``POST .../stacks/<name>/<id>/resources/<that resource>/signal``
of that project (the API reads that resource's digest and asks
:func:`matches`); anywhere else it is an unknown token.  Deleting the
handle forgets both.
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

from hearth.common.token_secrets import hash_token, new_secret

if TYPE_CHECKING:
    from hearth.engine.resources.resource_view import ResourceView

#: Resource data keys of a signal token.
TOKEN_KEY, DIGEST_KEY = "token", "token_sha256"


def new_token() -> tuple[str, str]:
    """Return ``(secret, sha256 hex digest)`` of a fresh signal token."""
    secret = new_secret()
    return secret, hash_token(secret)


def store(resource: ResourceView) -> str:
    """Give ``resource`` a new signal token (redacted data); return the secret."""
    secret, digest = new_token()
    resource.data_set(TOKEN_KEY, secret, redact=True)
    resource.data_set(DIGEST_KEY, digest, redact=True)
    return secret


def forget(resource: ResourceView) -> None:
    """Remove ``resource``'s signal token: it signals nothing any more."""
    for key in (TOKEN_KEY, DIGEST_KEY):
        resource.data_delete(key)


def matches(stored_digest: str | None, secret: str) -> bool:
    """Return whether ``secret`` is the signal token whose digest a handle stored.

    ``stored_digest`` is the resource's :data:`DIGEST_KEY` item (None: the
    resource, its stack or the item is not there).
    """
    return bool(stored_digest) and hmac.compare_digest(str(stored_digest), hash_token(secret))
