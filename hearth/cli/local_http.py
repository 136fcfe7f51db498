"""HTTP over a Unix socket, for stackctl's local engine (standard library only).

:class:`UnixSession` answers the few calls :class:`~hearth.cli.backend_http.HttpTransport`
makes of a ``requests.Session`` (``request``, ``get``, ``headers``,
``close``) on :mod:`http.client`, whose import costs a few milliseconds
where ``requests`` costs a tenth of a second: stackctl pays it on every
command.  One keep-alive connection serves every request of a command.
"""

from __future__ import annotations

import http.client
import json as jsonlib
import socket
import urllib.parse
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hearth.api.operation import Headers

#: Errors that mean the server closed or never opened the connection: the request
#: was not served, so it is sent again once on a new connection.
NOT_SERVED = (ConnectionRefusedError, FileNotFoundError, http.client.RemoteDisconnected,
              ConnectionResetError, BrokenPipeError)


class UnixConnection(http.client.HTTPConnection):
    """An HTTP connection to a server listening on a Unix socket."""

    def __init__(self, socket_path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.socket_path = socket_path

    def connect(self) -> None:
        """Connect to the socket instead of a host and port."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


class UnixResponse:
    """What HttpTransport reads of a response: status, headers, body."""

    def __init__(self, status_code: int, headers: Headers, content: bytes) -> None:
        self.status_code = status_code
        self.headers = headers
        self.content = content

    @property
    def text(self) -> str:
        """Return the body as text."""
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        """Return the body parsed as JSON (ValueError when it is not)."""
        return jsonlib.loads(self.content)


class UnixSession:
    """A minimal ``requests.Session`` stand-in speaking HTTP/1.1 on a Unix socket.

    ``reconnect`` is called when the server is gone (refused, closed): it
    returns the socket path to use from then on (a new server's), and the
    request is sent again once.
    """

    def __init__(self, socket_path: str, timeout: float,
                 reconnect: Callable[[], str] | None = None) -> None:
        self.socket_path = socket_path
        self.timeout = timeout
        self.reconnect = reconnect
        self.headers: dict[str, str] = {}
        self._connection: UnixConnection | None = None

    def request(self, method: str, url: str, params: Mapping[str, Any] | None = None,
                timeout: float | None = None, json: Any = None,
                allow_redirects: bool = False) -> UnixResponse:
        """Send one request; ``url`` may be absolute (only its path and query count)."""
        parts = urllib.parse.urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        if params:
            target += ("&" if parts.query else "?") + urllib.parse.urlencode(params, doseq=True)
        headers = dict(self.headers)
        body = None
        if json is not None:
            body = jsonlib.dumps(json).encode("utf-8")
            headers["Content-Type"] = "application/json"
        try:
            return self._send(method, target, body, headers)
        except NOT_SERVED:
            self.close()
            if self.reconnect is None:
                raise
            self.socket_path = self.reconnect()
            return self._send(method, target, body, headers)

    def get(self, url: str, **kwargs: Any) -> UnixResponse:
        """Send a GET request."""
        return self.request("GET", url, **kwargs)

    def _send(self, method: str, target: str, body: bytes | None,
              headers: dict[str, str]) -> UnixResponse:
        if self._connection is None:
            self._connection = UnixConnection(self.socket_path, self.timeout)
        connection = self._connection
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            content = response.read()
        except BaseException:
            # interrupted (Ctrl-C) or failed mid-request: the connection's state is
            # unknown, so the next request opens a new one
            self.close()
            raise
        if response.will_close:
            self.close()
        return UnixResponse(response.status, response.headers, content)

    def close(self) -> None:
        """Close the connection (the next request opens another)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
