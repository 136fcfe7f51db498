"""Requests to a WSGI application in this process, as a client session makes them.

:class:`WsgiSession` answers the calls the API's HTTP client
(:class:`~hearth.cli.backend_http.HttpTransport`) makes of a
``requests.Session`` (``request``, ``get``, ``headers``, ``close``) by
calling the API's WSGI application directly: the console inside
``hearth-api`` reaches the API through its routes, policy and errors like
any client, without a socket.
"""

from __future__ import annotations

import io
import json as jsonlib
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from requests.structures import CaseInsensitiveDict

from hearth.cli.local_http import UnixResponse

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Any]


class WsgiSession:
    """Send each request to ``app`` in-process; ``host`` is the Host the API sees."""

    def __init__(self, app: Wsgi, host: str = "localhost") -> None:
        self.app = app
        self.host = host
        self.headers: dict[str, str] = {}

    def request(self, method: str, url: str, params: Mapping[str, Any] | None = None,
                timeout: float | None = None, json: Any = None,
                allow_redirects: bool = False) -> UnixResponse:
        """Call the application once; return its status, headers and body."""
        parts = urllib.parse.urlsplit(url)
        query = parts.query
        if params:
            extra = urllib.parse.urlencode(params, doseq=True)
            query = f"{query}&{extra}" if query else extra
        body = b"" if json is None else jsonlib.dumps(json).encode("utf-8")
        environ = self._environ(method, parts.path, query, body)
        answer: dict[str, Any] = {}

        def start_response(status: str, headers: list[tuple[str, str]],
                           exc_info: Any = None) -> Callable[[bytes], None]:
            answer["status"] = int(status.split(" ", 1)[0])
            # header names are case-insensitive (Falcon sends them in lower case)
            answer["headers"] = CaseInsensitiveDict(headers)
            return lambda _data: None

        chunks = self.app(environ, start_response)
        try:
            content = b"".join(chunks)
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        return UnixResponse(answer["status"], answer["headers"], content)

    def get(self, url: str, **kwargs: Any) -> UnixResponse:
        """Send a GET request."""
        return self.request("GET", url, **kwargs)

    def close(self) -> None:
        """Nothing to close: there is no connection."""

    def _environ(self, method: str, path: str, query: str, body: bytes) -> dict[str, Any]:
        environ: dict[str, Any] = {
            "REQUEST_METHOD": method,
            # WSGI's PATH_INFO is the decoded path, its bytes as latin-1
            "PATH_INFO": urllib.parse.unquote_to_bytes(path).decode("latin-1"),
            "SCRIPT_NAME": "", "QUERY_STRING": query, "SERVER_NAME": self.host,
            "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": self.host,
            "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body),
            "wsgi.errors": io.StringIO(), "wsgi.multithread": True,
            "wsgi.multiprocess": False, "wsgi.run_once": False,
            "CONTENT_LENGTH": str(len(body)),
        }
        if body:
            environ["CONTENT_TYPE"] = "application/json"
        for name, value in self.headers.items():
            key = name.upper().replace("-", "_")
            if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                environ[key] = value
            else:
                environ[f"HTTP_{key}"] = value
        return environ
