"""stackctl over HTTP: the table's operations as requests to a hearth-api server.

:class:`HttpTransport` carries a :class:`~hearth.cli.backend.Backend`'s
calls: the request is what the operation declares
(:func:`hearth.api.arguments.wire_request`), the result what its answer
reads back (links turned back into fields, a create's identity), so every
command prints the same output in every mode.  Errors come back as
:class:`ApiError` carrying the server's message (a located validation error
as the :class:`~hearth.common.exception.StackValidationFailed` it was),
which the CLI prints as it prints local errors.
"""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.parse
from collections.abc import Mapping, MutableMapping
from typing import Any, Protocol

from hearth.api.arguments import wire_request
from hearth.api.faults import LOCATION_HEADER
from hearth.api.operation import Exchange, Headers, Operation
from hearth.common import exception

#: Seconds between two event polls while following an action over HTTP.
HTTP_POLL_INTERVAL = 0.25
REQUEST_TIMEOUT = 60.0
#: The statuses whose Location a client follows (the same method and body sent again).
REDIRECTS = (301, 302, 303, 307)


class HttpResponse(Protocol):
    """What :class:`HttpTransport` reads of a response (``requests``' or the local engine's)."""

    @property
    def status_code(self) -> int:
        """Return the HTTP status."""

    @property
    def headers(self) -> Headers:
        """Return the headers."""

    @property
    def content(self) -> bytes:
        """Return the body."""

    @property
    def text(self) -> str:
        """Return the body as text."""

    def json(self) -> Any:
        """Return the body parsed as JSON (ValueError when it is not)."""


class HttpSession(Protocol):
    """The calls :class:`HttpTransport` makes of a ``requests.Session``.

    :class:`hearth.cli.local_http.UnixSession` answers them on a Unix socket.
    """

    @property
    def headers(self) -> MutableMapping[str, str]:
        """Return the headers sent with every request."""

    def request(self, method: str, url: str, *, params: Mapping[str, Any] | None = None,
                timeout: float | None = None, json: Any = None,
                allow_redirects: bool = False) -> HttpResponse:
        """Send one request and return its response."""

    def close(self) -> None:
        """Close the session's connections."""


class ApiError(exception.HearthException):
    """The API server refused a request; the message is the server's."""

    msg_fmt = "%(message)s"

    def __init__(self, status: int, error_type: str, message: str) -> None:
        self.status = status
        self.remote_type = error_type
        super().__init__(message=message)

    @property
    def error_type(self) -> str:
        """Return the server's error type."""
        return self.remote_type


class ApiUnreachable(exception.HearthException):
    """No API server answers at the URL (nothing listens, or the host is unknown)."""

    msg_fmt = ("Cannot reach the API at %(url)s: %(reason)s. Is hearth-api running there "
               "(--url, $HEARTH_URL)?")


def _reason(error: BaseException) -> str:
    """Return the system's words for a connection error (its innermost OSError's)."""
    pending: list[BaseException | None] = [error]
    seen: set[int] = set()
    while pending:
        cause = pending.pop(0)
        if cause is None or id(cause) in seen:
            continue
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror[0].lower() + cause.strerror[1:]
        pending += [arg for arg in cause.args if isinstance(arg, BaseException)]
        pending += [cause.__cause__, cause.__context__]
    return str(error)


def located_error(location: Mapping[str, Any]) -> exception.StackValidationFailed:
    """Return the validation error the server located (hearth.api.faults.location_of)."""
    return exception.StackValidationFailed(
        location.get("message") or "", error=location.get("error"),
        path=location.get("path"), line=location.get("line"),
        filename=location.get("filename"), column=location.get("column"))


def _path(operation: Operation[..., Any], fields: Mapping[str, str]) -> str:
    """Return the path below the tenant URL: the route with its fields quoted.

    A stack named without its id goes to the stack's lookup route, which
    answers 302 to the canonical one.
    """
    template = operation.tenant_path
    if "{stack_id}" in template and "stack_id" not in fields:
        template = template.replace("/{stack_id}", "", 1)
    return re.sub(r"{(\w+)}", lambda found: urllib.parse.quote(fields[found.group(1)], safe=""),
                  template)


def _requests_session() -> HttpSession:
    """Return a new ``requests.Session`` (imported only when a server is reached over TCP)."""
    # lazy: requests only for --url (the local engine's session is http.client's)
    import requests
    session: HttpSession = requests.Session()
    return session


class HttpTransport:
    """Carry a backend's calls to ``url`` (``http://host:port/v1/{project}``) with ``token``."""

    poll_interval = HTTP_POLL_INTERVAL

    def __init__(self, url: str, token: str | None = None,
                 session: HttpSession | None = None) -> None:
        self.url = url.rstrip("/")
        self.session = session if session is not None else _requests_session()
        self.session.headers.update({"Accept": "application/json",
                                     "User-Agent": "hearth-stackctl"})
        if token:
            self.session.headers["X-Auth-Token"] = token

    def call(self, operation: Operation[..., Any], arguments: dict[str, Any]) -> Any:
        """Send the operation's request for ``arguments``; return its answer as the result."""
        known = operation.answer.known(arguments)
        if known is not None:
            return known
        wire = wire_request(operation, arguments)
        try:
            url, response = self._send(
                operation.method, self.url + _path(operation, wire.fields), wire.query,
                wire.body, follow=operation.answer.status not in REDIRECTS)
        except ApiError as error:
            if error.status == 404 and operation.policy.local_only:
                raise exception.NotSupported(
                    feature=f"{operation.policy.local_only} over --url") from None
            raise
        body = None
        if response.status_code != 204 and response.content:
            try:
                body = response.json()
            except ValueError:
                body = response.content
        return operation.answer.read(Exchange(url, response.status_code, response.headers, body,
                                              arguments))

    def _send(self, method: str, url: str, query: Mapping[str, Any] | None, body: Any,
              follow: bool = True) -> tuple[str, HttpResponse]:
        """Return the final URL and the response of a request (sent again at a redirect)."""
        # requests is loaded when the session is its own; the local engine's Unix-socket
        # session needs none, and stackctl's quick commands must not pay for importing it
        requests = sys.modules.get("requests")
        unreachable = (requests.ConnectionError,) if requests is not None else ()
        try:
            response = self.session.request(method, url, params=query or None,
                                            timeout=REQUEST_TIMEOUT, json=body,
                                            allow_redirects=False)
        except unreachable as error:
            raise ApiUnreachable(url=self.url, reason=_reason(error)) from None
        location = response.headers.get("Location")
        if response.status_code in REDIRECTS and follow and location:
            return self._send(method, location, None, body)
        if response.status_code >= 400:
            raise self._error(response)
        return url, response

    @staticmethod
    def _error(response: HttpResponse) -> exception.HearthException:
        try:
            error = response.json()["error"]
            location = response.headers.get(LOCATION_HEADER)
            if location:
                return located_error(json.loads(location))
            return ApiError(response.status_code, error.get("type", ""), error["message"])
        except (ValueError, KeyError, TypeError):
            return ApiError(response.status_code, "HTTPError",
                            f"HTTP {response.status_code}: {response.text[:200]}")

    def sleep(self, seconds: float) -> None:
        """Wait between two polls."""
        time.sleep(seconds)

    def settle(self, stack_identity: str) -> None:
        """Do nothing: the server's engine runs the action, not this process."""

    def close(self) -> None:
        """Close the HTTP session."""
        self.session.close()
