"""Resource handlers: list, show, metadata, signal, mark unhealthy."""

from __future__ import annotations

from typing import Any

from hearth.api import links, params
from hearth.api.routing import ApiRequest


def _linked(request: ApiRequest, resource: dict[str, Any]) -> dict[str, Any]:
    return links.with_resource_links(request.base, request.path["stack_name"],
                                     request.path["stack_id"], resource)


def index(request: ApiRequest) -> dict[str, Any]:
    """GET .../resources: summaries, nested ones down to ``nested_depth``."""
    query = request.query
    resources = request.service.list_resources(
        request.ctx, request.stack_identity, nested_depth=query.get("nested_depth", 0),
        with_detail=query.get("with_detail", False),
        filters=params.split_filters(query, params.RESOURCE_LIST) or None)
    return {"resources": [_linked(request, r) for r in resources]}


def show(request: ApiRequest) -> dict[str, Any]:
    """GET .../resources/{name}: one resource with its attributes."""
    resource = request.service.show_resource(request.ctx, request.stack_identity,
                                             request.path["resource_name"],
                                             with_attr=request.query.get("with_attr"))
    return {"resource": _linked(request, resource)}


def metadata(request: ApiRequest) -> dict[str, Any]:
    """GET .../resources/{name}/metadata: ``{"metadata": {...}}``."""
    return {"metadata": request.service.resource_metadata(
        request.ctx, request.stack_identity, request.path["resource_name"])}


def signal(request: ApiRequest) -> None:
    """POST .../resources/{name}/signal: deliver the body as the signal's details."""
    request.service.resource_signal(request.ctx, request.stack_identity,
                                    request.path["resource_name"], details=request.body)


def mark_unhealthy(request: ApiRequest) -> None:
    """PATCH .../resources/{name}: set the resource CHECK_FAILED (or back)."""
    body = request.body
    request.service.resource_mark_unhealthy(
        request.ctx, request.stack_identity, request.path["resource_name"],
        params.body_bool("mark_unhealthy", body["mark_unhealthy"]),
        body.get("resource_status_reason"))
