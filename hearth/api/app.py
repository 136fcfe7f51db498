"""Build the WSGI application: routes derived from the operations table, middleware, errors.

:data:`ROUTES` is the whole public API surface, grouped by path from
:data:`hearth.api.operations.OPERATIONS`; the lookup routes (a stack named
by its name or id alone, answering 302) are derived from the canonical
stack routes, and the OpenAPI document is built from the same routes.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

import falcon

from hearth.api import auth, faults, lookup, operations
from hearth.api.operation import Operation
from hearth.api.routing import JSON_TYPE, Route, RouteResource


def routes_of(declared: Iterable[Operation[Any, Any]]) -> tuple[Route, ...]:
    """Return the routes of ``declared`` operations, one per path, in the table's order."""
    paths: dict[str, list[Operation[Any, Any]]] = {}
    for operation in declared:
        paths.setdefault(operation.path, []).append(operation)
    return tuple(Route(path, tuple(ops)) for path, ops in paths.items())


def _lookups(canonical: Iterable[Operation[Any, Any]]) -> list[Operation[Any, Any]]:
    """Return the 302 lookups of the canonical stack operations (their main ones)."""
    return [operations.lookup_of(op) for op in canonical
            if op.path.startswith(operations.STACK_PATH) and op.applies is None]


_PUBLIC = [op for op in operations.OPERATIONS
           if op.policy.local_only is None and op is not operations.Operations.identify_stack]
#: The public API: every operation of the table and the lookups of the stack ones.
ROUTES: tuple[Route, ...] = routes_of([*_PUBLIC, *_lookups(_PUBLIC)])
#: The local engine's routes besides: the operations only it serves.
LOCAL_ROUTES: tuple[Route, ...] = routes_of(
    op for op in operations.OPERATIONS if op.policy.local_only is not None)


def _handle_error(req: falcon.Request, resp: falcon.Response, error: BaseException,
                  params_: dict[str, Any]) -> None:
    """Render any exception as Heat's error body with the status of the faults table."""
    status, body = faults.fault_for(error)
    _write_error(resp, status, body)
    location = faults.location_of(error)
    if location is not None:
        resp.set_header(faults.LOCATION_HEADER, location)


def _handle_http_error(req: falcon.Request, resp: falcon.Response, error: falcon.HTTPError,
                       params_: dict[str, Any]) -> None:
    """Render Falcon's own errors (unknown URL, 405) as Heat's error body."""
    status = error.status_code
    name = {404: "NotFound", 405: "MethodNotAllowed"}.get(status, type(error).__name__)
    message = error.description or error.title or faults.TITLES.get(status, ("",))[0]
    if status == 404 and not error.description:
        message = f"The resource could not be found: {req.path}"
    if status == 405 and not error.description:
        message = f"The method {req.method} is not allowed for this resource."
    _write_error(resp, status, faults.error_body(status, name, message))
    for header, value in dict(error.headers or {}).items():
        resp.set_header(header, value)


def _write_error(resp: falcon.Response, status: int, body: dict[str, Any]) -> None:
    resp.status = status
    resp.content_type = JSON_TYPE
    resp.text = json.dumps(body)


def build_app(service: Any, verify: auth.Verifier | None = None, noauth: bool = False,
              local: bool = False) -> falcon.App[falcon.Request, falcon.Response]:
    """Return the WSGI application serving :data:`ROUTES` with ``service`` (an EngineService).

    ``local``: the user's own engine, which also serves :data:`LOCAL_ROUTES`.
    """
    authentication = auth.AuthMiddleware(verify, noauth=noauth)
    app = falcon.App(middleware=[authentication])
    app.req_options.keep_blank_qs_values = True
    app.req_options.strip_url_path_trailing_slash = True
    for route in ROUTES + (LOCAL_ROUTES if local else ()):
        app.add_route(route.path, RouteResource(route, service))
    app.add_sink(functools.partial(lookup.arn_redirect,
                                   authenticate=authentication.authenticate),
                 lookup.ARN_SINK_PREFIX)
    app.add_error_handler(Exception, _handle_error)
    app.add_error_handler(falcon.HTTPError, _handle_http_error)
    return app
