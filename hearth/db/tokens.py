"""API tokens: create, list, revoke and verify, stored as sha256 digests.

The secret is shown once, when created; the database keeps only its
sha256 hex digest, so a stolen database does not yield usable tokens.
The secret is made and hashed by :mod:`hearth.common.token_secrets`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select

from hearth.common import exception
from hearth.common.token_secrets import hash_token, new_secret
from hearth.db import models, rows, timeutils
from hearth.db.session import session_scope


@dataclass(frozen=True)
class TokenInfo:
    """A token's record, without its secret."""

    id: str
    hash_prefix: str
    project_id: str
    user: str
    roles: tuple[str, ...]
    description: str | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None

    @property
    def is_admin(self) -> bool:
        """Return whether the token carries the admin role."""
        return "admin" in self.roles

    def is_valid(self, now: datetime) -> bool:
        """Return whether the token is neither revoked nor expired at ``now``."""
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)


def _info(row: models.Token) -> TokenInfo:
    return TokenInfo(id=row.id, hash_prefix=row.token_hash[:12], project_id=row.project_id,
                     user=row.user, roles=tuple(row.roles or ()), description=row.description,
                     created_at=row.created_at, expires_at=row.expires_at,
                     revoked_at=row.revoked_at)


def create_token(project_id: str, user: str = "admin", roles: Sequence[str] = (),
                 description: str | None = None, expires_hours: float | None = None,
                 url: str | None = None,
                 clock: Callable[[], datetime] = timeutils.utcnow) -> tuple[str, TokenInfo]:
    """Store a new token; return ``(secret, info)`` (the secret is never stored)."""
    if not project_id:
        raise exception.BadRequest(message="A token needs a project.")
    if expires_hours is not None and expires_hours <= 0:
        raise exception.BadRequest(
            message=f"--expires-hours must be positive, not {expires_hours}.")
    secret = new_secret()
    now = clock()
    expires_at = now + timedelta(hours=expires_hours) if expires_hours else None
    row = models.Token(token_hash=hash_token(secret), project_id=project_id, user=user,
                       roles=list(roles), description=description, created_at=now,
                       expires_at=expires_at)
    with session_scope(url, write=True) as session:
        session.add(row)
        session.flush()
        info = _info(row)
    return secret, info


def list_tokens(url: str | None = None, project_id: str | None = None) -> list[TokenInfo]:
    """Return every token's record (oldest first), optionally of one project."""
    query = select(models.Token).order_by(models.Token.created_at, models.Token.id)
    if project_id:
        query = query.where(models.Token.project_id == project_id)
    with session_scope(url) as session:
        return [_info(row) for row in session.scalars(query)]


def revoke_token(token_id: str, url: str | None = None,
                 clock: Callable[[], datetime] = timeutils.utcnow) -> TokenInfo:
    """Mark a token revoked (idempotent); NotFound when no token has that id."""
    with session_scope(url, write=True) as session:
        row = rows.get_or_raise(session, models.Token, token_id, "Token")
        if row.revoked_at is None:
            row.revoked_at = clock()
        return _info(row)


def verify_token(secret: str, url: str | None = None,
                 clock: Callable[[], datetime] = timeutils.utcnow) -> TokenInfo:
    """Return the record of a valid token; Unauthorized when unknown, revoked or expired."""
    query = select(models.Token).where(models.Token.token_hash == hash_token(secret))
    with session_scope(url) as session:
        row = session.scalars(query).first()
        info = _info(row) if row is not None else None
    if info is None or not info.is_valid(clock()):
        raise exception.Unauthorized(message="The token is unknown, expired or revoked.")
    return info
