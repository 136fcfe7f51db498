"""Routes as data, and the one Falcon resource that serves any route.

A :class:`Route` is a URI template with its :class:`Operation` records; an
operation names its handler, the query keys it accepts (a spec from
:mod:`hearth.api.params`), whether it reads a JSON body, its success status
and the schema of its answer (for the OpenAPI document).  Handlers are plain
functions ``handler(request: ApiRequest) -> Any``: the returned value is the
JSON body of a 200, or a :class:`Reply` for other statuses and headers.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import falcon

from hearth.api import limits, params
from hearth.common import exception
from hearth.common.context import RequestContext

JSON_TYPE = "application/json; charset=UTF-8"


@dataclass
class Reply:
    """A handler's answer when it is not a plain 200 with a JSON body."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    empty: bool = False
    #: media type of a body that is not JSON (``body`` is then text or bytes, sent as is)
    media_type: str | None = None


@dataclass
class ApiRequest:
    """What a handler gets: who asks, the engine, and the parsed request."""

    ctx: RequestContext
    service: Any
    path: dict[str, str]
    query: dict[str, Any]
    body: Any
    raw: falcon.Request

    @property
    def base(self) -> str:
        """Return the tenant URL (``http://host:port/v1/{tenant}``)."""
        return f"{self.raw.prefix}/v1/{self.path['tenant_id']}"

    @property
    def stack_identity(self) -> str:
        """Return ``name/id`` of the stack named in a canonical URL."""
        return f"{self.path['stack_name']}/{self.path['stack_id']}"

    def body_object(self) -> dict[str, Any]:
        """Return the body as a JSON object (an empty body is ``{}``); else BadRequest."""
        if self.body is None:
            return {}
        if not isinstance(self.body, dict):
            raise exception.BadRequest(
                message=f"The request body must be a JSON object, not "
                        f"{type(self.body).__name__}.")
        return self.body


Handler = Callable[[ApiRequest], Any]


@dataclass(frozen=True)
class Operation:
    """One method of one route."""

    method: str
    handler: Handler
    summary: str
    query: params.QuerySpec | None = field(default_factory=dict)
    body: Mapping[str, Any] | None = None      # JSON schema of the request body
    status: int = 200
    response: str | None = None                # schema name in the OpenAPI document
    #: media types the answer may have besides JSON (chosen by the handler)
    media_types: tuple[str, ...] = ()
    authenticated: bool = True
    #: also accepts the signal token of the resource in the path (wait condition handles)
    signal_token: bool = False
    #: path parameter -> OpenAPI runtime expression of its value in a success answer
    #: (``$response.body#/stack/id``): the OpenAPI links to the operations needing it
    provides: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Route:
    """A URI template and its operations."""

    path: str
    operations: tuple[Operation, ...]

    def operation(self, method: str) -> Operation | None:
        """Return the operation for an HTTP method, or None."""
        return next((op for op in self.operations if op.method == method), None)


def render(resp: falcon.Response, result: Any) -> None:
    """Write a handler's result (a body or a Reply) into the Falcon response."""
    reply = result if isinstance(result, Reply) else Reply(body=result)
    resp.status = reply.status
    for name, value in reply.headers.items():
        resp.set_header(name, value)
    if reply.empty:
        return
    if reply.media_type is not None:
        resp.content_type = reply.media_type
        resp.data = reply.body if isinstance(reply.body, bytes) else reply.body.encode("utf-8")
        return
    resp.content_type = JSON_TYPE
    resp.text = json.dumps(reply.body)


class RouteResource:
    """The Falcon resource of one route: parse, call the handler, render."""

    def __init__(self, route: Route, service: Any) -> None:
        self.route = route
        self.service = service
        for op in route.operations:
            setattr(self, f"on_{op.method.lower()}", self._responder(op))
        allowed = ", ".join(sorted({op.method for op in route.operations} | {"OPTIONS"}))

        def on_options(req: falcon.Request, resp: falcon.Response, **_: str) -> None:
            resp.status = 204
            resp.set_header("Allow", allowed)
        self.on_options = on_options

    def _responder(self, op: Operation) -> Callable[..., None]:
        def respond(req: falcon.Request, resp: falcon.Response, **path: str) -> None:
            query = params.parse_query(op.query, req.query_string)
            body = None
            if op.body is not None:
                body = limits.read_json(req.bounded_stream, req.content_length)
                validate_body(op.body, body)
            api_request = ApiRequest(ctx=req.context.hearth, service=self.service,
                                     path=path, query=query, body=body, raw=req)
            from hearth.db.session import observing
            reading = observing() if req.method in ("GET", "HEAD") else contextlib.nullcontext()
            with reading:
                render(resp, op.handler(api_request))
        return respond


def _integer(checker: Any, value: Any) -> bool:
    """Return whether ``value`` is a JSON integer: written without a fraction (5, not 5.0)."""
    return isinstance(value, int) and not isinstance(value, bool)


@functools.cache
def _validator_class() -> Any:
    import jsonschema
    base = jsonschema.Draft202012Validator
    return jsonschema.validators.extend(
        base, type_checker=base.TYPE_CHECKER.redefine("integer", _integer))


def validate_body(schema: Mapping[str, Any], body: Any) -> None:
    """Raise BadRequest naming the first place where ``body`` breaks ``schema``.

    A sub-schema's ``x-messages`` table gives the message of its failing
    keyword (``{key}``: the field, ``{value}``: the value sent, ``{extra}``:
    keys not allowed); otherwise the message says where and what jsonschema found.
    """
    import jsonschema
    error = jsonschema.exceptions.best_match(_validator_class()(schema).iter_errors(body))
    if error is None:
        return
    path = list(error.absolute_path)
    template = error.schema.get("x-messages", {}).get(error.validator)
    if template:
        extra = ""
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            extra = ", ".join(sorted(set(error.instance) - set(error.schema.get("properties", {}))))
        raise exception.BadRequest(message=template.format(
            key=path[-1] if path else "", value=error.instance, extra=extra))
    where = "/".join(str(p) for p in path)
    prefix = f"Invalid request body at '{where}'" if where else "Invalid request body"
    raise exception.BadRequest(message=f"{prefix}: {error.message}")
