"""The console's WSGI application: its pages as a table, one Falcon resource serving any.

:data:`PAGES` is the whole console: a path, the handler of GET and the
handler of POST.  A handler gets a :class:`View` (the request, the session,
the API calls made with the session's rights) and returns HTML, a
:class:`Redirect` or a :class:`Stream` of server-sent events.  Every POST
passes :func:`hearth.console.guard.check_action` first (same origin and
the session's CSRF token), every page but the login needs a session, and an
API error becomes a page saying what the API said (``stackctl``'s words).

:func:`with_console` puts the console in front of ``hearth-api``'s
application under ``/console``; :mod:`hearth.console.local` serves it alone
for ``stackctl console``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import falcon

from hearth.api import faults
from hearth.common import exception
from hearth.console import guard
from hearth.console.calls import ConsoleCalls
from hearth.console.render import render
from hearth.console.sessions import SessionStore

LOG = logging.getLogger(__name__)
PREFIX = "/console"
STATIC = os.path.join(os.path.dirname(__file__), "static")


@dataclass
class Redirect:
    """Answer 303 to ``location`` (after an action: the browser then GETs it)."""

    location: str


@dataclass
class Stream:
    """Answer with server-sent events: each item of ``events`` is one encoded event."""

    events: Iterator[bytes]


@dataclass
class View:
    """What a page handler gets: the request, its session and the console."""

    req: falcon.Request
    resp: falcon.Response
    console: Console
    session: Any
    params: dict[str, str]
    form: dict[str, Any] = field(default_factory=dict)
    _calls: ConsoleCalls | None = None

    @property
    def calls(self) -> ConsoleCalls:
        """Return the API calls of this request, made with the session's rights."""
        if self._calls is None:
            self._calls = self.console.connector.calls(self.session)
        return self._calls

    def page(self, template: str, /, **context: Any) -> str:
        """Return the HTML of a page of the console (the layout's values added)."""
        return render(template, session=self.session, csrf_field=guard.CSRF_FIELD,
                      local=self.console.connector.local, prefix=PREFIX,
                      path=self.req.path, **context)

    def field(self, name: str, default: str = "") -> str:
        """Return a text field of the posted form (stripped), or ``default``."""
        value = self.form.get(name)
        return value.strip() if isinstance(value, str) else default


Handler = Callable[[View], Any]


@dataclass(frozen=True)
class Page:
    """One path of the console and its handlers."""

    path: str
    get: Handler | None = None
    post: Handler | None = None
    #: the login page itself is the only one a visitor without a session may see
    public: bool = False


@dataclass
class Console:
    """One console: how sessions reach the API, and the sessions."""

    connector: Any
    sessions: SessionStore = field(default_factory=SessionStore)


def read_form(req: falcon.Request) -> dict[str, Any]:
    """Return a posted form's fields (an uploaded file as ``{"filename", "text"}``)."""
    if req.content_length in (None, 0):
        return {}
    media_type = (req.content_type or "").split(";")[0].strip()
    if media_type == "multipart/form-data":
        form: dict[str, Any] = {}
        for part in req.get_media():
            data = part.stream.read()
            if part.filename is not None:
                if data:
                    form[part.name] = {"filename": part.secure_filename or "template",
                                       "text": data.decode("utf-8", "replace")}
            else:
                form[part.name] = data.decode("utf-8", "replace")
        return form
    if media_type == "application/x-www-form-urlencoded":
        media = req.get_media()
        return {key: value[-1] if isinstance(value, list) else value
                for key, value in media.items()}
    return {}


class PageResource:
    """The Falcon resource of one page: session, checks, handler, answer."""

    def __init__(self, console: Console, page: Page) -> None:
        self.console = console
        self.page = page

    def on_get(self, req: falcon.Request, resp: falcon.Response, **params: str) -> None:
        """Serve the page."""
        if self.page.get is None:
            raise falcon.HTTPMethodNotAllowed(["POST"])
        self._serve(req, resp, params, self.page.get, {})

    def on_head(self, req: falcon.Request, resp: falcon.Response, **params: str) -> None:
        """Answer as GET does (Falcon sends no body)."""
        self.on_get(req, resp, **params)

    def on_post(self, req: falcon.Request, resp: falcon.Response, **params: str) -> None:
        """Check the action, then do it."""
        if self.page.post is None:
            raise falcon.HTTPMethodNotAllowed(["GET"])
        form = read_form(req)
        session = req.context.session
        try:
            if self.page.public:
                guard.check_same_origin(req)
            else:
                guard.check_action(req, session, form)
        except guard.Refused as refusal:
            self._answer(resp, error_page(req, session, str(refusal)), 403)
            return
        self._serve(req, resp, params, self.page.post, form)

    def _serve(self, req: falcon.Request, resp: falcon.Response, params: dict[str, str],
               handler: Handler, form: dict[str, Any]) -> None:
        session = req.context.session
        if session is None and not self.page.public:
            if req.method == "GET" and not req.path.endswith("/stream"):
                self._answer(resp, Redirect(f"{PREFIX}/login"))
            else:
                self._answer(resp, error_page(req, None, "Log in first."), 403)
            return
        view = View(req, resp, self.console, session, params, form)
        try:
            self._answer(resp, handler(view), req=req)
        except exception.HearthException as error:
            status = getattr(error, "status", None) or error_status(error)
            self._answer(resp, error_page(req, session, str(error)), status)

    @staticmethod
    def _answer(resp: falcon.Response, result: Any, status: int = 200,
                req: falcon.Request | None = None) -> None:
        if isinstance(result, Redirect):
            resp.status = 303
            resp.location = result.location
        elif isinstance(result, Stream):
            resp.content_type = "text/event-stream; charset=utf-8"
            resp.set_header("X-Accel-Buffering", "no")
            if req is not None:
                # eventlet's server holds writes until 4 KiB have gathered: send each event
                req.env["eventlet.minimum_write_chunk_size"] = 0
            resp.stream = result.events
        else:
            resp.status = status
            resp.content_type = falcon.MEDIA_HTML
            resp.text = result


def error_status(error: exception.HearthException) -> int:
    """Return the HTTP status the API gives ``error`` (its faults table)."""
    return faults.fault_for(error)[0]


def error_page(req: falcon.Request, session: Any, message: str) -> str:
    """Return the page saying what went wrong."""
    return render("error.html", session=session, csrf_field=guard.CSRF_FIELD, local=False,
                  prefix=PREFIX, path=req.path, message=message)


def _unexpected(req: falcon.Request, resp: falcon.Response, error: BaseException,
                params: dict[str, Any]) -> None:
    """Answer an HTTP error, or a bug of the console, with a page saying so.

    A bug is logged with its traceback.
    """
    if isinstance(error, falcon.HTTPError):
        resp.status = error.status_code
        resp.set_headers(error.headers or {})  # Allow of a 405, for one
        resp.content_type = falcon.MEDIA_HTML
        message = f"No page at {req.path}." if error.status_code == 404 else error.title
        resp.text = error_page(req, getattr(req.context, "session", None), message)
        return
    LOG.exception("console: %s %s failed", req.method, req.path)
    resp.status = 500
    resp.content_type = falcon.MEDIA_HTML
    resp.text = error_page(req, getattr(req.context, "session", None),
                           f"Unexpected error ({type(error).__name__}): {error}. This is a "
                           "bug of Hearth's console; the server's log has the details.")


def with_console(api: Any, console: Any) -> Callable[..., Any]:
    """Return a WSGI application serving ``console`` under ``/console`` and ``api`` elsewhere."""
    def dispatch(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        if path == PREFIX or path.startswith(PREFIX + "/"):
            return console(environ, start_response)
        return api(environ, start_response)
    return dispatch
