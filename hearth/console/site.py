"""The console's WSGI application: its pages routed under ``/console``.

Above :mod:`.app` (the routing of one page, the errors, the shell) and
:mod:`.pages` (the table of pages, which use the app's views): the two
processes that serve the console load it when they serve, ``hearth-api``
through :func:`hearth.console.serve_console` and ``stackctl console``
(:mod:`hearth.console.local`) once its process is green.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import falcon

from hearth.console import guard
from hearth.console.app import PREFIX, STATIC, Console, PageResource, _unexpected, with_console
from hearth.console.connect import ApiConnector, LocalConnector
from hearth.console.pages import PAGES


def build_console(console: Console) -> falcon.App:
    """Return the WSGI application of ``console`` (paths under ``/console``)."""
    app = falcon.App(middleware=[guard.GuardMiddleware(console.sessions)])
    app.req_options.strip_url_path_trailing_slash = True
    for page in PAGES:
        app.add_route(PREFIX + page.path, PageResource(console, page))
    app.add_static_route(f"{PREFIX}/static", STATIC)
    app.add_error_handler(Exception, _unexpected)
    # Falcon's own handler of HTTPError is more specific than Exception's: replace it too
    app.add_error_handler(falcon.HTTPError, _unexpected)
    return app



def serve_console(api: Any, verify: Callable[[str], Any] | None,
                  noauth: bool = False) -> Callable[..., Any]:
    """Return ``hearth-api``'s WSGI application with the console under ``/console``."""
    connector = ApiConnector(verify, noauth=noauth)
    connector.api = api
    return with_console(api, build_console(Console(connector)))


def local_console(connector: LocalConnector) -> tuple[Console, falcon.App]:
    """Return the console of the local user and its WSGI application."""
    console = Console(connector)
    return console, build_console(console)
