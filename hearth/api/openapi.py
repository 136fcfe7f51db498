"""The OpenAPI 3.1 document of the API, built from the operations table (its routes).

``python -m hearth.api.openapi`` prints the document; ``openapi.json`` next
to this module is that output (a test keeps the two equal) and is what
``GET /v1/openapi.json`` serves.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from typing import Any

from hearth import __version__
from hearth.api import faults, params
from hearth.api.app import ROUTES
from hearth.api.operation import Operation
from hearth.api.routing import Route
from hearth.api.schemas import REQUESTS, RESPONSES

DOCUMENT_PATH = os.path.join(os.path.dirname(__file__), "openapi.json")

_KIND_SCHEMAS: dict[params.Kind, dict[str, Any]] = {
    params.Kind.STR: {"type": "string"},
    params.Kind.BOOL: {"type": "boolean"},
    params.Kind.INT: {"type": "integer", "minimum": 0, "maximum": params.MAX_INTEGER},
    params.Kind.LIST: {"type": "array", "items": {"type": "string"}},
    params.Kind.FILTER: {"type": "array", "items": {"type": "string"}},
    params.Kind.CSV: {"type": "string", "description": "Comma-separated list."},
}
_EXPLODED = (params.Kind.LIST, params.Kind.FILTER)
_ERROR_STATUSES = (400, 401, 403, 404, 409)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _query_parameter(name: str, param: params.Param) -> dict[str, Any]:
    schema = dict(_KIND_SCHEMAS[param.kind])
    if param.choices and "items" in schema:
        schema["items"] = {**schema["items"], "enum": list(param.choices)}
    elif param.choices:
        schema["enum"] = list(param.choices)
    return {"name": name, "in": "query", "required": False, "description": param.help,
            "schema": schema, "explode": param.kind in _EXPLODED}


def _path_parameters(path: str) -> list[dict[str, Any]]:
    return [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in re.findall(r"{(\w+)}", path)]


def _main(route: Route) -> list[Operation[Any, Any]]:
    """Return a route's main operations (a variant chosen by the body is not documented)."""
    return [operation for operation in route.operations if operation.applies is None]


def _operation(route: Route, operation: Operation[Any, Any]) -> dict[str, Any]:
    answer = operation.answer
    success: dict[str, Any] = {"description": operation.summary}
    if answer.schema:
        success["content"] = {"application/json": {"schema": _ref(answer.schema)}}
    for media_type in answer.media_types:
        success.setdefault("content", {})[media_type] = {"schema": {"type": "string"}}
    if answer.status == 302:
        success["headers"] = {"Location": {"schema": {"type": "string"},
                                           "description": "The canonical URL."}}
    responses = {str(answer.status): success}
    for status in _ERROR_STATUSES:
        responses[str(status)] = {"description": faults.TITLES[status][0],
                                  "content": {"application/json": {"schema": _ref("Error")}}}
    document: dict[str, Any] = {
        "summary": operation.summary,
        "operationId": _operation_id(route, operation),
        "parameters": _path_parameters(route.path) + [
            _query_parameter(name, param) for name, param in sorted(
                (operation.query or {}).items())],
        "responses": responses,
    }
    if operation.policy.authenticated:
        document["security"] = [{"token": []}]
    body_name = operation.body
    if body_name:
        document["requestBody"] = {"required": body_name != "Signal", "content": {
            "application/json": {"schema": _ref(body_name)}}}
    return document


def _link_name(route: Route, operation: Operation[Any, Any]) -> str:
    """Return an OpenAPI link name for ``operation`` (letters, digits, ``_``)."""
    words = re.findall(r"[A-Za-z0-9]+", route.path.removeprefix("/v1/{tenant_id}"))
    return "_".join([operation.method, *words])


def _links(route: Route, producer: Operation[Any, Any],
           routes: tuple[Route, ...]) -> dict[str, dict[str, Any]]:
    """Return the links of ``producer``'s success answer to the operations it feeds.

    An operation is fed when ``producer`` provides at least one of its path
    parameters and every other one is a path parameter of ``producer``'s own
    request (``$request.path.<name>``).
    """
    known = {name: f"$request.path.{name}" for name in re.findall(r"{(\w+)}", route.path)}
    known.update(producer.provides)
    links: dict[str, dict[str, Any]] = {}
    for target in routes:
        needed = re.findall(r"{(\w+)}", target.path)
        if not set(needed) & set(producer.provides) or not set(needed) <= set(known):
            continue
        for operation in _main(target):
            if (target.path, operation.method) == (route.path, producer.method):
                continue
            links[_link_name(target, operation)] = {
                "operationId": _operation_id(target, operation),
                "parameters": {name: known[name] for name in needed}}
    return links


def _operation_id(route: Route, operation: Operation[Any, Any]) -> str:
    return f"{operation.method.lower()}:{route.path}"


def build_document(routes: tuple[Route, ...] | None = None) -> dict[str, Any]:
    """Return the OpenAPI document of ``routes`` (default: the application's).

    Operations whose ``provides`` name path parameters get OpenAPI links
    from their success answer to every operation needing those parameters
    (a client, or a stateful fuzzer, follows them from a created stack to
    its resources, events and outputs).
    """
    if routes is None:
        routes = ROUTES
    paths = {route.path: {op.method.lower(): _operation(route, op) for op in _main(route)}
             for route in routes}
    for route in routes:
        for operation in _main(route):
            links = _links(route, operation, routes) if operation.provides else {}
            if links:
                paths[route.path][operation.method.lower()]["responses"][
                    str(operation.answer.status)]["links"] = links
    return {
        "openapi": "3.1.0",
        "info": {"title": "Hearth orchestration API (Heat v1 compatible)",
                 "version": __version__},
        "paths": paths,
        "components": {
            "schemas": {**REQUESTS, **RESPONSES},
            "securitySchemes": {"token": {"type": "apiKey", "in": "header",
                                          "name": "X-Auth-Token"}},
        },
    }


@functools.lru_cache(maxsize=1)
def load_document() -> dict[str, Any]:
    """Return the shipped document (``openapi.json``)."""
    with open(DOCUMENT_PATH, encoding="utf-8") as handle:
        document: dict[str, Any] = json.load(handle)
    return document


def render_document() -> str:
    """Return the document as the text stored in ``openapi.json``."""
    return json.dumps(build_document(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(render_document())
