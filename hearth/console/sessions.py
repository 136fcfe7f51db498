"""Console sessions: who is logged in, their CSRF token, and one-time login links.

A session lives in this process only (a restart logs everyone out); the
browser holds its random id in an HttpOnly, SameSite=Strict cookie and never
sees the API token it stands for.  Each session has its own CSRF token,
which every form carries and :mod:`hearth.console.guard` checks.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Seconds a session lasts without a request.
IDLE_TIMEOUT = 8 * 3600.0
#: Seconds a one-time login link stays good.
LOGIN_LINK_TTL = 24 * 3600.0
#: Most stored launch drafts (uploaded templates) per session.
MAX_DRAFTS = 8


@dataclass
class Session:
    """One logged-in browser: its project, API token (None: the local user) and CSRF token."""

    session_id: str
    project: str
    token: str | None
    user: str
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    last_used: float = field(default_factory=time.monotonic)
    #: launch drafts: id -> the uploaded template and environment (kept server-side)
    drafts: dict[str, dict[str, Any]] = field(default_factory=dict)

    def csrf_matches(self, presented: str | None) -> bool:
        """Return whether ``presented`` is this session's CSRF token (constant time)."""
        return bool(presented) and hmac.compare_digest(presented.encode(), self.csrf.encode())

    def keep_draft(self, draft: dict[str, Any]) -> str:
        """Store a launch draft; return its id (the oldest goes past :data:`MAX_DRAFTS`)."""
        while len(self.drafts) >= MAX_DRAFTS:
            self.drafts.pop(next(iter(self.drafts)))
        draft_id = secrets.token_urlsafe(12)
        self.drafts[draft_id] = draft
        return draft_id


class SessionStore:
    """The sessions and one-time login links of one console (thread-safe)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._sessions: dict[str, Session] = {}
        self._links: dict[str, tuple[float, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def open(self, project: str, token: str | None, user: str) -> Session:
        """Start a session for ``project``; return it."""
        now = self._clock()
        session = Session(secrets.token_urlsafe(32), project, token, user, last_used=now)
        with self._lock:
            self._forget_expired(now)
            self._sessions[session.session_id] = session
        return session

    def _forget_expired(self, now: float) -> None:
        """Drop the sessions idle too long and the links too old (the lock is held).

        Run at each login, so that browsers that never come back hold no
        memory for longer than :data:`IDLE_TIMEOUT`.
        """
        for session_id in [key for key, session in self._sessions.items()
                           if now - session.last_used > IDLE_TIMEOUT]:
            del self._sessions[session_id]
        for secret in [key for key, (expires, _) in self._links.items() if expires < now]:
            del self._links[secret]

    def __len__(self) -> int:
        """Return how many sessions are open (expired ones not yet forgotten included)."""
        return len(self._sessions)

    def find(self, session_id: str | None) -> Session | None:
        """Return the live session of ``session_id`` (None: unknown or expired)."""
        if not session_id:
            return None
        now = self._clock()
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                return None
            if now - session.last_used > IDLE_TIMEOUT:
                del self._sessions[session_id]
                return None
            session.last_used = now
            return session

    def close(self, session_id: str) -> None:
        """End a session (log out)."""
        with self._lock:
            self._sessions.pop(session_id, None)

    def login_link(self, **identity: Any) -> str:
        """Return a new one-time login secret for ``identity`` (project, token, user)."""
        secret = secrets.token_urlsafe(32)
        with self._lock:
            self._links[secret] = (self._clock() + LOGIN_LINK_TTL, identity)
        return secret

    def redeem(self, secret: str | None) -> Session | None:
        """Open the session of a one-time login secret; it never works twice."""
        if not secret:
            return None
        with self._lock:
            found = self._links.pop(secret, None)
        if found is None or found[0] < self._clock():
            return None
        return self.open(**found[1])
