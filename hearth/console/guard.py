"""What every console request passes: its session, the check of actions, safe headers.

* The session comes from the ``hearth_console`` cookie (HttpOnly,
  SameSite=Strict, Secure over HTTPS, path ``/console``).
* An action (any method but GET and HEAD) must come from the console's own
  pages: a browser's ``Origin`` (or, without one, ``Sec-Fetch-Site``) must
  be this server's, and the form must carry the session's CSRF token.
  Either failing is 403 and nothing is done.
* Every answer carries a Content-Security-Policy that allows scripts and
  styles from the console's own files only (no inline script, no inline
  handler, no ``eval``), forbids framing, and says not to sniff types nor
  send referrers to other sites; pages are not cached.
"""

from __future__ import annotations

from typing import Any

import falcon

COOKIE = "hearth_console"
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
    "connect-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"))
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # not no-referrer: under it a browser sends "Origin: null" with the console's own forms
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class Refused(Exception):
    """An action that did not come from the console's own page (403, nothing done)."""


def own_origin(req: falcon.Request) -> str:
    """Return this server's origin as the browser names it (``http://host:port``)."""
    return f"{req.scheme}://{req.netloc}"


def check_same_origin(req: falcon.Request) -> None:
    """Raise :class:`Refused` unless the browser says the request comes from this origin.

    A request without ``Origin`` and ``Sec-Fetch-Site`` (not a browser's) is
    left to the CSRF token.
    """
    origin = req.get_header("Origin")
    if origin is not None:
        if origin != own_origin(req):
            raise Refused(f"cross-origin request refused (Origin {origin})")
        return
    site = req.get_header("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        raise Refused(f"cross-site request refused (Sec-Fetch-Site {site})")


def check_action(req: falcon.Request, session: Any, form: dict[str, Any]) -> None:
    """Raise :class:`Refused` unless the action comes from this console's page of ``session``."""
    check_same_origin(req)
    presented = form.get(CSRF_FIELD) or req.get_header(CSRF_HEADER)
    if session is None or not session.csrf_matches(presented if isinstance(presented, str)
                                                   else None):
        raise Refused("the form's CSRF token is missing or wrong (reload the page)")


class GuardMiddleware:
    """Find the request's session; add the security headers to every answer."""

    def __init__(self, sessions: Any) -> None:
        self.sessions = sessions

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        """Attach the session named by the cookie (or None)."""
        values = req.get_cookie_values(COOKIE) or [None]
        req.context.session = self.sessions.find(values[0])

    def process_response(self, req: falcon.Request, resp: falcon.Response,
                         resource: Any, req_succeeded: bool) -> None:
        """Add the security headers; pages and streams are never cached."""
        for name, value in SECURITY_HEADERS.items():
            resp.set_header(name, value)
        if not req.path.startswith("/console/static/"):
            resp.set_header("Cache-Control", "no-store")


def set_session_cookie(req: falcon.Request, resp: falcon.Response, session_id: str) -> None:
    """Give the browser the session's cookie: HttpOnly, SameSite=Strict, console paths only."""
    resp.set_cookie(COOKIE, session_id, path="/console", http_only=True, same_site="Strict",
                    secure=req.scheme == "https")


def clear_session_cookie(req: falcon.Request, resp: falcon.Response) -> None:
    """Remove the session's cookie."""
    resp.unset_cookie(COOKIE, path="/console", same_site="Strict")
