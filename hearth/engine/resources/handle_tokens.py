"""Signal tokens: a secret that lets a machine signal one resource, and nothing else.

A wait condition handle (``signal_transport: TOKEN_SIGNAL``) makes a token
when it is created: the secret is kept in the handle's redacted data (only
its ``token`` and ``curl_cli`` attributes show it) and its sha256 digest
beside it.  The API accepts the secret as ``X-Auth-Token`` on exactly one
request, ``POST .../stacks/<name>/<id>/resources/<that resource>/signal``
of that project (:func:`matches`); anywhere else it is an unknown token.
Deleting the handle forgets both.
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING, Any

from hearth.common import exception

if TYPE_CHECKING:
    from hearth.engine.resources.resource_view import ResourceView

#: Resource data keys of a signal token.
TOKEN_KEY, DIGEST_KEY = "token", "token_sha256"


def new_token() -> tuple[str, str]:
    """Return ``(secret, sha256 hex digest)`` of a fresh signal token."""
    # lazy: sqlalchemy: template-validate loads the plug-ins without it
    from hearth.db.tokens import hash_token, new_secret  # SQLAlchemy: not for a plug-in's import
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


def matches(db: Any, project_id: str, stack_name: str, stack_id: str, resource_name: str,
            secret: str) -> bool:
    """Return whether ``secret`` is the signal token of that live resource of that project."""
    # lazy: sqlalchemy: template-validate loads the plug-ins without it
    from hearth.db import api_resources, api_stacks

    # lazy: sqlalchemy: template-validate loads the plug-ins without it
    from hearth.db.tokens import hash_token
    try:
        stack = api_stacks.stack_get(db, stack_id, project_id=project_id)
        if stack.name != stack_name:
            return False
        row = api_resources.resource_get_by_name(db, stack_id, resource_name)
        digest = api_resources.resource_data_get(db, row.id, DIGEST_KEY)
    except exception.NotFound:
        return False
    return digest is not None and bool(digest) and hmac.compare_digest(digest,
                                                                       hash_token(secret))
