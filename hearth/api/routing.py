"""Routes built from the operations table, and the one Falcon resource that serves any route.

A :class:`Route` is a URI template with the operations
(:class:`~hearth.api.operation.Operation`) of its methods.  Every request is
served the same way (:func:`serve`): the query is parsed by the operation's
spec, the body read within limits and checked against its schema, the
policy applied, each argument read as the table declares, the service
method called, and its result turned into Heat's answer.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import falcon
import jsonschema

from hearth.api import limits, params
from hearth.api.operation import CATALOG, JOBS, ApiRequest, Operation, Reply
from hearth.api.schemas import REQUESTS
from hearth.common import exception
from hearth.db.session import observing

JSON_TYPE = "application/json; charset=UTF-8"


@dataclass(frozen=True)
class Route:
    """A URI template and its operations (a method's variants after its main operation)."""

    path: str
    operations: tuple[Operation[..., Any], ...]

    def operation(self, method: str) -> Operation[..., Any] | None:
        """Return the main operation for an HTTP method (the one without ``applies``), or None."""
        return next((op for op in self.operations
                     if op.method == method and op.applies is None), None)

    def chosen(self, method: str, body: Any) -> Operation[..., Any]:
        """Return the variant of ``method`` the body asks for, else its main operation."""
        for op in self.operations:
            if op.method == method and op.applies is not None and op.applies(body):
                return op
        main = self.operation(method)
        if main is None:
            raise LookupError(f"{method} {self.path} has variants only")
        return main


def render(resp: falcon.Response, result: Any) -> None:
    """Write an answer (a body or a Reply) into the Falcon response."""
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


def part_of(service: Any, part: str) -> Any:
    """Return the service of an operation's ``part``: the engine's, its catalog or its jobs'."""
    if part == JOBS:
        return service.jobs
    if part == CATALOG:
        return service.catalog
    return service


def serve(request: ApiRequest) -> Any:
    """Serve one request of its operation: policy, arguments, the service call, the answer."""
    operation = request.operation
    operation.policy.check(request)
    arguments = {arg.name: value for arg in operation.args
                 if (value := arg.read(request)) is not None or arg.required}
    arguments.update(operation.fixed)
    result = None
    if operation.select is not None:
        target = part_of(request.service, operation.part)
        method = operation.bound(target, request.ctx)

        def call() -> Any:
            return method(**arguments)
        result = call() if operation.runs is None else operation.runs(call)
    return operation.answer.reply(request, result, arguments)


class RouteResource:
    """The Falcon resource of one route: parse the request, serve its operation, render."""

    def __init__(self, route: Route, service: Any) -> None:
        self.route = route
        self.service = service
        for method in {op.method for op in route.operations}:
            setattr(self, f"on_{method.lower()}", self._responder(method))
        allowed = ", ".join(sorted({op.method for op in route.operations} | {"OPTIONS"}))

        def on_options(req: falcon.Request, resp: falcon.Response, **_: str) -> None:
            resp.status = 204
            resp.set_header("Allow", allowed)
        self.on_options = on_options

    def _responder(self, method: str) -> Callable[..., None]:
        main = self.route.operation(method)
        assert main is not None, f"{method} {self.route.path} has variants only"

        def respond(req: falcon.Request, resp: falcon.Response, **path: str) -> None:
            query = params.parse_query(main.query, req.query_string)
            body = None
            if main.body is not None:
                body = limits.read_json(req.bounded_stream, req.content_length)
                validate_body(REQUESTS[main.body], body)
            api_request = ApiRequest(operation=self.route.chosen(method, body),
                                     ctx=req.context.hearth, service=self.service,
                                     path=path, query=query, body=body, raw=req)
            reading = observing() if req.method in ("GET", "HEAD") else contextlib.nullcontext()
            with reading:
                render(resp, serve(api_request))
        return respond


def _integer(checker: Any, value: Any) -> bool:
    """Return whether ``value`` is a JSON integer: written without a fraction (5, not 5.0)."""
    return isinstance(value, int) and not isinstance(value, bool)


@functools.cache
def _validator_class() -> Any:
    base = jsonschema.Draft202012Validator
    return jsonschema.validators.extend(
        base, type_checker=base.TYPE_CHECKER.redefine("integer", _integer))


def validate_body(schema: Mapping[str, Any], body: Any) -> None:
    """Raise BadRequest naming the first place where ``body`` breaks ``schema``.

    A sub-schema's ``x-messages`` table gives the message of its failing
    keyword (``{key}``: the field, ``{value}``: the value sent, ``{extra}``:
    keys not allowed); otherwise the message says where and what jsonschema found.
    """
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
