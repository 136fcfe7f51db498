"""The web console: Hearth's stacks, agents, keys and jobs in a browser.

Server-rendered pages (Jinja2, every value escaped) with htmx and its
server-sent-events extension for live updates, shipped in ``static/``.  The
console is one more client of the API: its pages read and act through the
same operations as ``stackctl`` and the REST API (:mod:`.calls`, the seam),
with the caller's own credentials, so the same policy and the same errors
apply.  It runs in ``hearth-api`` under ``/console`` (a project logs in
with its API token) and, for one user, as ``stackctl console`` (the local
engine behind its Unix socket, a one-time login URL).

Modules: :mod:`.app` (routes and views), :mod:`.site` (the WSGI application), :mod:`.sessions`
(login sessions, CSRF tokens), :mod:`.guard` (security headers, the check
of every action), :mod:`.connect` (how a session reaches the API),
:mod:`.calls`, :mod:`.wake` and :mod:`.sse` (live updates),
:mod:`.topology` (the stack picture), :mod:`.render` (templates) and
:mod:`.pages` (one module per page family).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def serve_console(api: Any, verify: Callable[[str], Any] | None,
                  noauth: bool = False) -> Callable[..., Any]:
    """Return ``hearth-api``'s WSGI application with the console under ``/console``.

    The console's sessions call ``api`` in-process with their own tokens
    (``verify`` checks a token at login; ``noauth``: any project, as the API).
    """
    # stackctl console's process imports this package before it is green (its connectors)
    # lazy: the web stack (falcon, jinja2) loads when a server asks for the console
    from hearth.console import site
    return site.serve_console(api, verify, noauth)
